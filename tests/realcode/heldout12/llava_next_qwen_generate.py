"""LLaVA-NeXT (LLaVA-VL/LLaVA-NeXT, LLaVA-OneVision's Qwen2 language model): `LlavaQwenForCausalLM` subclasses
`Qwen2ForCausalLM`; its `generate` turns the prompt and images into `inputs_embeds` (`prepare_inputs_labels_for_
multimodal`) and calls `super().generate(position_ids=..., attention_mask=..., inputs_embeds=..., **kwargs)`; its
`forward` takes an explicit keyword list (`past_key_values`, `images`, `image_sizes`, `cache_position`, no
`**kwargs`), rebuilds the embeddings when `inputs_embeds` is None and calls `super().forward(...)` with
`past_key_values=past_key_values` (not `cache_position`); its `prepare_inputs_for_generation` pops `images` /
`image_sizes` and calls `super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,
inputs_embeds=inputs_embeds, **kwargs)`.

Provenance (mechanisms read; this code is written here, not copied):
- LLaVA-VL/LLaVA-NeXT @1159dec6a25f1a2f5d11185a7811ad6ad03920e2
  llava/model/language_model/llava_qwen.py (LlavaQwenForCausalLM.forward's signature and its super().forward call,
  generate, prepare_inputs_for_generation).
- LLaVA-VL/LLaVA-NeXT @0934af6aa9b43b9d4139947534b6213dba8e5664
  llava/model/llava_arch.py (LlavaMetaForCausalLM.encode_images: vision tower then `mm_projector`).
  `prepare_inputs_labels_for_multimodal` is a stand-in written here (its early return, inputs unchanged when there
  are no images or one token, is the LLaVA family's), not read from this file.
Reduced: no vision tower, resampler or anyres grid: an image is a (1, n, hidden) feature tensor put through a
linear projector and placed before the text embeddings; no labels, no config registration.
"""

import torch
from torch import nn
from transformers import DynamicCache, Qwen2ForCausalLM


class LlavaQwenForCausalLM(Qwen2ForCausalLM):
    def __init__(self, config):
        Qwen2ForCausalLM.__init__(self, config)
        self.mm_projector = nn.Linear(config.hidden_size, config.hidden_size)
        self.post_init()

    def get_model(self):
        return self.model

    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels,
                                             images, image_sizes=None):
        if images is None or input_ids.shape[1] == 1:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels
        image_features = self.mm_projector(images)
        text_embeds = self.get_model().embed_tokens(input_ids)
        inputs_embeds = torch.cat([image_features, text_embeds], dim=1)
        attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long)
        return None, position_ids, attention_mask, past_key_values, inputs_embeds, labels

    def forward(  # site: ln_forward_signature
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
        image_sizes=None,
        return_dict=None,
        cache_position=None,
    ):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds, labels) = \
                self.prepare_inputs_labels_for_multimodal(input_ids, position_ids, attention_mask, past_key_values,
                                                          labels, images, image_sizes)
        return super().forward(  # clean: ln_super_forward
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
        if "inputs_embeds" in kwargs:
            raise NotImplementedError("`inputs_embeds` is not supported")
        if images is not None:
            (inputs, position_ids, attention_mask, _, inputs_embeds, _) = self.prepare_inputs_labels_for_multimodal(
                inputs, position_ids, attention_mask, None, None, images, image_sizes=image_sizes)
        else:
            inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: ln_forward_signature

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,  # clean: ln_super_prepare
                                                       inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


model = LlavaQwenForCausalLM.from_pretrained("lmms-lab/llava-onevision-qwen2-0.5b-ov").eval()
model.generation_config.min_new_tokens = 4
prompt = torch.tensor([[11, 42, 97, 150, 23]])
image = torch.randn(1, 3, model.config.hidden_size)


def probe_image_chat():
    out = model.generate(prompt, images=image, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert out.shape[1] == 4


def probe_prepare():
    inputs = model.prepare_inputs_for_generation(prompt, past_key_values=DynamicCache(), images=image,
                                                 attention_mask=torch.ones_like(prompt), use_cache=True,
                                                 cache_position=torch.arange(5))
    assert inputs["images"] is image


@torch.no_grad()
def probe_forward_step():
    first = model(input_ids=prompt, images=image, use_cache=True)
    nxt = first.logits[:, -1:].argmax(-1)
    second = model(input_ids=nxt, past_key_values=first.past_key_values, use_cache=True)
    assert second.logits.shape[1] == 1
