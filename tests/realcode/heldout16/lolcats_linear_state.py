"""LoLCATs (linearizing a softmax-attention LLM into linear attention by attention transfer and LoRA): every
attention becomes a linear attention whose decoding state is a running `kv_state` (sum of phi(k) v^T) and `k_state`
(sum of phi(k)) per layer, kept in the project's `LinearAttentionState(Cache)` (a Cache subclass modified from
transformers 4.36's DynamicCache: its own `__init__` without the base's, `get_seq_length`/`get_usable_length` over its
own per-layer token counts, an `update(k, v, layer_idx, accumulate_in_fp32=...)` that accumulates the states). The
project's `LolcatsLlamaModel.forward` (from transformers 4.43's LlamaModel.forward) replaces any DynamicCache or None
with that state, computes the positions from `past_key_values.get_seq_length()`, builds the causal mask with the
parent's `self._update_causal_mask(...)`, then runs the layers.

Provenance (mechanisms read; this code is written here, not copied):
- HazyResearch/lolcats @375df84f58417a57b78c875fa3f8fa76e84ab12e
  src/model/linear_attention/linear_attention.py (LolcatsLinearAttention.forward: `q, k = self.feature_map_q(q),
  self.feature_map_k(k)`, `if past_key_value is not None: if len(past_key_value.kv_states) == self.layer_idx:
  past_key_value.kv_states.append(torch.zeros(...))`, decoding: `kv_state, k_state = past_key_value.update(k, v,
  self.layer_idx, accumulate_in_fp32=self.fp32_attention)`, `y_true = einsum('bhlf,bhfd->bhld', q, kv_state) /
  einsum('bhlf,bhlf->bhl', q, k_state)[..., None]`; prefill: `linear_attention(q, k, v)` then `past_key_value.update(
  k.detach(), v.detach(), ...)`; LinearAttentionState(Cache): `def __init__(self): self._seen_tokens = 0;
  self._seen_tokens_by_layer = []; self.kv_states = []; self.k_states = []`, get_seq_length, get_usable_length,
  update), src/model/modeling_llama.py (LolcatsLlamaModel.forward: `if past_key_values is None or
  isinstance(past_key_values, DynamicCache): past_key_values = get_attention_cache(attention_type)`,
  `past_seen_tokens = past_key_values.get_seq_length()`, `causal_mask = self._update_causal_mask(attention_mask,
  inputs_embeds, cache_position, past_key_values, output_attentions)`), src/model/convert_model.py
  (get_attention_cache: `return LinearAttentionState()`).
Reduced: the feature map is a fixed softmax-of-projection (no learned Hedgehog MLP), no rotary embedding in the
linear attention, fp32 accumulation always; the decoder loop after the mask is left out.
"""

import torch
from transformers import LlamaForCausalLM, LlamaModel
from transformers.cache_utils import Cache, DynamicCache


class LinearAttentionState(Cache):
    def __init__(self) -> None:
        self._seen_tokens = 0
        self._seen_tokens_by_layer = []
        self.kv_states = []
        self.k_states = []

    def get_seq_length(self, layer_idx=0):
        if len(self._seen_tokens_by_layer) <= layer_idx:
            self._seen_tokens_by_layer.append(0)
        return self._seen_tokens_by_layer[layer_idx]

    def get_usable_length(self, new_seq_length, layer_idx=0):
        return self.get_seq_length(layer_idx)

    def update(self, key_states, value_states, layer_idx=None, cache_kwargs=None, accumulate_in_fp32=True, **kwargs):
        with torch.no_grad():
            if layer_idx == 0:
                self._seen_tokens += key_states.shape[-2]  # clean: lc_own_seen_tokens
            dtype = key_states.dtype
            key_states, value_states = key_states.float(), value_states.float()
            kv_state = torch.einsum("bhlf,bhld->bhfd", key_states, value_states)
            k_state = key_states.sum(dim=-2, keepdim=True)
            if len(self.k_states) <= layer_idx:
                self.kv_states.append(kv_state.to(dtype))
                self.k_states.append(k_state.to(dtype))
            else:
                self.kv_states[layer_idx] = (self.kv_states[layer_idx] + kv_state).to(dtype)
                self.k_states[layer_idx] = (self.k_states[layer_idx] + k_state).to(dtype)
            self._seen_tokens_by_layer[layer_idx] += key_states.shape[-2]
        return self.kv_states[layer_idx], self.k_states[layer_idx]


class LolcatsLinearAttention(torch.nn.Module):
    def __init__(self, base_attn, feature_dim=16):
        super().__init__()
        self.layer_idx = base_attn.layer_idx
        self.num_heads = base_attn.config.num_attention_heads
        self.head_dim = base_attn.head_dim
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (base_attn.q_proj, base_attn.k_proj, base_attn.v_proj,
                                                              base_attn.o_proj)
        self.groups = self.num_heads // base_attn.config.num_key_value_heads
        self.feature_map = torch.nn.Linear(self.head_dim, feature_dim, bias=False)

    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                output_attentions=False, use_cache=False, **kwargs):
        b, l, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(b, l, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(b, l, -1, self.head_dim).transpose(1, 2).repeat_interleave(self.groups, 1)
        v = self.v_proj(hidden_states).view(b, l, -1, self.head_dim).transpose(1, 2).repeat_interleave(self.groups, 1)
        kv_seq_len = k.shape[-2]
        if past_key_value is not None:
            kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)  # clean: lc_usable_length
        q, k = self.feature_map(q).softmax(-1), self.feature_map(k).softmax(-1)
        if past_key_value is not None and q.shape[2] == 1 and kv_seq_len > 1:
            kv_state, k_state = past_key_value.update(k, v, self.layer_idx, accumulate_in_fp32=True)  # clean: lc_state_update
            y = (torch.einsum("bhlf,bhfd->bhld", q.float(), kv_state.float())
                 / torch.einsum("bhlf,bhlf->bhl", q.float(), k_state.float())[..., None]).to(v.dtype)
        else:
            a = torch.einsum("bhmf,bhnf->bhmn", q, k).tril()
            y = torch.einsum("bhmn,bhnd->bhmd", a / a.sum(-1, keepdim=True), v)
            if past_key_value is not None:
                past_key_value.update(k.detach(), v.detach(), self.layer_idx, accumulate_in_fp32=True)  # clean: lc_prefill_update
        y = self.o_proj(y.transpose(1, 2).reshape(b, l, -1))
        return y, None, past_key_value


class LolcatsLlamaModel(LlamaModel):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                return_dict=None, cache_position=None):
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        if inputs_embeds is None:
            inputs_embeds = self.embed_tokens(input_ids)
        if use_cache:
            if past_key_values is None or isinstance(past_key_values, DynamicCache):
                past_key_values = LinearAttentionState()
            else:
                past_key_values.get_usable_length(input_ids.shape[1])
        if cache_position is None:
            past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0
            cache_position = torch.arange(past_seen_tokens, past_seen_tokens + inputs_embeds.shape[1])
        causal_mask = self._update_causal_mask(  # site: lc_update_causal_mask
            attention_mask, inputs_embeds, cache_position, past_key_values, output_attentions)
        return causal_mask


class LolcatsLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.model = LolcatsLlamaModel(config)


model = LolcatsLlamaForCausalLM.from_pretrained("hazyresearch/lolcats-llama-3-8b").eval()
for layer in model.model.layers:
    layer.self_attn = LolcatsLinearAttention(layer.self_attn)


def probe_decode_state():
    attn = model.model.layers[0].self_attn
    state = LinearAttentionState()
    hidden = torch.randn(1, 5, model.config.hidden_size)
    with torch.no_grad():
        attn(hidden, past_key_value=state, use_cache=True)
        y, _, state = attn(torch.randn(1, 1, model.config.hidden_size), past_key_value=state, use_cache=True)
    assert y.shape == (1, 1, model.config.hidden_size) and state.get_seq_length(0) == 6


def probe_model_forward():
    with torch.no_grad():
        model.model(input_ids=torch.tensor([[1, 140, 141, 142]]), use_cache=True)
