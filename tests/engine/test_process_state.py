"""Process-wide state is named (engine/base/process_state.py STATE): every module global of the package created empty
(a container, None) or rebound with `global` is listed there with its owner and why, each cache has a reset, and
`reset_all` empties them."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from hf_cache_lint.engine.base import process_state

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "hf_cache_lint"
_EMPTY = ("dict", "list", "set", "OrderedDict", "defaultdict", "deque")


def _changing_globals() -> set[tuple[str, str]]:
    """(module path, name) of the module-level names a module creates empty or rebinds with `global`."""
    out = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        rebound = {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name, value = node.targets[0].id, node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                name, value = node.target.id, node.value
            else:
                continue
            empty = (isinstance(value, (ast.Dict, ast.List, ast.Set)) and not getattr(value, "keys", None)
                     and not getattr(value, "elts", None)) \
                or (isinstance(value, ast.Call) and not value.args and not value.keywords
                    and ast.unparse(value.func).rsplit(".", 1)[-1] in _EMPTY) \
                or (isinstance(value, ast.Constant) and value.value is None and name.startswith("_")) \
                or (isinstance(value, ast.Tuple) and not value.elts and name.isupper())
            if empty or name in rebound:
                out.add((str(path.relative_to(PACKAGE)), name))
    return out


def test_every_changing_global_is_named_with_its_owner() -> None:
    named = {(g.module, g.name) for g in process_state.STATE}
    found = _changing_globals()
    assert found - named == set(), "module state missing from engine/base/process_state.py STATE"
    assert named - found == set(), "STATE names globals that no longer exist"
    assert all(g.why for g in process_state.STATE)


def test_every_cache_has_a_reset_that_empties_it(tmp_path: Path) -> None:
    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.text.text import line_starts

    code = "from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained('gpt2')\n" \
           "m.generate(past_key_values=((1, 2),))\n"
    check_source(code, str(tmp_path / "a.py"), incremental=True)
    check_source(code + "\n", str(tmp_path / "a.py"), incremental=True)
    line_starts(code)
    caches = [g for g in process_state.STATE if g.role == "cache"]
    for g in caches:
        importlib.import_module("hf_cache_lint." + g.module.removesuffix(".py").replace("/", "."))
    assert {(g.module, g.name) for g in caches} == set(process_state._RESETS)
    from hf_cache_lint.engine.interpreter import replay_store

    assert replay_store._DOCUMENTS  # the test can fail: the second check of the buffer kept its runs
    process_state.reset_all()
    for g in caches:
        module = importlib.import_module("hf_cache_lint." + g.module.removesuffix(".py").replace("/", "."))
        value = getattr(module, g.name)
        assert not value or value[0] == "", f"{g.module}:{g.name} not emptied"
