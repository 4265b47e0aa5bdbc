"""HFC010's loop readers find the defs and calls they want by their names' places in the text (by_name.py), where
they walked every node of the module: the same nodes, in the same order, and the same findings as the walks gave,
over seeded random modules (nested defs, names in strings and comments, backslashes, carriage returns, a BOM,
broken code) and real code, edited the way a keystroke edits (the tree parso's diff parser updates)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import parso

from hf_cache_lint.engine.environment.context import resolve_context
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node
from hf_cache_lint.rules.hfc010_hook_loses_cache import by_name, renamed_carry

REPO = Path(__file__).resolve().parents[2]
_HOOK, _UPDATE = "prepare_inputs_for_generation", "_update_model_kwargs_for_generation"

_PIECES = [
    f"def {_HOOK}(self, input_ids, past_key_values=None, **kw):\n    return kw\n",
    f"def {_HOOK}(self, ids, cache=None):\n    return 'cache'\n",
    f"class M(PreTrainedModel):\n    def {_UPDATE}(self, outputs, kwargs):\n        return kwargs\n",
    f"class N(M):\n    def {_UPDATE}(self, o, k):\n        return super().{_UPDATE}(o, k)\n",
    f"def {_UPDATE}(o, k):\n    return k\n",
    f"def outer():\n    def {_HOOK}(self, input_ids, past_key_values=None):\n        return 1\n    return {_HOOK}\n",
    f"def loop(model, ids, kw):\n    for _ in range(3):\n        out = model(**model.{_HOOK}(ids, **kw))\n"
    f"        kw = model.{_UPDATE}(out, kw)\n",
    f"def loop2(m, ids, d):\n    while True:\n        d = m.{_UPDATE}(m.{_UPDATE}(m(ids), d), d)\n"
    f"        x = m.{_HOOK}(ids, **d)\n",
    f"x = (a.{_UPDATE}(o, d)).{_UPDATE}(o, d)\n",
    f"y = a \\\n    .{_UPDATE}(o, d)\n",
    f"z = (a  # c\n    .{_UPDATE}(o, d))\n",
    f"s = 'def {_HOOK}'\n",
    f"# def {_HOOK}(past_key_values)\n",
    f"undef {_HOOK}\n",
    f"def \\\n    {_HOOK}(self, past_key_values=None):\n    pass\n",
    f"self.{_UPDATE}(out, kw)\n",
    f"{_UPDATE} = 1\n",
    f"async def {_HOOK}(self, past_key_values=None):\n    pass\n",
    "def broken(:\n",
    "    if x\n",
    "\n",
    "\r\n",
    "a = 1\rb = 2\r",
    "x = 1 \U0001f449\n",
    f"{_HOOK}x = 2\n",
]


def _module(rng: random.Random) -> str:
    text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12)))
    return ("\ufeff" if rng.random() < 0.05 else "") + text


def _defs_walked(tree: Node, name: str) -> list[Node]:
    return [n for n in walk(tree) if n.type == "funcdef" and n.children[1].value == name]


def _calls_walked(tree: Node, name: str) -> list[Node]:
    return [n for n in walk(tree) if n.type in ("power", "atom_expr") and any(
        k.type == "trailer" and re.sub(r"[\s\\]+", "", k.get_code()) == f".{name}" for k in n.children[1:-1])]


def _check(tree: Node, text: str) -> None:
    for name in (_HOOK, _UPDATE):
        assert by_name.defs_named(tree, text, name) == _defs_walked(tree, name), (text, name)
        calls = by_name.dotted_calls(tree, text, name)
        holding = {id(n) for n in _calls_walked(tree, name)}
        # every node holding the trailer, in the walk's order (what is not one, the reader tests and skips)
        assert [n for n in calls if id(n) in holding] == _calls_walked(tree, name), (text, name)
        assert by_name.says_def(text, name) == bool(re.search(rf"\bdef\s+{name}\b", text)), (text, name)


def test_by_name_is_the_walk_over_random_modules() -> None:
    rng = random.Random(3110)
    grammar = parso.load_grammar()
    for _ in range(400):
        text = _module(rng)
        _check(grammar.parse(text, error_recovery=True), text)


def test_by_name_is_the_walk_over_edits_of_a_kept_tree() -> None:
    # The tree the editor buffer's incremental parse keeps and updates in place (a keystroke's), edited at random.
    rng = random.Random(3111)
    from hf_cache_lint.engine.interpreter import interp

    for round_ in range(20):
        key = f"/tmp/test_hfc010_by_name_{round_}.py"
        text = _module(rng).lstrip("\ufeff")
        for _ in range(15):
            at = rng.randint(0, len(text))
            cut = min(len(text), at + rng.choice([0, 0, 1, 3, 12]))
            text = text[:at] + rng.choice(["", "x", "\n", " ", *_PIECES]) + text[cut:]
            tree: Any = interp.parse(text, key)
            _check(tree, text)
        interp.forget(key)


def test_by_name_is_the_walk_on_real_code() -> None:
    files = [REPO / "examples", REPO / "tests" / "realcode"]
    texts = [p.read_text(encoding="utf-8") for d in files for p in sorted(d.rglob("*.py"))]
    oracle = sorted((REPO / ".cache" / "oracle").glob("tf-*/transformers/generation/utils.py"))
    texts += [p.read_text(encoding="utf-8") for p in oracle[:2]]
    grammar = parso.load_grammar()
    checked = 0
    for text in texts:
        if _HOOK in text or _UPDATE in text:
            _check(grammar.parse(text, error_recovery=True), text)
            checked += 1
    assert checked >= 3


class _Rule:
    def report(self, place: object, message: str, **_: object) -> tuple[object, str]:
        return place, message


def _walked_findings(analysis: Analysis) -> list[tuple[object, str]]:
    """renamed_carry.findings as it walked the module (main 168b286), the reference."""
    text, tree = analysis.text, analysis.tree
    if _UPDATE not in text or not re.search(rf"\bdef\s+{_HOOK}\b", text) or tree is None:
        return []
    first = analysis.context.target.behaviour_since("cache_reaches_hooks_as_cache")
    if first is None:
        return []
    defs = [n for n in walk(tree) if n.type == "funcdef"]
    hooks = [d for d in defs if d.children[1].value == _HOOK]
    if not hooks or any(not renamed_carry._old_name_only(d) for d in hooks):
        return []
    if any(d.children[1].value == _UPDATE and "super()" not in re.sub(r"[\s\\]+", "", d.get_code()) and
           renamed_carry._is_method(d) for d in defs):
        return []
    nodes = [n for n in walk(tree) if n.type in ("power", "atom_expr")]
    return renamed_carry._reported(_Rule(), analysis, nodes)  # type: ignore[arg-type]


def test_renamed_carry_finds_what_the_walk_found() -> None:
    rng = random.Random(3112)
    grammar = parso.load_grammar()
    contexts = [resolve_context(transformers_version=v) for v in ("5.24.0", "4.57.6")]
    found = 0
    for _ in range(300):
        text = _module(rng)
        tree = grammar.parse(text, error_recovery=True)
        for context in contexts:
            analysis = Analysis(text=text, path="<t>", context=context, tree=tree)
            got = renamed_carry.findings(_Rule(), analysis)  # type: ignore[arg-type]
            assert got == _walked_findings(analysis), text
            found += len(got)
    assert found > 20  # the modules reach the findings, not only the early returns
