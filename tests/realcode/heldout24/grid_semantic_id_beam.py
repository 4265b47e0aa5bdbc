"""GRID (Snap Research): generative recommendation with semantic IDs. A TIGER-style encoder-decoder reads the user's
history of item semantic IDs and decodes the next item's ID one hierarchy level at a time with its own beam search.
`generate` starts from `past_key_values = EncoderDecoderCache(self_attention_cache=DynamicCache(),
cross_attention_cache=DynamicCache())`; per level, `decoder_forward_pass` prepends the BOS embedding unless
`_is_kv_cache_valid(past_key_values)` (`len(kv_cache) > 0` for a Cache) and otherwise feeds only the last level's
embedding with the cache; `_beam_search_one_step` widens the batch to batch x top-k at the first level by replacing
the cache with a fresh `EncoderDecoderCache(self_attention_cache=..., cross_attention_cache=...)`, and at later levels
keeps the winning beams with `past_key_values.reorder_cache(replace_indices)` (`if past_key_values != None`).

Provenance (mechanisms read; this code is written here, not copied):
- snap-research/GRID @63e19a88af6977eba9c3dd1971030573968d99b7
  src/models/modules/semantic_id/tiger_generation_model.py (`_is_kv_cache_valid`; `_beam_search_one_step`: the
  top-k at the first level and its `EncoderDecoderCache(self_attention_cache=DynamicCache(),
  cross_attention_cache=DynamicCache())`, the marginal probabilities, `replace_indices`, `past_key_values.
  reorder_cache(replace_indices)`; `decoder_forward_pass`: the BOS prepend when the cache is not valid, else
  `inputs_embeds_for_decoder[:, -1:, :]`, `self.decoder(..., use_cache=use_cache, past_key_values=past_key_values)`;
  `generate`: the cache built before the level loop, `repeat_interleave` of the encoder output over the beams),
  requirements.txt (transformers==4.47.0).
Reduced: the decoder is a tiny T5's decoder stack fed with embeddings, its encoder output random; two hierarchy
levels of 6 codes, top-2 beams, no prefix-validity check; the first level's cache swap and the generate-time cache
are reached by their own probes (the construction stops the run at every release).
"""

import torch
from torch import nn
from transformers import T5ForConditionalGeneration
from transformers.cache_utils import DynamicCache, EncoderDecoderCache

CODES = 6
TOP_K = 2
LEVELS = 2

t5 = T5ForConditionalGeneration.from_pretrained("google-t5/t5-small").eval()
decoder = t5.decoder
d_model = t5.config.d_model
code_embedding = nn.Embedding(CODES * LEVELS, d_model)
bos_token = torch.randn(d_model)
heads = nn.ModuleList([nn.Linear(d_model, CODES) for _ in range(LEVELS)])


def is_kv_cache_valid(kv_cache):
    if isinstance(kv_cache, (EncoderDecoderCache, DynamicCache)):
        return len(kv_cache) > 0  # clean: gr_cache_len
    elif isinstance(kv_cache, tuple):
        return True
    return False


@torch.no_grad()
def decoder_forward_pass(future_ids, encoder_output, past_key_values):
    if future_ids is not None:
        offsets = torch.arange(future_ids.shape[1]) * CODES
        embeds = code_embedding(future_ids + offsets)
        if not is_kv_cache_valid(past_key_values):
            embeds = torch.cat([bos_token.expand(future_ids.size(0), 1, -1), embeds], dim=1)
        else:
            embeds = embeds[:, -1:, :]
    else:
        embeds = bos_token.expand(encoder_output.size(0), 1, -1)
    out = decoder(inputs_embeds=embeds, encoder_hidden_states=encoder_output, use_cache=True,  # clean: gr_decoder_step
                  past_key_values=past_key_values, return_dict=True)
    return out.last_hidden_state, out.past_key_values


def beam_search_one_step(candidate_logits, generated_ids, marginal_log_prob, past_key_values, hierarchy):
    proba, indices = torch.sort(candidate_logits.softmax(-1), descending=True)
    if generated_ids is None:
        proba_topk, indices_topk = proba[:, :TOP_K], indices[:, :TOP_K]
        past_key_values = EncoderDecoderCache(self_attention_cache=DynamicCache(),  # site: gr_widen_cache
                                              cross_attention_cache=DynamicCache())
        return indices_topk.unsqueeze(-1), proba_topk, past_key_values
    proba = proba.reshape(-1, TOP_K * CODES)
    indices = indices.reshape(-1, TOP_K * CODES)
    proba = marginal_log_prob.repeat_interleave(CODES, dim=-1) * proba
    top = torch.topk(proba, k=TOP_K, dim=-1)
    replace_indices = ((top.indices // CODES) + torch.arange(top.indices.size(0)).unsqueeze(1) * TOP_K).flatten()
    if past_key_values != None:  # noqa: E711
        past_key_values.reorder_cache(replace_indices)  # clean: gr_reorder
    indices_topk = torch.gather(indices, 1, top.indices)
    generated_ids = torch.cat([generated_ids.reshape(-1, hierarchy)[replace_indices].reshape(-1, TOP_K, hierarchy),
                               indices_topk.unsqueeze(-1)], dim=-1)
    return generated_ids, top.values, past_key_values


def generate(encoder_output):
    generated_ids, marginal_log_prob = None, None
    past_key_values = EncoderDecoderCache(  # site: gr_init_cache
        self_attention_cache=DynamicCache(), cross_attention_cache=DynamicCache())
    for hierarchy in range(LEVELS):
        if generated_ids is not None:
            future_ids = generated_ids.reshape(-1, hierarchy)
            enc = encoder_output.repeat_interleave(TOP_K, dim=0)
        else:
            future_ids, enc = None, encoder_output
        hidden, past_key_values = decoder_forward_pass(future_ids, enc, past_key_values)
        logits = heads[hierarchy](hidden[:, -1, :])
        generated_ids, marginal_log_prob, past_key_values = beam_search_one_step(
            logits, generated_ids, marginal_log_prob, past_key_values, hierarchy)
    return generated_ids, marginal_log_prob


history = torch.randn(2, 5, d_model)


def probe_generate():
    ids, scores = generate(history)
    assert ids.shape == (2, TOP_K, LEVELS)


def probe_first_level_beams():
    hidden, _ = decoder_forward_pass(None, history, EncoderDecoderCache(DynamicCache(), DynamicCache()))
    beam_search_one_step(heads[0](hidden[:, -1, :]), None, None, None, 0)


def probe_second_level():
    enc = history.repeat_interleave(TOP_K, dim=0)
    first = torch.tensor([[1], [4], [2], [0]])
    cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
    assert not is_kv_cache_valid(cache)
    hidden, cache = decoder_forward_pass(first, enc, cache)
    assert is_kv_cache_valid(cache) and cache.get_seq_length() == 2
    ids, scores, cache = beam_search_one_step(heads[1](hidden[:, -1, :]), first.reshape(2, TOP_K, 1),
                                              torch.ones(2, TOP_K), cache, 1)
    assert ids.shape == (2, TOP_K, 2) and cache.get_seq_length() == 2
