"""SpQR (Vahe1994): the inference demo of a SpQR-quantized Llama times token-by-token decoding on a static cache.
`generate` builds `StaticCache(self.model.config, 1, seq_len + max_new_tokens * 2 + 1, device=..., dtype=...)` with
the batch size and length passed positionally, prefills with `cache_position=torch.arange(seq_len)`,
`past_key_values=` that cache and `return_dict=False`, then calls `decode_one_tokens(model, cur_token, input_pos,
cache_position, past_key_values)` (optionally under `torch.compile`) with `cache_position` advanced by one per step.

Provenance (mechanisms read; this code is written here, not copied):
- Vahe1994/SpQR @543d10e56f921e5eeb10d5f0aaaccd30b6662d0e
  inference_demo.py (`from transformers import ... StaticCache`; `decode_one_tokens`: `logits = model(cur_token,
  position_ids=input_pos, cache_position=cache_position, past_key_values=past_key_values, return_dict=False,
  use_cache=True)[0]`, `torch.argmax(logits[:, -1], dim=-1)[:, None]`; `InferenceDemo.generate`: `past_key_values =
  StaticCache(self.model.config, 1, seq_len + max_new_tokens * 2 + 1, device=self.device, dtype=torch.float16)`, the
  prefill `self.model(input_ids, cache_position=cache_position, past_key_values=past_key_values, return_dict=False,
  use_cache=True)[0]`, the loop `cache_position += 1`).
Reduced: an unquantized Llama on the CPU in float32, no tokenizer or timing, no compile; the decoding positions
start at seq_len (the demo starts at seq_len + 1, leaving one slot empty); the demo's positional cache
construction and its prefill are one helper, the decode loop takes a cache built by keywords (each reached by its
own probe).
"""

import torch
from transformers import AutoModelForCausalLM, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").eval()


def decode_one_tokens(model, cur_token, input_pos, cache_position, past_key_values):
    logits = model(cur_token, position_ids=input_pos, cache_position=cache_position, past_key_values=past_key_values,  # clean: sq_decode_one
                   return_dict=False, use_cache=True)[0]
    new_token = torch.argmax(logits[:, -1], dim=-1)[:, None]
    return new_token


@torch.no_grad()
def demo_prefill(input_ids, max_new_tokens):
    seq_len = input_ids.shape[1]
    cache_position = torch.arange(seq_len, dtype=torch.int64)
    past_key_values = StaticCache(model.config, 1, seq_len + max_new_tokens * 2 + 1, device="cpu", dtype=torch.float32)  # site: sq_positional_cache
    logits = model(input_ids, cache_position=cache_position, past_key_values=past_key_values, return_dict=False, use_cache=True)[0]  # observe: sq_positional_cache
    return logits, past_key_values


@torch.no_grad()
def generate(input_ids, max_new_tokens, past_key_values):
    seq_len = input_ids.shape[1]
    cache_position = torch.arange(seq_len, dtype=torch.int64)
    generated_ids = torch.zeros(1, seq_len + max_new_tokens, dtype=torch.int)
    generated_ids[:, cache_position] = input_ids.to(torch.int)
    logits = model(input_ids, cache_position=cache_position, past_key_values=past_key_values, return_dict=False, use_cache=True)[0]  # clean: sq_prefill
    next_token = torch.argmax(logits[:, [-1]], dim=-1).to(torch.int)
    generated_ids[:, [seq_len]] = next_token
    cache_position = torch.tensor([seq_len])
    for _ in range(1, max_new_tokens):
        next_token = decode_one_tokens(model, next_token.clone(), None, cache_position, past_key_values)  # clean: sq_decode_call
        generated_ids[:, cache_position + 1] = next_token.int()
        cache_position += 1
    return generated_ids


prompt = torch.tensor([[1, 140, 141, 142, 143]])


def probe_decode():
    cache = StaticCache(config=model.config, max_cache_len=16)  # clean: sq_keyword_cache
    ids = generate(prompt, 4, cache)
    reference = prompt
    with torch.no_grad():
        for _ in range(4):
            reference = torch.cat([reference, model(reference).logits[:, -1:].argmax(-1)], dim=1)
    assert ids.tolist() == reference.tolist()


def probe_demo_cache():
    logits, cache = demo_prefill(prompt, 4)
    assert logits.shape[1] == 5
