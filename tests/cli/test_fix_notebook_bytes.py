"""`--fix` on a notebook rewrites only the edited cells' sources: every other byte stays as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, CONFLICT_FIXED, RunFn, write

from hf_cache_lint.cli_support.notebook_io import Notebook

HEAD = CONFLICT.rsplit("\n", 2)[0] + "\n"
CALL = CONFLICT.splitlines()[3]
FIXED_CALL = CONFLICT_FIXED.splitlines()[3]


def _cell(kind: str, source: str, *, as_list: bool = True, indent: str = "   ") -> str:
    src = json.dumps(source.splitlines(keepends=True) if as_list else source, ensure_ascii=False)
    if as_list:
        items = source.splitlines(keepends=True)
        src = "[\n" + ",\n".join(f"{indent} {json.dumps(x, ensure_ascii=False)}" for x in items) + f"\n{indent}]"
    extra = (f',\n{indent}"execution_count": 12345678901234567890123,\n{indent}"outputs": [{{"data": '
             f'{{"text/plain": ["NaN"]}}, "metadata": {{"score": NaN, "hi": Infinity, "lo": -Infinity, '
             f'"f": 1.50, "e": 1E+3}}, "output_type": "execute_result"}}]') if kind == "code" else ""
    return (f'  {{\n{indent}"cell_type": "{kind}",\n{indent}"metadata": {{"z": 1, "a": "caf\\u00e9 \u00e9"}}'
            f"{extra},\n{indent}\"source\": {src}\n  }}")


def _notebook(*cells: str, tail: str = "\n") -> str:
    meta = '"metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3 \u00e9"}}'
    return '{\n "cells": [\n' + ",\n".join(cells) + f'\n ],\n {meta},\n "nbformat": 4,\n "nbformat_minor": 5\n}}{tail}'


CASES = {
    # nbformat-like layout, numbers json.dump would rewrite (NaN, Infinity, a big int, 1.50, 1E+3), key
    # order that is not sorted, raw non-ASCII next to a \u escape, a trailing newline
    "nbformat layout": _notebook(_cell("markdown", "# T\u00edtulo\n"), _cell("code", HEAD),
                                 _cell("code", "%time x = 1\n" + CALL + "\n")),
    "no trailing newline": _notebook(_cell("code", HEAD), _cell("code", CALL + "\n"), tail=""),
    "source as one string": _notebook(_cell("code", HEAD), _cell("code", CALL + "\n", as_list=False)),
    "four-space indent": _notebook(_cell("code", HEAD, indent="      "), _cell("code", CALL, indent="      ")),
    "CRLF file": _notebook(_cell("code", HEAD), _cell("code", CALL + "\n")).replace("\n ", "\r\n "),
    # A form feed inside a line of the edited cell (PEP 8's page break), its items split at line breaks only,
    # and an item written with escapes json.dumps would not write: both stay as they were.
    "form feed in the edited cell": _notebook(_cell("code", HEAD), _cell("code", "x = 1\n\f\n" + CALL + "\n"))
    .replace('"x = 1\\n"', '"x \\u003d 1\\n"'),
    # nbformat's own split (str.splitlines) breaks at the form feed: its items stay split so.
    "form feed split as nbformat splits": _notebook(
        _cell("code", HEAD), _cell("code", "y = 2\f# page\n" + CALL + "\n")),
    # An integer past int()'s 4,300 digits (an execution_count, a metadata number): valid JSON that json.loads
    # refused with a ValueError, an internal error of the run; the notebook is fixed, the number kept as written.
    "an integer of 5,000 digits": _notebook(_cell("code", HEAD), _cell("code", CALL + "\n"))
    .replace("12345678901234567890123", "9" * 5000, 1),
}


@pytest.mark.parametrize("name", CASES)
def test_fix_rewrites_only_the_edited_cell_source(project: Path, run: RunFn, name: str) -> None:
    text = CASES[name]
    path = write(project / "nb.ipynb", text.encode("utf-8"))
    r = run("check", "--fix", "--format", "json", "nb.ipynb")
    assert (r.code, r.json()) == (0, [])
    after = path.read_bytes().decode("utf-8")
    # Exactly the call changed, in place, written the way the file writes strings.
    assert after == text.replace(json.dumps(CALL)[1:-1], json.dumps(FIXED_CALL)[1:-1], 1)
    assert after != text


def test_ascii_only_notebooks_keep_writing_escapes() -> None:
    text = _notebook(_cell("code", HEAD), _cell("code", CALL + "\n")).encode("ascii", "backslashreplace")
    nb = Notebook.parse(text.decode("ascii").replace("\\xe9", "\\u00e9").replace("\\xed", "\\u00ed"))
    sources = list(nb.code_sources())
    sources[1] = "print('\u00e9')\n" + sources[1]
    out = nb.with_code_sources(sources)
    assert out.isascii() and '"print(\'\\u00e9\')\\n",' in out


def test_unchanged_sources_give_the_original_text() -> None:
    text = CASES["nbformat layout"]
    nb = Notebook.parse(text)
    assert nb.with_code_sources(list(nb.code_sources())) == text
    assert list(nb.code_sources()) == [c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                                       for c in json.loads(text)["cells"] if c["cell_type"] == "code"]


def test_a_bom_is_kept(project: Path, run: RunFn) -> None:
    text = CASES["nbformat layout"]
    path = write(project / "nb.ipynb", b"\xef\xbb\xbf" + text.encode("utf-8"))
    run("check", "--fix", "nb.ipynb")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf{\n")
    assert FIXED_CALL in path.read_bytes().decode("utf-8-sig")
