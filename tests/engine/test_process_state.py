"""Process-wide state is named (engine/base/process_state.py STATE): every module global of the package created empty
(a container, None) or rebound with `global`, every ContextVar and every function memoised with functools is listed
there with its owner and why, each cache has a reset, and `reset_all` empties the caches and the memos."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from hf_cache_lint.engine.base import process_state

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "hf_cache_lint"
_EMPTY = ("dict", "list", "set", "OrderedDict", "defaultdict", "deque", "WeakSet", "WeakKeyDictionary",
          "WeakValueDictionary", "local")
_MEMO = ("cache", "lru_cache")


def _memoised(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@cache`, `@lru_cache(maxsize=8)`, `@functools.lru_cache`: a memo that outlives every call."""
    return any(ast.unparse(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1] in _MEMO
               for d in fn.decorator_list)


def _memos(tree: ast.Module) -> set[str]:
    """The memoised functions of a module: its own (`name`) and its classes' (`Class.name`)."""
    out = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _memoised(n)}
    return out | {f"{c.name}.{n.name}" for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _memoised(n)}


def _context_vars(tree: ast.Module) -> set[str]:
    return {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(n.value, ast.Call)
            and ast.unparse(n.value.func).rsplit(".", 1)[-1] == "ContextVar"
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}


def _changing_globals(kind: str = "global") -> set[tuple[str, str]]:
    """(module path, name) of the module-level names a module creates empty or rebinds with `global` (kind
    "global"), of its ContextVars ("context") or of its memoised functions ("memo")."""
    out = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        if kind != "global":
            names = _memos(tree) if kind == "memo" else _context_vars(tree)
            out |= {(str(path.relative_to(PACKAGE)), name) for name in names}
            continue
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
    found = _changing_globals() | _changing_globals("context") | _changing_globals("memo")
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


def test_context_vars_and_memos_are_named_in_their_role() -> None:
    """A ContextVar is set and restored around one run ("scope"); a functools memo is a "memo", and nothing else is."""
    roles = {(g.module, g.name): g.role for g in process_state.STATE}
    contexts, memos = _changing_globals("context"), _changing_globals("memo")
    assert {("engine/environment/deps.py", "_NOTED"), ("engine/syntax/nodes.py", "_SHARED")} <= contexts
    assert ("engine/environment/release_version.py", "Version.parse") in memos  # a class's memo is found too
    assert {k: roles[k] for k in contexts} == dict.fromkeys(contexts, "scope")
    assert {k for k, role in roles.items() if role == "memo"} == memos


def test_reset_all_empties_every_imported_memo(tmp_path: Path) -> None:
    from hf_cache_lint.checking.source import check_source

    check_source("from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained('gpt2')\n"
                 "m.generate(past_key_values=((1, 2),))\n", str(tmp_path / "a.py"))
    memos = [g for g in process_state.STATE if g.role == "memo"]
    filled = [g.name for g in memos if (m := process_state.memoised(g)) is not None and m.cache_info().currsize]
    assert "Version.parse" in filled and "table" in filled  # the test can fail: the check filled memos
    process_state.reset_all()
    left = [g.name for g in memos if (m := process_state.memoised(g)) is not None and m.cache_info().currsize]
    assert left == []
