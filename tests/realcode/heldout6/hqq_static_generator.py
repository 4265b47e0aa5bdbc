"""A quantization library's compile-friendly generator: it allocates one StaticCache for the model (positional
arguments: config, batch size, cache length, device, dtype), resets it per prompt, prefills with explicit
`cache_position`s, then decodes one token at a time, each step forwarding the next position and keeping the
cache the model hands back; a patch helper instead sets `cache_implementation="static"` on the model's generation
config and lets `generate` build the cache.

Provenance (mechanisms read; this code is written here, not copied):
- mobiusml/hqq @1168ed22759a0275a1142d970b387b4560e82cb2 hqq/utils/generation_hf.py (`HFGenerator.setup_cache`:
  `StaticCache(self.model.config, 1, self.cache_size, self.model.device, self.model.dtype)`; `reset_cache`:
  `self.past_key_values.reset()`; `setup`: `cache_position = torch.arange(seq_length)`; `prefill`:
  `self.model(**inputs, cache_position=..., past_key_values=self.past_key_values, use_cache=True)` then
  `self.past_key_values = out.past_key_values`; `decode_one_token_no_sample(cur_token, input_pos, cache_position,
  past_key_values)`; `gen_next_token` passes `cache_position=self.cache_position + 1`;
  `patch_model_for_compiled_runtime`: `model.generation_config.cache_implementation = "static"` and
  `model.generate(..., cache_implementation="static")`)
Reduced: torch.compile, the SDPA kernel context, sampling and the accelerate hook patch are left out.
"""

import torch
from transformers import AutoModelForCausalLM, StaticCache


class HFGenerator:
    def __init__(self, model, max_new_tokens=6, cache_size=32):
        self.model = model
        self.max_new_tokens = max_new_tokens
        self.cache_size = cache_size
        self.device = model.device
        self.setup_cache()

    @torch.no_grad()
    def setup_cache(self):
        self.past_key_values = StaticCache(self.model.config, 1, self.cache_size, self.model.device, self.model.dtype)  # site: hq_static_positional

    @torch.no_grad()
    def reset_cache(self):
        self.past_key_values.reset()  # clean: hq_reset

    def setup(self, input_ids):
        self.reset_cache()
        self.input_ids = input_ids
        self.batch_size, self.seq_length = input_ids.shape
        self.cache_position = torch.arange(self.seq_length, device=self.device)

    @torch.no_grad()
    def prefill(self):
        out = self.model(input_ids=self.input_ids, cache_position=self.cache_position,  # clean: hq_prefill
                         past_key_values=self.past_key_values, return_dict=True, use_cache=True)
        logits, self.past_key_values = out.logits, out.past_key_values
        self.cache_position = torch.tensor([self.seq_length], device=self.device, dtype=torch.long)
        return torch.argmax(logits[:, -1], dim=-1)[:, None]

    @torch.no_grad()
    def decode_one_token(self, cur_token, cache_position, past_key_values):
        out = self.model(cur_token, cache_position=cache_position, past_key_values=past_key_values,  # clean: hq_decode_step
                         return_dict=True, use_cache=True)
        logits, self.past_key_values = out.logits, out.past_key_values
        return torch.argmax(logits[:, -1], dim=-1)[:, None]

    def generate(self, input_ids):
        self.setup(input_ids)
        next_token = self.prefill()
        tokens = [next_token]
        for _ in range(1, self.max_new_tokens):
            next_token = self.decode_one_token(next_token.clone(), self.cache_position, self.past_key_values)
            self.cache_position += 1
            tokens.append(next_token)
        return torch.cat(tokens, dim=1)


def patch_model_for_compiled_runtime(model):
    model.config.use_cache = True
    model.generation_config.cache_implementation = "static"  # clean: hq_static_config
    model.eval()


model = AutoModelForCausalLM.from_pretrained("mobiuslabsgmbh/Llama-3.1-8b-instruct_4bitgs64_hqq_calib")
prompt = torch.tensor([[1, 4, 6, 8, 10, 12, 14]])


def probe_generator():
    gen = HFGenerator(model)
    out = gen.generate(prompt)
    assert out.shape == (1, 6)


def probe_decode_loop():
    class KeywordCacheGenerator(HFGenerator):
        def setup_cache(self):
            self.past_key_values = StaticCache(config=self.model.config, max_cache_len=self.cache_size)

    gen = KeywordCacheGenerator(model)
    out = gen.generate(prompt)
    assert out.shape == (1, 6)
    assert gen.past_key_values.get_seq_length() == prompt.shape[1] + 5


def probe_patched_generate():
    patch_model_for_compiled_runtime(model)
    out = model.generate(prompt, max_new_tokens=4, min_new_tokens=4, cache_implementation="static")  # clean: hq_generate_static
    assert out.shape[1] == prompt.shape[1] + 4
