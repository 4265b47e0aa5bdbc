"""LLaVA-Med (a biomedical visual assistant: LLaVA on Mistral-7B): `LlavaMistralForCausalLM(MistralForCausalLM,
LlavaMetaForCausalLM)` declares its own `forward` with a fixed keyword list (input ids, mask, positions,
`past_key_values`, embeds, labels, `use_cache`, the output flags, `images`, `image_sizes`, `return_dict`) that merges
the image features into the embeddings (`prepare_inputs_labels_for_multimodal`) and calls `super().forward(...)` with
the same keywords; its `generate(inputs, images, image_sizes, **kwargs)` builds `inputs_embeds` itself (image
features spliced in at the image token, or the text embeddings) and calls `super().generate(position_ids=...,
attention_mask=..., inputs_embeds=inputs_embeds, **kwargs)`; its `prepare_inputs_for_generation` pops `images` /
`image_sizes` and calls the parent's with `past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs`.
The VQA evaluation calls `model.generate(input_ids, images=..., do_sample=..., num_beams=..., max_new_tokens=1024,
use_cache=True)` per question.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/LLaVA-Med @d406e3fc7c3d1e4c797a7676de18cbfd070b6d2c
  llava/model/language_model/llava_mistral.py (LlavaMistralConfig(MistralConfig) `model_type = "llava_mistral"`;
  LlavaMistralForCausalLM: `forward(self, input_ids=None, attention_mask=None, position_ids=None,
  past_key_values=None, inputs_embeds=None, labels=None, use_cache=None, output_attentions=None,
  output_hidden_states=None, images=None, image_sizes=None, return_dict=None)`, `if inputs_embeds is None: (...) =
  self.prepare_inputs_labels_for_multimodal(...)`, `return super().forward(input_ids=..., past_key_values=
  past_key_values, inputs_embeds=..., use_cache=use_cache, ..., return_dict=return_dict)`; `generate`: `position_ids
  = kwargs.pop("position_ids", None)`, `if images is not None: ... inputs_embeds ... else: inputs_embeds =
  self.get_model().embed_tokens(inputs)`, `return super().generate(position_ids=position_ids,
  attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)`; `prepare_inputs_for_generation(self,
  input_ids, past_key_values=None, inputs_embeds=None, **kwargs)`: `images = kwargs.pop("images", None)`, `inputs =
  super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds,
  **kwargs)`, `AutoConfig.register("llava_mistral", LlavaMistralConfig)`), llava/model/llava_arch.py
  (`prepare_inputs_labels_for_multimodal`: `if vision_tower is None or images is None or input_ids.shape[1] == 1:
  return input_ids, position_ids, attention_mask, past_key_values, None, labels`; image features from
  `mm_projector`), llava/eval/model_vqa.py (`model.generate(input_ids, images=image_tensor.unsqueeze(0).half().cuda(),
  do_sample=..., temperature=..., top_p=..., num_beams=args.num_beams, max_new_tokens=1024, use_cache=True)`).
Reduced: no CLIP vision tower (a linear projector over random patch features), the image features prepended to the
text embeddings instead of spliced at the image token, no labels, a small Mistral config, greedy decoding of a few
tokens, no conversation template or stopping criteria.
"""

import torch
import torch.nn as nn
from transformers import AutoConfig, AutoModelForCausalLM, MistralConfig, MistralForCausalLM, MistralModel


class LlavaMistralConfig(MistralConfig):
    model_type = "llava_mistral"


class LlavaMistralModel(MistralModel):
    config_class = LlavaMistralConfig

    def __init__(self, config):
        super().__init__(config)
        self.mm_projector = nn.Linear(16, config.hidden_size)


class LlavaMetaForCausalLM:
    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels, images):
        if images is None or input_ids.shape[1] == 1:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels
        image_features = self.get_model().mm_projector(images)
        text_embeds = self.get_model().embed_tokens(input_ids)
        new_input_embeds = torch.cat([image_features, text_embeds], dim=1)
        if attention_mask is not None:
            attention_mask = torch.cat([torch.ones(image_features.shape[:2], dtype=attention_mask.dtype), attention_mask], dim=1)
        return None, position_ids, attention_mask, past_key_values, new_input_embeds, labels


class LlavaMistralForCausalLM(MistralForCausalLM, LlavaMetaForCausalLM):
    config_class = LlavaMistralConfig

    def __init__(self, config):
        super(MistralForCausalLM, self).__init__(config)
        self.model = LlavaMistralModel(config)
        self.vocab_size = config.vocab_size
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def get_model(self):
        return self.model

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,  # site: lm_forward_keywords
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                images=None, image_sizes=None, return_dict=None):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds, labels) = \
                self.prepare_inputs_labels_for_multimodal(input_ids, position_ids, attention_mask, past_key_values, labels, images)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,  # clean: lm_super_forward
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict)

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        if images is not None:
            (inputs, position_ids, attention_mask, _, inputs_embeds, _) = self.prepare_inputs_labels_for_multimodal(
                inputs, position_ids, attention_mask, None, None, images)
        else:
            inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: lm_forward_keywords

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)  # clean: lm_parent_prepare
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


AutoConfig.register("llava_mistral", LlavaMistralConfig)
AutoModelForCausalLM.register(LlavaMistralConfig, LlavaMistralForCausalLM)

config = LlavaMistralConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2)
model = LlavaMistralForCausalLM(config).eval()
question = torch.tensor([[1, 30, 31, 32, 33]])
image_tensor = torch.randn(3, 16)


def probe_vqa():
    with torch.inference_mode():
        output_ids = model.generate(question, images=image_tensor.unsqueeze(0), do_sample=False, num_beams=1,
                                    max_new_tokens=3, min_new_tokens=3, use_cache=True)
    assert output_ids.shape == (1, 3)


def probe_prepare_step():
    with torch.no_grad():
        out = model(input_ids=question, use_cache=True)  # clean: lm_prefill
    ids = torch.cat([question, out.logits[:, -1:].argmax(-1)], dim=-1)
    inputs = model.prepare_inputs_for_generation(ids, past_key_values=out.past_key_values, images=image_tensor.unsqueeze(0),
                                                 cache_position=torch.tensor([5]))
    assert inputs["images"] is not None
