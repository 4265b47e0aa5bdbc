"""SoulX-Podcast (Soul AI Lab): multi-speaker podcast TTS whose Qwen3 LM writes speech tokens turn after turn on one
cache. `SoulXPodcast.forward_longform` builds `past_key_values = DynamicCache(config=cache_config)` once, extends the
token history with each turn's text and calls the HF engine's `generate(inputs, sampling_params,
past_key_values=past_key_values)` (the whole history again; the cache holds what was already run), replacing the
cache with a fresh `DynamicCache(config=...)` when the history is cut back. The engine calls `self.model.generate(
input_ids=..., min_new_tokens=..., max_new_tokens=..., past_key_values=past_key_values,
custom_generate=sample_hf_engine_handler, use_cache=True, ...)`, where the handler (Repetition Aware Sampling of
VALL-E 2) is `_ras_sample_hf_engine`, a copy of transformers 4.57's `_sample` loop: `model_kwargs =
self._get_initial_cache_position(cur_len, input_ids.device, model_kwargs)`, `self.prepare_inputs_for_generation(
input_ids, **model_kwargs)`, the forward, `self._update_model_kwargs_for_generation(outputs, model_kwargs, ...)`.

Provenance (mechanisms read; this code is written here, not copied):
- Soul-AILab/SoulX-Podcast @5ac9c0e1cfe596396200c7d38e3fd53b7b3fbf4b
  soulxpodcast/models/soulxpodcast.py (forward_longform: `cache_config = AutoPretrainedConfig().from_dataclass(
  self.llm.config.hf_config)`, `past_key_values = DynamicCache(config=cache_config)`, the per-turn
  `self.llm.generate(inputs, sampling_params, past_key_values=past_key_values)`, `inputs.extend(llm_outputs[
  'token_ids'])`, the reset to a new DynamicCache); soulxpodcast/engine/llm_engine.py (HFLLMEngine.generate: the
  generate call quoted above, `custom_generate=partial(_ras_sample_hf_engine, use_ras=..., win_size=..., tau_r=...)`
  when RAS is on, `generated_ids[:, input_len:]`); soulxpodcast/models/modules/sampler.py (`_ras_sample_hf_engine`);
  requirements.txt (transformers==4.57.1).
Reduced: the Qwen3 LM is a tiny Llama, its config passed as is; greedy decoding (RAS keeps the greedy choice), a
fixed number of tokens per turn instead of the speech EOS; no flow-matching or vocoder stage.
"""

from functools import partial

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("Soul-AILab/SoulX-Podcast-1.7B").eval()


def _ras_sample_hf_engine(self, input_ids, logits_processor, stopping_criteria, generation_config,
                          synced_gpus=False, streamer=None, use_ras=False, win_size=10, tau_r=0.1, **model_kwargs):
    batch_size, cur_len = input_ids.shape[:2]
    this_peer_finished = False
    unfinished_sequences = torch.ones(batch_size, dtype=torch.long, device=input_ids.device)
    model_kwargs = self._get_initial_cache_position(cur_len, input_ids.device, model_kwargs)  # site: sx_initial_position
    while self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=input_ids.device):
        model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
        outputs = self(**model_inputs, return_dict=True)
        model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs,
                                                                is_encoder_decoder=self.config.is_encoder_decoder)
        next_token_logits = outputs.logits[:, -1, :].to(copy=True, dtype=torch.float32)
        next_token_scores = logits_processor(input_ids, next_token_logits)
        if use_ras:
            candidate = next_token_scores.argmax(-1)
            rep_num = (input_ids[:, -win_size:] == candidate).sum().item() + 1
            if rep_num >= win_size * tau_r:
                next_token_scores = next_token_logits
        next_tokens = next_token_scores.argmax(-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        unfinished_sequences = unfinished_sequences & ~stopping_criteria(input_ids, None)
        this_peer_finished = unfinished_sequences.max() == 0
    return input_ids


class HFLLMEngine:
    def __init__(self, model):
        self.model = model

    def generate(self, prompt, max_tokens, past_key_values=None, use_ras=False):
        handler = partial(_ras_sample_hf_engine, use_ras=True, win_size=4, tau_r=0.5) if use_ras else None
        with torch.no_grad():
            generated_ids = self.model.generate(input_ids=torch.tensor([prompt]), do_sample=False,  # clean: sx_engine_generate
                                                min_new_tokens=max_tokens, max_new_tokens=max_tokens,
                                                past_key_values=past_key_values, custom_generate=handler,
                                                use_cache=True)
        return generated_ids[:, len(prompt):].tolist()[0]


engine = HFLLMEngine(model)


def podcast(turn_texts, use_ras=False, tokens_per_turn=3):
    inputs = [1, 4, 5, 6]
    past_key_values = DynamicCache(config=model.config)  # clean: sx_turn_cache
    outputs = []
    for text in turn_texts:
        inputs.extend(text)
        token_ids = engine.generate(inputs, tokens_per_turn, past_key_values=past_key_values, use_ras=use_ras)
        inputs.extend(token_ids)
        outputs.append(token_ids)
    return outputs, inputs, past_key_values


def probe_two_turns():
    outputs, inputs, cache = podcast([[20, 21], [22, 23]])
    assert [len(o) for o in outputs] == [3, 3]
    assert cache.get_seq_length() == len(inputs) - 1


def probe_ras_turn():
    outputs, inputs, cache = podcast([[20, 21]], use_ras=True)
    assert len(outputs[0]) == 3
