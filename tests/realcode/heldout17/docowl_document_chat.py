"""mPLUG-DocOwl 1.5 (OCR-free document understanding on a Llama): `MPLUGDocOwlLlamaForCausalLM(LlamaForCausalLM)`
keeps the image crops and their positions in generate's model kwargs: its `prepare_inputs_for_generation(input_ids,
past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs)` slices the ids to the last token `if
past_key_values:` and hands `past_key_values`, `images` and `patch_positions` to its own `forward` at every step; the
forward's `prepare_inputs_labels_for_multimodal` returns early for a one-token step, and when a cache and the images
are both given it rebuilds the attention mask from the cache's length, `past_key_values[-1][-1].shape[-2] + 1`. The
language model takes a `modality_indicators` keyword (text or image token per position). Inference generates with
`images=..., patch_positions=..., do_sample=False, max_new_tokens=512, use_cache=True`.

Provenance (mechanisms read; this code is written here, not copied):
- X-PLUG/mPLUG-DocOwl @f91a76859babfdebe7420db6133b66f06f65efc2
  DocOwl1.5/mplug_docowl/model/modeling_mplug_docowl.py (`prepare_inputs_labels_for_multimodal(self, input_ids,
  attention_mask, past_key_values, labels, images, patch_positions)`: `if images is None or input_ids.shape[1] == 1:
  if past_key_values is not None and images is not None and input_ids.shape[1] == 1: attention_mask =
  torch.ones((attention_mask.shape[0], past_key_values[-1][-1].shape[-2] + 1), ...)`, `multiway_indices =
  torch.zeros_like(input_ids)`; MPLUGDocOwlLlamaForCausalLM.forward's keyword list (input_ids, attention_mask,
  past_key_values, inputs_embeds, labels, use_cache, output_attentions, output_hidden_states, images,
  patch_positions, return_dict), `outputs = self.model(input_ids=..., modality_indicators=..., past_key_values=
  past_key_values, ...)`, `CausalLMOutputWithPast(..., past_key_values=outputs.past_key_values)`;
  `prepare_inputs_for_generation`: `if past_key_values: input_ids = input_ids[:, -1:]`, `model_inputs.update({
  "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask,
  "images": kwargs.get("images", None), "patch_positions": kwargs.get("patch_positions", None)})`) and
  DocOwl1.5/docowl_infer.py (`self.model.generate(input_ids, images=image_tensor, patch_positions=patch_positions,
  do_sample=False, temperature=1.0, max_new_tokens=512, streamer=self.streamer, use_cache=True,
  stopping_criteria=[stopping_criteria])`).
Reduced: the vision encoder and abstractor are a linear projection of random crop features prepended to the text;
the modality-adaptive attention that DocOwl patches into transformers' Llama (modeling_llama2.py) is left out (the
language model is transformers' Llama, `modality_indicators` accepted and unused); no streamer or stopping criteria,
few tokens; the forward records the length of every step's input ids.
"""

import torch
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM, LlamaModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class MPLUGDocOwlLlamaModel(LlamaModel):
    def __init__(self, config):
        super().__init__(config)
        self.vision2text = nn.Linear(16, config.hidden_size)

    def forward(self, input_ids=None, modality_indicators=None, **kwargs):
        return super().forward(input_ids=input_ids, **kwargs)


class MPLUGDocOwlLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super(LlamaForCausalLM, self).__init__(config)
        self.model = MPLUGDocOwlLlamaModel(config)
        self.vocab_size = config.vocab_size
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()
        self.step_lengths = []

    def get_model(self):
        return self.model

    def prepare_inputs_labels_for_multimodal(self, input_ids, attention_mask, past_key_values, labels, images, patch_positions):
        if images is None or input_ids.shape[1] == 1:
            if past_key_values is not None and images is not None and input_ids.shape[1] == 1:
                attention_mask = torch.ones((attention_mask.shape[0], past_key_values[-1][-1].shape[-2] + 1), dtype=attention_mask.dtype)  # site: dw_mask_from_cache
            multiway_indices = torch.zeros_like(input_ids).long()
            return input_ids, multiway_indices, attention_mask, past_key_values, None, labels
        image_features = self.get_model().vision2text(images)
        text_embeds = self.get_model().embed_tokens(input_ids)
        inputs_embeds = torch.cat([image_features, text_embeds], dim=1)
        modality = torch.cat([torch.ones(image_features.shape[:2], dtype=torch.long), torch.zeros_like(input_ids)], dim=1)
        attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long)
        return None, modality, attention_mask, past_key_values, inputs_embeds, labels

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None, labels=None,
                use_cache=None, output_attentions=None, output_hidden_states=None, images=None, patch_positions=None,
                return_dict=None):
        self.step_lengths.append((input_ids if input_ids is not None else inputs_embeds).shape[1])
        input_ids, modality_indicators, attention_mask, past_key_values, inputs_embeds, labels = \
            self.prepare_inputs_labels_for_multimodal(input_ids, attention_mask, past_key_values, labels, images, patch_positions)
        outputs = self.model(input_ids=input_ids, modality_indicators=modality_indicators, attention_mask=attention_mask,
                             past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache)  # clean: dw_model_cache
        logits = self.lm_head(outputs[0])
        return CausalLMOutputWithPast(logits=logits, past_key_values=outputs.past_key_values)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,  # site: dw_prepare_past
                                      inputs_embeds=None, **kwargs):
        if past_key_values:  # site: dw_cache_truthy
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache"),
            "attention_mask": attention_mask,
            "images": kwargs.get("images", None),
            "patch_positions": kwargs.get("patch_positions", None),
        })
        return model_inputs


config = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2)
model = MPLUGDocOwlLlamaForCausalLM(config).eval()
question = torch.tensor([[1, 30, 31, 32, 33]])


def answer(question):
    model.step_lengths = []
    with torch.inference_mode():
        output_ids = model.generate(question, attention_mask=torch.ones_like(question), do_sample=False,
                                    max_new_tokens=3, min_new_tokens=3, use_cache=True)
    assert output_ids.shape == (1, 8)
    return model.step_lengths


def probe_first_step():
    lengths = answer(question)
    assert lengths[0] == 5, f"dw_cache_truthy: the first step ran {lengths[0]} of the prompt's 5 tokens"  # observe: dw_cache_truthy


def probe_cached_steps():
    lengths = answer(question)
    assert lengths[1:] == [1, 1], f"dw_prepare_past: the steps re-ran the whole sequence {lengths}"  # observe: dw_prepare_past


def probe_document():
    image_tensor = torch.randn(1, 4, 16)
    with torch.inference_mode():
        output_ids = model.generate(question, attention_mask=torch.ones_like(question), images=image_tensor,
                                    patch_positions=torch.zeros(1, 4, 2, dtype=torch.long), do_sample=False,
                                    max_new_tokens=3, min_new_tokens=3, use_cache=True)
    assert output_ids.shape[0] == 1


def probe_forward_direct():
    with torch.no_grad():
        out = model(input_ids=question, attention_mask=torch.ones_like(question), use_cache=True)
        step = model(input_ids=out.logits[:, -1:].argmax(-1), attention_mask=torch.ones(1, 6, dtype=torch.long),
                     past_key_values=out.past_key_values, use_cache=True)
    assert step.past_key_values.get_seq_length() == 6
