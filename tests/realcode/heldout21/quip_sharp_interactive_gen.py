"""QuIP# (Cornell-RelaxML/quip-sharp): lattice-codebook 2-bit quantization of Llama. Its interactive generation script
sets up a static cache the transformers 4.38 way, `model._setup_cache(StaticCache, 1, max_cache_len=2048)`, where the
model's own `_setup_cache(self, cache_cls, max_batch_size, max_cache_len)` parks one
`cache_cls(self.config, max_batch_size, max_cache_len, device=device, dtype=dtype)` on every attention module as
`layer.self_attn.past_key_value` (and `_reset_cache` sets them back to None). Generation then never passes a cache:
the prefill is `model(**inputs, cache_position=cache_position, return_dict=False, use_cache=True)` and each decode
step `model(cur_token, cache_position=cache_position, return_dict=False, use_cache=True)`, relying on the attention
modules to find the parked cache; the token sampler is `torch.compile`d.

Provenance (mechanisms read; this code is written here, not copied):
- Cornell-RelaxML/quip-sharp @d12f479daf3a63ed2841dd00d4f4d222cafa739b (2024-08-31; the repository's newest commit is
  1d8f873e9a2a8b86b12bb1064c312c5689b77d98)
  eval/interactive_gen.py (`decode_one_tokens(model, cur_token, cache_position)`, `generate(model, tokenizer, text,
  max_new_tokens, top_k, callback)`: `cache_position = torch.arange(seq_length)`, `generated_ids[:, cache_position] =
  inputs["input_ids"]`, `logits = model(**inputs, cache_position=cache_position, return_dict=False,
  use_cache=True)[0]`, then `cache_position = torch.tensor([seq_length + 1])` and `cache_position += 1` per step;
  `main`: `model._setup_cache(StaticCache, 1, max_cache_len=2048)`, `@torch.compile def sample(...)`) and
  model/llama.py (`LlamaPreTrainedModel._setup_cache`: the flash-attention check, `for layer in self.model.layers:
  ... layer.self_attn.past_key_value = cache_cls(self.config, max_batch_size, max_cache_len, device=device,
  dtype=dtype)`; `_reset_cache`; LlamaModel.forward's cache set-up: `if use_cache: if not isinstance(past_key_values,
  StaticCache): past_key_values = DynamicCache.from_legacy_cache(past_key_values); past_seen_tokens =
  past_key_values.get_seq_length()`).
Reduced: the stock Llama stands for QuIP#'s vendored Llama with quantized linear layers (its own attention read the
parked cache), greedy sampling instead of top-k, CPU instead of CUDA, no chat template or interactive prompt loop,
max_cache_len 64, the vendored forward's cache set-up is a helper of its own.
"""

from typing import Optional

import torch
from transformers import AutoTokenizer, DynamicCache, LlamaForCausalLM, StaticCache


class QuipLlamaForCausalLM(LlamaForCausalLM):
    def _setup_cache(self, cache_cls, max_batch_size, max_cache_len: Optional[int] = None):
        if self.config._attn_implementation == "flash_attention_2" and cache_cls == StaticCache:
            raise ValueError("`static` cache implementation is not compatible with flash_attention_2")
        for layer in self.model.layers:
            device = layer.input_layernorm.weight.device
            if hasattr(self.config, "_pre_quantization_dtype"):
                dtype = self.config._pre_quantization_dtype
            else:
                dtype = layer.input_layernorm.weight.dtype
            layer.self_attn.past_key_value = cache_cls(  # site: qs_park_cache
                self.config, max_batch_size, max_cache_len, device=device, dtype=dtype
            )

    def _reset_cache(self):
        for layer in self.model.layers:
            layer.self_attn.past_key_value = None  # clean: qs_reset_cache


def bc_cache(past_key_values, use_cache=True):
    past_seen_tokens = 0
    if use_cache:
        if not isinstance(past_key_values, StaticCache):  # clean: qs_static_check
            past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: qs_from_legacy
            past_seen_tokens = past_key_values.get_seq_length()
    return past_key_values, past_seen_tokens


@torch.compile
def sample(logits):
    return torch.argmax(logits[:, -1], dim=-1, keepdim=True).to(dtype=torch.int)


@torch.no_grad()
def decode_one_tokens(model, cur_token, cache_position):
    logits = model(cur_token, cache_position=cache_position, return_dict=False, use_cache=True)[0]  # observe: qs_park_cache
    return sample(logits)


@torch.no_grad()
def generate(model, tokenizer, text, max_new_tokens):
    inputs = tokenizer(text, return_tensors="pt")
    batch_size, seq_length = inputs["input_ids"].shape
    cache_position = torch.arange(seq_length)
    generated_ids = torch.zeros(batch_size, seq_length + max_new_tokens, dtype=torch.int)
    generated_ids[:, cache_position] = inputs["input_ids"].to(torch.int)
    logits = model(**inputs, cache_position=cache_position, return_dict=False, use_cache=True)[0]  # observe: qs_park_cache
    next_token = sample(logits)
    generated_ids[:, seq_length] = next_token[:, 0]
    cache_position = torch.tensor([seq_length + 1])
    for _ in range(1, max_new_tokens):
        next_token = decode_one_tokens(model, next_token.clone(), cache_position)
        generated_ids[:, cache_position] = next_token[:, 0]
        cache_position += 1
    return generated_ids, tokenizer.batch_decode(generated_ids, skip_special_tokens=True)


model = QuipLlamaForCausalLM.from_pretrained("relaxml/Llama-2-7b-E8P-2Bit", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
tokenizer.pad_token = tokenizer.eos_token


def probe_static_passes():
    cache = StaticCache(config=model.config, max_cache_len=16)
    assert bc_cache(cache) == (cache, 0)


def probe_legacy_bc():
    cache, seen = bc_cache(None)
    assert seen == 0 and cache.get_seq_length() == 0


def probe_reset():
    model._reset_cache()
    assert model.model.layers[0].self_attn.past_key_value is None


def probe_interactive_generate():
    model._setup_cache(StaticCache, 1, max_cache_len=64)
    lengths = []
    model.model.register_forward_hook(lambda m, args, out: lengths.append(out.past_key_values.get_seq_length()))
    ids, _ = generate(model, tokenizer, "this is a test of this model", 3)
    assert ids.shape[1] == lengths[0] + 3
    assert lengths[-1] > 1, "qs_park_cache: the decode steps never attended the prompt's cache"  # observe: qs_park_cache
