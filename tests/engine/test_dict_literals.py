"""A dict literal larger than the keys a dict tracks (values.py MAX_DICT_KEYS): the interpreter builds no site or
constant for an entry `DictState.build` would drop (a 40,000-entry table: 0.37 s of interpretation per check down
to 0.06 s), and the dict, the facts and the findings are what building every entry gives."""

from __future__ import annotations

import random

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.interpreter.expressions import _KeptKeys
from hf_cache_lint.engine.interpreter.values import ALWAYS_TRACKED, MAX_DICT_KEYS, DictState

HEAD = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
        "model = AutoModelForCausalLM.from_pretrained('gpt2')\n")


@pytest.mark.parametrize("seed", range(20))
def test_kept_keys_agree_with_build(seed: int) -> None:
    rng = random.Random(seed)
    pool = [f"k{i}" for i in range(MAX_DICT_KEYS + 50)] + sorted(ALWAYS_TRACKED)
    keys = [rng.choice(pool) if rng.random() < 0.3 else f"k{i}" for i in range(MAX_DICT_KEYS + 200)]
    rng.shuffle(keys)
    start = rng.randrange(len(keys))
    kept = _KeptKeys(keys[:start])  # a prefix told at once (a `**spread`), then one by one
    flags = [kept.add(k) for k in keys[start:]]
    built = DictState.build([(k, None, None, None) for k in keys])  # type: ignore[misc]
    assert kept.keys == {e[0] for e in built.entries}
    # Every entry `add` said is dropped is one `build` drops: a key it does not keep, or kept by a later repeat.
    survivors = {e[0] for e in built.entries}
    for key, flag in zip(keys[start:], flags, strict=True):
        assert flag or key not in survivors


def _dict_of(text: str, name: str) -> DictState:
    it = interp.Interpreter(text, "<dict>", Context())
    it.run_module(interp.parse(text))
    d = it.session.obj(it.session.module_state.names[name])
    assert isinstance(d, DictState)
    return d


def _literal(entries: list[str]) -> str:
    return "TABLE = {\n" + "".join(f"    {e},\n" for e in entries) + "}\n"


def test_a_large_literal_keeps_the_tracked_keys_and_is_opaque() -> None:
    entries = [f"'k{i}': {i}" for i in range(MAX_DICT_KEYS + 100)]
    entries += ["'k3': 'again'", "'use_cache': False", "'late': None", "**{'spread': 1}"]
    d = _dict_of(HEAD + _literal(entries), "TABLE")
    keys = [e[0] for e in d.entries]
    assert d.opaque
    assert len(keys) == MAX_DICT_KEYS + 1  # the first 1,000 (k3 moved last) and the always tracked use_cache
    assert keys[-2:] == ["k3", "use_cache"] and "late" not in keys and "spread" not in keys
    assert all(site is not None for _, _, site, _ in d.entries)
    assert d.get("k3")[0].value == "again"  # type: ignore[index,union-attr]


def test_a_dropped_entry_still_runs_its_call() -> None:
    # The entry's key is past the tracked ones, its value a generate call: the call's conflict is reported.
    entries = [f"'k{i}': {i}" for i in range(MAX_DICT_KEYS + 5)]
    entries.append("'out': model.generate(past_key_values=DynamicCache(), cache_implementation='static')")
    text = HEAD + _literal(entries)
    line = text.count("\n", 0, text.index("'out'")) + 1
    result = check_source(text, "<dict>")
    assert [f.span.start.line for f in result.findings if f.code == "HFC001"] == [line]


def test_a_cache_implementation_key_past_the_tracked_ones_is_read() -> None:
    entries = [f"'k{i}': {i}" for i in range(MAX_DICT_KEYS + 5)] + ["'cache_implementation': 'static'"]
    text = HEAD + _literal(entries) + "model.generate(past_key_values=DynamicCache(), **TABLE)\n"
    result = check_source(text, "<dict>")
    assert [f.span.start.line for f in result.findings if f.code == "HFC001"] == [text.count("\n")]
