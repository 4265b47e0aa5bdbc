"""Baichuan-Audio (baichuan-inc): an end-to-end speech LLM whose web demos interleave text and audio-token turns on
one cache. A text step is `model.generate(...)` with `return_dict_in_generate=True`; to switch to audio, the demo
overwrites the last generated token with the audio-start token (`ret.sequences[0, -1] = audiogen_start_token_id`) and
calls `GenerationAudioTokens.generate(model, ret.sequences, past_key_values=ret.past_key_values, ...)`, whose
`_sample` is a copy of transformers 4.45's sampling loop: `model_kwargs = self._get_initial_cache_position(input_ids,
model_kwargs)`, `while self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=..., cur_len=cur_len,
max_length=max_length)`, `self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, the forward, one audio
token per codebook from the audio head, `self._update_model_kwargs_for_generation(outputs, model_kwargs, ...)`, and
a `GenerateAudioTokensOutput(sequences=..., audios_sequences=..., past_key_values=model_kwargs.get(
"past_key_values"))` dataclass at the end; the next text step continues with `past_key_values=ret.past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- baichuan-inc/Baichuan-Audio @805d456433dbf3e0edb2bdd302f733a4bd38ea84
  web_demo/generation.py (GenerateAudioTokensOutput with its `past_key_values` field; GenerationAudioTokens.generate
  and `_sample`: the lines quoted above, `model_inputs = self.prepare_inputs_for_generation(input_ids,
  **model_kwargs)`, `outputs = self(**model_inputs, return_dict=True)`, the audio-pad token appended to input_ids,
  `model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=...)`);
  web_demo/s2s_gradio_demo_cosy_multiturn.py (generate_text_step: `model.generate(pret.sequences, attention_mask=
  torch.ones_like(pret.sequences), past_key_values=(pret.past_key_values), ..., return_dict_in_generate=True)`;
  generate_audio_step; generate_response: `ret.sequences[0, -1] = (model.config.audio_config.audiogen_start_token_id)`)
  and web_demo/base_tts_demo.py (the previous turn's `gret.sequences` concatenated with the new prompt, generated
  with `past_key_values=gret.past_key_values`).
Reduced: the Baichuan model is a tiny Llama; the audio head is a linear layer over the last hidden state with one
codebook; greedy; the private-helper steps of `_sample` (initial positions, the unfinished test) and its output
dataclass are reached by their own probes (at 4.57.6 the first stops the copied loop before the others run).
"""

from dataclasses import dataclass
from typing import Optional

import torch
from torch import nn
from transformers import AutoModelForCausalLM
from transformers.utils import ModelOutput

AUDIOGEN_START = 60
AUDIO_PAD = 61
CODEBOOK = 16

model = AutoModelForCausalLM.from_pretrained("baichuan-inc/Baichuan-Audio-Instruct").eval()
audio_head = nn.Linear(model.config.hidden_size, CODEBOOK + 1)


@dataclass
class GenerateAudioTokensOutput(ModelOutput):
    sequences: torch.LongTensor = None
    audios_sequences: Optional[torch.LongTensor] = None
    past_key_values: Optional[tuple] = None


def initial_positions(self, input_ids, model_kwargs):
    return self._get_initial_cache_position(input_ids, model_kwargs)  # site: ba_initial_position


def unfinished(self, this_peer_finished, synced_gpus, input_ids, cur_len, max_length):
    return self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=input_ids.device,  # site: ba_unfinished_kwargs
                                          cur_len=cur_len, max_length=max_length)


def pack_output(input_ids, audios_sequences, model_kwargs):
    return GenerateAudioTokensOutput(sequences=input_ids, audios_sequences=audios_sequences,  # site: ba_output_past
                                     past_key_values=model_kwargs.get("past_key_values"))


def generate_text_step(pret_sequences, past_key_values):
    return model.generate(pret_sequences, attention_mask=torch.ones_like(pret_sequences),  # clean: ba_text_continue
                          past_key_values=past_key_values, max_new_tokens=4, do_sample=False,
                          return_dict_in_generate=True)


def probe_initial_positions():
    ids = torch.tensor([[1, 5, 6, AUDIOGEN_START]])
    model_kwargs = initial_positions(model, ids, {"use_cache": True, "attention_mask": torch.ones_like(ids)})
    assert model_kwargs["cache_position"].shape[0] == ids.shape[1]


def probe_unfinished():
    ids = torch.tensor([[1, 5, 6, AUDIOGEN_START]])
    assert unfinished(model, False, False, ids, ids.shape[1], 10)


def probe_audio_output():
    ids = torch.tensor([[1, 5, 6, AUDIOGEN_START, AUDIO_PAD]])
    with torch.no_grad():
        cache = model(ids, use_cache=True).past_key_values
    out = pack_output(ids, torch.zeros(1, 1, 1, dtype=torch.long), {"past_key_values": cache})
    assert out.past_key_values.get_seq_length() == ids.shape[1]


def probe_interleave():
    model.generation_config.min_new_tokens = 4
    prompt = torch.tensor([[1, 5, 6, 7]])
    ret = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=4, min_new_tokens=4,
                         do_sample=False, return_dict_in_generate=True)
    ret.sequences[0, -1] = AUDIOGEN_START  # clean: ba_overwrite_last
    cache = ret.past_key_values  # clean: ba_read_cache
    assert cache.get_seq_length() == ret.sequences.shape[1] - 1
    with torch.no_grad():
        out = model(ret.sequences[:, -1:], past_key_values=cache, use_cache=True)  # clean: ba_audio_step
    head = audio_head(out.logits.new_zeros(1, model.config.hidden_size))
    assert head.shape[-1] == CODEBOOK + 1
    seqs = torch.cat([ret.sequences, out.logits[:, -1:].argmax(-1)], dim=1)
    nxt = generate_text_step(seqs, cache)
    assert nxt.sequences.shape[1] == seqs.shape[1] + 4
    assert nxt.past_key_values.get_seq_length() == nxt.sequences.shape[1] - 1
