"""docs/architecture.md's table of the interpreter's parts is tested against the code: one row per module of
engine/interpreter/ (the stage: its parts, the value model, the joins, the entry points), the class a row names
defined in its module, and its line count within a quarter of the module's (the table drifted to 2.2x before this
test)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENGINE = REPO / "server" / "hf_cache_lint" / "engine"
ROW = re.compile(r"^\| (?:`(?P<cls>\w+)`|[\w ]+) \(`(?P<module>[\w/]+\.py)`, (?P<lines>\d+)\) \|", re.M)


def _table() -> str:
    text = (REPO / "docs" / "architecture.md").read_text()
    start = text.index("| part (module, lines) | owns |")
    return text[start:text.index("\n\n", start)]


def _path(module: str) -> Path:
    return ENGINE / module.removeprefix("engine/") if module.startswith("engine/") else ENGINE / "interpreter" / module


def test_every_interpreter_module_has_one_row() -> None:
    rows = [m["module"] for m in ROW.finditer(_table())]
    assert len(rows) == len(_table().splitlines()) - 2, "a row without `(module, lines)`"
    listed = {_path(m) for m in rows}
    wanted = {p for p in (ENGINE / "interpreter").glob("*.py") if p.name != "__init__.py"}
    assert listed == wanted


def test_each_row_names_its_module_s_class_and_size() -> None:
    for m in ROW.finditer(_table()):
        path = _path(m["module"])
        source = path.read_text()
        if m["cls"]:
            classes = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)}
            assert m["cls"] in classes, f"{m['module']} defines no class {m['cls']}"
        actual, said = source.count("\n"), int(m["lines"])
        assert abs(actual - said) <= actual / 4, f"{m['module']}: {said} lines in the table, {actual} in the code"
