"""OpenVLA (openvla): a vision-language-action policy that decodes 7 discretised action tokens with `generate`. Its
Hub model class (`PrismaticForConditionalGeneration`, loaded with trust_remote_code, written for transformers 4.40.1)
wraps a Llama `language_model`: the forward has three branches (cached generation when `input_ids` holds one token,
which asserts a cache was given and passes it on; a language-only forward; a multimodal forward that projects the
image patches, splices them after <BOS> and runs the language model with `past_key_values=None`); its
`prepare_inputs_for_generation` keeps only the last token `if past_key_values is not None` and returns the cache
back; `predict_action` appends the empty token, calls `self.generate(input_ids, max_new_tokens=action_dim,
**kwargs)` and maps the last action_dim tokens to bin centres.

Provenance (mechanisms read; this code is written here, not copied):
- openvla/openvla @c8f03f48af692657d3060c19588038c7220e9af9
  prismatic/extern/hf/modeling_prismatic.py (PrismaticForConditionalGeneration.forward:
  `if input_ids.shape[1] == 1:` ... `assert past_key_values is not None, "You must provide past_key_values during
  cached generation!"`, `self.language_model(input_ids=input_ids, attention_mask=None, position_ids=None,
  past_key_values=past_key_values, ...)`; the multimodal branch `assert past_key_values is None`, `torch.cat(
  [input_embeddings[:, :1, :], projected_patch_embeddings, input_embeddings[:, 1:, :]], dim=1)`,
  `self.language_model(input_ids=None, ..., past_key_values=None, inputs_embeds=multimodal_embeddings, ...)`;
  prepare_inputs_for_generation: `if past_key_values is not None: input_ids = input_ids[:, -1:]`, model_inputs with
  `"pixel_values"`, `"past_key_values": past_key_values`, `"use_cache": kwargs.get("use_cache")`;
  OpenVLAForActionPrediction.predict_action) and vla-scripts/deploy.py (`AutoModelForVision2Seq.from_pretrained(
  ..., trust_remote_code=True)`, `vla.predict_action(**inputs, unnorm_key=..., do_sample=False)`).
Reduced: the fused DINOv2/SigLIP backbone is a linear projector over given patch features; the Auto loader's
remote-code path gives the class GenerationMixin (added here in the bases); 3 action dimensions, no un-normalisation
statistics; the forward records the length of every input it sees (the probes' view of the cache's use); the
generate call fixes its length with min_new_tokens.
"""

import copy

import numpy as np
import torch
from torch import nn
from transformers import AutoModelForCausalLM, GenerationMixin, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast

ACTION_DIM = 3
N_PATCHES = 4
VISION_DIM = 16


class PrismaticForConditionalGeneration(PreTrainedModel, GenerationMixin):
    _supports_sdpa = True

    def __init__(self, config, language_model):
        super().__init__(config)
        self.projector = nn.Linear(VISION_DIM, config.hidden_size)
        self.language_model = language_model
        self.seen_lengths = []

    def get_input_embeddings(self):
        return self.language_model.get_input_embeddings()

    def forward(self, input_ids=None, attention_mask=None, pixel_values=None, labels=None, inputs_embeds=None,
                past_key_values=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                return_dict=None):
        self.seen_lengths.append(input_ids.shape[1])
        if input_ids.shape[1] == 1:
            assert past_key_values is not None, "You must provide `past_key_values` during cached generation!"
            out = self.language_model(input_ids=input_ids, attention_mask=None, position_ids=None,  # clean: ov_cached_forward
                                      past_key_values=past_key_values, inputs_embeds=None, labels=None,
                                      use_cache=use_cache, return_dict=True)
            projected = None
        elif pixel_values is None:
            assert past_key_values is None, "Unexpected key `past_key_values` provided during language-only forward!"
            out = self.language_model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=None,
                                      use_cache=use_cache, return_dict=True)
            projected = None
        else:
            assert past_key_values is None, "Unexpected key `past_key_values` provided during language-only forward!"
            projected = self.projector(pixel_values)
            embeds = self.get_input_embeddings()(input_ids)
            embeds = torch.cat([embeds[:, :1, :], projected, embeds[:, 1:, :]], dim=1)
            mask = None
            if attention_mask is not None:
                patch_mask = torch.ones(projected.shape[:2], dtype=attention_mask.dtype)
                mask = torch.cat([attention_mask[:, :1], patch_mask, attention_mask[:, 1:]], dim=1)
            out = self.language_model(input_ids=None, attention_mask=mask, position_ids=None,  # clean: ov_multimodal_prefill
                                      past_key_values=None, inputs_embeds=embeds, use_cache=use_cache,
                                      return_dict=True)
        self.projected = projected
        return CausalLMOutputWithPast(logits=out.logits, past_key_values=out.past_key_values)  # clean: ov_output_cache

    def prepare_inputs_for_generation(self, input_ids=None,
                                      past_key_values=None,  # site: ov_hook_cache
                                      inputs_embeds=None, pixel_values=None, attention_mask=None, **kwargs):
        if input_ids is not None and input_ids.shape[0] > 1:
            raise ValueError("Generation with batch size > 1 is not currently supported!")
        if past_key_values is not None:  # site: ov_empty_first_step
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"input_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"attention_mask": attention_mask, "pixel_values": pixel_values,
                             "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache")})
        return model_inputs


class OpenVLAForActionPrediction(PrismaticForConditionalGeneration):
    def __init__(self, config, language_model, n_action_bins=32):
        super().__init__(config, language_model)
        self.bins = np.linspace(-1, 1, n_action_bins)
        self.bin_centers = (self.bins[:-1] + self.bins[1:]) / 2.0
        self.vocab_size = config.vocab_size

    def predict_action(self, input_ids=None, **kwargs):
        if not torch.all(input_ids[:, -1] == 29):
            input_ids = torch.cat((input_ids, torch.tensor([[29]])), dim=1)
        generated_ids = self.generate(input_ids, max_new_tokens=ACTION_DIM, min_new_tokens=ACTION_DIM, **kwargs)
        action_ids = generated_ids[0, -ACTION_DIM:].numpy()
        discretized = np.clip(self.vocab_size - action_ids - 1, 0, self.bin_centers.shape[0] - 1)
        return self.bin_centers[discretized]


language_model = AutoModelForCausalLM.from_pretrained("openvla/openvla-7b")
vla = OpenVLAForActionPrediction(copy.deepcopy(language_model.config), language_model).eval()
prompt = torch.tensor([[1, 15, 16, 17, 18]])
patches = torch.randn(1, N_PATCHES, VISION_DIM)


def probe_first_step_sees_image():
    vla.seen_lengths.clear()
    action = vla.predict_action(input_ids=prompt, pixel_values=patches, do_sample=False)
    assert action.shape == (ACTION_DIM,)
    first = vla.seen_lengths[0]
    assert first == prompt.shape[1] + 1, f"ov_empty_first_step: the first step ran {first} token(s)"  # observe: ov_empty_first_step


def probe_action_steps_cached():
    vla.seen_lengths.clear()
    vla.predict_action(input_ids=prompt, pixel_values=patches, do_sample=False)
    steps = vla.seen_lengths[1:]
    assert steps == [1] * (ACTION_DIM - 1), f"ov_hook_cache: the action steps re-ran {steps} tokens"  # observe: ov_hook_cache


def probe_manual_decode():
    with torch.no_grad():
        first = vla(input_ids=prompt, attention_mask=torch.ones_like(prompt), pixel_values=patches, use_cache=True)
        nxt = first.logits[:, -1:].argmax(-1)
        second = vla(input_ids=nxt, past_key_values=first.past_key_values, use_cache=True)
    assert second.past_key_values.get_seq_length() == prompt.shape[1] + N_PATCHES + 1
