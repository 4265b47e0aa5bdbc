"""Kangaroo (Equationliu/Kangaroo, self-speculative decoding with a double early exit): the base model prefills
the prompt once with `output_hidden_states=True` and the cache is parked on the model as a list,
`model.base_model.past_key_values = list(output.past_key_values)`; the shallow draft and the deep verify then run
layer slices on that list (`self.past_key_values[layer_idx]`, the cached length read as
`self.past_key_values[focu_layer][0].shape[2]`), and after verification the rejected tokens are cut layer by
layer: `for k, v in model.base_model.past_key_values: past_key_values_large_.append((k[:, :, :start_index, :],
v[:, :, :start_index, :]))`.

Provenance (mechanisms read; this code is written here, not copied):
- Equationliu/Kangaroo @e78913c2de78c841dc629c0b872fe19d17a6eeb0
  evaluation/inference_kangaroo.py (kangaroo_forward: the prefill call, `list(output.past_key_values)`,
  `output.hidden_states[EARLY_STOP_LAYER]`, the `past_key_values[EARLY_STOP_LAYER][0].shape[2] == start_index`
  assertion, STEP 4's post-processing loop).
- Equationliu/Kangaroo @5835a04cec14c0305b66c4c2cb13ad7daf9b3443
  kangaroo/earlyexit.py (EarlyExitLlamaForCausalLM: `self.past_key_values = None`, `early_exit_layer`,
  forward_draft_or_large_model's `past_key_values_length = self.past_key_values[focu_layer][0].shape[2]`).
Reduced: the adapter (its own tuple-cache module), the layer-slice forwards and the token loop are not run; the
prefill, the parked list, its length reads and the rollback are, each reached by a probe.
"""

import torch
from transformers import LlamaForCausalLM


class EarlyExitLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config, EARLY_STOP_LAYER=1):
        super().__init__(config)
        self.past_key_values = None
        self.early_exit_layer = EARLY_STOP_LAYER

    def cached_length(self, in_tokens_small=None):
        assert self.past_key_values is not None
        focu_layer = 0 if in_tokens_small is not None else self.early_exit_layer
        past_key_values_length = self.past_key_values[focu_layer][0].shape[2]  # clean: kg_layer_length
        return past_key_values_length


base_model = EarlyExitLlamaForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.3")
EARLY_STOP_LAYER = 1


@torch.no_grad()
def prefill(context_tokens, max_length=64):
    batch_size, context_length = context_tokens.shape
    global_position_ids = torch.arange(max_length)[None]
    position_ids = global_position_ids[:, :context_length]
    output = base_model(context_tokens, position_ids=position_ids, output_hidden_states=True)  # clean: kg_prefill
    base_model.past_key_values = list(output.past_key_values)  # clean: kg_park_list
    hidden_state_early = output.hidden_states[EARLY_STOP_LAYER]
    next_token = torch.argmax(output.logits[:, -1, :], dim=-1)
    return next_token, hidden_state_early


def post_process(start_index):
    if base_model.past_key_values[0][0].shape[2] > start_index:  # clean: kg_check_length
        past_key_values_large_ = []
        for k, v in base_model.past_key_values:  # site: kg_rollback
            past_key_values_large_.append((k[:, :, :start_index, :], v[:, :, :start_index, :]))
        base_model.past_key_values = past_key_values_large_


context = torch.tensor([[1, 319, 13563, 1546, 263, 12758]]) % base_model.config.vocab_size


def probe_prefill():
    token, early = prefill(context)
    assert base_model.past_key_values[EARLY_STOP_LAYER][0].shape[2] == context.shape[1]
    assert base_model.cached_length(in_tokens_small=token[:, None]) == context.shape[1]
    assert early.shape[1] == context.shape[1]


def probe_nothing_to_cut():
    prefill(context)
    post_process(context.shape[1])
    assert base_model.cached_length() == context.shape[1]


def probe_rollback():
    prefill(context)
    post_process(4)
    assert base_model.cached_length() == 4
