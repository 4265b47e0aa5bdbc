"""Medusa speculative decoding (FasterDecoding): the project keeps its own key/value store instead of a transformers
cache. `initialize_past_key_values(model)` allocates one tensor for every layer's keys and values at the model's
maximum length (sized from `model.config`) and a CPU tensor of current lengths, and wraps each layer's key and value
slot in a project class named `KVCache` (`cat` appends along the sequence, `copy` moves the accepted tree tokens into
place, `shape` reports the filled length). The Medusa model stores them on itself as `past_key_values`,
`past_key_values_data`, `current_length_data` and, on the next generate, reuses them after zeroing the lengths;
after each verification step the accepted candidate's entries are gathered and copied over the tree slots.

Provenance (mechanisms read; this code is written here, not copied):
- FasterDecoding/Medusa @e2a5d20c048a9b0a4092e6933c34313687422518
  medusa/model/kv_cache.py (class KVCache: `data`, `current_length`, `shape`, `copy(indices, prev_length, dim=2)`
  with `index_select` / `narrow` / `current_length.fill_`, `cat(tensor, dim=2)` with `narrow`, `copy_`,
  `current_length.add_`; `initialize_past_key_values(model)`: `torch.zeros(config.num_hidden_layers * 2, batch_size,
  config.num_key_value_heads, config.max_position_embeddings, config.hidden_size // config.num_attention_heads)`,
  `current_length_data`, a `[KVCache(...), KVCache(...)]` pair per layer), medusa/model/medusa_model.py
  (`if hasattr(self, "past_key_values"):` reuse and `current_length_data.zero_()`, else initialize and store on
  self) and medusa/model/utils.py (update_inference_inputs: `tgt = past_key_values_data[..., select_indices, :]`,
  `dst = past_key_values_data[..., prev_input_len : prev_input_len + tgt.shape[-2], :]`, `dst.copy_(tgt)`,
  `current_length_data.fill_(prev_input_len + tgt.shape[-2])`).
Reduced: the Medusa heads and tree attention are gone; a prefill writes one layer's projected keys and values into
the project's KVCache through its `cat`, as the project's modified Llama attention does; the base model is
transformers' Llama, used for its config and weights; the steps run under torch.inference_mode, as medusa_generate does.
"""

import torch
from transformers import AutoModelForCausalLM


class KVCache:
    def __init__(self, data, current_length):
        self.data = data
        self.current_length = current_length

    @property
    def shape(self):
        return (self.data.shape[0], self.data.shape[1], self.current_length.item(), self.data.shape[3])

    def copy(self, indices, prev_length, dim=2):
        tgt = self.data.index_select(dim, indices)
        dst = self.data.narrow(dim, prev_length, tgt.shape[dim])
        dst.copy_(tgt, non_blocking=True)
        self.current_length.fill_(prev_length + tgt.shape[dim])  # clean: md_copy_length

    def cat(self, tensor, dim=2):
        dst = self.data.narrow(dim, self.current_length, tensor.shape[dim])
        dst.copy_(tensor)
        self.current_length.add_(tensor.shape[dim])
        return torch.narrow(self.data, 2, 0, self.current_length)


def initialize_past_key_values(model):
    config = model.config
    batch_size = 1
    past_key_values_data = torch.zeros(config.num_hidden_layers * 2, batch_size, config.num_key_value_heads,
                                       config.max_position_embeddings,
                                       config.hidden_size // config.num_attention_heads,
                                       device=model.device, dtype=model.dtype)
    current_length_data = torch.zeros(config.num_hidden_layers * 2, dtype=torch.long, device="cpu")
    past_key_values = []
    for i in range(config.num_hidden_layers):
        past_key_values.append([KVCache(past_key_values_data[i * 2 + j], current_length_data[i * 2 + j])
                                for j in range(2)])
    return past_key_values, past_key_values_data, current_length_data


class MedusaModel(torch.nn.Module):
    def __init__(self, base_model):
        super().__init__()
        self.base_model = base_model

    def prepare_kv(self):
        if hasattr(self, "past_key_values"):
            past_key_values = self.past_key_values  # clean: md_reuse_own
            self.current_length_data.zero_()
        else:
            past_key_values, past_key_values_data, current_length_data = initialize_past_key_values(self.base_model)
            self.past_key_values = past_key_values  # clean: md_store_own
            self.past_key_values_data = past_key_values_data
            self.current_length_data = current_length_data
        return past_key_values

    @torch.inference_mode()
    def prefill_layer0(self, input_ids):
        past_key_values = self.prepare_kv()
        attn = self.base_model.model.layers[0].self_attn
        hidden = self.base_model.model.embed_tokens(input_ids)
        bsz, q_len, _ = hidden.shape
        key_states = attn.k_proj(hidden).view(bsz, q_len, -1, attn.head_dim).transpose(1, 2)
        value_states = attn.v_proj(hidden).view(bsz, q_len, -1, attn.head_dim).transpose(1, 2)
        keys = past_key_values[0][0].cat(key_states, dim=2)  # clean: md_cat_keys
        values = past_key_values[0][1].cat(value_states, dim=2)
        return keys, values


def update_inference_inputs(input_ids, candidates, best_candidate, accept_length, retrieve_indices,
                            past_key_values_data, current_length_data):
    prev_input_len = input_ids.shape[1]
    select_indices = retrieve_indices[best_candidate, : accept_length + 1] + prev_input_len
    input_ids = torch.cat([input_ids, candidates[None, best_candidate, : accept_length + 1]], dim=-1)
    tgt = past_key_values_data[..., select_indices, :]  # clean: md_gather_tree
    dst = past_key_values_data[..., prev_input_len : prev_input_len + tgt.shape[-2], :]
    dst.copy_(tgt, non_blocking=True)
    current_length_data.fill_(prev_input_len + tgt.shape[-2])  # clean: md_fill_length
    return input_ids


medusa = MedusaModel(AutoModelForCausalLM.from_pretrained("FasterDecoding/medusa-vicuna-7b-v1.3").eval())
prompt = torch.tensor([[1, 30, 31, 32, 33]])


def probe_prefill():
    keys, values = medusa.prefill_layer0(prompt)
    assert keys.shape[2] == 5 and medusa.past_key_values[0][0].shape[2] == 5


def probe_second_request():
    medusa.prefill_layer0(prompt)
    keys, _ = medusa.prefill_layer0(prompt[:, :3])
    assert keys.shape[2] == 3


def probe_accept_tree():
    medusa.prefill_layer0(prompt)
    candidates = torch.tensor([[40, 41, 42], [50, 51, 52]])
    retrieve_indices = torch.tensor([[0, 1, 2], [0, 3, 4]])
    with torch.inference_mode():
        ids = update_inference_inputs(prompt, candidates, 1, 1, retrieve_indices, medusa.past_key_values_data,
                                      medusa.current_length_data)
    assert ids.tolist() == [[1, 30, 31, 32, 33, 50, 51]] and int(medusa.current_length_data[0]) == 7


def probe_tree_copy():
    medusa.prefill_layer0(prompt)
    with torch.inference_mode():
        medusa.past_key_values[0][0].copy(torch.tensor([5, 7]), 5)
    assert medusa.past_key_values[0][0].shape[2] == 7
