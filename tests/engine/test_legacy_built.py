"""How real projects build the legacy tuples and lists they pass as the cache, each followed to a forward (a
`forward_cache` fact, HFC002): repeated (`((k, v),) * n`, `[[k, v]] * n`), joined (`kept + ((k, v),)`), sliced
(`legacy[:n]`), zipped, appended or added (`+=`) in loops, returned by helpers and methods. An operand the code
does not show to be a tuple or list leaves the value unknown (nothing claimed)."""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.forward_cache import KIND
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = ("import torch\n"
        "from transformers import AutoModelForCausalLM\n\n"
        "model = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B')\n"
        "ids = torch.tensor([[1, 2, 3]])\n"
        "cache = model(ids, use_cache=True).past_key_values\n"
        "k0 = torch.zeros(1, 8, 3, 64)\n"
        "legacy = tuple((layer.keys, layer.values) for layer in cache.layers)\n"
        "pairs = [(layer.keys, layer.values) for layer in cache.layers]\n")


def containers(body: str) -> list[str]:
    text = HEAD + body + "model(ids, past_key_values=pkv, use_cache=True)\n"
    return [f.container for f in analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).of(KIND)]


@pytest.mark.parametrize(("body", "kind"), [
    ("pkv = ((k0, k0),) * 16\n", "tuple"),
    ("pkv = 16 * ((k0, k0),)\n", "tuple"),
    ("n = len(cache.layers)\npkv = [[k0, k0]] * n\n", "list"),
    ("pkv = legacy + ((k0, k0),)\n", "tuple"),
    ("pkv = pairs + [(k0, k0)]\n", "list"),
    ("pkv = legacy[:8]\n", "tuple"),
    ("pkv = legacy[-4:]\n", "tuple"),
    ("pkv = pairs[1:]\n", "list"),
    ("pkv = tuple(zip([k0], [k0]))\n", "tuple"),
    ("pkv = []\nfor _ in range(4):\n    pkv.append((k0, k0))\npkv = tuple(pkv)\n", "tuple"),
    ("pkv = ()\nfor layer in cache.layers:\n    pkv = pkv + ((layer.keys, layer.values),)\n", "tuple"),
    ("pkv = ()\nfor layer in cache.layers:\n    pkv += ((layer.keys, layer.values),)\n", "tuple"),
    ("pkv = []\nfor layer in cache.layers:\n    pkv += [(layer.keys, layer.values)]\n", "list"),
    ("pkv = [(k0, k0)]\npkv *= 16\n", "list"),
])
def test_a_built_legacy_cache_reaches_the_forward(body: str, kind: str) -> None:
    assert containers(body) == [kind]


@pytest.mark.parametrize("body", [
    "pkv = legacy + extra\n",  # `extra`: not shown to be a tuple
    "pkv = legacy * 'x'\n",
    "pkv = legacy + pairs\n",  # a tuple and a list do not add: a TypeError, not a cache
    "pkv = legacy[0]\n",  # one layer's pair: its items are followed, not claimed as the whole cache
    "pkv = cache\n",
    "pkv = ()\nfor layer in cache.layers:\n    pkv += extra\n",  # `extra`: not shown to be a tuple
    "pkv = 0\nfor layer in cache.layers:\n    pkv += 1\n",
])
def test_what_is_not_claimed(body: str) -> None:
    assert containers(body) == []
