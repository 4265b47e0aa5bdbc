"""A vision-language model's remote-code generation hook, carried into an evaluation harness: the override reads
the cached length as `past_key_values[0][0].shape[2]` to cut the prompt, tests the cache's truth value before
slicing position ids, and passes the image-token mask through the model inputs.

Provenance (mechanisms read; this code is written here, not copied):
- A1ex-Chen/DL_project_log @9b71077f3409bbdf81b759fd7943f042075c1c16 data/GenderBias-VL/lvlm_inference/LAMM/src/
  ChEF/models/internlm/modeling_internlm_xcomposer2_prepare_inputs_for_generation.py (`prepare_inputs_for_generation(
  self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, im_mask=None, **kwargs)`:
  `past_length = past_key_values[0][0].shape[2]`, `remove_prefix_length`, `if past_key_values: position_ids =
  position_ids[:, -input_ids.shape[1]:]`, `model_inputs.update({... 'past_key_values': past_key_values,
  'use_cache': kwargs.get('use_cache'), ..., 'im_mask': im_mask})`)
Reduced: the language model is Llama (the tiny oracle has no InternLM-XComposer2); its forward takes and drops
`im_mask`.
"""

import torch
from transformers import LlamaForCausalLM

prompt = torch.tensor([[1, 21, 23, 25, 27]])


class InternLMXComposer2ForCausalLM(LlamaForCausalLM):
    step_lengths = []

    def forward(self, input_ids=None, im_mask=None, **kwargs):
        self.step_lengths.append(input_ids.shape[1])
        return super().forward(input_ids=input_ids, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,  # site: xc_hook
                                      inputs_embeds=None, im_mask=None, **kwargs):
        if past_key_values is not None:
            past_length = past_key_values[0][0].shape[2]  # observe: xc_hook
            if input_ids.shape[1] > past_length:
                remove_prefix_length = past_length
            else:
                remove_prefix_length = input_ids.shape[1] - 1
            input_ids = input_ids[:, remove_prefix_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                             "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask,
                             "im_mask": im_mask})
        return model_inputs


def probe_generate():
    model = InternLMXComposer2ForCausalLM.from_pretrained("internlm/internlm-xcomposer2-vl-7b")
    model.step_lengths.clear()
    model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3,
                   do_sample=False)
    assert model.step_lengths[1:] == [1, 1], f"xc_hook: every step re-ran the prompt: {model.step_lengths}"  # observe: xc_hook
