"""A dict whose values one comprehension builds as the same transformers cache (Higgs Audio's length buckets:
`{n: StaticCache(..., max_cache_len=n) for n in lengths}`, or `OrderedDict((n, StaticCache(...)) for n in ...)`)
holds that cache at every key the code computes (values.py `DictState.every`, comprehension_scope.py
`comprehended_cache`); and `.eval()`/`.to(...)` on the project's model subclass return the subclass instance, not
the transformers model inside it, so its own methods still run (heldout8 higgs_audio_kv_buckets.py)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("from collections import OrderedDict\nfrom transformers import AutoModelForCausalLM, LlamaForCausalLM\n"
        "from transformers.cache_utils import StaticCache\nmodel = AutoModelForCausalLM.from_pretrained('m')\n")


def found(text: str, version: str = "4.57.6") -> list[int]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return sorted({f.span.start.line - 4 for f in result.findings if f.code == "HFC007"})


COPY = "def copy(a, b):\n    b.key_cache[0][:, :, :4, :] = a.key_cache[0]\n"  # 1-2


@pytest.mark.parametrize("built", [
    "{n: StaticCache(config=model.config, max_cache_len=n) for n in (16, 32)}",
    "OrderedDict((n, StaticCache(config=model.config, max_cache_len=n)) for n in (16, 32))",
    "dict((n, StaticCache(config=model.config, max_cache_len=n)) for n in (16, 32))",
])
def test_a_comprehension_of_caches_holds_one_at_every_key(built: str) -> None:
    assert found(COPY + f"caches = {built}\ncopy(caches[16], caches[32])\n") == [2]


@pytest.mark.parametrize("built", [
    "{n: make(n) for n in (16, 32)}",           # not a cache class's call: unknown
    "{n: (StaticCache, n) for n in (16, 32)}",  # a tuple, not a cache
    "OrderedDict(pairs)",                       # pairs the code does not show
])
def test_other_comprehensions_hold_nothing_known(built: str) -> None:
    assert found(COPY + f"caches = {built}\ncopy(caches[16], caches[32])\n") == []


def test_a_known_key_keeps_its_own_value() -> None:
    text = COPY + "caches = {n: StaticCache(config=model.config, max_cache_len=n) for n in (16,)}\n" \
        "caches['none'] = None\ncopy(caches[16], caches[16])\n"
    assert found(text) == []  # a change drops `every` (the state is rebuilt): nothing is claimed


SUBCLASS = ("def capacity(cache):\n    return cache.get_max_cache_shape()\n\n\n"       # 1-2
            "class Bucketed(LlamaForCausalLM):\n"                                     # 5
            "    def pick(self, caches):\n        return capacity(caches[16])\n\n\n"  # 6-7
            "caches = {{n: StaticCache(config=model.config, max_cache_len=n) for n in (16, 32)}}\n"
            "m = Bucketed.from_pretrained('m'){call}\nm.pick(caches)\n")


@pytest.mark.parametrize("call", ["", ".eval()", ".to('cpu')", ".eval().half()"])
def test_module_methods_return_the_subclass_instance(call: str) -> None:
    # `get_max_cache_shape` is gone from 5.20: reached through the subclass's own method after `.eval()` too
    assert found(SUBCLASS.format(call=call), "5.23.0") == [2]


CLASS_TABLE = ("TABLE = {{'static': StaticCache}}\n\n\n"
               "def make(impl):\n    cls = TABLE[impl]\n    return cls(config=model.config, max_cache_len=8)\n\n\n"
               "c = make({key})\nn = c.max_cache_len\n")  # 10


@pytest.mark.parametrize(("key", "reported"), [
    # a name holding a string the call says: that entry (Parler-TTS's NEED_SETUP_CACHE_CLASSES_MAPPING[impl],
    # heldout6 parler_static_setup.py pt_max_batch_size / pt_max_cache_len: gone from 5.20, the oracle)
    ("'static'", [10]),
    # a key the table lacks, or one the code does not say: nothing is known
    ("'sliding'", []),
    ("input()", []),
])
def test_a_dict_read_by_a_name_holding_a_string(key: str, reported: list[int]) -> None:
    assert found(CLASS_TABLE.format(key=key), "5.24.0") == reported
