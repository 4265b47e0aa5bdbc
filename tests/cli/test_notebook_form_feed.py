"""`--fix` on a notebook keeps every line it did not change byte for byte, form feeds included (issue 33, item 5).

At abca28d the changed cell's new source was cut into list items by `str.splitlines`, which also breaks at a form
feed (and \\v, \\x1c-\\x1e, \\x85, \\u2028, \\u2029), characters Python reads inside a line: a cell line holding one
came back as two items (JupyterLab's layout, split at \\n only). A notebook written by nbformat (which does cut at
them) keeps its items as they were too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Run

HEAD = ["from transformers import AutoModelForCausalLM, DynamicCache\n", "\x0c\n"]
TAIL = ["model = AutoModelForCausalLM.from_pretrained('x')\n",
        "out = model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n", "z = '\x0c\u2028'"]
JUPYTERLAB = [*HEAD, "x = 1 \x0c y = 2\n", *TAIL]  # one item a line (JavaScript's split at \n)
NBFORMAT = [*HEAD, "x = 1 \x0c", " y = 2\n", *TAIL[:2], "z = '\x0c", "\u2028", "'"]  # str.splitlines


@pytest.mark.parametrize("items", [JUPYTERLAB, NBFORMAT], ids=["jupyterlab", "nbformat"])
def test_only_the_fixed_line_changes(run: Callable[..., Run], project: Path, items: list[str]) -> None:
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": items}],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path = project / "n.ipynb"
    before = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    path.write_text(before, encoding="utf-8")
    r = run("check", "--fix", "--no-cache", "n.ipynb")
    assert r.code == 0, r.err
    after = path.read_text(encoding="utf-8")
    changed = [(a, b) for a, b in zip(before.splitlines(True), after.splitlines(True), strict=True) if a != b]
    assert len(changed) == 1 and "cache_implementation=None" in changed[0][1], changed
    assert json.loads(after)["cells"][0]["source"] == [
        s.replace("cache_implementation='static'", "cache_implementation=None") for s in items]
