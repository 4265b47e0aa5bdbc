"""KTransformers' local chat/serving loop: the project subclasses transformers' StaticCache but replaces it whole (it
calls only the base `Cache.__init__(self, layer_class_to_replicate=LlamaDecoderLayer)`, keeps its own per-layer
`key_cache` / `value_cache` buffers and `past_tokens` counters, its own `max_batch_size` / `max_cache_len`
properties, `update` writing at `cache_kwargs["cache_position"]`, `get_seq_length`, `get_max_length`, `reset`);
`prefill_and_generate` builds that cache for the prompt plus the new tokens, asks the model for its generation
config through the private `model._prepare_generation_config(None, do_sample=False)`, prefills in chunks with
`model(ids, cache_position=..., past_key_values=cache, return_dict=False, use_cache=True)[0]`, then decodes one
token at a time the same way.

Provenance (mechanisms read; this code is written here, not copied):
- kvcache-ai/ktransformers @95009ea6856c0799e517e93cb12be5e8494bc7ce
  archive/ktransformers/models/custom_cache.py (class StaticCache(transformers.StaticCache): `Cache.__init__(self,
  layer_class_to_replicate=LlamaDecoderLayer)`, `self._max_batch_size`, `self._max_cache_len`, `self.key_cache` /
  `self.value_cache` lists of zeros of shape (max_batch_size, num_key_value_heads, max_cache_len, head_dim),
  `self.past_tokens`; the `max_batch_size` / `max_cache_len` properties; `update`: `cache_position =
  cache_kwargs.get("cache_position")`, `k_out[:, :, cache_position] = key_states`, `self.past_tokens[layer_idx] +=
  cache_position.size(0)`; `get_seq_length` returning `self.past_tokens[layer_idx]`; `get_max_length`; `reset`) and
  archive/ktransformers/util/utils.py (prefill_and_generate: `StaticCache(config=model.config, max_batch_size=1,
  max_cache_len=seq_length + max_new_tokens, device=device_map, dtype=model.dtype)`, `generation_config,
  model_kwargs = model._prepare_generation_config(None, do_sample=False)`, the chunked prefill and
  decode_one_tokens calls with `cache_position`, `past_key_values`, `return_dict=False`, `use_cache=True`).
Reduced: no MLA/paged layout, NPU or CUDA graphs; greedy decoding on CPU.
"""

from typing import List

import torch
import transformers
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache
from transformers.models.llama.modeling_llama import LlamaDecoderLayer


class StaticCache(transformers.StaticCache):
    def __init__(self, config, max_batch_size, max_cache_len, device, dtype=None):
        Cache.__init__(self, layer_class_to_replicate=LlamaDecoderLayer)  # clean: kt_base_init
        self._max_batch_size = max_batch_size
        self._max_cache_len = max_cache_len
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        self.dtype = dtype if dtype is not None else torch.float32
        self.num_key_value_heads = config.num_key_value_heads
        self.key_cache: List[torch.Tensor] = []  # clean: kt_own_key_lists
        self.value_cache: List[torch.Tensor] = []
        self.past_tokens = []
        self.num_hidden_layers = config.num_hidden_layers
        shape = (max_batch_size, self.num_key_value_heads, max_cache_len, self.head_dim)
        for _ in range(self.num_hidden_layers):
            self.key_cache.append(torch.zeros(shape, dtype=self.dtype, device=device))
            self.value_cache.append(torch.zeros(shape, dtype=self.dtype, device=device))
            self.past_tokens.append(0)

    @property
    def max_batch_size(self):
        return self._max_batch_size

    @property
    def max_cache_len(self):
        return self._max_cache_len

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        cache_position = cache_kwargs.get("cache_position")  # observe: kt_model_forward
        k_out = self.key_cache[layer_idx]  # clean: kt_own_update_read
        v_out = self.value_cache[layer_idx]
        self.past_tokens[layer_idx] += cache_position.size(0)
        k_out[:, :, cache_position] = key_states
        v_out[:, :, cache_position] = value_states
        return k_out, v_out

    def get_seq_length(self, layer_idx=0):
        return self.past_tokens[layer_idx]  # clean: kt_own_seq_length

    def get_max_length(self):
        return self.max_cache_len  # clean: kt_own_max_length

    def reset(self):
        for layer_idx in range(len(self.key_cache)):
            self.key_cache[layer_idx].zero_()  # clean: kt_own_reset
            self.value_cache[layer_idx].zero_()
            self.past_tokens[layer_idx] = 0


model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct", torch_dtype=torch.float32).eval()


def chunk_prefill(inputs, cache_position, past_key_values):
    return model(inputs, cache_position=cache_position, past_key_values=past_key_values, return_dict=False,  # site: kt_model_forward
                 use_cache=True)[0]


@torch.no_grad()
def prefill_and_generate(inputs, max_new_tokens=4, chunk_size=4):
    seq_length = inputs.shape[1]
    past_key_values = StaticCache(config=model.config, max_batch_size=1, max_cache_len=seq_length + max_new_tokens,
                                  device="cpu", dtype=model.dtype)
    cache_position = torch.arange(seq_length)
    logits = None
    for start in range(0, seq_length, chunk_size):
        end = min(start + chunk_size, seq_length)
        logits = chunk_prefill(inputs[:, start:end], cache_position[start:end], past_key_values)
    tokens = [int(logits[0, -1].argmax())]
    position = seq_length
    for _ in range(max_new_tokens - 1):
        logits = chunk_prefill(torch.tensor([[tokens[-1]]]), torch.tensor([position]), past_key_values)
        tokens.append(int(logits[0, -1].argmax()))
        position += 1
    return tokens, past_key_values


def generation_settings():
    generation_config, model_kwargs = model._prepare_generation_config(None, do_sample=False)  # clean: kt_private_config
    return generation_config


def probe_own_cache():
    cache = StaticCache(config=model.config, max_batch_size=1, max_cache_len=8, device="cpu")
    k = torch.ones(1, 1, 3, 64)
    cache.update(k, k, 0, {"cache_position": torch.arange(3)})
    assert cache.get_seq_length() == 3 and cache.get_max_length() == 8 and cache.max_batch_size == 1
    cache.reset()
    assert cache.get_seq_length() == 0 and float(cache.key_cache[0].abs().sum()) == 0.0


def probe_generate():
    tokens, cache = prefill_and_generate(torch.tensor([[1, 8, 16, 24, 32, 40]]), max_new_tokens=4)
    assert len(tokens) == 4 and cache.get_seq_length() == 9


def probe_settings():
    assert generation_settings().do_sample is False
