"""A copied `_assisted_decoding` loop for draft-model speculative sampling (and its prompt-lookup sibling): the
target model verifies the candidate ids through its own `prepare_inputs_for_generation`, with the cache
positions extended by hand, and the rejected tail is cut with transformers' private crop helper.

Provenance (mechanisms read; this code is written here, not copied):
- hemingkx/Spec-Bench model/sps/decoding.py @70f8b28f018118f2dfd224a2abca9d9f834fd45b (imports
  `GreedySearchOutput` from transformers.generation.utils and `_crop_past_key_values` from
  transformers.generation.candidate_generator; `model_kwargs = self._get_initial_cache_position(input_ids,
  model_kwargs)`; `candidate_kwargs = copy.copy(model_kwargs)`, `cache_position` extended with
  `torch.arange(cur_len, cur_len + candidate_length)`, then `self.prepare_inputs_for_generation(candidate_input_ids,
  **candidate_kwargs)` and `self(**model_inputs)`)
- hemingkx/Spec-Bench model/pld/pld.py @fd2c1cd7d2201ef71db4c5f4e455008f017967bf (`from
  transformers.generation.utils import _crop_past_key_values`; `outputs.past_key_values = _crop_past_key_values(self, outputs.past_key_values,
  new_cache_size)`)
Reduced: the imports sit in small functions (module-level in the original) so each is probed on its own.
"""

import copy

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.3")
prompt = torch.tensor([[1, 4, 8, 15, 16, 23, 42]])
candidates = torch.tensor([[50, 51, 52]])


def crop_helper():
    from transformers.generation.candidate_generator import _crop_past_key_values  # site: sps_crop_import
    return _crop_past_key_values


def lookup_crop_helper():
    from transformers.generation.utils import _crop_past_key_values  # site: pld_crop_import
    return _crop_past_key_values


def output_classes():
    from transformers.generation.utils import GreedySearchOutput  # site: sps_greedy_output
    return GreedySearchOutput


def start_kwargs(input_ids):
    model_kwargs = {"past_key_values": DynamicCache(), "use_cache": True}
    return model._get_initial_cache_position(input_ids, model_kwargs)  # site: sps_initial_positions


def verify(input_ids, model_kwargs, candidate_ids):
    cur_len = input_ids.shape[-1]
    candidate_length = candidate_ids.shape[1] - cur_len
    candidate_kwargs = copy.copy(model_kwargs)
    if "cache_position" in candidate_kwargs:
        candidate_kwargs["cache_position"] = torch.cat(
            (candidate_kwargs["cache_position"],
             torch.arange(cur_len, cur_len + candidate_length, dtype=torch.long)), dim=0)
    model_inputs = model.prepare_inputs_for_generation(candidate_ids, **candidate_kwargs)  # clean: sps_verify_inputs
    outputs = model(**model_inputs)
    return outputs.logits[:, -candidate_length - 1:], outputs.past_key_values


def probe_crop_import():
    assert crop_helper() is not None


def probe_lookup_import():
    assert lookup_crop_helper() is not None


def probe_output_classes():
    assert output_classes() is not None


def probe_initial_positions():
    kwargs = start_kwargs(prompt)
    assert kwargs["cache_position"].shape[0] == prompt.shape[1]


def probe_verify():
    model_kwargs = {"past_key_values": DynamicCache(), "use_cache": True,
                    "cache_position": torch.arange(prompt.shape[1])}
    logits, cache = verify(prompt, model_kwargs, torch.cat((prompt, candidates), dim=1))
    assert logits.shape[1] == 4 and cache.get_seq_length() == 10
