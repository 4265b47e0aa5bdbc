"""Receivers the code says are transformers caches, and a cache's maximum asked across releases (issue 29; HFC007):
a name that is the caller's cache where `isinstance(x, Cache)` holds and one the code builds elsewhere, a function
patched onto a transformers cache class (its `self`), a hook's unfed cache handed to a helper under the hook's
guard, and the try/except pair `get_max_cache_shape()` / `get_max_length()` (docs/facts.md; each runtime claim is an
HFC007 example run on the oracle: rules/hfc007_removed_cache_api/member_examples.py)."""

from __future__ import annotations

import parso
import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter.except_fallbacks import pair
from hf_cache_lint.rules.hfc007_removed_cache_api.max_length import shape_minus_one_since

LOAD = ("from transformers import AutoModelForCausalLM, Cache, DynamicCache, LlamaForCausalLM, StaticCache\n"
        'model = AutoModelForCausalLM.from_pretrained("m")\n')


def found(text: str, version: str = "5.24.0") -> list[tuple[int, str, str]]:
    """(line, severity, message) of each HFC007 finding (lines counted from the text after LOAD)."""
    result = check_source(LOAD + text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line - 2, f.severity.value, f.message) for f in result.findings if f.code == "HFC007"]


# -- a guard on one path, a built cache on the other -----------------------------------------------------------
GUARD_OR_BUILT = ("def past_for(past):\n    if not isinstance(past, Cache):\n        past = DynamicCache()\n"
                  "    return past.get_usable_length(4)\n")


@pytest.mark.parametrize("version", ["4.57.6", "5.24.0"])
def test_the_guarded_cache_or_a_built_one_is_a_cache_on_every_path(version: str) -> None:
    got = found(GUARD_OR_BUILT, version)
    assert [(line, severity) for line, severity, _ in got] == [(4, "error")]
    assert "a `Cache` subclass" in got[0][2]  # as hedged as the guard alone: the caller's may be any subclass


def test_no_removal_where_the_target_still_has_the_member() -> None:
    assert found(GUARD_OR_BUILT, "4.53.0") == []


def test_a_guard_joined_with_the_projects_subclass_or_an_unknown_value_says_nothing() -> None:
    own = ("class Mine(DynamicCache):\n    def get_usable_length(self, n, layer_idx=0):\n        return 0\n\n\n"
           "def past_for(past):\n    if not isinstance(past, Cache):\n        past = Mine()\n"
           "    return past.get_usable_length(4)\n")
    assert found(own, "4.57.6") == []
    unknown = ("def past_for(past, make):\n    if not isinstance(past, Cache):\n        past = make()\n"
               "    return past.get_usable_length(4)\n")
    assert found(unknown, "4.57.6") == []


# -- a cache the code already says is one, under an isinstance test -----------------------------------------------
TESTED = ("def seen(past):\n    if isinstance(past, {cls}):\n        return past.seen_tokens\n"
          "    return past[0][0].shape[2]\n\n\nc = DynamicCache()\nn = seen(c)\n")


@pytest.mark.parametrize("cls", ["Cache", "DynamicCache"])
def test_a_known_cache_tested_by_isinstance_is_read_on_its_own_branch(cls: str) -> None:
    got = found(TESTED.format(cls=cls), "4.57.6")
    assert [(line, severity) for line, severity, _ in got] == [(3, "warning")]
    assert "'DynamicCache' object has no attribute 'seen_tokens'" in got[0][2]


def test_a_test_of_another_class_is_not_this_caches_branch() -> None:
    assert found(TESTED.format(cls="StaticCache"), "4.57.6") == []


def test_no_removal_where_the_target_still_has_the_read() -> None:
    assert found(TESTED.format(cls="Cache"), "4.53.0") == []


# -- a function patched onto a transformers cache class --------------------------------------------------------
def test_a_function_patched_onto_a_cache_class_gets_an_instance_of_it() -> None:
    text = ("def _keys(cache):\n    return cache.key_cache\n\n\n"
            "def drop(self, n):\n    return _keys(self)\n\n\nDynamicCache.drop = drop\n")
    got = found(text, "4.57.6")
    assert [(line, severity) for line, severity, _ in got] == [(2, "error")]
    assert "'DynamicCache' object has no attribute 'key_cache'" in got[0][2]


def test_patched_onto_the_projects_class_or_a_model_class_is_no_cache() -> None:
    own = ("class Mine:\n    pass\n\n\ndef drop(self, n):\n    return self.key_cache\n\n\nMine.drop = drop\n")
    assert found(own, "4.57.6") == []
    onto_model = "def drop(self, n):\n    return self.key_cache\n\n\nLlamaForCausalLM.drop = drop\n"
    assert found(onto_model, "4.57.6") == []
    unpatched = "def drop(self, n):\n    return self.key_cache\n"
    assert found(unpatched, "4.57.6") == []


# -- a hook's cache, unfed on the target, handed to a helper under the hook's guard -----------------------------
HOOK = ("def _seen(past_key_values):\n    return past_key_values.seen_tokens\n\n\n"
        "class Mine(LlamaForCausalLM):\n"
        "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
        "        if past_key_values is not None:\n"
        "            if isinstance(past_key_values, Cache):\n"
        "                seen = _seen(past_key_values)\n"
        "                input_ids = input_ids[:, seen:]\n"
        "        return {'input_ids': input_ids, 'past_key_values': past_key_values}\n")


@pytest.mark.parametrize(("version", "lines"), [("4.57.6", [2]), ("5.23.0", [2]), ("5.24.0", []), ("5.25.0", [])])
def test_a_helper_of_an_unfed_hook_is_not_reached_under_the_hooks_guard(version: str, lines: list[int]) -> None:
    # 5.24+ pass the cache to the override as `cache=`: `past_key_values` is None, the guard false, the helper not
    # called with a cache (heldout7 internvl_phi3_prepare.py: the oracle's generate runs there).
    assert [line for line, _, _ in found(HOOK, version)] == lines


def test_the_helper_called_with_a_cache_elsewhere_is_still_reached() -> None:
    text = HOOK + "\n\nc = model(ids, use_cache=True).past_key_values\n_seen(c)\n"
    assert [line for line, _, _ in found(text, "5.24.0")] == [2]


# -- the try/except pair of a cache's maximum -----------------------------------------------------------------
PAIR = ("c = model(ids, use_cache=True).past_key_values\ntry:\n    n = c.get_max_cache_shape()\n"
        "except Exception:\n    n = c.get_max_length()\nif n is None:\n    n = 1 << 30\n")


def _calls(text: str) -> list[str | None]:
    tree = parso.parse(text)
    out: list[str | None] = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", []):
            if child.type == "trailer" and child.children[0].value == "(" and \
                    child.get_previous_sibling().type == "trailer":
                out.append(pair(child))
            walk(child)

    walk(tree)
    return out


def test_pair_reads_both_sides_and_only_the_same_name_and_receiver() -> None:
    assert _calls(PAIR) == ["except:get_max_length", "try:get_max_cache_shape"]
    other_receiver = PAIR.replace("n = c.get_max_length()", "n = d.get_max_length()")
    assert _calls(other_receiver) == [None, None]
    other_name = PAIR.replace("n = c.get_max_length()", "m = c.get_max_length()")
    assert _calls(other_name) == [None, None]
    two_statements = PAIR.replace("    n = c.get_max_cache_shape()\n", "    n = c.get_max_cache_shape()\n    k = 1\n")
    assert _calls(two_statements) == [None, None]
    one_line = PAIR.replace("try:\n    n = c.get_max_cache_shape()\n", "try: n = c.get_max_cache_shape()\n")
    assert _calls(one_line) == ["except:get_max_length", "try:get_max_cache_shape"]


def test_shape_answers_minus_one_from_4_54_to_5_19() -> None:
    assert shape_minus_one_since(Target.of("4.53.0").version) is None  # DynamicCache's own `return None`
    assert str(shape_minus_one_since(Target.of("4.57.6").version)) == "4.54.0"
    assert str(shape_minus_one_since(Target.of("5.19.0").version)) == "4.54.0"
    assert shape_minus_one_since(Target.of("5.24.0").version) is None  # gone


@pytest.mark.parametrize(("version", "expected"), [
    ("4.53.0", []),  # get_max_cache_shape answers None; the handler does not run
    ("4.57.6", [(3, "warning", "from transformers 4.54.0")]),  # -1; the handler's removed method is not claimed
    ("5.13.1", [(3, "warning", "from transformers 4.54.0")]),
    ("5.24.0", [(3, "warning", "`get_max_cache_shape()` is gone (since 5.20.0")]),  # the handler's -1, told here
])
def test_the_pair_is_one_value_told_at_the_trys_call(version: str, expected: list[tuple[int, str, str]]) -> None:
    got = found(PAIR, version)
    assert [(line, severity) for line, severity, _ in got] == [(line, severity) for line, severity, _ in expected]
    for (_, _, message), (_, _, part) in zip(got, expected, strict=True):
        assert part in message


def test_a_negative_answer_read_as_no_maximum_is_clean_on_every_release() -> None:
    handled = PAIR.replace("if n is None:", "if n is None or n < 0:")
    for version in ("4.53.0", "4.57.6", "5.13.1", "5.24.0"):
        assert found(handled, version) == []


def test_a_handler_alone_is_still_claimed_where_its_method_is_gone() -> None:
    # No try body asking the other method: the call runs, and raises on 4.49-5.12.
    alone = "c = model(ids, use_cache=True).past_key_values\nn = c.get_max_length()\n"
    assert [(line, severity) for line, severity, _ in found(alone, "4.57.6")] == [(2, "error")]


# -- a counter the base's `__init__` set, counted on by a subclass whose own `__init__` does not ----------------
COUNTING = ("class Counting(DynamicCache):\n    def __init__(self):\n        super().__init__()\n{init}\n"
            "    def update(self, k, v, layer_idx, *args, **kwargs):\n        self._seen_tokens += k.shape[-2]\n"
            "        return super().update(k, v, layer_idx, *args, **kwargs)\n\n"
            "    def rewind(self, n):\n        self._seen_tokens = n\n{more}")


@pytest.mark.parametrize(("version", "lines"), [("4.53.0", []), ("4.57.6", [7]), ("5.24.0", [7])])
def test_a_counter_set_only_outside_init_is_read_before_it_is_set(version: str, lines: list[int]) -> None:
    text = COUNTING.format(init="        self.window = 4\n", more="")
    got = found(text, version)
    assert [line for line, _, _ in got] == lines
    assert all("'Counting' object has no attribute '_seen_tokens'" in message for _, _, message in got)


def test_a_counter_its_init_sets_itself_or_through_a_method_or_a_project_base_is_its_own() -> None:
    assert found(COUNTING.format(init="        self._seen_tokens = 0\n", more=""), "4.57.6") == []
    through = COUNTING.format(init="        self.reset_counter()\n",
                              more="\n    def reset_counter(self):\n        self._seen_tokens = 0\n")
    assert found(through, "4.57.6") == []
    base = ("class Base(DynamicCache):\n    def __init__(self):\n        super().__init__()\n"
            "        self._seen_tokens = 0\n\n\nclass Child(Base):\n"
            "    def update(self, k, v, layer_idx, *args, **kwargs):\n        self._seen_tokens += k.shape[-2]\n"
            "        return super().update(k, v, layer_idx, *args, **kwargs)\n")
    assert found(base, "4.57.6") == []


def test_only_an_update_in_place_reads_the_counter_first() -> None:
    # A plain read in another method is not claimed: which of the class's methods runs first, the code does not say.
    text = COUNTING.format(init="        self.window = 4\n", more="\n    def seen(self):\n        return self._seen_tokens\n")
    assert [line for line, _, _ in found(text, "4.57.6")] == [7]


# -- a cache kept on `self` by another call, read back in a mixin's method ------------------------------------------
MIXIN = ("class CacheSetup:\n    def _batch_matches(self, cache, batch_size):\n"
         "        return cache.max_batch_size == batch_size\n\n"
         "    def get_cache(self, batch_size):\n        cached = self._cache\n"
         "        if not isinstance(cached, StaticCache) or not self._batch_matches(cached, batch_size):\n"
         "            self._cache = StaticCache(config=model.config, max_cache_len=32)\n        return self._cache\n")


@pytest.mark.parametrize(("version", "lines"), [("4.57.6", []), ("5.19.0", []), ("5.20.0", [3]), ("5.24.0", [3])])
def test_an_attribute_the_class_sets_is_unknown_data_an_isinstance_test_narrows(version: str, lines: list[int]) -> None:
    # Uncalled: `self._cache` is what an earlier call stored; the test says it is a StaticCache on its branch.
    assert [line for line, _, _ in found(MIXIN, version)] == lines


def test_a_method_of_the_class_or_an_attribute_it_never_sets_is_not_narrowed() -> None:
    method = MIXIN.replace("            self._cache = StaticCache(config=model.config, max_cache_len=32)\n",
                           "            pass\n") + "\n    def _cache(self):\n        return None\n"
    assert found(method, "5.24.0") == []
    never_set = MIXIN.replace("            self._cache = StaticCache(config=model.config, max_cache_len=32)\n",
                              "            pass\n")
    assert found(never_set, "5.24.0") == []
