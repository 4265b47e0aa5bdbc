"""HFC010 examples of overrides bound to how the release calls them (override_calls.py): a decoding method defined in
place of `GenerationMixin`'s under `generate`, a `prepare_inputs_for_generation` with a fixed keyword list under the
decoding loop; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, Valid

# MOSS-TTSD's shape: a mixin's `_sample` taking generate's 4.4x keywords by position, `streamer` without a default,
# mixed into a Llama head and generated with (no streamer given).
_MIXIN = (
    "import torch\n"
    "from transformers import GenerationMixin, LlamaConfig, LlamaForCausalLM\n\n\n"
    "class SampleMixin(GenerationMixin):\n"
    "    def _sample(self, input_ids, logits_processor, stopping_criteria, generation_config, {params}\n"
    "                **model_kwargs):\n"
    "        return super()._sample(input_ids, logits_processor, stopping_criteria, generation_config,\n"
    "                               synced_gpus=synced_gpus, streamer=streamer, **model_kwargs)\n\n\n"
    "class Speech(SampleMixin, LlamaForCausalLM):\n"
    "    pass\n\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "model = Speech(config).eval()\n"
    "out = model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False)\n"
)
# The same loop patched over `GenerationMixin._sample` by a module function.
_PATCHED = (
    "import torch\n"
    "from transformers import GenerationMixin, LlamaConfig, LlamaForCausalLM\n\n"
    "original = GenerationMixin._sample\n\n\n"
    "def traced_sample(self, input_ids, logits_processor, stopping_criteria, generation_config, {params}\n"
    "                  **model_kwargs):\n"
    "    return original(self, input_ids, logits_processor, stopping_criteria, generation_config,\n"
    "                    synced_gpus=synced_gpus, streamer=streamer, **model_kwargs)\n\n\n"
    "GenerationMixin._sample = traced_sample\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "model = LlamaForCausalLM(config).eval()\n"
    "out = model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False)\n"
)
# A `prepare_inputs_for_generation` override listing the keywords 4.57's decoding loop hands it, without `**kwargs`:
# from 5.3.0 the loop also passes `next_sequence_length=` (the release table's `call:..._sample->prepare_inputs_...`).
_PREPARE = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n\n\n"
    "class Listed(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,\n"
    "                                      cache_position=None, use_cache=None, logits_to_keep=None{extra}):\n"
    "        return super().prepare_inputs_for_generation(\n"
    "            input_ids, past_key_values=past_key_values, attention_mask=attention_mask,\n"
    "            cache_position=cache_position, use_cache=use_cache, logits_to_keep=logits_to_keep{passed})\n\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "model = Listed(config).eval()\n"
    "out = model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False)\n"
)

# A wrapper's own method installed as the `prepare_inputs_for_generation` of the transformers model it holds (Donut's
# and Nougat's `self.model.prepare_inputs_for_generation = self.prepare_inputs_for_inference`): generate calls the
# bound method with the decoding loop's arguments, `cache_position=` on 4.43-4.57, `next_sequence_length=` from 5.3.
_INSTALLED = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n\n\n"
    "class Wrapper(torch.nn.Module):\n"
    "    def __init__(self, config):\n"
    "        super().__init__()\n"
    "        self.model = LlamaForCausalLM(config)\n"
    "        self.model.prepare_inputs_for_generation = self.prepare_inputs_for_inference\n\n"
    "    def prepare_inputs_for_inference(self, input_ids, past_key_values=None, attention_mask=None, use_cache=None"
    "{extra}):\n"
    "{pop}"
    "        return type(self.model).prepare_inputs_for_generation(\n"
    "            self.model, input_ids, past_key_values=past_key_values, attention_mask=attention_mask,\n"
    "            use_cache=use_cache{passed})\n\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "wrapper = Wrapper(config).eval()\n"
    "out = wrapper.model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, min_new_tokens=3, do_sample=False)\n"
)
_POP = '        past_key_values = kwargs.pop("cache", past_key_values)\n'

INVALID: tuple[Invalid, ...] = (
    Invalid(
        _INSTALLED.format(extra="", pop="", passed=""),
        flagged="prepare_inputs_for_inference",
        occurrence=1,
        runtime="HFC010",
        message_contains="Wrapper.prepare_inputs_for_inference() got an unexpected keyword argument",
        note="a wrapper's own method installed as the `prepare_inputs_for_generation` of the model it holds, "
             "without `**kwargs`: 4.43-4.57's decoding loop passes `cache_position=` in its model kwargs, 5.3+ "
             "`next_sequence_length=` (Donut, Nougat)",
    ),
    Invalid(
        _PREPARE.format(extra="", passed="").replace("                                      cache_position=None, ",
                                                     "                                      "
                                                     ).replace("            cache_position=cache_position, ",
                                                               "            "),
        flagged="prepare_inputs_for_generation",
        runtime="HFC010",
        message_contains="Listed.prepare_inputs_for_generation() got an unexpected keyword argument",
        note="a 4.4x-style keyword list without `cache_position` and without `**kwargs`: 4.43-4.57's decoding loop "
             "passes it in its model kwargs on every call (TypeError), 5.3+ `next_sequence_length=` first",
    ),
    Invalid(
        _MIXIN.format(params="synced_gpus, streamer,"),
        flagged="streamer",
        runtime="HFC010",
        message_contains="missing 1 required positional argument: 'streamer'",
        note="a `GenerationMixin` subclass's `_sample` requiring `streamer` (MOSS-TTSD): from 4.57.1 generate passes "
             "`streamer=` only where the generate call was given one",
    ),
    Invalid(
        _PATCHED.format(params="synced_gpus, streamer,"),
        flagged="streamer",
        runtime="HFC010",
        message_contains="traced_sample() missing 1 required positional argument: 'streamer'",
        note="the same loop patched over `GenerationMixin._sample` by a module function",
    ),
    Invalid(
        _MIXIN.format(params="synced_gpus, logits_warper, streamer=None,"),
        flagged="logits_warper",
        runtime="HFC010",
        message_contains="missing 1 required positional argument: 'logits_warper'",
        note="a 4.4x `_sample` requiring `logits_warper`, which generate stopped passing in 4.45.0",
    ),
    Invalid(
        _PREPARE.format(extra="", passed=""),
        flagged="prepare_inputs_for_generation",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        runtime="HFC010",
        message_contains="got an unexpected keyword argument 'next_sequence_length'",
        note="a `prepare_inputs_for_generation` with 4.57's keyword list and no `**kwargs`: from 5.3.0 the decoding "
             "loop passes `next_sequence_length=` (on 5.24 before the cache's new name matters)",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(_INSTALLED.format(extra=", **kwargs", pop=_POP, passed=", **kwargs"),
          note="the installed method taking `**kwargs` and handing them on, the cache taken under 5.24's name too"),
    Valid(_MIXIN.format(params="synced_gpus=False, streamer=None,"),
          note="the mixin's `_sample` with defaults for what generate passes only when given"),
    Valid(_PATCHED.format(params="synced_gpus=False, streamer=None,"),
          note="the patched loop with the same defaults"),
    Valid(_MIXIN.format(params="synced_gpus, streamer=None, logits_warper=None,"),
          note="a 4.4x `_sample` whose `logits_warper` has a default"),
    Valid(_PREPARE.format(extra=", **kwargs", passed=", **kwargs").replace(
        "past_key_values=None, attention_mask", "past_key_values=None, attention_mask").replace(
        "        return super()", '        past_key_values = kwargs.pop("cache", past_key_values)\n        return super()'),
          note="the same keyword list with `**kwargs` handed on, the cache taken under 5.24's name too"),
)
