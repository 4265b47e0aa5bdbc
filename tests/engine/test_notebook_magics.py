"""Notebook cells that hold IPython syntax: cell magics whose body is not Python are skipped, line magics and
shell escapes never hide the Python around them, and positions stay where the user wrote them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hf_cache_lint.checking.files import check_file
from hf_cache_lint.checking.notebooks import check_cells
from hf_cache_lint.engine.text.notebook import neutralise_magics

LOAD = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')
CONFLICT = "out = model.generate(past_key_values=DynamicCache(), cache_implementation='static')"
COL = CONFLICT.index("past_key_values")


def hfc001(cells: list[str]) -> list[tuple[int, int, int]]:
    """(cell, line, column) of each HFC001 finding."""
    return [(cell, f.span.start.line, f.span.start.column)
            for cell, f in check_cells(cells, "nb.ipynb") if f.code == "HFC001"]


@pytest.mark.parametrize("magic", ["%%writefile serve.py", "%%bash", "%%html", "%%javascript", "%%sh",
                                   "%%script python3", "%%file x.py", "%%latex", "  %%writefile -a app.py"])
def test_a_cell_magic_whose_body_is_not_python_is_skipped(magic: str) -> None:
    body = f"{magic}\n{CONFLICT}\nif x:\n  'unterminated\n"
    assert hfc001([LOAD, body, CONFLICT]) == [(2, 1, COL)]


@pytest.mark.parametrize("magic", ["%%time", "%%timeit -n 1", "%%capture out", "%%prun"])
def test_a_cell_magic_that_runs_its_body_as_python_is_analysed(magic: str) -> None:
    assert hfc001([LOAD, f"{magic}\n{CONFLICT}\n"]) == [(1, 2, COL)]


@pytest.mark.parametrize("magic", ["%time ", "%timeit ", "%prun ", "  %time  "])
def test_a_line_magic_timing_a_statement_keeps_the_statement_and_its_column(magic: str) -> None:
    cell = f"{magic}{CONFLICT}\n" if not magic.startswith(" ") else f"if True:\n{magic}{CONFLICT}\n"
    line = 1 if not magic.startswith(" ") else 2
    assert hfc001([LOAD, cell]) == [(1, line, len(magic) + COL)]


def test_shell_escapes_and_line_magics_do_not_hide_the_python_around_them() -> None:
    cell = ("!pip install -q transformers\n%pip install accelerate\n%matplotlib inline\n"
            "files = !ls\nmodel.generate?\n%load_ext autoreload\n" + CONFLICT + "\n!nvidia-smi\n")
    assert hfc001([LOAD, cell]) == [(1, 7, COL)]


def test_a_shell_escape_inside_a_block() -> None:
    cell = f"for step in range(2):\n    !echo step\n    {CONFLICT}\n"
    assert hfc001([LOAD, cell]) == [(1, 3, 4 + COL)]


def test_a_question_mark_ending_a_prompt_line_is_text_not_help() -> None:
    cell = f'prompt = """What is the capital of France?\n"""\n{CONFLICT}\n'
    assert hfc001([LOAD, cell]) == [(1, 3, COL)]


@pytest.mark.parametrize("cell", ["%%writefile a.py\nx = 1\n", "%time x = 1\n", "%timeit -n 3 -r 1 f()\n",
                                  "x = %sx ls\n", "!pip install \\\n  torch\n", "%%capture\n%time y = 2\n",
                                  "  %%bash\necho hi\n", "?model\nmodel??\n", "%%\n", "%\n!\n?\n"])
def test_masking_keeps_every_line_and_its_length(cell: str) -> None:
    out = neutralise_magics(cell)
    assert [len(line) for line in out.split("\n")] == [len(line) for line in cell.split("\n")]
    compile(out, "cell", "exec")  # what is left is Python


def test_an_ipynb_with_magic_cells_checks_without_error(tmp_path: Path) -> None:
    cells = [LOAD, "%%writefile app.py\nimport flask\n", "%%bash\nls -la | grep x\n", "!pip install x\n",
             f"%time {CONFLICT}\n"]
    doc = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(doc))
    result = check_file(path)
    assert result.error is None
    assert [f.code for f in result.findings if f.code == "HFC001"] == ["HFC001"]
