"""H2O (heavy-hitter oracle) on Hugging Face Llama: `H2OLlamaForCausalLM` subclasses LlamaForCausalLM and, in its
__init__, replaces every decoder layer's `self_attn` with the project's `H2OLlamaAttention`, whose forward takes the
layer's cache as a `(keys, values)` tuple named `past_key_value`, concatenates the new keys and values to it and
hands the result, with the attention scores, to an `H2OKVCache_LayerWise` that keeps the heavy hitters and the
recent window. The summarization script loads it with `config.hh_size` / `config.recent_size` set, samples with
`generate(..., return_dict_in_generate=True, output_scores=True)`, then clears each H2O attention's scores.

Provenance (mechanisms read; this code is written here, not copied):
- FMInference/H2O @ac75c2a8a9e76832b2a4139b9363373b56336bfb
  h2o_hf/utils_real_drop/modify_llama.py (H2OKVCache_LayerWise.__call__: `seq_len =
  past_key_values[0].size(self.k_seq_dim)`, `if seq_len <= self.cache_size: return past_key_values`, top-k of
  `self.hh_score[:, :seq_len - self.recent_size]`, the keep mask, `k_hh_recent = past_key_values[0].squeeze()[mask]
  .view(bsz, num_heads, -1, head_dim)`; _update_hh_score; H2OLlamaAttention.forward(self, hidden_states,
  attention_mask=None, position_ids=None, past_key_value=None, output_attentions=False, use_cache=False):
  `kv_seq_len += past_key_value[0].shape[-2]`, `key_states = torch.cat([past_key_value[0], key_states], dim=2)`,
  `past_key_value = (key_states, value_states) if use_cache else None`, `past_key_value =
  self.kv_cache(past_key_value, attn_weights.detach().clone())`; H2OLlamaForCausalLM.__init__:
  `self.model.layers[layer_idx].self_attn = H2OLlamaAttention(config)`) and h2o_hf/run_summarization.py (`config.hh_size
  = args.hh_size`, `ENABLE_Heavy_Hitter_FUNCTIONS['llama_h2o'].from_pretrained(model_name, config=config)`, else
  `AutoModelForCausalLM.from_pretrained(model_name)`, `model.generate(input_ids=input_ids, max_length=...,
  temperature=..., top_k=..., top_p=..., do_sample=True, num_return_sequences=..., return_dict_in_generate=True,
  output_scores=True)`, then `m._clean_cache()` for every H2OLlamaAttention).
Reduced: no rotary embedding, tensor-parallel slicing or causal-mask rebuild in the attention (its cache handling is
kept), one request instead of a JSONL file, no tokenizer or ROUGE scoring.
"""

import math

import torch
from torch import nn
from transformers import AutoConfig, AutoModelForCausalLM, LlamaForCausalLM


class H2OKVCache_LayerWise:
    def __init__(self, hh_size=4, recent_size=512, k_seq_dim=2, v_seq_dim=2):
        self.hh_size = hh_size
        self.recent_size = recent_size
        self.cache_size = hh_size + recent_size
        self.k_seq_dim = k_seq_dim
        self.v_seq_dim = v_seq_dim
        self.hh_score = None

    def __call__(self, past_key_values, attn_score_cache):
        self._update_hh_score(attn_score_cache)
        if past_key_values is None:
            return None
        seq_len = past_key_values[0].size(self.k_seq_dim)  # clean: h2_layer_length
        if seq_len <= self.cache_size:
            return past_key_values
        bsz, num_heads, _, head_dim = past_key_values[0].shape
        select_hh_scores = self.hh_score[:, : seq_len - self.recent_size]
        _, keep_topk = torch.topk(select_hh_scores, self.hh_size, dim=-1)
        keep_topk = keep_topk.sort().values
        keep_recent = torch.arange(seq_len - self.recent_size, seq_len).repeat(keep_topk.shape[0], 1)
        keep_idx = torch.cat([keep_topk, keep_recent], dim=-1)
        mask = torch.zeros(self.hh_score.shape, dtype=torch.bool).scatter(-1, keep_idx, 1)
        k_hh_recent = past_key_values[0].squeeze(0)[mask].view(bsz, num_heads, -1, head_dim)  # clean: h2_keep_keys
        v_hh_recent = past_key_values[1].squeeze(0)[mask].view(bsz, num_heads, -1, head_dim)
        self.hh_score = self.hh_score[mask].view(num_heads, self.cache_size)
        return (k_hh_recent, v_hh_recent)

    def _update_hh_score(self, attn_score_cache):
        num_new_tokens = attn_score_cache.shape[2]
        if self.hh_score is None:
            self.hh_score = attn_score_cache.sum(0).sum(1)
        else:
            attn_score_cache = attn_score_cache.sum(0).sum(1)
            attn_score_cache[:, :-num_new_tokens] += self.hh_score
            self.hh_score = attn_score_cache

    def _clean_scores(self):
        self.hh_score = None


class H2OLlamaAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // self.num_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.q_proj = nn.Linear(config.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, self.num_key_value_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, self.num_key_value_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim, config.hidden_size, bias=False)
        self.kv_cache = H2OKVCache_LayerWise(hh_size=config.hh_size, recent_size=config.recent_size)

    def _clean_cache(self):
        self.kv_cache._clean_scores()

    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,  # site: h2_attention_forward
                output_attentions=False, use_cache=False):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        if past_key_value is not None:
            key_states = torch.cat([past_key_value[0], key_states], dim=2)
            value_states = torch.cat([past_key_value[1], value_states], dim=2)
        past_key_value = (key_states, value_states) if use_cache else None
        rep = self.num_heads // self.num_key_value_heads
        keys = key_states.repeat_interleave(rep, dim=1)
        values = value_states.repeat_interleave(rep, dim=1)
        attn_weights = torch.softmax(query_states @ keys.transpose(2, 3) / math.sqrt(self.head_dim), dim=-1)
        past_key_value = self.kv_cache(past_key_value, attn_weights.detach().clone())
        attn_output = (attn_weights @ values).transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(attn_output), None, past_key_value


class H2OLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        num_layers = len(self.model.layers)
        for layer_idx in range(num_layers):
            self.model.layers[layer_idx].self_attn = H2OLlamaAttention(config)


def load(model_name, enable_h2o_cache, hh_size=2, recent_size=4):
    if enable_h2o_cache:
        config = AutoConfig.from_pretrained(model_name)
        config.hh_size = hh_size
        config.recent_size = recent_size
        model = H2OLlamaForCausalLM.from_pretrained(model_name, config=config)
    else:
        model = AutoModelForCausalLM.from_pretrained(model_name)  # clean: h2_plain_load
    return model.eval()


@torch.no_grad()
def summarize(model, input_ids, max_tokens, enable_h2o_cache):
    output_sequences = model.generate(input_ids=input_ids, max_length=max_tokens + len(input_ids[0]), temperature=0.7,  # observe: h2_attention_forward
                                      top_k=5, top_p=0.9, do_sample=True, num_return_sequences=1,
                                      return_dict_in_generate=True, output_scores=True)
    if enable_h2o_cache:
        for name, m in model.named_modules():
            if isinstance(m, H2OLlamaAttention):
                m._clean_cache()
    return output_sequences


input_ids = torch.tensor([[1, 60, 61, 62, 63, 64, 65]])


def probe_baseline():
    model = load("huggyllama/llama-7b", enable_h2o_cache=False)
    model.generation_config.min_length = 10
    out = summarize(model, input_ids, 3, enable_h2o_cache=False)
    assert out["sequences"].shape[1] == 10 and len(out["scores"]) == 3


def probe_h2o():
    model = load("huggyllama/llama-7b", enable_h2o_cache=True)
    model.generation_config.min_length = 10
    out = summarize(model, input_ids, 3, enable_h2o_cache=True)
    assert out["sequences"].shape[1] == 10, "h2_attention_forward: the heavy-hitter attention did not decode"  # observe: h2_attention_forward


def probe_evict():
    cache = H2OKVCache_LayerWise(hh_size=2, recent_size=3)
    keys = torch.randn(1, 2, 8, 4)
    values = torch.randn(1, 2, 8, 4)
    kept = cache((keys, values), torch.rand(1, 2, 8, 8))
    assert kept[0].shape == (1, 2, 5, 4) and kept[1].shape == (1, 2, 5, 4)
