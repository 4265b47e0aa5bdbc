"""MOSS-TTSD (OpenMOSS): a spoken-dialogue TTS LM (AsteroidTTS) that overrides GenerationMixin's `_sample` to emit
several codec channels per step. The override sets up `model_kwargs` with the private
`self._get_initial_cache_position(cur_len, device, model_kwargs)`, then loops: `model_inputs =
self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, `outputs = self(**model_inputs, return_dict=True)`,
`model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs)`, per-channel logits processors, and
appends the next tokens.

Provenance (mechanisms read; this code is written here, not copied):
- OpenMOSS/MOSS-TTSD @20dbb4fc44819435fee894d644a0402a0fee736a
  legacy/v0.7/modeling_asteroid.py (`class CustomMixin(GenerationMixin)`: `_sample(self, input_ids,
  logits_processor, stopping_criteria, generation_config, synced_gpus, streamer, **model_kwargs)`, `model_kwargs =
  self._get_initial_cache_position(cur_len, input_ids.device, model_kwargs)`, `while
  self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=input_ids.device)`, `model_inputs =
  self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, `outputs = self(**model_inputs, return_dict=True)`,
  `model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs)`, `input_ids = torch.cat([input_ids,
  next_tokens[:, None, :]], dim=1)`).
Reduced: one channel instead of eight (no teacher forcing of the delayed channels, no per-channel processors),
greedy, the AsteroidTTS model a Llama subclass, the dict return dropped (input ids only).
"""

import torch
from transformers import (AutoModelForCausalLM, GenerationMixin, LlamaForCausalLM, LogitsProcessorList,
                          MaxLengthCriteria, StoppingCriteriaList)


class CustomMixin(GenerationMixin):
    def _sample(self, input_ids, logits_processor, stopping_criteria, generation_config, synced_gpus, streamer,  # site: mt_sample_signature
                **model_kwargs):
        this_peer_finished = False
        unfinished_sequences = torch.ones(input_ids.shape[0], dtype=torch.long, device=input_ids.device)
        cur_len = input_ids.shape[1]
        model_kwargs = self._get_initial_cache_position(cur_len, input_ids.device, model_kwargs)  # site: mt_cache_position
        while self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=input_ids.device):
            model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
            outputs = self(**model_inputs, return_dict=True)
            model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs)
            next_tokens = logits_processor(input_ids, outputs.logits[:, -1, :].float()).argmax(-1)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=1)
            unfinished_sequences = unfinished_sequences & ~stopping_criteria(input_ids, None)
            this_peer_finished = unfinished_sequences.max() == 0
            cur_len += 1
            del outputs
        return input_ids


class AsteroidTTSInstruct(CustomMixin, LlamaForCausalLM):
    pass


model = AsteroidTTSInstruct.from_pretrained("fnlp/MOSS-TTSD-v0.7").eval()
plain = AutoModelForCausalLM.from_pretrained("fnlp/MOSS-TTSD-v0.7").eval()
prompt = torch.tensor([[1, 100, 101, 102]])


def probe_tts():
    ids = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # observe: mt_sample_signature
    assert ids.shape[1] == 7


def probe_plain():
    ids = plain.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: mt_plain_generate
    assert ids.shape[1] == 7


def probe_sample_loop():
    criteria = StoppingCriteriaList([MaxLengthCriteria(max_length=7)])
    ids = model._sample(prompt, logits_processor=LogitsProcessorList(), stopping_criteria=criteria,
                        generation_config=model.generation_config, synced_gpus=False, streamer=None,
                        attention_mask=torch.ones_like(prompt), use_cache=True)
    assert ids.shape[1] == 7
