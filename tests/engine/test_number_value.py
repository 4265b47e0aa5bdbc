"""engine/syntax/constants.py `number_value`: the decimal fast path gives what `ast.literal_eval` gives."""

from __future__ import annotations

import ast

import pytest

from hf_cache_lint.engine.syntax.constants import number_value


def reference(text: str) -> object:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, (int, float, complex)) and not isinstance(value, bool) else None


@pytest.mark.parametrize("text", ["0", "7", "123", "00", "012", "1_000", "1e3", "0x1f", "2j", "١٢", "1" * 4301,
                                  "9" * 4300, "True", "1e"])
def test_every_spelling_gives_the_literal_value(text: str) -> None:
    got = number_value(text)
    assert got == reference(text) and type(got) is type(reference(text))
