"""An `EncoderDecoderCache`'s parts (output_values.py `sub_cache`), a vendored attention module called with the cache
(functions.py `call_instance`: `nn.Module.__call__` runs `forward`), and `x is None` tests decided by what `x` is on
the path (none_comparisons.py `none_compared`)."""

from __future__ import annotations

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import KIND, SUB_CACHE, CacheUse
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = (
    "import torch\n"
    "from torch import nn\n"
    "from transformers.cache_utils import DynamicCache, EncoderDecoderCache\n\n"
)


def uses(text: str) -> list[CacheUse]:
    return list(analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).of(KIND))


def reads(text: str, name: str) -> list[CacheUse]:
    return [u for u in uses(text) if u.name == name]


def test_the_parts_of_an_encoder_decoder_cache_are_caches() -> None:
    text = HEAD + (
        "c = EncoderDecoderCache(DynamicCache(), DynamicCache())\n"
        "c.self_attention_cache.key_cache\n"
        "c.cross_attention_cache.value_cache[0]\n"
    )
    got = [(u.name, u.receiver, u.receiver_class, u.description, u.layered) for u in uses(text)
           if u.name in ("key_cache", "value_cache")]
    assert got == [("key_cache", "c.self_attention_cache", None, SUB_CACHE, True),
                   ("value_cache", "c.cross_attention_cache", None, SUB_CACHE, True)]


def test_a_part_of_a_dynamic_cache_or_an_unknown_value_is_nothing() -> None:
    text = HEAD + "def f(c):\n    return c.self_attention_cache.key_cache\n\nd = DynamicCache()\nd.self_attention_cache.key_cache\n"
    assert not reads(text, "key_cache")


ATTENTION = HEAD + (
    "class Attention(nn.Module):\n"
    "    def __init__(self, layer_idx=0):\n        super().__init__()\n        self.layer_idx = layer_idx\n\n"
    "    def forward(self, hidden, states=None, past_key_value=None):\n"
    "        if past_key_value is not None:\n"
    "            if states is not None:\n"
    "                past_key_value = past_key_value.cross_attention_cache\n"
    "            else:\n"
    "                past_key_value = past_key_value.self_attention_cache\n"
    "        return past_key_value.key_cache[self.layer_idx]\n\n\n"
)


def test_a_module_called_with_the_cache_runs_its_forward() -> None:
    text = ATTENTION + (
        "def probe(audio):\n"
        "    attn = Attention()\n"
        "    attn(torch.ones(1), states=audio, past_key_value=EncoderDecoderCache(DynamicCache(), DynamicCache()))\n"
    )
    got = reads(text, "key_cache")
    assert [(u.receiver, u.description) for u in got] == [("past_key_value", SUB_CACHE)]


def test_no_cache_given_no_use() -> None:
    text = ATTENTION + "def probe():\n    attn = Attention()\n    attn(torch.ones(1))\n"
    assert not reads(text, "key_cache")  # `past_key_value` is None: `None.key_cache`, not a cache's


def test_a_plain_class_is_called_through_its_own_call_only() -> None:
    text = HEAD + (
        "class Plain:\n    def forward(self, past_key_value=None):\n        return past_key_value.key_cache\n\n"
        "class Callable:\n    def __call__(self, past_key_value=None):\n        return past_key_value.key_cache\n\n"
        "def probe():\n"
        "    Plain()(past_key_value=DynamicCache())\n"
        "    Callable()(past_key_value=DynamicCache())\n"
    )
    got = reads(text, "key_cache")
    assert [u.span.start.line for u in got] == [text.count("\n", 0, text.index("class Callable")) + 3]


def test_none_tests_decided_by_the_value() -> None:
    text = HEAD + (
        "def step(cache=None):\n"
        "    if cache is None:\n        cache = DynamicCache()\n"
        "    else:\n        cache = EncoderDecoderCache(DynamicCache(), DynamicCache())\n"
        "    return cache.self_attention_cache.key_cache\n\n"
        "def probe():\n    step()\n"
    )
    # called without a cache: `cache is None` holds, the path makes a DynamicCache (which has no parts)
    assert not reads(text, "key_cache")
    flipped = text.replace("    step()\n", "    step(DynamicCache())\n")
    assert [u.receiver for u in reads(flipped, "key_cache")] == ["cache.self_attention_cache"]
