"""The project's own object as the cache of a transformers model's forward (engine/interpreter/own_caches.py,
HFC002): a cache subclass whose `__init__` skips the base one lacks `layers`, a plain class of the file without
`get_seq_length` lacks that; a class that runs the base `__init__`, sets or bypasses what the forward reads, or
that the linter cannot see whole is never claimed (docs/facts.md §8, oracle-checked from 4.57.6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.conftest import Checker

HEAD = ("import torch\n"
        "from transformers import AutoModelForCausalLM, Cache, DynamicCache\n\n"
        "model = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B')\n\n")
RUN = "\n\ndef run(ids):\n    return model(ids, past_key_values=Own(), use_cache=True)\n"

SKIPS = ("class Own(Cache):\n    def __init__(self):\n        self.key_cache = []\n\n"
         "    def get_seq_length(self, layer_idx=0):\n        return 0\n")
PLAIN = "class Own:\n    def __init__(self):\n        self.kv = {}\n"


def messages(check: Checker, code: str, version: str = "5.24.0", name: str = "main.py") -> list[str]:
    return [f.message for f in check(code, version, name=name, code_filter="HFC002")]


@pytest.mark.parametrize("version", ["4.57.6", "5.0.0", "5.24.0", "5.25.0"])
def test_a_cache_subclass_that_skips_the_base_init_lacks_layers(check: Checker, version: str) -> None:
    [m] = messages(check, HEAD + SKIPS + RUN, version)
    assert "AttributeError: 'Own' object has no attribute 'layers'" in m and f"transformers {version}" in m


def test_a_plain_class_lacks_get_seq_length(check: Checker) -> None:
    [m] = messages(check, HEAD + PLAIN + RUN)
    assert "AttributeError: 'Own' object has no attribute 'get_seq_length'" in m


@pytest.mark.parametrize("cls", [
    "class Own(DynamicCache):\n    def __init__(self):\n        super().__init__()\n        self.tag = 1\n",
    "class Own(DynamicCache):\n    def __init__(self):\n        DynamicCache.__init__(self)\n",
    "class Own(DynamicCache):\n    def tag(self):\n        return 1\n",  # no __init__: transformers' runs
    SKIPS.replace("self.key_cache = []", "self.layers = []"),
    SKIPS + "\n    def get_mask_sizes(self, cache_position, layer_idx):\n        return 0, 0\n",
    SKIPS + "\n    def __getattr__(self, name):\n        return None\n",
    PLAIN + "\n    def get_seq_length(self, layer_idx=0):\n        return 0\n",
    "class Own(Unseen):\n    pass\n",  # a base the linter cannot see
    "class Own(torch.nn.Module):\n    pass\n",
], ids=["super-init", "base-init-call", "no-init", "sets-layers", "own-mask-sizes", "getattr", "plain-with-length",
        "unknown-base", "other-base"])
def test_what_is_not_claimed(check: Checker, cls: str) -> None:
    assert messages(check, HEAD + cls + RUN) == []


def test_not_claimed_before_4_57(check: Checker) -> None:
    # 4.53.0 runs the subclass (there were no cache layers yet); 4.54-4.56 were not run on the oracle.
    assert messages(check, HEAD + SKIPS + RUN, "4.56.0") == []
    assert messages(check, HEAD + PLAIN + RUN, "4.53.0") == []


def test_a_subclass_imported_from_the_workspace(check: Checker, tmp_path: Path) -> None:
    (tmp_path / "own_cache.py").write_text("from transformers.cache_utils import Cache\n\n\n" + SKIPS)
    code = HEAD.replace(", Cache, DynamicCache", "") + "from own_cache import Own\n" + RUN
    [m] = messages(check, code)
    assert "'Own' object has no attribute 'layers'" in m and "the project's subclass of a transformers cache" in m


def test_a_value_that_is_the_instance_on_some_path_only_is_not_claimed(check: Checker) -> None:
    code = HEAD + SKIPS + ("\n\ndef run(ids, cache=None):\n    if cache is None:\n        cache = Own()\n"
                           "    return model(ids, past_key_values=cache, use_cache=True)\n")
    assert messages(check, code) == []


NARROW = ("class Own(DynamicCache):\n    def get_seq_length(self):\n        return super().get_seq_length()\n")


@pytest.mark.parametrize(("version", "found"), [("4.57.6", False), ("5.13.1", False), ("5.14.0", True),
                                                ("5.24.0", True)])
def test_a_length_override_without_layer_idx_from_5_14(check: Checker, version: str, found: bool) -> None:
    got = messages(check, HEAD + NARROW + RUN, version)
    assert [("got an unexpected keyword argument 'layer_idx'" in m) for m in got] == ([True] if found else [])


@pytest.mark.parametrize("signature", ["self, layer_idx=0", "self, layer_idx: int = 0", "self, *args, **kwargs"])
def test_a_length_override_that_takes_layer_idx(check: Checker, signature: str) -> None:
    assert messages(check, HEAD + NARROW.replace("(self):", f"({signature}):") + RUN) == []


def test_the_import_fallback_base_is_the_transformers_class(check: Checker) -> None:
    # `except ImportError: Cache = object` never runs on a supported release (each has `transformers.Cache`).
    code = HEAD.replace(", Cache, DynamicCache", "") + (
        "try:\n    from transformers import Cache\nexcept ImportError:\n    Cache = object\n\n\n"
        "class Own(Cache):\n    def __init__(self, n):\n        self.layers = [None] * n\n\n"
        "    def get_seq_length(self):\n        return 0\n"
        "\n\ndef run(ids):\n    return model(ids, past_key_values=Own(2), use_cache=True)\n")
    [m] = messages(check, code)
    assert "Own.get_seq_length() got an unexpected keyword argument 'layer_idx'" in m
    other = code.replace("Cache = object", "Cache = dict")  # a fallback that is not `object`: nothing claimed
    assert messages(check, other) == []


def test_a_class_that_lacks_layers_and_layer_idx_is_claimed_only_before_5_14(check: Checker) -> None:
    both = SKIPS.replace("def get_seq_length(self, layer_idx=0):", "def get_seq_length(self):")
    assert ["'Own' object has no attribute 'layers'" in m for m in messages(check, HEAD + both + RUN, "5.13.1")] \
        == [True]
    assert messages(check, HEAD + both + RUN, "5.24.0") == []  # which of the two raises first was not run


GENERATE = "\n\ndef run(ids):\n    return model.generate(ids, past_key_values=Own(), max_new_tokens=3)\n"


def test_a_cache_subclass_given_to_generate(check: Checker) -> None:
    [m] = messages(check, HEAD + SKIPS + GENERATE)
    assert "of `generate()` gets `Own()`" in m and "'Own' object has no attribute 'layers'" in m
    [m] = messages(check, HEAD + NARROW + GENERATE)
    assert "unexpected keyword argument 'layer_idx'" in m


@pytest.mark.parametrize("change", [
    ("max_new_tokens=3)", "max_new_tokens=3, cache_implementation='static')"),  # the conflict check comes first
    ("past_key_values=Own()", "past_key_values=Own() if ids is not None else None"),  # on some paths only
])
def test_what_is_not_claimed_for_generate(check: Checker, change: tuple[str, str]) -> None:
    assert messages(check, HEAD + SKIPS + GENERATE.replace(*change)) == []


def test_a_plain_class_given_to_generate_is_not_claimed(check: Checker) -> None:
    # generate fails on other members of it by release (`get_mask_sizes` on 4.57.6, `is_compileable` on 5.24.0).
    assert messages(check, HEAD + PLAIN + GENERATE) == []


NONE_LAYERS = ("class Own(Cache):\n    def __init__(self, n=2):\n        self.layers = {layers}\n\n"
               "    def get_seq_length(self):\n        return 0\n")


@pytest.mark.parametrize(("layers", "claimed"), [
    # PensieveCache (heldout3 pv_forward_session): AttributeError 'NoneType' ... 'get_mask_sizes' on 4.57.6
    ("[None] * n", True), ("n * [None]", True), ("[None for _ in range(n)]", True), ("[None, None]", True),
    # layers the code does not say are None: not claimed
    ("[object() for _ in range(n)]", False), ("list(range(n))", False),
])
def test_a_cache_subclass_whose_layers_are_none(check: Checker, layers: str, claimed: bool) -> None:
    got = messages(check, HEAD + NONE_LAYERS.format(layers=layers) + RUN, "4.57.6")
    assert len(got) == int(claimed), got
    if claimed:
        assert "AttributeError: 'NoneType' object has no attribute 'get_mask_sizes'" in got[0]


@pytest.mark.parametrize(("version", "error"), [("5.0.0", None), ("5.24.0", "TypeError: Own.get_seq_length()")])
def test_none_layers_on_5_x(check: Checker, version: str, error: str | None) -> None:
    # from 5.14 the length without `layer_idx` fails first (as before); 5.0-5.13 were not run: nothing claimed
    got = messages(check, HEAD + NONE_LAYERS.format(layers="[None] * n") + RUN, version)
    assert [error in m for m in got] == ([True] if error else []), got


# eighth session, cacheclass29g: the override is what breaks and where its fix goes.
def test_a_length_override_is_reported_on_its_def_once(check: Checker) -> None:
    two = RUN + "\n\ndef again(ids):\n    return model(ids, past_key_values=Own(), use_cache=True)\n"
    got = check(HEAD + NARROW + two, "5.24.0", name="main.py", code_filter="HFC002")
    assert [(f.span.start.line, f.span.start.column) for f in got] == [(7, 8)]  # `get_seq_length` of its `def`
    assert "on line 12 gets `Own()`" in got[0].message


def test_an_inherited_length_override_is_reported_on_the_base_def(check: Checker) -> None:
    code = HEAD + NARROW.replace("class Own(", "class Base(") + "\n\nclass Own(Base):\n    pass\n" + RUN
    got = check(code, "5.24.0", name="main.py", code_filter="HFC002")
    assert [(f.span.start.line, f.span.start.column) for f in got] == [(7, 8)]
    assert "Own.get_seq_length() got an unexpected keyword argument 'layer_idx'" in got[0].message
