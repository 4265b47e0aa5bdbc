"""Remote-code style causal LMs (trust_remote_code modeling files): a prepare_inputs_for_generation that takes
everything through **kwargs and looks the cache up by its 4.x name, and a beam-search `_reorder_cache` hook
(still called by generate on every checked release).

Provenance (mechanisms read; this code is written here, not copied):
- meta-llama/llama-recipes recipes/experimental/long_context/H2O/utils/llama.py @4d382612640533e6dce2c685d59c540cc4d1763e
  (H2OLlamaForCausalLM: a LlamaForCausalLM subclass replacing the model's forward and reading
  `past_key_values` by name)
- jycha98/SpecExtend_Reb eagle_3_final/modeling_llama_kv_target_3_e3.py (a modified modeling file copied from
  a 4.x release, with its own generation hooks)
"""

import torch
from transformers import LlamaForCausalLM

prompt = torch.tensor([[1, 4, 8, 15, 16]])


class KwargsHookLM(LlamaForCausalLM):
    seen_lengths = []

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        past = kwargs.get("past_key_values")  # site: rk_kwargs_get_past
        if past is not None and past.get_seq_length() > 0:
            input_ids = input_ids[:, -1:]
        self.seen_lengths.append(input_ids.shape[-1])
        return {"input_ids": input_ids, "past_key_values": past, "use_cache": True}


class CompatKwargsLM(LlamaForCausalLM):
    seen_lengths = []

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        past = kwargs.get("cache", kwargs.get("past_key_values"))  # clean: rk_kwargs_compat
        if past is not None and past.get_seq_length() > 0:
            input_ids = input_ids[:, -1:]
        self.seen_lengths.append(input_ids.shape[-1])
        return {"input_ids": input_ids, "past_key_values": past, "use_cache": True}


class BeamHookLM(LlamaForCausalLM):
    reorders = []

    @staticmethod
    def _reorder_cache(past_key_values, beam_idx):  # clean: rk_reorder_hook
        BeamHookLM.reorders.append(beam_idx.tolist())
        past_key_values.reorder_cache(beam_idx)
        return past_key_values


def probe_kwargs_hook():
    model = KwargsHookLM.from_pretrained("internlm/internlm2-chat-7b")
    model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert model.seen_lengths == [5, 1, 1, 1], f"rk_kwargs_get_past: inputs {model.seen_lengths}"  # observe: rk_kwargs_get_past


def probe_compat_hook():
    model = CompatKwargsLM.from_pretrained("internlm/internlm2-chat-7b")
    model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert model.seen_lengths == [5, 1, 1, 1]


def probe_beam_hook():
    model = BeamHookLM.from_pretrained("internlm/internlm2-chat-7b")
    model.generate(prompt, max_new_tokens=3, min_new_tokens=3, num_beams=2, do_sample=False)
    assert BeamHookLM.reorders
