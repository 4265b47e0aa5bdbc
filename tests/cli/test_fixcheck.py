"""fixcheck: a fix is kept only when the fixed text parses and the finding it fixes is gone."""

from __future__ import annotations

import logging

import pytest
from cli_helpers import CONFLICT, TARGET

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.edits import override_in_dict
from hf_cache_lint.engine.findings import Edit, Finding, Fix, Severity, Span
from hf_cache_lint.engine.versions import Target
from hf_cache_lint.fixcheck import (
    Verifier,
    choose,
    compiles,
    conflicts,
    file_recheck,
    notebook_recheck,
    still_parses,
)

CTX = Context(target=Target.of(TARGET))
RECHECK = file_recheck("demo.py", None, CTX)


def finding() -> Finding:
    (f,) = check_source(CONFLICT, "demo.py", context=CTX).findings
    return f


def test_the_rule_fixes_pass() -> None:
    f = finding()
    verifier = Verifier([CONFLICT], RECHECK)
    assert [verifier.problem(0, f, fix) for fix in f.fixes] == [None] * len(f.fixes)
    assert verifier.checked == len(f.fixes)
    verifier.keep(0, f)
    assert verifier.checked == len(f.fixes)  # answered from memory the second time


def test_a_fix_that_does_not_parse_is_dropped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    f = finding()
    line = CONFLICT.splitlines()[3]
    at = line.index(")")  # `DynamicCache()cache_implementation=None`: the old comma-less insertion
    bad = Fix("Set `cache_implementation=None` in this call", (Edit(Span.of(4, at + 1, 4, at + 1), "x=None"),),
              preferred=True)
    with caplog.at_level(logging.WARNING, logger="hf_cache_lint"):
        kept = Verifier([CONFLICT], RECHECK, path="demo.py").keep(0, Finding(**{**f.__dict__, "fixes": (bad, *f.fixes[1:])}))
    assert bad not in kept.fixes and kept.fixes == f.fixes[1:]
    assert "does not parse" in caplog.text and "demo.py:4" in caplog.text


def test_a_fix_that_leaves_the_finding_is_dropped() -> None:
    f = finding()
    line = CONFLICT.splitlines()[3]
    at = line.index("out")
    harmless = Fix("Add a comment", (Edit(Span.of(4, at, 4, at), "# note\n"),))
    assert Verifier([CONFLICT], RECHECK).problem(0, f, harmless) == "the finding is still reported after the fix"


def test_edits_that_do_not_fit_the_text_are_dropped() -> None:
    f = finding()
    for span in (Span.of(9, 0, 9, 0), Span.of(4, 500, 4, 500)):
        fix = Fix("x", (Edit(span, "None"),))
        assert Verifier([CONFLICT], RECHECK).problem(0, f, fix) == "its edits do not fit the text"


def test_a_file_that_does_not_parse_elsewhere_still_gets_fixes_that_add_no_error() -> None:
    broken = CONFLICT + "def half(:\n"
    (f,) = check_source(broken, "demo.py", context=CTX).findings
    assert not compiles(broken)
    verifier = Verifier([broken], RECHECK)
    assert verifier.problem(0, f, f.fixes[0]) is None
    line = broken.splitlines()[3]
    at = line.index(")")
    bad = Fix("bad", (Edit(Span.of(4, at + 1, 4, at + 1), "x=None"),))
    assert verifier.problem(0, f, bad) == "the fixed code does not parse"


def test_notebook_cells_parse_alone_with_magics_and_top_level_await() -> None:
    assert compiles("%time x = 1\nawait thing()\n!ls\n", notebook=True)
    assert not compiles("await thing()\n")
    cells = ["%%bash\necho hi\n", CONFLICT]
    recheck = notebook_recheck("nb.ipynb", None, CTX)
    ((cell, f),) = [(c, x) for c, x in recheck(cells) if x.code == "HFC001"]
    assert cell == 1
    assert Verifier(cells, recheck, notebook=True).problem(1, f, f.fixes[0]) is None


def test_still_parses_rejects_an_error_written_by_the_fix() -> None:
    old = "x = (\n"
    new = "y = 1 +\nx = (\n"
    assert not still_parses(old, new, [(0, 0, 8)])


def test_touching_edits_conflict_and_wait() -> None:
    def edit(a: int, b: int) -> Edit:
        return Edit(Span.of(1, a, 1, b), "")

    assert conflicts(edit(0, 5), edit(5, 7)) and conflicts(edit(3, 3), edit(3, 3)) and conflicts(edit(2, 6), edit(4, 4))
    assert not conflicts(edit(0, 4), edit(5, 7))
    f = Finding("HFC001", "n", "m", Severity.ERROR, Span.of(1, 0, 1, 1))
    fixes = [Fix(str(i), (edit(a, b),), preferred=True) for i, (a, b) in enumerate([(0, 5), (5, 7), (8, 9)])]
    chosen = choose([(0, f, x) for x in fixes], lambda c, fi, x: x.title != "2")
    assert [x.title for _, _, x in chosen] == ["0"]


def test_a_dict_override_is_parenthesised_only_when_needed() -> None:
    text = "f(**kw, **a if b else c)\n"
    assert override_in_dict(text, Span.of(1, 4, 1, 6), "k", "None").content == '{**kw, "k": None}'
    assert override_in_dict(text, Span.of(1, 10, 1, 23), "k", "None").content == '{**(a if b else c), "k": None}'


def test_a_recheck_that_fails_drops_the_fix_and_nothing_else() -> None:
    f = finding()

    def broken(cells: object) -> list[tuple[int, Finding]]:
        raise KeyError("boom")

    reason = Verifier([CONFLICT], broken).problem(0, f, f.fixes[0])
    assert reason is not None and "could not be verified" in reason


@pytest.mark.parametrize(("text", "expected"), [
    ('#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n"""Doc."""\nx = 1\n',
     '#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n"""Doc."""\nfrom transformers import DynamicCache\nx = 1\n'),
    ("import os", "import os\nfrom transformers import DynamicCache"),
    ("import os\nx = 1\n", "import os\nfrom transformers import DynamicCache\nx = 1\n"),
])
def test_an_added_import_keeps_the_shebang_cookie_and_docstring_first(text: str, expected: str) -> None:
    from hf_cache_lint.engine.edits import transformers_name
    from hf_cache_lint.engine.interp import parse
    from hf_cache_lint.engine.text import apply_edits

    name, edit = transformers_name(parse(text), "DynamicCache")
    assert name == "DynamicCache" and edit is not None
    assert apply_edits(text, [edit]) == expected
