"""HFC010 stays quiet where a hook fails before the cache's new name or `update`'s `kwargs=` matters (issue 29 item
3; docs/facts.md): a `Cache.update` override whose class cannot be built or whose own `get_seq_length` raises where
the forward calls it first (engine/interpreter/hook_classes.py; the oracle: tests/oracle/own_cases.py
`own_cache_*`), and a `prepare_inputs_for_generation` override that reads a member gone on the target off its cache
(the HFC010 VALID example). The controls keep their findings."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

UPDATE = ("    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
          "        return super().update(key_states, value_states, layer_idx, cache_kwargs)\n")
HEAD = "from transformers import AutoModelForCausalLM, Cache, DynamicCache\n\n\n"


def found(text: str, version: str = "5.24.0") -> list[Finding]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


QUIET_UPDATES = [
    pytest.param("class Sink(Cache):\n    def __init__(self):\n        super().__init__()\n\n" + UPDATE,
                 id="bare-base-init"),
    pytest.param("class Session(DynamicCache):\n    def get_seq_length(self):\n        return 0\n\n" + UPDATE,
                 id="length-without-layer_idx"),
    pytest.param("class Counting(DynamicCache):\n    def get_seq_length(self, layer_idx=0):\n"
                 "        return self._seen_tokens\n\n" + UPDATE, id="length-reads-unset-counter"),
    # No base `__init__` runs, so no `layers` for the forward's mask (own_cases `own_cache_no_base_init_update`).
    pytest.param("class Stream(Cache):\n    def __init__(self):\n        self.key_cache = []\n\n" + UPDATE,
                 id="no-base-init"),
    pytest.param("class Stream(DynamicCache):\n    def __init__(self, size):\n        self.size = size\n\n"
                 + UPDATE, id="no-base-init-of-dynamic"),
]

LOUD_UPDATES = [
    pytest.param("class Plain(DynamicCache):\n" + UPDATE, id="no-own-length"),
    pytest.param("class Budget(DynamicCache):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.count = 0\n\n    def get_seq_length(self, layer_idx=0):\n        return self.count\n\n"
                 + UPDATE, id="length-reads-what-it-sets"),
    pytest.param("class Own(DynamicCache):\n    def __init__(self):\n        super().__init__()\n\n" + UPDATE,
                 id="dynamic-base-init"),
    pytest.param("class Sets(Cache):\n    def __init__(self):\n        self.layers = []\n\n" + UPDATE,
                 id="no-base-init-sets-layers"),
    pytest.param("class Calls(DynamicCache):\n    def __init__(self):\n        DynamicCache.__init__(self)\n\n"
                 + UPDATE, id="base-init-by-name"),
    pytest.param("class Layers(DynamicCache):\n    def get_seq_length(self, **kwargs):\n"
                 "        return len(self.layers)\n\n" + UPDATE, id="length-reads-a-base-member"),
]


@pytest.mark.parametrize("cls", QUIET_UPDATES)
def test_update_override_of_a_class_failing_first_is_not_flagged(cls: str) -> None:
    assert found(HEAD + cls) == []


@pytest.mark.parametrize("cls", LOUD_UPDATES)
def test_update_override_of_a_working_class_is_flagged(cls: str) -> None:
    got = found(HEAD + cls)
    assert len(got) == 1 and "unexpected keyword argument 'kwargs'" in got[0].message


PREPARE = ("class M(LlamaForCausalLM):\n"
           "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
           "        if past_key_values is not None:\n"
           "            input_ids = input_ids[:, {read}:]\n"
           '        return {{"input_ids": input_ids, "past_key_values": past_key_values}}\n')
PREPARE_HEAD = "from transformers import LlamaForCausalLM\n\n\n"
HELPER = "def _past(cache):\n    return cache.seen_tokens\n\n\n"


@pytest.mark.parametrize(("head", "read"), [pytest.param("", "past_key_values.seen_tokens", id="itself"),
                                            pytest.param(HELPER, "_past(past_key_values)", id="in-a-helper")])
def test_prepare_override_reading_a_gone_member_is_left_to_hfc007(head: str, read: str) -> None:
    assert found(PREPARE_HEAD + head + PREPARE.format(read=read)) == []


@pytest.mark.parametrize("read", ["past_key_values.get_seq_length()", "-1"])
def test_prepare_override_reading_a_present_member_is_flagged(read: str) -> None:
    text = PREPARE_HEAD + HELPER + PREPARE.format(read=read)
    # Reported on the parameter either way (where a read in the branch its None test opens stops running, the
    # message names it).
    assert [f.message.split(" takes ")[0] for f in found(text)] == [
        "`M.prepare_inputs_for_generation` (`M` derives from a transformers model class)"]
    # 5.23.0: no rename; a cut by a constant under `is not None` is cut at the first step there (the empty cache
    # generate builds before it is not None: HFC010's NOT_NONE_CUT example on the oracle), a cut by the cached length
    # is not.
    assert [f.message.split(":")[0] for f in found(text, "5.23.0")] == (
        ["`if past_key_values is not None"] if read == "-1" else [])


PATCH = ("import transformers.models.llama.modeling_llama as modeling_llama\n\n\n"
         "def tuple_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None, **kw):\n"
         "    return hidden_states, None, past_key_value\n\n\n"
         "def enable():\n{body}")


@pytest.mark.parametrize("version", ["4.57.6", "5.23.0", "5.24.0", "5.25.0"])
@pytest.mark.parametrize("body", [
    pytest.param("    modeling_llama.LlamaAttention.forward = tuple_forward\n"
                 "    modeling_llama.LlamaSdpaAttention.forward = tuple_forward\n", id="gone-class-after"),
    pytest.param("    modeling_llama.LlamaFlashAttention2.forward = tuple_forward\n"
                 "    modeling_llama.LlamaAttention.forward = tuple_forward\n", id="gone-class-before"),
])
def test_patch_in_a_block_patching_a_gone_class_is_left_to_hfc007(body: str, version: str) -> None:
    # The block raises AttributeError at the gone class's patch (own_cases `patch_block_gone_class`).
    assert found(PATCH.format(body=body), version) == []


@pytest.mark.parametrize("body", [
    pytest.param("    modeling_llama.LlamaAttention.forward = tuple_forward\n", id="alone"),
    pytest.param("    modeling_llama.LlamaAttention.forward = tuple_forward\n"
                 "    try:\n        modeling_llama.LlamaSdpaAttention.forward = tuple_forward\n"
                 "    except AttributeError:\n        pass\n", id="gone-class-in-a-try"),
])
def test_patch_whose_block_runs_through_is_flagged(body: str) -> None:
    got = found(PATCH.format(body=body), "4.57.6")
    assert len(got) == 1 and "takes the cache as `past_key_value`" in got[0].message


# eighth session, cacheclass29g: only transformers' forward (or generate) calls `update` with the release's arguments.
OWN_USE = ("\n\ncache = Plain()\ncache.update(key_states, value_states, 0)\nlength = cache.get_seq_length()\n")
TO_MODEL = ('model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
            "model(input_ids, past_key_values=cache, use_cache=True)\n")


def test_update_override_only_the_project_calls_is_not_flagged() -> None:
    assert found(HEAD + "class Plain(DynamicCache):\n" + UPDATE + OWN_USE) == []


def test_update_override_given_to_a_forward_is_flagged() -> None:
    got = found(HEAD + "class Plain(DynamicCache):\n" + UPDATE + OWN_USE + TO_MODEL)
    assert len(got) == 1 and "unexpected keyword argument 'kwargs'" in got[0].message


def test_update_inherited_by_a_subclass_that_mends_the_length_is_flagged() -> None:
    narrow = "class Step(DynamicCache):\n    def get_seq_length(self):\n        return 0\n\n" + UPDATE
    mended = "\n\nclass Plain(Step):\n    def get_seq_length(self, layer_idx=0, **kwargs):\n        return 0\n"
    assert found(HEAD + narrow + OWN_USE.replace("Plain()", "Step()") + TO_MODEL) == []  # fails first in its length
    got = found(HEAD + narrow + mended + OWN_USE + TO_MODEL)
    assert len(got) == 1 and "given to the forward here" in got[0].message


# HFC007 inside such an override: a raise under `if layer_idx == 0:` ends the forward at its first layer.
FIRST_LAYER = ("class Normal(DynamicCache):\n"
               "    def update(self, key_states, value_states, layer_idx, *args, **kwargs):\n"
               "        if layer_idx == 0:\n            self.seen_tokens += key_states.shape[-2]\n"
               "        return self.key_cache[layer_idx], self.value_cache[layer_idx]\n\n\n"
               "cache = Normal()\n")


def removed(text: str, version: str = "4.57.6") -> list[str]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f.message.split(":")[0] for f in result.findings if f.code == "HFC007"]


@pytest.mark.parametrize("version", ["4.57.6", "5.23.0"])
def test_a_first_layer_raise_in_an_update_only_transformers_calls_stops_it(version: str) -> None:
    assert removed(HEAD + FIRST_LAYER + TO_MODEL, version) == ["`self.seen_tokens`"]


def test_a_first_layer_raise_in_an_update_the_project_calls_does_not() -> None:
    own = HEAD + FIRST_LAYER + "cache.update(key_states, value_states, 1)\n" + TO_MODEL
    assert any("key_cache" in m for m in removed(own))  # the project's call starts at layer 1
    alone = removed(HEAD + FIRST_LAYER)  # no model given the cache: nothing is known of the order
    assert "`self.seen_tokens`" in alone and any("key_cache" in m for m in alone)


@pytest.mark.parametrize("call", ["cache.update(key_states, value_states, 0)\n",
                                  "cache.update(key_states, value_states, layer_idx=0)\n"])
def test_a_first_layer_raise_in_an_update_the_project_calls_at_layer_0_stops_it(call: str) -> None:
    # KVQ's own `kvq.update(keys, values, 0)` (heldout21): the project's call starts at layer 0 as the forward does.
    assert removed(HEAD + FIRST_LAYER + call + TO_MODEL) == ["`self.seen_tokens`"]
    later = call.replace("0)", "idx)")  # any layer may come first
    assert any("key_cache" in m for m in removed(HEAD + FIRST_LAYER + later + TO_MODEL))


def test_a_first_layer_read_of_a_member_the_module_binds_stops_nothing() -> None:
    # KVzip's `kv._seen_tokens = 0` before its forward (heldout4): that instance has the member, so the first-layer
    # read does not raise there and the reads after the `if` run (and raise).
    bound = HEAD + FIRST_LAYER + "cache.seen_tokens = 0\ncache.update(key_states, value_states, 0)\n" + TO_MODEL
    got = removed(bound)
    assert "`self.seen_tokens`" in got and any("key_cache" in m for m in got)
