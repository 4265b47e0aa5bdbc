"""Recovering a session's dropped KV chunks: the previous chunks are concatenated per layer into a tuple of
(key, value) pairs and passed to the model as the past, then the new chunk's slice of every layer is stored back
from the returned cache.

Provenance (mechanisms read; this code is written here, not copied):
- sg20180546/Pensieve src/pensieve/recovery/token_recovery.py @b7024837f1b66915909041a81ee2d5f432034495
  (`_load_prev_chunks_kv` builds `tuple(past_key_values)` of `(concatenated_key, concatenated_value)` per layer;
  `self.model(..., past_key_values=prev_cached_kv, ...)`; `past_kv = outputs.past_key_values`;
  `_store_recovered_chunks` walks `for layer_idx, (key, value) in enumerate(past_key_values)` and keeps the last
  `chunk_size` positions)
Reduced: tensors in transformers' [batch, heads, seq, head_dim] layout; the forward sits in its own helper.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
CHUNK = 4


class ChunkStore:
    def __init__(self):
        self.chunks = {}

    def put(self, session, chunk_id, layer_idx, key, value):
        self.chunks[(session, chunk_id, layer_idx)] = (key, value)

    def get(self, session, chunk_id, layer_idx):
        return self.chunks.get((session, chunk_id, layer_idx))


def load_prev_chunks(store, session, end_chunk_id, num_layers):
    if not end_chunk_id:
        return None
    past_key_values = []
    for layer_idx in range(num_layers):
        pairs = [store.get(session, c, layer_idx) for c in range(end_chunk_id)]
        keys = torch.cat([k for k, _ in pairs], dim=2)
        values = torch.cat([v for _, v in pairs], dim=2)
        past_key_values.append((keys, values))
    return tuple(past_key_values)


def forward_with_prev(store, session, chunk_id, chunk_ids):
    prev = load_prev_chunks(store, session, chunk_id, model.config.num_hidden_layers)
    return model(chunk_ids, past_key_values=prev, use_cache=True)  # site: rc_tuple_forward


def store_new_chunk(store, session, chunk_id, past_key_values):
    for layer_idx, (key, value) in enumerate(past_key_values):  # site: rc_iter_output
        store.put(session, chunk_id, layer_idx, key[:, :, -CHUNK:], value[:, :, -CHUNK:])


def recover(store, session, chunk_id, chunk_ids):
    outputs = forward_with_prev(store, session, chunk_id, chunk_ids)
    past_kv = outputs.past_key_values
    store_new_chunk(store, session, chunk_id, past_kv)
    return cached_tokens(outputs)


def cached_tokens(outputs):
    return outputs.past_key_values.get_seq_length()  # clean: rc_output_length


def seeded_store(session):
    store = ChunkStore()
    for layer_idx in range(model.config.num_hidden_layers):
        store.put(session, 0, layer_idx, torch.zeros(1, 1, CHUNK, 64), torch.zeros(1, 1, CHUNK, 64))
    return store


def probe_first_chunk():
    store = ChunkStore()
    assert recover(store, "a", 0, torch.tensor([[1, 2, 3, 4]])) == CHUNK
    assert store.get("a", 0, 1)[0].shape[2] == CHUNK


def probe_length_only():
    outputs = forward_with_prev(ChunkStore(), "b", 0, torch.tensor([[1, 2, 3, 4]]))
    assert cached_tokens(outputs) == CHUNK


def probe_tuple_past():
    outputs = forward_with_prev(seeded_store("c"), "c", 1, torch.tensor([[5, 6, 7, 8]]))
    assert cached_tokens(outputs) == 2 * CHUNK
