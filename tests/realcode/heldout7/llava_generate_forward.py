"""LLaVA's language model: LlavaLlamaForCausalLM subclasses LlamaForCausalLM; its `forward` (a fixed keyword list:
input_ids, attention_mask, position_ids, past_key_values, inputs_embeds, labels, use_cache, output_attentions,
output_hidden_states, images, image_sizes, return_dict) builds the multimodal embeddings when none are given and
calls `super().forward(...)` with the cache; its `generate` turns the prompt (and images) into `inputs_embeds` and
calls `super().generate(position_ids=..., attention_mask=..., inputs_embeds=..., **kwargs)`; its
`prepare_inputs_for_generation` adds `images` / `image_sizes` to the parent's inputs.

Provenance (mechanisms read; this code is written here, not copied):
- haotian-liu/LLaVA @c121f0432da27facab705978f83c4ada465e46fd
  llava/model/language_model/llava_llama.py (LlavaLlamaForCausalLM.forward's keyword list and
  `prepare_inputs_labels_for_multimodal(input_ids, position_ids, attention_mask, past_key_values, labels, images,
  image_sizes)` when `inputs_embeds is None`, then `super().forward(..., past_key_values=past_key_values, ...)`;
  generate: `inputs_embeds = self.get_model().embed_tokens(inputs)` without images, `super().generate(
  position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)`;
  prepare_inputs_for_generation popping `images` / `image_sizes`) and llava/model/llava_arch.py
  (prepare_inputs_labels_for_multimodal returning the inputs unchanged when there is no image or a single token).
Reduced: the vision tower and projector are one Linear over given features; no conversation template.
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


class LlavaLlamaForCausalLM(LlamaForCausalLM):
    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels,
                                             images, image_sizes=None):
        if images is None or input_ids.shape[1] == 1:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels
        image_features = self.mm_projector(images).unsqueeze(0)
        text_embeds = self.get_model().embed_tokens(input_ids)
        inputs_embeds = torch.cat([text_embeds[:, :1], image_features, text_embeds[:, 1:]], dim=1)
        if attention_mask is not None:
            attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=attention_mask.dtype)
        return None, position_ids, attention_mask, past_key_values, inputs_embeds, labels

    def get_model(self):
        return self.model

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,  # site: lv_forward_keywords
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                images=None, image_sizes=None, return_dict=None):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(input_ids, position_ids, attention_mask,
                                                                 past_key_values, labels, images, image_sizes)
        return super().forward(  # clean: lv_super_forward
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,
            inputs_embeds=inputs_embeds,
            labels=labels,
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=return_dict,
        )

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        if images is not None:
            (inputs, position_ids, attention_mask, _, inputs_embeds,
             _) = self.prepare_inputs_labels_for_multimodal(inputs, position_ids, attention_mask, None, None, images,
                                                            image_sizes=image_sizes)
        else:
            inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask,  # observe: lv_forward_keywords
                                inputs_embeds=inputs_embeds, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,  # clean: lv_parent_prepare
                                                       inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


torch.manual_seed(0)
config = LlamaConfig(vocab_size=320, hidden_size=128, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=1, head_dim=64, bos_token_id=1, eos_token_id=2, pad_token_id=0)
model = LlavaLlamaForCausalLM(config).eval()
model.mm_projector = torch.nn.Linear(16, 128)
prompt = torch.tensor([[1, 30, 31, 32, 33]])


def probe_generate():
    out = model.generate(prompt, images=None, attention_mask=torch.ones_like(prompt), max_new_tokens=3,
                         min_new_tokens=3, do_sample=False)
    assert out.shape[-1] == 3


def probe_forward_steps():
    with torch.no_grad():
        first = model(input_ids=prompt, images=torch.randn(4, 16), attention_mask=torch.ones_like(prompt),
                      use_cache=True)
        step = model(input_ids=torch.tensor([[40]]), past_key_values=first.past_key_values, use_cache=True)
    assert step.logits.shape == (1, 1, 320) and step.past_key_values.get_seq_length() == 10


def probe_prepare():
    inputs = model.prepare_inputs_for_generation(prompt, images=torch.randn(4, 16), attention_mask=torch.ones_like(prompt))
    assert inputs["images"].shape == (4, 16)
