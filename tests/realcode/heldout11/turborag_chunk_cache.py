"""TurboRAG (MooreThreads/TurboRAG): the KV cache of every document chunk is computed offline (one forward per chunk,
`outputs.past_key_values` saved with `torch.save`), and at query time the retrieved chunks' caches are loaded with
`torch.load(..., weights_only=True)`, concatenated layer by layer behind the cache of a fixed system prefix
(`past_key_values[layer][0]` / `[1]` of each, `torch.cat(..., dim=2)`) into a legacy tuple, and handed to
`model.generate(input_ids, max_new_tokens=1, past_key_values=...)`. The model is a modified Qwen2 whose attention
computes the key length with `past_key_value.get_usable_length(kv_seq_len, layer_idx)` and re-applies the rotary
embedding to the cached keys at `torch.arange(0, past_key_value.seen_tokens)`.

Provenance (mechanisms read; this code is written here, not copied):
- MooreThreads/TurboRAG @7036d775e11fad474adba7b5ef941c23c2e8d42b
  chunk_cache.py (`outputs = model(...)`, `past_key_values = outputs.past_key_values`, `torch.save(past_key_values,
  kvcache_file_path)`); turbo_rag.py (`outputs_prefix = model(inputs_prefix['input_ids'], attention_mask=...,
  use_cache=True)`, `prefix_kvcache = outputs_prefix.past_key_values`, `torch.load(node.metadata[...],
  weights_only=True)`, `stack_past_key_values`: `num_layers = len(past_key_values_list[0])`, `torch.cat([past_key_values
  [layer][0] for past_key_values in past_key_values_list], dim=2)` and `[1]`, `tuple(batch_past_key_values)`,
  `model.generate(input_ids, max_new_tokens=1, past_key_values=past_kvcache, pad_token_id=..., do_sample=False, ...)`);
  qwen2.py (Qwen2 attention: `kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`,
  `full_position_ids = torch.arange(0, past_key_value.seen_tokens, ...)`).
Reduced: no retriever (two fixed chunks), Qwen2 replaced by Llama; the modified attention's two cache reads kept as
helpers reached by their own probes (the real attention runs inside the modified model); key and value
concatenation share one helper.
"""

import os
import tempfile

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B-Instruct")
prefix_ids = torch.tensor([[1, 5, 9, 13]])
chunks = [torch.tensor([[21, 22, 23]]), torch.tensor([[31, 32]])]
query_ids = torch.tensor([[41, 42, 43]])

outputs_prefix = model(prefix_ids, attention_mask=torch.ones_like(prefix_ids), use_cache=True)  # clean: tr_prefix_forward
prefix_kvcache = outputs_prefix.past_key_values  # clean: tr_prefix_cache


def chunk_cache(chunk_ids, path):
    with torch.no_grad():
        outputs = model(chunk_ids, use_cache=True)
    past_key_values = outputs.past_key_values  # clean: tr_chunk_cache
    torch.save(past_key_values, path)  # clean: tr_save_chunk


def load_kvcache(cache_file_path):
    return torch.load(cache_file_path, weights_only=True)  # site: tr_load_chunk


def _cat_layer(past_key_values_list, layer, j):
    return torch.cat([past_key_values[layer][j] for past_key_values in past_key_values_list], dim=2)  # site: tr_index_layer


def stack_past_key_values(past_key_values_list):
    num_layers = len(past_key_values_list[0])
    return tuple((_cat_layer(past_key_values_list, layer, 0), _cat_layer(past_key_values_list, layer, 1))
                 for layer in range(num_layers))


def answer(input_ids, past_kvcache):
    with torch.no_grad():
        return model.generate(input_ids, max_new_tokens=1, past_key_values=past_kvcache, do_sample=False)  # site: tr_tuple_generate


def kv_seq_len_of(past_key_value, kv_seq_len, layer_idx):
    return kv_seq_len + past_key_value.get_usable_length(kv_seq_len, layer_idx)  # site: tr_usable_length


def full_position_ids(past_key_value):
    return torch.arange(0, past_key_value.seen_tokens, dtype=torch.long).unsqueeze(0)  # site: tr_seen_tokens


def _chunk_caches():
    caches = []
    for chunk in chunks:
        with torch.no_grad():
            caches.append(model(chunk, use_cache=True).past_key_values)
    return caches


def probe_save_chunks():
    folder = tempfile.mkdtemp()
    for i, chunk in enumerate(chunks):
        chunk_cache(chunk, os.path.join(folder, f"chunk{i}.pt"))
    assert len(os.listdir(folder)) == 2


def probe_load_chunk():
    path = os.path.join(tempfile.mkdtemp(), "chunk0.pt")
    chunk_cache(chunks[0], path)
    load_kvcache(path)


def probe_stack():
    stacked = stack_past_key_values([prefix_kvcache] + _chunk_caches())
    assert stacked[0][0].shape[2] == 9


def probe_generate_stacked():
    cfg = model.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    shape = (1, cfg.num_key_value_heads, 9, head_dim)
    past = tuple((torch.zeros(shape), torch.zeros(shape)) for _ in range(cfg.num_hidden_layers))
    model.generation_config.min_new_tokens = 1
    ids = torch.cat([prefix_ids] + chunks + [query_ids], dim=-1)
    out = answer(ids, past)
    assert out.shape[1] == ids.shape[1] + 1


def probe_usable_length():
    kv_seq_len_of(_chunk_caches()[0], 1, 0)


def probe_seen_tokens():
    full_position_ids(_chunk_caches()[0])
