"""LLaMA-Omni (ictnlp): a speech-language model built LLaVA-style on Llama-3.1. `OmniSpeechLlamaForCausalLM`
subclasses `LlamaForCausalLM` with a forward of its own (named parameters only, `past_key_values` and
`cache_position` among them, no `**kwargs`) that merges the speech features into the embeddings when no
`inputs_embeds` is given and calls `super().forward(...)`; `generate` turns the speech into `inputs_embeds`, then
calls `super().generate(position_ids=..., attention_mask=..., inputs_embeds=..., **kwargs)`; and
`prepare_inputs_for_generation` pops the speech keywords, calls the parent's hook with
`past_key_values=past_key_values` by keyword, and puts the speech back into the inputs.

Provenance (mechanisms read; this code is written here, not copied):
- ictnlp/LLaMA-Omni @9464a7916e9cf3dde4490e2047e1afb80d328005
  omni_speech/model/language_model/omni_speech_llama.py (OmniSpeechLlamaForCausalLM.forward(self, input_ids=None,
  attention_mask=None, position_ids=None, past_key_values=None, inputs_embeds=None, labels=None, use_cache=None,
  output_attentions=None, output_hidden_states=None, speech=None, speech_lengths=None, return_dict=None,
  cache_position=None): `if inputs_embeds is None: ... = self.prepare_inputs_labels_for_speech_and_text(...)`,
  `return super().forward(input_ids=..., past_key_values=past_key_values, ...)`; generate: `inputs_embeds =
  self.get_model().embed_tokens(inputs)` or the speech merge, `return super().generate(position_ids=position_ids,
  attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)`; prepare_inputs_for_generation: `speech =
  kwargs.pop("speech", None)`, `inputs = super().prepare_inputs_for_generation(input_ids,
  past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)`, `inputs['speech'] = speech`) and
  omni_speech/infer/infer.py (`model.generate(input_ids, speech=speech_tensor, speech_lengths=..., do_sample=...,
  max_new_tokens=..., use_cache=True, pad_token_id=128004)`).
Reduced: the Whisper encoder and projector are one linear layer over random frames written after the first
token (a one-token step keeps its text embedding, as the project's merge returns early for it); no speech generator
(CTC unit decoder); token ids in, greedy decoding; a subclass of LlamaForCausalLM built from the checkpoint's
config.
"""

import torch
from torch import nn
from transformers import AutoConfig, LlamaForCausalLM


class OmniSpeechLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.speech_projector = nn.Linear(16, config.hidden_size)

    def prepare_inputs_labels_for_speech_and_text(self, input_ids, speech):
        embeds = self.get_input_embeddings()(input_ids)
        if speech is not None and input_ids.shape[1] > 1:
            speech_embeds = self.speech_projector(speech)
            embeds = torch.cat([embeds[:, :1], speech_embeds, embeds[:, 1:]], dim=1)
        return embeds

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,  # site: lo_forward_signature
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                speech=None, speech_lengths=None, return_dict=None, cache_position=None):
        if inputs_embeds is None and speech is not None:
            inputs_embeds = self.prepare_inputs_labels_for_speech_and_text(input_ids, speech)
            input_ids = None
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # clean: lo_super_forward
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict)

    @torch.no_grad()
    def generate(self, inputs=None, speech=None, speech_lengths=None, **kwargs):
        attention_mask = kwargs.pop("attention_mask", None)
        inputs_embeds = self.prepare_inputs_labels_for_speech_and_text(inputs, speech)
        if attention_mask is None:
            attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long)
        return super().generate(attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: lo_forward_signature

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        speech = kwargs.pop("speech", None)
        speech_lengths = kwargs.pop("speech_lengths", None)
        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,
                                                       inputs_embeds=inputs_embeds, **kwargs)
        if speech is not None:
            inputs["speech"] = speech
            inputs["speech_lengths"] = speech_lengths
        return inputs


config = AutoConfig.from_pretrained("ICTNLP/Llama-3.1-8B-Omni")
model = OmniSpeechLlamaForCausalLM(config).eval()
speech = torch.randn(1, 3, 16)


def probe_speech_chat():
    out = model.generate(torch.tensor([[1, 20, 21, 22]]), speech=speech, speech_lengths=torch.tensor([3]),
                         do_sample=False, max_new_tokens=3, min_new_tokens=3, use_cache=True, pad_token_id=0)
    assert out.shape == (1, 3)


def probe_text_forward():
    with torch.no_grad():
        first = model(input_ids=torch.tensor([[1, 30, 31]]), use_cache=True)
        second = model(input_ids=torch.tensor([[32]]), past_key_values=first.past_key_values, use_cache=True)  # clean: lo_step_forward
    assert second.past_key_values.get_seq_length() == 4
