"""Time-MoE (Time-MoE/Time-MoE): a mixture-of-experts time-series foundation model shipped as transformers remote
code. Its decoder keeps a `DynamicCache` (a legacy tuple is converted with `DynamicCache.from_legacy_cache` when
`use_cache` is set), each attention layer writes through `past_key_value.update(k, v, layer_idx, {"sin", "cos"})`;
`TimeMoeForPrediction.prepare_inputs_for_generation` measures the cache (`get_seq_length()`, `seen_tokens` for a
DynamicCache, `get_max_length()`, the tuple branch `past_key_values[0][0].shape[2]`) to drop the covered points, and
its `TSGenerationMixin` overrides `_update_model_kwargs_for_generation(outputs, model_kwargs, horizon_length=1,
is_encoder_decoder=False, standardize_cache_format=False)`, storing the cache from
`self._extract_past_from_model_output(outputs, standardize_cache_format=...)` (its own `_greedy_search` loop calls the
hook and this update directly, one horizon of points per step).

Provenance (mechanisms read; this code is written here, not copied):
- Time-MoE/Time-MoE @d3524fdaa5c0e83a29a6cc01828194dd870ec7b6
  time_moe/models/modeling_time_moe.py (TimeMoeAttention.forward: `past_key_value.update(key_states, value_states,
  self.layer_idx, cache_kwargs)`; TimeMoeModel.forward: `use_legacy_cache = not isinstance(past_key_values, Cache)`,
  `DynamicCache.from_legacy_cache(past_key_values)`; TimeMoeForPrediction.prepare_inputs_for_generation);
  time_moe/models/ts_generation_mixin.py (TSGenerationMixin._greedy_search, _update_model_kwargs_for_generation).
Reduced: one attention layer over a scalar input projection (no experts, no rotary embedding: the cache_kwargs carry
zero sin/cos), one horizon head; the `get_usable_length` reads and the `to_legacy_cache()` return of the decoder are
left out (the decoder hands back the cache object); the config is a LlamaConfig subclass so a StaticCache can be
built from it.
"""

import torch
from torch import nn
from transformers import Cache, DynamicCache, GenerationMixin, LlamaConfig, PreTrainedModel, StaticCache
from transformers.modeling_outputs import CausalLMOutputWithPast


class TimeMoeConfig(LlamaConfig):
    model_type = "time_moe_reduced"


class TimeMoeAttention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.heads = config.num_key_value_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.q = nn.Linear(config.hidden_size, self.heads * self.head_dim)
        self.k = nn.Linear(config.hidden_size, self.heads * self.head_dim)
        self.v = nn.Linear(config.hidden_size, self.heads * self.head_dim)
        self.o = nn.Linear(self.heads * self.head_dim, config.hidden_size)

    def forward(self, hidden_states, past_key_value=None):
        b, t, _ = hidden_states.shape
        shape = (b, t, self.heads, self.head_dim)
        q = self.q(hidden_states).view(shape).transpose(1, 2)
        k = self.k(hidden_states).view(shape).transpose(1, 2)
        v = self.v(hidden_states).view(shape).transpose(1, 2)
        if past_key_value is not None:
            cache_kwargs = {"sin": torch.zeros(1), "cos": torch.zeros(1)}
            k, v = past_key_value.update(k, v, self.layer_idx, cache_kwargs)  # clean: tm_cache_update
        attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
        return self.o(attn.transpose(1, 2).reshape(b, t, -1))


class TimeMoeForPrediction(PreTrainedModel, GenerationMixin):
    config_class = TimeMoeConfig
    _supports_cache_class = True

    def __init__(self, config):
        super().__init__(config)
        self.embed = nn.Linear(1, config.hidden_size)
        self.attn = TimeMoeAttention(config, 0)
        self.head = nn.Linear(config.hidden_size, 1)
        self.post_init()

    def forward(self, input_ids, past_key_values=None, use_cache=None, attention_mask=None, position_ids=None,
                return_dict=True, **kwargs):
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        hidden = self.embed(input_ids.unsqueeze(-1).float())
        if use_cache:
            use_legacy_cache = not isinstance(past_key_values, Cache)
            if use_legacy_cache:
                past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: tm_from_legacy
        hidden = hidden + self.attn(hidden, past_key_values if use_cache else None)
        return CausalLMOutputWithPast(logits=self.head(hidden).squeeze(-1),
                                      past_key_values=past_key_values if use_cache else None)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
                                      inputs_embeds=None, **kwargs):
        if past_key_values is not None:
            if isinstance(past_key_values, Cache):
                cache_length = past_key_values.get_seq_length()
                if isinstance(past_key_values, DynamicCache):
                    past_length = past_key_values.seen_tokens  # site: tm_seen_tokens
                else:
                    past_length = cache_length
                max_cache_length = past_key_values.get_max_length()  # site: tm_max_length
            else:
                cache_length = past_length = past_key_values[0][0].shape[2]  # clean: tm_tuple_branch
                max_cache_length = None
            if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
                input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
            elif past_length < input_ids.shape[1]:
                input_ids = input_ids[:, past_length:]
            if (max_cache_length is not None and attention_mask is not None
                    and cache_length + input_ids.shape[1] > max_cache_length):
                attention_mask = attention_mask[:, -max_cache_length:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                "attention_mask": attention_mask}

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, horizon_length=1, is_encoder_decoder=False,
                                            standardize_cache_format=False):
        model_kwargs["past_key_values"] = self._extract_past_from_model_output(  # site: tm_extract_past
            outputs, standardize_cache_format=standardize_cache_format
        )
        if "attention_mask" in model_kwargs:
            mask = model_kwargs["attention_mask"]
            model_kwargs["attention_mask"] = torch.cat([mask, mask.new_ones((mask.shape[0], horizon_length))], -1)
        return model_kwargs


config = TimeMoeConfig(vocab_size=8, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                       num_attention_heads=4, num_key_value_heads=4)
torch.manual_seed(0)
model = TimeMoeForPrediction(config).eval()
series = torch.randn(2, 12)


def probe_decoder_prefill():
    with torch.no_grad():
        out = model(series, use_cache=True)
    assert out.past_key_values.get_seq_length() == 12


def probe_decoder_step():
    cache = DynamicCache()
    with torch.no_grad():
        model(series, past_key_values=cache, use_cache=True)
        out = model(series[:, -1:], past_key_values=cache, use_cache=True)
    assert out.past_key_values.get_seq_length() == 13


def probe_hook_dynamic():
    cache = DynamicCache()
    with torch.no_grad():
        model(series, past_key_values=cache, use_cache=True)
    step = torch.cat([series, series[:, -1:]], dim=1)
    inputs = model.prepare_inputs_for_generation(step, past_key_values=cache, use_cache=True)
    assert inputs["input_ids"].shape[1] == 1


def probe_hook_static():
    cache = StaticCache(config=config, max_cache_len=16)
    inputs = model.prepare_inputs_for_generation(series, past_key_values=cache, use_cache=True,
                                                 attention_mask=torch.ones(2, 12, dtype=torch.long))
    assert inputs["input_ids"].shape[1] == 12


def probe_hook_legacy():
    k = torch.zeros(2, 4, 12, 8)
    inputs = model.prepare_inputs_for_generation(torch.cat([series, series[:, -1:]], 1), past_key_values=((k, k),))
    assert inputs["input_ids"].shape[1] == 1


def probe_update_kwargs():
    cache = DynamicCache()
    with torch.no_grad():
        out = model(series, past_key_values=cache, use_cache=True)
    kwargs = model._update_model_kwargs_for_generation(out, {"attention_mask": torch.ones(2, 12)})
    assert kwargs["past_key_values"] is cache
