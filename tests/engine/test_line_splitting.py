"""Lines are Python's lines: a form feed, \\v, \\x1c-\\x1e, \\x85, \\u2028 or \\u2029 inside a line (str.splitlines
breaks there) moves neither a finding, nor the line a suppression comment applies to, nor an ignore fix."""

from __future__ import annotations

import ast

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.text.text import apply_edits, split_lines

HEAD = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')
CALL = 'out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")'
SEPARATORS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def conflicts(code: str) -> list[int]:
    return [f.span.start.line for f in check_source(code, "main.py").findings if f.code == "HFC001"]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_a_separator_in_a_comment_shifts_no_finding_and_no_suppression(sep: str) -> None:
    code = HEAD + f"x = 1  # one{sep}two\n" + CALL + "  # hf-cache-lint: ignore[HFC001]\n" + CALL + "\n"
    assert conflicts(code) == [5]  # line 4 is suppressed, line 5 is not: as Python numbers them
    assert [n.lineno for n in ast.parse(code).body if isinstance(n, ast.Assign)][-1] == 5


@pytest.mark.parametrize("sep", ["\f", "\u2028"])
def test_the_ignore_fix_lands_on_the_flagged_line(sep: str) -> None:
    code = HEAD + f"# a page break{sep}here\n" + CALL + "\n"
    [finding] = [f for f in check_source(code, "main.py").findings if f.code == "HFC001"]
    [ignore] = [fix for fix in finding.fixes if fix.title.startswith("Ignore")]
    fixed = apply_edits(code, ignore.edits)
    assert fixed == HEAD + f"# a page break{sep}here\n" + CALL + "  # hf-cache-lint: ignore[HFC001]\n"
    assert conflicts(fixed) == []


def test_a_form_feed_at_a_line_start_is_whitespace_to_python() -> None:
    code = HEAD + "\f\n" + "\f" + CALL + "\n"
    compile(code, "main.py", "exec")
    assert conflicts(code) == [4]


def test_split_lines_breaks_where_python_does() -> None:
    assert split_lines("a\fb\u2028c\r\nd\re\nf") == ["a\fb\u2028c", "d", "e", "f"]
