"""Star Attention (NVIDIA): phase 1 encodes the context block by block, each block after the first with the anchor
block prepended; the anchor's keys and values are cut off every layer of the block's cache, and the blocks' caches
are concatenated layer by layer into a list of [keys, values] pairs. Phase 2 runs the query and the generated tokens
one forward at a time on that list, which the project's copy of LlamaModel.forward turns into a DynamicCache with
`from_legacy_cache` ("kept for BC"); its causal-mask helper sizes a StaticCache's mask with `get_max_length()`. The
dense baseline decodes in the same loop from no cache.

Provenance (mechanisms read; this code is written here, not copied):
- NVIDIA/Star-Attention @c61059f5cbf506a3c2dadb65c3bd8ded5e9d41bb
  model.py (DenseAttentionModel._generate_output: `outputs = self.model(input_ids, position_ids=position_ids,
  past_key_values=past_key_values, use_cache=True)`, `past_key_values = outputs.past_key_values`, argmax, next
  position; StarAttentionModel._process_blockwise_context: `kv_block = self.model(ctx_block, position_ids=...,
  use_cache=True, ...).past_key_values`, `kv_block = [[x[0][:, :, self.anchor_block_size :], x[1][:, :,
  self.anchor_block_size :]] for x in kv_block]`, `kv_rank = kv_block if not kv_rank else [[torch.cat((kv_rank[i][j],
  kv_block[i][j]), dim=-2) for j in range(2)] for i in range(len(kv_rank))]`; __call__ passing kv_rank to
  _generate_output) and star_attention/modeling_llama.py (LlamaModel.forward: `if use_cache and not
  isinstance(past_key_values, Cache) and not self.training: past_key_values = DynamicCache.from_legacy_cache(
  past_key_values)`, `past_seen_tokens = past_key_values.get_seq_length()`; _update_causal_mask: `if
  using_static_cache: target_length = past_key_values.get_max_length()`).
Reduced: one rank, no ring attention or distributed setup; the project's modified Llama forward is stood for by a
helper that converts the block list before calling transformers' Llama; the mask helper is reached by its own probe.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", torch_dtype=torch.float32)


def to_model_cache(past_key_values, use_cache=True, training=False):
    if use_cache and not isinstance(past_key_values, Cache) and not training:
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: sa_from_legacy
    return past_key_values


def causal_target_length(past_key_values, attention_mask, sequence_length):
    past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0  # clean: sa_seen_tokens
    if isinstance(past_key_values, StaticCache):
        return past_key_values.get_max_length()  # site: sa_static_max_length
    if isinstance(attention_mask, torch.Tensor):
        return attention_mask.shape[-1]
    return past_seen_tokens + sequence_length + 1


class DenseAttentionModel:
    def __init__(self, model, max_new_tokens):
        self.model = model
        self.max_new_tokens = max_new_tokens

    def _generate_output(self, input_ids, position_ids):
        output_seq, past_key_values = None, None
        for _ in range(self.max_new_tokens):
            with torch.no_grad():
                outputs = self.model(input_ids, position_ids=position_ids, past_key_values=past_key_values, use_cache=True)  # clean: sa_dense_step
            past_key_values = outputs.past_key_values  # clean: sa_dense_keep
            next_tokens = torch.argmax(outputs.logits[:, -1, :], dim=-1)
            output_seq = next_tokens if output_seq is None else torch.cat([output_seq, next_tokens])
            input_ids = next_tokens.unsqueeze(0)
            position_ids = torch.tensor([[position_ids[-1, -1] + 1]]).to(position_ids)
        return output_seq, past_key_values


class StarAttentionModel:
    def __init__(self, model, block_size, anchor_block_size, max_new_tokens):
        self.model = model
        self.block_size = block_size
        self.anchor_block_size = anchor_block_size
        self.max_new_tokens = max_new_tokens

    def _discard_anchor(self, kv_block):
        return [[x[0][:, :, self.anchor_block_size :], x[1][:, :, self.anchor_block_size :]] for x in kv_block]  # clean: sa_discard_anchor

    def _process_blockwise_context(self, ctx_blocks, position_blocks):
        kv_rank = []
        for idx in range(len(ctx_blocks)):
            ctx_block = ctx_blocks[idx]
            position_block = position_blocks[idx]
            if idx > 0:
                ctx_block = torch.cat((ctx_blocks[0][:, : self.anchor_block_size], ctx_block), dim=-1)
                position_block = torch.cat((position_blocks[0][:, : self.anchor_block_size], position_block), dim=-1)
            with torch.no_grad():
                kv_block = self.model(ctx_block, position_ids=position_block, use_cache=True).past_key_values  # clean: sa_block_cache
            if idx > 0:
                kv_block = self._discard_anchor(kv_block)
            kv_rank = (
                kv_block
                if not kv_rank
                else [[torch.cat((kv_rank[i][j], kv_block[i][j]), dim=-2) for j in range(2)] for i in range(len(kv_rank))]  # site: sa_concat_blocks
            )
        return kv_rank

    def _generate_output(self, input_ids, position_ids, past_key_values):
        output_seq = None
        past_key_values = to_model_cache(past_key_values)
        for _ in range(self.max_new_tokens):
            with torch.no_grad():
                outputs = self.model(input_ids, position_ids=position_ids, past_key_values=past_key_values, use_cache=True)
            past_key_values = outputs.past_key_values
            next_tokens = torch.argmax(outputs.logits[:, -1, :], dim=-1)
            output_seq = next_tokens if output_seq is None else torch.cat([output_seq, next_tokens])
            input_ids = next_tokens.unsqueeze(0)
            position_ids = torch.tensor([[position_ids[-1, -1] + 1]]).to(position_ids)
        return output_seq, past_key_values

    def __call__(self, ctx_ids, qry_ids):
        ctx_len = ctx_ids.shape[-1]
        position_ids = torch.arange(0, ctx_len).unsqueeze(0)
        kv_rank = self._process_blockwise_context(ctx_ids.split(self.block_size, dim=-1),
                                                  position_ids.split(self.block_size, dim=-1))
        qry_position_ids = torch.arange(ctx_len, ctx_len + qry_ids.shape[-1]).unsqueeze(0)
        return self._generate_output(qry_ids, qry_position_ids, kv_rank)


context = torch.tensor([[1, 11, 12, 13, 14, 15, 16, 17]])
query = torch.tensor([[21, 22]])


def probe_dense():
    dense = DenseAttentionModel(model, 3)
    ids = torch.cat([context, query], dim=-1)
    out, cache = dense._generate_output(ids, torch.arange(ids.shape[-1]).unsqueeze(0))
    assert out.shape[0] == 3 and cache.get_seq_length() == 12


def probe_one_block():
    star = StarAttentionModel(model, 8, 4, 2)
    out, cache = star(context, query)
    assert cache.get_seq_length() == 11


def probe_two_blocks():
    star = StarAttentionModel(model, 4, 4, 2)
    with torch.no_grad():
        kv = star._process_blockwise_context(context.split(4, dim=-1), torch.arange(8).unsqueeze(0).split(4, dim=-1))
    assert kv[0][0].shape[2] == 8


def probe_anchor_cut():
    star = StarAttentionModel(model, 4, 4, 2)
    with torch.no_grad():
        cache = model(context, use_cache=True).past_key_values
    pairs = star._discard_anchor(cache)
    assert len(pairs) == 2 and pairs[0][0].shape[2] == 4 and pairs[1][1].shape[2] == 4


def probe_block_list():
    with torch.no_grad():
        cache = model(context, use_cache=True).past_key_values
    pairs = [[layer.keys, layer.values] for layer in cache.layers]
    assert to_model_cache(pairs).get_seq_length() == 8


def probe_static_mask():
    cache = StaticCache(config=model.config, max_cache_len=16)
    assert causal_target_length(cache, None, 4) == 16


def probe_dynamic_mask():
    with torch.no_grad():
        cache = model(context, use_cache=True).past_key_values
    assert causal_target_length(cache, None, 1) == 10
