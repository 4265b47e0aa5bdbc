"""Constructor calls of transformers cache classes judged against each release's `__init__` from the release table
(engine/constructor_calls.py, HFC007's constructor part)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

MAMBA_KW = """from transformers import MambaCache

cache = MambaCache(config, batch_size=1, dtype=torch.float32)
"""
OFFLOADED = """from transformers import OffloadedStaticCache

cache = OffloadedStaticCache(config, max_batch_size=1, max_cache_len=8, device="cpu", offload_device="cpu")
"""
SINK = """from transformers import SinkCache

cache = SinkCache(window_length=8, num_sink_tokens=2)
"""
UNPACKED = """from transformers import MambaCache

cache = MambaCache(config, **cache_kwargs)
"""
HANDLED = """from transformers import MambaCache

try:
    cache = MambaCache(config, batch_size=1)
except TypeError:
    cache = MambaCache(config, max_batch_size=1)
"""
OWN = """from transformers import DynamicCache


class MambaCache:
    def __init__(self, batch_size):
        self.batch_size = batch_size


cache = MambaCache(batch_size=1)
"""


def _hfc007(code: str, version: str) -> list[tuple[int, str]]:
    found = check_source(code, "example.py", context=Context(target=Target.of(version))).findings
    return [(f.span.start.line, f.message) for f in found if f.code == "HFC007"]


def test_a_keyword_the_release_does_not_take() -> None:
    [(line, message)] = _hfc007(MAMBA_KW, "4.57.6")
    assert line == 3
    assert "TypeError: MambaCache.__init__() got an unexpected keyword argument 'batch_size'" in message
    assert "`config`, `max_batch_size`, `dtype`, `device`" in message
    # 4.45-4.50's cache_utils.MambaCache takes `batch_size` (and `max_batch_size`): nothing to report there.
    assert "batch_size" in releases.parameters(releases.value("init:transformers.cache_utils.MambaCache", "4.45.0"))
    assert _hfc007(MAMBA_KW, "4.45.0") == []
    # 5.5+: the class is gone; the import is the finding, not the keyword.
    [(line, message)] = _hfc007(MAMBA_KW, "5.24.0")
    assert line == 1 and "ImportError" in message


def test_defaults_with_parentheses_do_not_hide_parameters() -> None:
    """4.52's OffloadedStaticCache has `offload_device=torch.device('cpu')`: its parameters are all read."""
    signature = releases.value("init:transformers.cache_utils.OffloadedStaticCache", "4.52.4")
    assert signature is not None and "torch.device('cpu')" in signature
    assert releases.parameters(signature)[-2:] == ("offload_device", "layer_device_map")
    assert _hfc007(OFFLOADED, "4.52.4") == []


@pytest.mark.parametrize(("version", "raises"), [("4.52.4", False), ("4.53.0", True), ("4.57.6", True)])
def test_sink_cache_constructor_raises_from_4_53(version: str, raises: bool) -> None:
    found = _hfc007(SINK, version)
    assert [line for line, _ in found] == ([3] if raises else [])
    if raises:
        assert "NotImplementedError: `SinkCache` has been moved" in found[0][1]


@pytest.mark.parametrize("code", [UNPACKED, HANDLED, OWN], ids=["unpacked", "handled", "own-class"])
def test_what_is_not_judged(code: str) -> None:
    assert _hfc007(code, "4.57.6") == []


BARE_BASE = """from transformers.cache_utils import Cache, DynamicCache


class Window(Cache):
    def __init__(self, size):
        super().__init__()
        self.size = size


class Plain(Cache):
    def __init__(self):
        Cache.__init__(self)


class Counted(DynamicCache):
    def __init__(self):
        super().__init__()


class Given(Cache):
    def __init__(self, layer):
        super().__init__(layer_class_to_replicate=layer)


class Mixed(Base, Cache):
    def __init__(self):
        super().__init__()
"""


@pytest.mark.parametrize(("version", "error"), [
    ("4.54.0", "TypeError: Cache.__init__() missing 1 required positional argument: 'layer_classes'"),
    ("4.57.6", "ValueError: You should provide exactly one of `layers` or `layer_class_to_replicate`"),
    ("5.24.0", "ValueError: You should provide exactly one of `layers` or `layer_class_to_replicate`"),
])
def test_a_bare_base_constructor_of_cache_itself_raises_from_4_54(version: str, error: str) -> None:
    """`super().__init__()` / `Cache.__init__(self)` in a subclass of `Cache` itself (first base): the target's
    `Cache.__init__` needs the layers (the oracle: ValueError on 4.57.6-5.25.0). A DynamicCache subclass, a call that
    gives the layer class, and a class whose `super()` reaches a mixin first are not judged."""
    found = _hfc007(BARE_BASE, version)
    assert [line for line, _ in found] == [6, 12]
    assert all(error in message and "from 4.54.0" in message for _, message in found)
    assert "`Window` (a subclass of `Cache`)" in found[0][1]


def test_a_bare_base_constructor_of_cache_is_fine_before_4_54() -> None:
    assert _hfc007(BARE_BASE, "4.53.0") == []
    assert _hfc007(BARE_BASE, "4.45.0") == []


MODULE_SINK = """import transformers as tf


def stream():
    return tf.SinkCache(window_length=256, num_sink_tokens=4)
"""


@pytest.mark.parametrize(("version", "found"), [
    ("4.52.4", []), ("4.57.6", ["NotImplementedError: `SinkCache` has been moved"]),
    ("5.24.0", ["AttributeError: module transformers has no attribute SinkCache"]),
])
def test_a_class_read_off_the_imported_module_is_judged_too(version: str, found: list[str]) -> None:
    """`transformers.SinkCache(...)` (the module imported, under any name) is the same constructor call as
    `SinkCache(...)` after `from transformers import SinkCache`; from 5.0.0 the read itself is the finding (once)."""
    got = _hfc007(MODULE_SINK, version)
    assert [line for line, _ in got] == [5] * len(found)
    assert all(error in message for error, (_, message) in zip(found, got, strict=True))


@pytest.mark.parametrize(("call", "version", "flagged"), [
    ("StaticCache(config, 1, seq_len + 2 * n + 1, device='cpu')", "4.57.6", True),  # SpQR's demo
    ("StaticCache(config, 1, 64)", "5.24.0", True),
    ("StaticCache(config, 1, 64)", "4.53.0", False),  # 4.51-4.53 bind it as written
    ("StaticCache(config, 64, False)", "5.24.0", False),  # 4.56+'s order, the flag a flag
    ("StaticCache(config, 64, 0)", "5.24.0", False),  # a zero is a false flag
    ("StaticCache(config, 1, length)", "5.24.0", False),  # a name the code does not say is a number
    ("StaticCache(config, 64)", "5.24.0", False),
])
def test_a_number_the_target_binds_to_a_flag(call: str, version: str, flagged: bool) -> None:
    code = f"from transformers import StaticCache\n\ncache = {call}\n"
    found = _hfc007(code, version)
    assert bool(found) == flagged, found
    if flagged:
        assert "offloading=" in found[0][1] and "AssertionError: Torch not compiled with CUDA enabled" in found[0][1]
