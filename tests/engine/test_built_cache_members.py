"""Members the target lacks on caches the code builds from transformers ones (issue 29): a cache handed to the
project's classmethod, a value that is the caller's cache on one path and one the code builds on another, the
`_seen_tokens` counter, `x.member += n`, removed methods under a flag or under compat tests, a layer count as
DynamicCache's first positional argument, and the classes the errors name (docs/facts.md §7; each runtime claim is
an HFC007/HFC009 example run on the oracle)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

LOAD = ("from transformers import AutoModelForCausalLM, Cache, DynamicCache, EncoderDecoderCache\n"
        'model = AutoModelForCausalLM.from_pretrained("m")\n')


def found(text: str, version: str = "5.24.0") -> list[tuple[int, str, str]]:
    """(line, severity, message) of each HFC007 and HFC009 finding."""
    result = check_source(LOAD + text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line - 2, f.severity.value, f.message) for f in result.findings
            if f.code in ("HFC007", "HFC009")]


def test_a_cache_handed_to_the_projects_classmethod_is_followed() -> None:
    text = ("class Budget:\n    @classmethod\n    def from_cache(cls, cache):\n        return cache.key_cache\n\n\n"
            "c = model(ids, use_cache=True).past_key_values\nBudget.from_cache(c)\n")
    assert [(line, severity) for line, severity, _ in found(text, "4.57.6")] == [(4, "error")]


def test_a_staticmethod_too_and_a_plain_method_read_off_the_class_stays_unknown() -> None:
    static = ("class Budget:\n    @staticmethod\n    def first(cache):\n        return cache.key_cache\n\n\n"
              "c = model(ids, use_cache=True).past_key_values\nBudget.first(c)\n")
    assert [line for line, _, _ in found(static)] == [4]
    plain = ("class Budget:\n    def first(self, cache):\n        return cache.key_cache\n\n\n"
             "c = model(ids, use_cache=True).past_key_values\nBudget.first(None, c)\n")
    assert found(plain) == []


def test_the_callers_cache_or_a_built_one_is_that_cache_on_every_path() -> None:
    text = ("def past_for(past):\n    if not isinstance(past, DynamicCache):\n        past = DynamicCache()\n"
            "    return past.get_usable_length(4)\n")
    assert [(line, severity) for line, severity, _ in found(text, "4.57.6")] == [(4, "error")]


def test_paths_of_different_classes_or_a_subclass_defining_the_member_are_not_one_cache() -> None:
    differ = ("from transformers import StaticCache\n\n\ndef pick(flag):\n"
              "    c = DynamicCache() if flag else StaticCache(config=model.config, max_cache_len=8)\n"
              "    return c.get_usable_length(4)\n")
    assert found(differ, "4.57.6") == []
    own = ("class Mine(DynamicCache):\n    def get_usable_length(self, n, layer_idx=0):\n        return 0\n\n\n"
           "def past_for(past):\n    if not isinstance(past, DynamicCache):\n        past = Mine()\n"
           "    return past.get_usable_length(4)\n")
    assert found(own, "4.57.6") == []


@pytest.mark.parametrize(("version", "expected"), [("4.53.0", []), ("4.57.6", [(3, "error")]),
                                                    ("5.24.0", [(3, "error")])])
def test_seen_tokens_counter_gone_from_4_54(version: str, expected: list[tuple[int, str]]) -> None:
    text = "c = DynamicCache()\nmodel(ids, past_key_values=c)\nn = c._seen_tokens\n"
    got = found(text, version)
    assert [(line, severity) for line, severity, _ in got] == expected
    if got:
        assert "AttributeError: 'DynamicCache' object has no attribute '_seen_tokens'" in got[0][2]
        assert "(removed in 4.54.0)" in got[0][2]


def test_an_augmented_assignment_reads_the_member_first_a_plain_one_stores() -> None:
    text = "c = DynamicCache()\nmodel(ids, past_key_values=c)\nc._seen_tokens += 1\nc._seen_tokens = 0\n"
    assert [line for line, _, _ in found(text, "4.57.6")] == [3]


def test_a_subclass_that_sets_the_counter_itself_owns_it() -> None:
    text = ("class Counter(DynamicCache):\n    def __init__(self):\n        super().__init__()\n"
            "        self._seen_tokens = 0\n\n\nc = Counter()\nmodel(ids, past_key_values=c)\nc._seen_tokens += 1\n")
    assert found(text, "4.57.6") == []


@pytest.mark.parametrize(("test", "reported"), [
    ("return_legacy", True),  # a flag: no test of the object
    ("getattr(past, 'layers', None) is None", False),  # compat code's fallback
    ("past is not None and hasattr(past, 'to_legacy_cache')", False),
])
def test_a_removed_method_under_a_condition(test: str, reported: bool) -> None:
    text = (f"def out(past, return_legacy):\n    if {test}:\n        return past.to_legacy_cache()\n    return past\n\n\n"
            "c = DynamicCache()\nmodel(ids, past_key_values=c)\nout(c, True)\n")
    got = found(text)
    assert [(line, severity) for line, severity, _ in got] == ([(3, "warning")] if reported else [])


def test_the_guard_and_its_classs_import_test_are_no_compat_probe() -> None:
    text = ("try:\n    from transformers.cache_utils import Cache as C\nexcept ImportError:\n    C = None\n\n\n"
            "def out(past):\n    if C is not None and isinstance(past, C):\n        return past.to_legacy_cache()\n"
            "    return past\n")
    assert [(line, severity) for line, severity, _ in found(text)] == [(9, "warning")]


@pytest.mark.parametrize(("test", "reported"), [
    ("not isinstance(past, EncoderDecoderCache)", True),  # a test of the argument, not of the class
    ("not hasattr(EncoderDecoderCache, 'from_legacy_cache')", False),
])
def test_a_removed_classmethod_under_a_test(test: str, reported: bool) -> None:
    text = (f"def as_cache(past):\n    if {test}:\n        past = EncoderDecoderCache.from_legacy_cache(past)\n"
            "    return past\n")
    got = found(text)
    assert [line for line, _, _ in got] == ([3] if reported else [])
    if reported:
        assert "type object 'EncoderDecoderCache' has no attribute 'from_legacy_cache'" in got[0][2]


def test_the_errors_name_the_receivers_class_and_a_class_call_is_a_type_object() -> None:
    # Two functions: at the top level the first call's AttributeError would stop the module before the second.
    text = ("def a():\n    c = EncoderDecoderCache(DynamicCache(), DynamicCache())\n    return c.to_legacy_cache()\n\n\n"
            "def b():\n    return DynamicCache.from_batch_splits([DynamicCache()])\n")
    messages = {line: message for line, _, message in found(text)}
    assert "AttributeError: 'EncoderDecoderCache' object has no attribute 'to_legacy_cache'" in messages[3]
    assert "(with the class" not in messages[3]
    assert "AttributeError: type object 'DynamicCache' has no attribute 'from_batch_splits'" in messages[7]


@pytest.mark.parametrize(("text", "expected"), [
    ("c = DynamicCache(32)\n", [(1, "error")]),
    ("class T(DynamicCache):\n    def __init__(self, num_hidden_layers=None):\n"
     "        super().__init__(num_hidden_layers)\n", [(3, "warning")]),
    ("class T(DynamicCache):\n    def __init__(self):\n        DynamicCache.__init__(self, 4)\n", [(3, "error")]),
    ("c = DynamicCache(None)\n", []),
    ("legacy = ()\nc = DynamicCache(legacy)\n", []),  # not said to be a count
    ("class T(DynamicCache):\n    def __init__(self):\n        super().__init__()\n", []),
])
def test_a_layer_count_as_dynamic_caches_first_positional_argument(text: str,
                                                                   expected: list[tuple[int, str]]) -> None:
    got = found(text, "4.57.6")
    assert [(line, severity) for line, severity, _ in got] == expected
    assert all("TypeError: 'int' object is not iterable" in message for _, _, message in got)
    assert found(text, "4.46.0") == []  # 4.45-4.49 took it as num_hidden_layers


def test_each_item_of_a_layer_read_as_a_tensor() -> None:
    text = ("c = model(ids, use_cache=True).past_key_values\ncopy = [[t.clone() for t in layer] for layer in c]\n"
            "firsts = [layer[0].clone() for layer in c]\n")
    got = found(text)
    assert [(line, severity) for line, severity, _ in got] == [(2, "error")]
    assert "AttributeError: 'NoneType' object has no attribute 'clone'" in got[0][2]
    assert found(text, "4.57.6") == []


def test_enumerate_with_the_item_unpacked_in_the_body() -> None:
    # reported at the unpacking statement, where Python raises (as for `for layer in c:`)
    text = ("c = model(ids, use_cache=True).past_key_values\nfor i, layer in enumerate(c):\n    k, v = layer\n")
    got = found(text)
    assert [(line, severity) for line, severity, _ in got] == [(3, "error")]
    assert "too many values to unpack (expected 2)" in got[0][2]
