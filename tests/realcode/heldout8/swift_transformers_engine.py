"""ms-swift's transformers inference engine (the trainer's own `swift infer` / evaluation path): the template's
`generate` passes `use_model_defaults=False` only when the model's `generate` signature has that parameter (it
was removed in transformers 5), the engine turns generate's output into a dict and drops its cache with
`output.pop('past_key_values', None)` before reading `sequences`; for the original LLaVA repository's model class,
whose forward predates `cache_position`, ms-swift wraps the class's forward once so it pops `cache_position` from the
keyword arguments before calling the original.

Provenance (mechanisms read; this code is written here, not copied):
- modelscope/ms-swift @3602360a562313afbf2ef6065fdf61f271a2c5b9
  swift/template/base.py (Template.generate: `signature = inspect.signature(base_model.generate)`, `if
  'use_model_defaults' in signature.parameters and 'use_model_defaults' not in kwargs:
  kwargs['use_model_defaults'] = False`, `return model.generate(*args, **kwargs)`),
  swift/infer_engine/transformers_engine.py (_infer_full: `generate_kwargs = {'generation_config':
  generation_config, **inputs}`, `output = dict(self.template.generate(self.model, **generate_kwargs))`,
  `output.pop('past_key_values', None)`, `batched_generate_ids = output['sequences']`) and
  swift/model/models/llava.py (`if not hasattr(LlavaLlamaForCausalLM, '__old_forward'):`, `forward =
  LlavaLlamaForCausalLM.forward`, `@wraps(forward) def _new_forward(*args, **kwargs): kwargs.pop('cache_position',
  None); return forward(*args, **kwargs)`, `LlavaLlamaForCausalLM.forward = _new_forward`).
Reduced: the LLaVA model class is a Llama subclass (the forward wrapper is the same), no template encoding or stop
words (token ids in), greedy decoding, no adapters.
"""

import inspect
from functools import wraps

import torch
from transformers import GenerationConfig, LlamaForCausalLM


class LlavaLlamaForCausalLM(LlamaForCausalLM):
    pass


if not hasattr(LlavaLlamaForCausalLM, "__old_forward"):
    forward = LlavaLlamaForCausalLM.forward
    LlavaLlamaForCausalLM.__old_forward = forward

    @wraps(forward)
    def _new_forward(*args, **kwargs):
        kwargs.pop("cache_position", None)  # clean: sw_pop_cache_position
        return forward(*args, **kwargs)  # clean: sw_wrapped_forward

    LlavaLlamaForCausalLM.forward = _new_forward


class Template:
    def generate(self, model, *args, **kwargs):
        signature = inspect.signature(model.generate)
        if "use_model_defaults" in signature.parameters and "use_model_defaults" not in kwargs:
            kwargs["use_model_defaults"] = False  # clean: sw_model_defaults_guarded
        return model.generate(*args, **kwargs)  # clean: sw_template_generate


class TransformersEngine:
    def __init__(self, model):
        self.model = model.eval()
        self.template = Template()

    @torch.inference_mode()
    def _infer_full(self, inputs, generation_config):
        generate_kwargs = {"generation_config": generation_config, **inputs}
        num_prompt_tokens = inputs["input_ids"].shape[1]
        output = dict(self.template.generate(self.model, **generate_kwargs))
        output.pop("past_key_values", None)  # clean: sw_drop_cache
        return output["sequences"][:, num_prompt_tokens:]


model = LlavaLlamaForCausalLM.from_pretrained("liuhaotian/llava-v1.5-7b")
engine = TransformersEngine(model)
generation_config = GenerationConfig(max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True,
                                     pad_token_id=0)


def probe_infer():
    input_ids = torch.tensor([[1, 45, 46, 47, 48]])
    ids = engine._infer_full({"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}, generation_config)
    assert ids.shape == (1, 3)
