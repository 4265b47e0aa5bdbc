"""HFC010 reads a `prepare_inputs_for_generation` override only where losing the cache is what happens to it
(issue 29 item 3; docs/facts.md; the HFC010 VALID examples, run on the oracle at 4.57.6, 5.23.0, 5.24.0, 5.25.0):

- an override that only hands `past_key_values` on by name to transformers' own hook together with its whole
  `**kwargs` is not reported (5.24's `cache=` rides in `**kwargs`); without the `**kwargs`, by position, or with a
  use of its own, it still is (engine/interpreter/hook_signatures.py `handed_to_base`);
- the override of a class the module builds whose generate never runs it is not read: a transformers backbone
  alone (no `generate` from 4.50), a backbone with `GenerationMixin` where the module never calls `generate`
  (engine/interpreter/hook_classes.py `generates`). A generation head's override, a `GenerationMixin` class's in a
  module that generates, and any class the module does not build (remote code, which an Auto class gives
  `GenerationMixin`) still are. The controls keep their findings."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("import torch\nfrom transformers import GenerationMixin, LlamaForCausalLM, LlamaModel, LlamaPreTrainedModel\n"
        "\n\n")
TRIM = ("    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
        "        if past_key_values is not None:\n"
        "            input_ids = input_ids[:, -1:]\n"
        '        return {"input_ids": input_ids, "past_key_values": past_key_values}\n')
GENERATE = "\n\nmodel.generate(torch.tensor([[1, 2]]), max_new_tokens=2)\n"


def found(text: str, version: str = "5.24.0") -> list[Finding]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


def _handing(call: str, signature: str = "input_ids, past_key_values=None, **kwargs") -> str:
    return (f"class M(LlamaForCausalLM):\n    def prepare_inputs_for_generation(self, {signature}):\n"
            '        images = kwargs.pop("images", None)\n'
            f"        inputs = {call}\n"
            "        return inputs\n")


QUIET_HANDING = [
    pytest.param(_handing("super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, "
                          "**kwargs)"), id="super"),
    pytest.param(_handing("super(M, self).prepare_inputs_for_generation(input_ids, "
                          "past_key_values=past_key_values, **kwargs)"), id="super-with-arguments"),
    pytest.param(_handing("LlamaForCausalLM.prepare_inputs_for_generation(self, input_ids, "
                          "past_key_values=past_key_values, **kwargs)"), id="base-by-name"),
    pytest.param(_handing("super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, "
                          "**extra)", "input_ids, past_key_values=None, **extra").replace('kwargs.pop', 'extra.pop'),
                 id="other-kwargs-name"),
]

LOUD_HANDING = [
    pytest.param(_handing("super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values)"),
                 id="without-kwargs"),
    pytest.param(_handing("super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, "
                          "**kwargs)").replace("        images =",
                                               "        if past_key_values is not None:\n"
                                               "            input_ids = input_ids[:, -1:]\n        images ="),
                 id="own-use-too"),
    pytest.param(_handing("self.prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, "
                          "**kwargs)"), id="own-method"),
    pytest.param(_handing("helper(input_ids, past_key_values=past_key_values, **kwargs)"), id="own-helper"),
    pytest.param(_handing("super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, "
                          "**other)"), id="another-dict"),
]


@pytest.mark.parametrize("cls", QUIET_HANDING)
def test_override_handing_the_cache_on_with_its_kwargs_is_not_flagged(cls: str) -> None:
    assert found(HEAD + cls + "\n\nmodel = M.from_pretrained('x')" + GENERATE) == []


@pytest.mark.parametrize("cls", LOUD_HANDING)
def test_override_losing_the_cache_is_flagged(cls: str) -> None:
    got = found(HEAD + cls + "\n\nmodel = M.from_pretrained('x')" + GENERATE)
    assert len(got) == 1 and "passes it as `cache=`" in got[0].message


def test_handing_on_is_quiet_on_every_release_and_the_control_is_not() -> None:
    quiet = HEAD + QUIET_HANDING[0].values[0] + GENERATE
    loud = HEAD + LOUD_HANDING[0].values[0] + GENERATE
    for version in ("4.57.6", "5.23.0", "5.24.0", "5.25.0"):
        assert found(quiet, version) == []
    assert found(loud, "5.23.0") == [] and len(found(loud, "5.25.0")) == 1


BUILT = "\n\nbackend = B(config)\n"
LOADED = "\n\nbackend = B.from_pretrained('x')\n"

QUIET_CLASSES = [
    pytest.param("class B(LlamaPreTrainedModel):\n" + TRIM + BUILT + GENERATE, id="backbone-alone-built-here"),
    pytest.param("class B(LlamaPreTrainedModel):\n" + TRIM + LOADED + GENERATE, id="backbone-alone-loaded-here"),
    pytest.param("class B(LlamaModel):\n" + TRIM + BUILT + GENERATE, id="base-model-alone"),
    pytest.param("class B(LlamaPreTrainedModel, GenerationMixin):\n" + TRIM + BUILT, id="mixin-never-generated"),
    pytest.param("class A(LlamaPreTrainedModel):\n    pass\n\n\nclass B(A):\n" + TRIM + BUILT + GENERATE,
                 id="own-backbone-subclass"),
]

LOUD_CLASSES = [
    pytest.param("class B(LlamaForCausalLM):\n" + TRIM + BUILT, id="head-without-a-generate-call"),
    pytest.param("class B(LlamaPreTrainedModel, GenerationMixin):\n" + TRIM + BUILT + GENERATE,
                 id="mixin-generated"),
    pytest.param("class A(LlamaPreTrainedModel, GenerationMixin):\n    pass\n\n\nclass B(A):\n" + TRIM +
                 "\n\nclass C(B):\n    def run(self):\n        return self.generate(torch.tensor([[1]]))\n\n\n"
                 "backend = C(config)\n", id="own-subclass-of-a-mixin-class-generated"),
    pytest.param("class A(LlamaForCausalLM):\n    pass\n\n\nclass B(A):\n" + TRIM + BUILT,
                 id="own-subclass-of-a-head"),
    # Not built here: a remote-code modeling file, which an Auto class loads, adding `GenerationMixin` to a class
    # with its own hook (`add_generation_mixin_to_remote_model`, 4.52.4-5.25.0): its generate runs the hook.
    pytest.param("class B(LlamaPreTrainedModel):\n" + TRIM, id="remote-code-backbone"),
    pytest.param("class B(LlamaPreTrainedModel, GenerationMixin):\n" + TRIM, id="remote-code-mixin"),
]


@pytest.mark.parametrize("cls", QUIET_CLASSES)
def test_override_no_generate_runs_is_not_flagged(cls: str) -> None:
    assert found(HEAD + cls) == []


@pytest.mark.parametrize("cls", LOUD_CLASSES)
def test_override_a_generate_runs_is_flagged(cls: str) -> None:
    got = found(HEAD + cls)
    assert len(got) == 1 and "passes it as `cache=`" in got[0].message


UPDATE_HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
               'model = AutoModelForCausalLM.from_pretrained("x")\n\n\n'
               "class Press(DynamicCache):\n"
               "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
               "        return super().update(key_states, value_states, layer_idx, cache_kwargs)\n\n\n")


@pytest.mark.parametrize(("tail", "line"), [
    pytest.param("def step(ids, cache):\n    return model(ids, past_key_values=cache)\n\n\n"
                 "step(torch.tensor([[1]]), Press())\n", 13, id="one-forward-through-a-helper"),
    pytest.param("cache = Press()\nmodel(torch.tensor([[1]]), past_key_values=cache)\n"
                 "model(torch.tensor([[2]]), past_key_values=cache)\n", 8, id="two-forwards"),
    pytest.param("model.generate(torch.tensor([[1]]), past_key_values=Press(), max_new_tokens=2)\n", 8,
                 id="generate-only"),
    pytest.param("", 8, id="never-used"),
])
def test_update_override_is_reported_where_the_one_forward_given_it_raises(tail: str, line: int) -> None:
    got = found(UPDATE_HEAD + tail)
    assert [f.span.start.line for f in got] == [line]
    assert "got an unexpected keyword argument 'kwargs'" in got[0].message
    assert ("given to the forward here" in got[0].message) == (line != 8)
    assert found(UPDATE_HEAD + tail, "5.23.0") == []
