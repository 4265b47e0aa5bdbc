"""Video-LLaVA (PKU-YuanGroup/Video-LLaVA): `LlavaLlamaForCausalLM` subclasses `LlamaForCausalLM` with a `forward`
whose keywords stop at `images` and `return_dict` (written for 4.3x: no `cache_position`, no `**kwargs`), which
rebuilds the multimodal embeddings through `prepare_inputs_labels_for_multimodal` and calls `super().forward(...)`;
its `prepare_inputs_for_generation` pops `images` and calls the parent with `past_key_values=past_key_values`. On a
decoding step (one new token, images given, a cache) `prepare_inputs_labels_for_multimodal` grows the attention
mask to `target_shape = past_key_values[-1][-1].shape[-2] + 1` and derives the position ids from it.

Provenance (mechanisms read; this code is written here, not copied):
- PKU-YuanGroup/Video-LLaVA @18a01998c537dee4a338b8445c26600a30f047cb
  videollava/model/language_model/llava_llama.py (LlavaLlamaForCausalLM.forward's signature and super().forward
  call, prepare_inputs_for_generation).
- PKU-YuanGroup/Video-LLaVA @9ab69e6c51a910db1e1eebb5c5180e0be873f319
  videollava/model/llava_arch.py (LlavaMetaForCausalLM.encode_images, prepare_inputs_labels_for_multimodal's
  one-token branch: `target_shape`, the attention-mask growth, `position_ids` from its sum).
Reduced: the LanguageBind image and video towers are a linear layer over (n, hidden) features placed before the
text; no image tokens, labels, padding sides or tokenizer; the chat helper is the plain `generate(input_ids,
images=..., ...)` call the model is built for.
"""

import torch
from torch import nn
from transformers import LlamaForCausalLM


class LlavaLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.image_tower = nn.Linear(config.hidden_size, config.hidden_size)
        self.mm_projector = nn.Linear(config.hidden_size, config.hidden_size)
        self.post_init()

    def get_model(self):
        return self.model

    def get_image_tower(self):
        return self.image_tower

    def encode_images(self, images):
        return self.mm_projector(self.get_image_tower()(images))

    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels,
                                             images):
        image_tower = self.get_image_tower()
        if image_tower is None or images is None or input_ids.shape[1] == 1:
            if past_key_values is not None and image_tower is not None and images is not None and input_ids.shape[1] == 1:
                target_shape = past_key_values[-1][-1].shape[-2] + 1  # site: vv_target_shape
                attention_mask = torch.cat((attention_mask, torch.ones(
                    (attention_mask.shape[0], target_shape - attention_mask.shape[1]),
                    dtype=attention_mask.dtype, device=attention_mask.device)), dim=1)
                position_ids = torch.sum(attention_mask, dim=1).unsqueeze(-1) - 1
            return input_ids, position_ids, attention_mask, past_key_values, None, labels
        image_features = self.encode_images(images[0])[None]
        new_input_embeds = torch.cat([image_features, self.get_model().embed_tokens(input_ids)], dim=1)
        attention_mask = torch.ones(new_input_embeds.shape[:2], dtype=torch.long)
        if position_ids is not None:
            position_ids = torch.arange(new_input_embeds.shape[1])[None]
        return None, position_ids, attention_mask, past_key_values, new_input_embeds, labels

    def forward(  # site: vv_forward_signature
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,
        inputs_embeds=None,
        labels=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        images=None,
        return_dict=None,
    ):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds, labels) = \
                self.prepare_inputs_labels_for_multimodal(input_ids, position_ids, attention_mask, past_key_values,
                                                          labels, images)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # clean: vv_super_forward
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        _inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,  # clean: vv_super_prepare
                                                        inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            _inputs["images"] = images
        return _inputs


model = LlavaLlamaForCausalLM.from_pretrained("LanguageBind/Video-LLaVA-7B").eval()
model.generation_config.min_new_tokens = 4
input_ids = torch.tensor([[1, 3148, 1001, 29901, 29871]]) % model.config.vocab_size
frames = [torch.randn(3, model.config.hidden_size)]


def chat(input_ids, images, max_new_tokens=4):
    with torch.inference_mode():
        output_ids = model.generate(input_ids, images=images, do_sample=False, max_new_tokens=max_new_tokens,  # observe: vv_forward_signature
                                    min_new_tokens=max_new_tokens, use_cache=True)
    return output_ids


def probe_text_chat():
    out = chat(input_ids, None)
    assert out.shape[1] == input_ids.shape[1] + 4


@torch.no_grad()
def probe_prefill_forward():
    out = model(input_ids=input_ids, images=frames, use_cache=True)
    assert out.logits.shape[1] == input_ids.shape[1] + 3


@torch.no_grad()
def probe_decode_step():
    out = model(input_ids=input_ids, images=frames, use_cache=True)
    mask = torch.ones(1, input_ids.shape[1] + 3, dtype=torch.long)
    nxt = model(input_ids=out.logits[:, -1:].argmax(-1), images=frames, past_key_values=out.past_key_values,
                attention_mask=mask, use_cache=True)
    assert nxt.logits.shape[1] == 1


def probe_prepare():
    inputs = model.prepare_inputs_for_generation(input_ids, past_key_values=None, images=frames,
                                                 attention_mask=torch.ones_like(input_ids), use_cache=True,
                                                 cache_position=torch.arange(5))
    assert inputs["images"] is frames
