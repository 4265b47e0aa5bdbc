"""InternVL's chat model: a remote-code InternLM2 causal LM (modeling_internlm2.py, shipped with the checkpoint) whose
own `prepare_inputs_for_generation` reads the cached length as `past_key_values[0][0].shape[2]` and drops the
prefix tokens, and an InternVLChatModel whose `generate` embeds the prompt (image tokens replaced by vision
features), then calls `self.language_model.generate(inputs_embeds=..., attention_mask=..., generation_config=...,
use_cache=True)`; `chat` decodes the answer.

Provenance (mechanisms read; this code is written here, not copied):
- OpenGVLab/InternVL @2410d1dbf208f0e799459aff9376e5747dbf41a2
  internvl_chat/internvl/model/internlm2/modeling_internlm2.py (InternLM2ForCausalLM.prepare_inputs_for_generation:
  `if past_key_values is not None: past_length = past_key_values[0][0].shape[2]`, `remove_prefix_length`,
  position ids from the attention mask, `if inputs_embeds is not None and past_key_values is None:` the embeds on
  the first step) and internvl_chat/internvl/model/internvl_chat/modeling_internvl_chat.py
  (InternVLChatModel.generate: `input_embeds = self.language_model.get_input_embeddings()(input_ids)`, the image
  features written into the IMG_CONTEXT positions, `self.language_model.generate(inputs_embeds=input_embeds,
  attention_mask=attention_mask, generation_config=generation_config, output_hidden_states=...,
  use_cache=True, **generate_kwargs)`).
Reduced: the InternLM2 body is transformers' Llama (same layout), the vision tower is a linear projection of
random features, no conversation template.
"""

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM


class InternLM2ForCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        if past_key_values is not None:
            past_length = past_key_values[0][0].shape[2]  # site: iv_past_length
            if input_ids.shape[1] > past_length:
                remove_prefix_length = past_length
            else:
                remove_prefix_length = input_ids.shape[1] - 1
            input_ids = input_ids[:, remove_prefix_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            position_ids = position_ids[:, -max(input_ids.shape[1], 1):]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                             "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
        return model_inputs


class InternVLChatModel(torch.nn.Module):
    img_context_token_id = 5

    def __init__(self, language_model):
        super().__init__()
        self.language_model = language_model
        self.mlp1 = torch.nn.Linear(16, language_model.config.hidden_size)

    @torch.no_grad()
    def generate(self, pixel_features, input_ids, attention_mask, generation_config, **generate_kwargs):
        vit_embeds = self.mlp1(pixel_features)
        input_embeds = self.language_model.get_input_embeddings()(input_ids)
        selected = input_ids == self.img_context_token_id
        input_embeds[selected] = vit_embeds.reshape(-1, vit_embeds.shape[-1]).to(input_embeds.dtype)
        return self.language_model.generate(  # observe: iv_past_length
            inputs_embeds=input_embeds,
            attention_mask=attention_mask,
            generation_config=generation_config,
            use_cache=True,
            **generate_kwargs,
        )


torch.manual_seed(0)
config = LlamaConfig(vocab_size=320, hidden_size=128, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=1, head_dim=64, bos_token_id=1, eos_token_id=2, pad_token_id=0)
language_model = InternLM2ForCausalLM(config).eval()
chat_model = InternVLChatModel(language_model).eval()
query = torch.tensor([[1, 9, 5, 5, 5, 5, 12, 14]])
features = torch.randn(4, 16)
generation_config = GenerationConfig(max_new_tokens=4, min_new_tokens=4, do_sample=False, eos_token_id=2, pad_token_id=0)


def probe_chat():
    out = chat_model.generate(features, query, torch.ones_like(query), generation_config)
    assert out.shape[-1] == 4

