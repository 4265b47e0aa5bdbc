"""fixcheck: a fix is kept only when the fixed text parses and the finding it fixes is gone."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest
from cli_helpers import CONFLICT, TARGET

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Severity, Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.output.edits import override_in_dict
from hf_cache_lint.fixcheck import (
    Verifier,
    choose,
    compiles,
    conflicts,
    file_recheck,
    notebook_recheck,
    still_parses,
    verified,
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
    from hf_cache_lint.engine.interpreter.interp import parse
    from hf_cache_lint.engine.output.edits import transformers_name
    from hf_cache_lint.engine.text.text import apply_edits

    name, edit = transformers_name(parse(text), "DynamicCache")
    assert name == "DynamicCache" and edit is not None
    assert apply_edits(text, [edit]) == expected


# -- many fixes at once (Verifier.prime) ----------------------------------------------------------

def functions(n: int) -> str:
    """A module of n functions that each tokenise, generate with a conflict (one HFC001 each) and decode."""
    head = ("from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache\n\n"
            'model = AutoModelForCausalLM.from_pretrained("x")\ntokenizer = AutoTokenizer.from_pretrained("x")\n')
    body = "".join(
        f"\n\ndef case_{i}(prompt):\n"
        '    inputs = tokenizer(prompt, return_tensors="pt")\n'
        '    out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")\n'
        "    return tokenizer.decode(out[0])\n" for i in range(n))
    return head + body


class Counted:
    """A re-check that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, cells: object) -> list[tuple[int, Finding]]:
        self.calls += 1
        return list(RECHECK(cells))  # type: ignore[arg-type]


def conflicts_of(text: str) -> list[Finding]:
    found = [f for f in check_source(text, "demo.py", context=CTX).findings if f.code == "HFC001"]
    assert found and all(len(f.fixes) >= 3 for f in found)
    return found


def test_the_fixes_of_many_findings_are_verified_in_a_few_checks_with_the_answers_of_one_each() -> None:
    text = functions(12)
    found = conflicts_of(text)
    assert len(found) == 12
    counted = Counted()
    batch = Verifier([text], counted)
    batch.prime((0, f, fix) for f in found for fix in f.fixes)
    fixes = sum(len(f.fixes) for f in found)
    assert batch.checked == fixes
    # one check per alternative fix of a finding (the ignore comments need none), not one per fix
    assert counted.calls == batch.rechecks <= max(len(f.fixes) for f in found) - 1
    alone = Verifier([text], RECHECK)
    assert [batch.problem(0, f, x) for f in found for x in f.fixes] == [alone.problem(0, f, x) for f in found
                                                                        for x in f.fixes] == [None] * fixes
    assert batch.checked == fixes and alone.checked == fixes  # the first answered from memory


def test_in_a_batch_a_fix_that_leaves_its_finding_or_does_not_parse_is_still_dropped(
        caplog: pytest.LogCaptureFixture) -> None:
    text = functions(8)
    found = conflicts_of(text)
    lines = text.splitlines()
    items = []
    for k, f in enumerate(found):
        line = f.span.start.line
        extra: tuple[Fix, ...] = ()
        if k == 2:  # a comment above the call: the conflict stays
            extra = (Fix("Add a comment", (Edit(Span.of(line, 4, line, 4), "# note\n    "),)),)
        if k == 5:  # `DynamicCache()x=None`: does not parse
            at = lines[line - 1].index("DynamicCache()") + len("DynamicCache()")
            extra = (Fix("Set `cache_implementation=None` in this call", (Edit(Span.of(line, at, line, at), "x=None"),)),)
        items.append((0, Finding(**{**f.__dict__, "fixes": (*extra, *f.fixes)})))
    counted = Counted()
    with caplog.at_level(logging.WARNING, logger="hf_cache_lint"):
        kept = verified([text], items, counted, path="demo.py")
    assert [f.fixes for _, f in kept] == [f.fixes for f in found]  # only the two bad fixes went
    assert "still reported" in caplog.text and "does not parse" in caplog.text
    assert f"demo.py:{found[2].span.start.line}" in caplog.text and f"demo.py:{found[5].span.start.line}" in caplog.text
    assert counted.calls < sum(len(f.fixes) for _, f in items) // 2


def test_an_edit_several_fixes_share_is_made_once_in_their_batch() -> None:
    text = functions(6)
    found = conflicts_of(text)
    header = Edit(Span.of(1, 0, 1, 0), "import os\n")  # like the import HFC002's fixes add
    items = [(0, Finding(**{**f.__dict__, "fixes": (Fix("With an import", (header, *f.fixes[0].edits)),)}))
             for f in found]
    counted = Counted()
    kept = verified([text], items, counted)
    assert all(len(f.fixes) == 1 for _, f in kept)
    assert counted.calls == 1


def test_choose_takes_the_first_free_fixes_of_thousands_in_order() -> None:
    f = Finding("HFC001", "n", "m", Severity.ERROR, Span.of(1, 0, 1, 1))
    fixes = [Fix(str(i), (Edit(Span.of(1 + i // 2, 0, 1 + i // 2, 3), ""),), preferred=True) for i in range(4000)]
    chosen = choose([(0, f, x) for x in fixes])
    assert [x.title for _, _, x in chosen] == [str(i) for i in range(0, 4000, 2)]


def test_a_keyed_recheck_diff_parses_a_local_change_and_parses_a_spread_one_afresh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import hf_cache_lint.engine.syntax.parsing as parsing
    from hf_cache_lint.engine.interpreter.interp import forget

    text = functions(10)
    found = conflicts_of(text)
    diffs: list[str] = []
    real = parsing.incremental_parse

    def counted(grammar: object, text: str, key: str, lines: list[str] | None = None) -> object:
        diffs.append(key)
        return real(grammar, text, key, lines)

    monkeypatch.setattr(parsing, "incremental_parse", counted)
    key = "demo.py#fixcheck-test"
    try:
        keyed = Verifier([text], file_recheck("demo.py", None, CTX, key=key))
        plain = Verifier([text], RECHECK)
        last = found[-1]
        assert [keyed.problem(0, last, x) for x in last.fixes] == [plain.problem(0, last, x) for x in last.fixes]
        assert len(diffs) == keyed.rechecks == 3  # each fix of one finding: under the key
        keyed.prime((0, f, x) for f in found for x in f.fixes)
        plain.prime((0, f, x) for f in found for x in f.fixes)
        assert keyed.rechecks == plain.rechecks == 6 and len(diffs) == 3  # three batches, each afresh
        assert all(keyed.problem(0, f, x) == plain.problem(0, f, x) for f in found for x in f.fixes)
    finally:
        forget(key)


def test_changed_is_what_lies_between_the_common_head_and_tail() -> None:
    from hf_cache_lint.fixcheck.rechecks import changed as _changed

    rng = __import__("random").Random(31)
    for _ in range(2000):
        a = "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 12)))
        b = "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 12)))
        head = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        tail = next((i for i, (x, y) in enumerate(zip(a[head:][::-1], b[head:][::-1], strict=False)) if x != y),
                    min(len(a), len(b)) - head)
        assert _changed(a, b) == len(b) - head - tail


def test_a_notebooks_fixes_in_several_cells_are_verified_together() -> None:
    cells = ["import os\n", functions(3), "%%bash\necho hi\n", functions(2).replace("case_", "more_")]
    recheck = notebook_recheck("nb.ipynb", None, CTX)
    items = [(c, f) for c, f in recheck(cells) if f.code == "HFC001"]
    assert sorted({c for c, _ in items}) == [1, 3] and len(items) == 5
    calls = []

    def counting(cs: Sequence[str]) -> Sequence[tuple[int, Finding]]:
        calls.append(len(cs))
        return recheck(cs)

    kept = verified(cells, items, counting, notebook=True)
    assert [f.fixes for _, f in kept] == [f.fixes for _, f in items]
    assert 0 < len(calls) <= max(len(f.fixes) for _, f in items) - 1  # one per alternative, both cells at once
    alone = Verifier(cells, recheck, notebook=True)
    assert all(alone.problem(c, f, x) is None for c, f in items for x in f.fixes)
