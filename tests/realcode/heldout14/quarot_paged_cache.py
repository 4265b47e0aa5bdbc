"""QuaRot's end-to-end benchmark (spcl/QuaRot): a paged, 4-bit key/value store written as a `transformers` Cache
subclass (`MultiLayerPagedKVCache4Bit`: its own `__init__` that never calls the base class's, `update` writing
pages, a `seen_tokens` property, `get_seq_length`, `get_max_length` returning None, `to_legacy_cache` returning
itself); a Llama subclass whose forward builds that cache when none is given, a patched attention that asks the
cache `get_usable_length` before rotating, and a benchmark that prefills once and decodes by handing the returned
`out.past_key_values` back to the model.

Provenance (mechanisms read; this code is written here, not copied):
- spcl/QuaRot @5008669b08c1f11f9b64d52d16fddd47ca754c5a
  quarot/transformers/kv_cache.py (`class MultiLayerPagedKVCache4Bit(Cache)`: `__init__` filling `self.pages`,
  `self.length`, `_needs_init`, no `super().__init__()`; `seen_tokens` property; `update` growing `self.length` at
  layer 0; `get_seq_length`, `get_max_length`, `to_legacy_cache`), e2e/quantized_llama/modeling_llama.py
  (`kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`; `QuarotFP16LlamaForCausalLM.
  forward` building the cache when `past_key_values is None`; `_get_logits_processor` override reading
  `generation_config.max_length`) and e2e/benchmark.py (`run_decode`: `past_key_values = out.past_key_values`,
  `model(next_input, past_key_values=past_key_values)`; `run_e2e`: `model(next_input,
  past_key_values=out.past_key_values)`).
Reduced: no quantization or flashinfer kernels (the pages hold fp16 keys and values, `update` returns the whole
stored sequence), one page per batch row, the attention's length query split into a helper the probes call with a
cache, the benchmark timers dropped.
"""

from typing import Any, Dict, Optional

import torch
from transformers import LlamaForCausalLM
from transformers.cache_utils import Cache


class PagedKVCacheFP16(Cache):
    def __init__(self, batch_size, max_seq_len, n_layers, num_heads, head_dim, device="cpu"):
        self.batch_size = batch_size  # site: qr_cache_state
        self.max_seq_len = max_seq_len
        self.pages = torch.zeros(n_layers, 2, batch_size, num_heads, max_seq_len, head_dim)
        self._filled = [0] * n_layers
        self.length = 0
        self.device = device

    @property
    def seen_tokens(self):
        return self.length

    def update(self, key_states, value_states, layer_idx: int, cache_kwargs: Optional[Dict[str, Any]] = None):
        start = self._filled[layer_idx]
        end = start + key_states.shape[-2]
        self.pages[layer_idx, 0, :, :, start:end] = key_states
        self.pages[layer_idx, 1, :, :, start:end] = value_states
        self._filled[layer_idx] = end
        if layer_idx == 0:
            self.length = end
        return self.pages[layer_idx, 0, :, :, :end], self.pages[layer_idx, 1, :, :, :end]

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self.length

    def get_max_length(self) -> Optional[int]:
        return None

    def to_legacy_cache(self):
        return self


def rotary_length(past_key_value, key_states, layer_idx):
    kv_seq_len = key_states.shape[-2]
    if past_key_value is not None:
        kv_seq_len += past_key_value.get_usable_length(kv_seq_len, layer_idx)  # site: qr_usable_length
    return kv_seq_len


class _ExpectedLengthMixin:
    _expected_max_length = None

    def _get_logits_processor(self, generation_config, *args, **kwargs):
        self._expected_max_length = generation_config.max_length
        return super()._get_logits_processor(generation_config, *args, **kwargs)  # clean: qr_logits_processor


class QuarotFP16LlamaForCausalLM(_ExpectedLengthMixin, LlamaForCausalLM):
    def build_cache(self, batch_size, max_length):
        cfg = self.config
        head_dim = cfg.hidden_size // cfg.num_attention_heads
        return PagedKVCacheFP16(batch_size, max_length, cfg.num_hidden_layers, cfg.num_key_value_heads, head_dim)

    def forward(self, input_ids, *args, past_key_values=None, **kwargs):
        if past_key_values is None:
            max_length = self._expected_max_length or input_ids.shape[1]
            self._expected_max_length = None
            past_key_values = self.build_cache(input_ids.shape[0], max_length)
        return super().forward(input_ids, *args, past_key_values=past_key_values, **kwargs)  # observe: qr_cache_state


base = LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
prompt = torch.randint(100, 200, (1, 6))
next_input = torch.tensor([[100]])


@torch.no_grad()
def run_e2e(model, decode_steps):
    out = model(prompt)  # clean: qr_prefill
    for _ in range(decode_steps):
        out = model(next_input, past_key_values=out.past_key_values)  # clean: qr_decode_step
    return out


@torch.no_grad()
def run_decode(model, decode_steps):
    out = model(prompt)
    past_key_values = out.past_key_values  # clean: qr_keep_cache
    for _ in range(decode_steps):
        model(next_input, past_key_values=past_key_values)  # clean: qr_decode_reuse
    return past_key_values


def probe_e2e():
    out = run_e2e(base, 3)
    assert out.past_key_values.get_seq_length() == 9


def probe_decode():
    cache = run_decode(base, 2)
    assert cache.get_seq_length() == 8


def probe_usable_length():
    out = base(prompt)
    rotary_length(out.past_key_values, torch.zeros(1, 1, 1, 8), 0)


def probe_quarot_forward():
    model = QuarotFP16LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
    model._expected_max_length = 10
    with torch.no_grad():
        out = model(prompt)
    assert out.logits.shape[1] == 6


class ExpectedLengthLlama(_ExpectedLengthMixin, LlamaForCausalLM):
    pass


def probe_logits_processor():
    model = ExpectedLengthLlama.from_pretrained("meta-llama/Llama-2-7b-hf")
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 9) and model._expected_max_length == 9
