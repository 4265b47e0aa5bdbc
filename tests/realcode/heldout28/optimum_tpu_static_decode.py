"""Optimum TPU (huggingface/optimum-tpu), Hugging Face's TPU inference stack: its text-generation examples time a
static-cache prefill and a token-by-token decode (the loop the XLA graph is compiled for), and its TGI server
(`TpuGenerator`) batches requests into slots over one cache.

- examples/text-generation/generation_gemma.py (early): `model._setup_cache(StaticCache, batch_size,
  max_cache_len=1024)`, a prefill with `cache_position=torch.arange(seq_len)` and `position_ids` from the attention
  mask, then `decode_one_tokens(model, token, pos_ids, cache_position)` per step.
- examples/text-generation/generation.py (later): builds `StaticCache(config=model.config, max_batch_size=,
  max_cache_len=, device=, dtype=)` itself and passes `past_key_values=` to the prefill and to every decode step,
  advancing `cache_position` and `pos_ids` by one.
- text-generation-inference/.../generator.py: `prefill` rebuilds the whole batch and, for models with a static
  cache, a fresh `StaticCache` sized to the slots with `cache_position=arange(seq_length)`; otherwise
  `self.past_key_values = outputs.past_key_values` after each forward. `decode` passes the slots' last tokens with
  `position_ids`, `cache_position = position_ids.max()` (static) or the slots' attention masks (dynamic), and
  `past_key_values=self.past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/optimum-tpu @18fd9e48b787894fdbc27c214823c3528f2c599d examples/text-generation/generation_gemma.py
  (main), @75d19da6cbed41301b790c55f688f569b45c31e9 examples/text-generation/generation.py (decode_one_tokens,
  main), @020458689c33f01278dca91c0ff528d4c72d1e73 text-generation-inference/server/text_generation_server/
  generator.py (TpuGenerator.prefill, decode, _generate_token).
Reduced: a tiny Llama from a config on the CPU (no torch_xla, no `xm.mark_step`, no compile); the prompts are token
ids with left padding; the generator keeps one batch of two requests (no slot states, token selectors or
stopping criteria), and whether the model has a static cache is a constructor flag.
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, StaticCache

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()
input_ids = torch.tensor([[0, 0, 1, 54, 76, 21], [1, 33, 98, 12, 7, 64]])
attention_mask = (input_ids != 0).long()


def sample_greedy(logits):
    next_logits = logits[:, -1]
    return torch.argmax(next_logits, dim=-1)[:, None].int()


def decode_one_tokens(model, cur_token, input_pos, cache_position, past_key_values):
    logits = model(
        cur_token,
        position_ids=input_pos,
        cache_position=cache_position,
        return_dict=False,
        use_cache=True,
        past_key_values=past_key_values,  # clean: ot_decode
    )[0]
    return sample_greedy(logits)


def run_gemma_example(model, max_new_tokens=4, max_cache_length=32):
    batch_size, sequence_length = input_ids.shape
    model._setup_cache(StaticCache, batch_size, max_cache_len=max_cache_length)  # site: ot_setup_cache
    cache_position = torch.arange(sequence_length)
    pos_ids = (attention_mask.cumsum(-1) - 1).masked_fill(attention_mask == 0, 0)
    logits = model(input_ids=input_ids, attention_mask=attention_mask, cache_position=cache_position,
                   return_dict=False, use_cache=True, position_ids=pos_ids)[0]
    return sample_greedy(logits)


def run_example(model, max_new_tokens=4, max_cache_length=32):
    batch_size, sequence_length = input_ids.shape
    past_key_values = StaticCache(  # clean: ot_static_cache
        config=model.config,
        max_batch_size=batch_size,
        max_cache_len=max_cache_length,
        device=model.device,
        dtype=model.dtype,
    )
    cache_position = torch.arange(sequence_length)
    generated_ids = torch.zeros((batch_size, sequence_length + max_new_tokens + 1), dtype=torch.int)
    generated_ids[:, cache_position] = input_ids.to(torch.int)
    pos_ids = (attention_mask.cumsum(-1) - 1).masked_fill(attention_mask == 0, 0)
    logits = model(
        input_ids=input_ids,
        attention_mask=attention_mask,
        cache_position=cache_position,
        return_dict=False,
        use_cache=True,
        position_ids=pos_ids,
        past_key_values=past_key_values,  # clean: ot_prefill
    )[0]
    next_token = sample_greedy(logits)
    generated_ids[:, sequence_length] = next_token[:, 0]
    pos_ids = pos_ids.max(axis=-1)[0].unsqueeze(1) + 1
    cache_position = torch.tensor([sequence_length])
    for _ in range(max_new_tokens):
        next_token = decode_one_tokens(model, next_token.clone(), pos_ids, cache_position, past_key_values)
        cache_position += 1
        generated_ids[:, cache_position] = next_token
        pos_ids += 1
    return generated_ids


class TpuGenerator:
    def __init__(self, model, supports_static_cache, sequence_length=32):
        self.model = model
        self.past_key_values = None
        self._supports_static_cache = supports_static_cache
        self.sequence_length = sequence_length

    def prefill(self, input_ids, attention_mask):
        position_ids = (attention_mask.cumsum(-1) - 1).masked_fill(attention_mask == 0, 0)
        self.position_ids = position_ids.max(-1)[0] + 1
        self.attention_mask = attention_mask
        extra_args = {}
        if self._supports_static_cache:
            self.past_key_values = StaticCache(  # clean: tg_static_cache
                config=self.model.config,
                max_batch_size=input_ids.shape[0],
                max_cache_len=self.sequence_length,
                device=self.model.device,
                dtype=self.model.dtype,
            )
            extra_args["cache_position"] = torch.arange(input_ids.shape[-1])
            extra_args["past_key_values"] = self.past_key_values
        else:
            self.past_key_values = None
        return self._generate_token(input_ids, attention_mask=attention_mask, position_ids=position_ids,
                                    **extra_args)

    def decode(self, next_tokens):
        position_ids = self.position_ids[:, None]
        extra_args = {}
        if self._supports_static_cache:
            extra_args["cache_position"] = position_ids.max().unsqueeze(0)
        else:
            self.attention_mask = torch.cat([self.attention_mask, torch.ones_like(next_tokens)], dim=-1)
            extra_args["attention_mask"] = self.attention_mask
        extra_args["past_key_values"] = self.past_key_values  # clean: tg_decode_past
        tokens = self._generate_token(next_tokens, position_ids=position_ids, **extra_args)
        self.position_ids = self.position_ids + 1
        return tokens

    def _generate_token(self, input_ids, **forward_extra_params):
        with torch.no_grad():
            outputs = self.model(input_ids, return_dict=True, use_cache=True, **forward_extra_params)
        if not self._supports_static_cache:
            self.past_key_values = outputs.past_key_values  # clean: tg_keep_past
        return outputs.logits[:, -1, :].argmax(-1, keepdim=True)


def reference(row, steps):
    return model.generate(input_ids[row:row + 1, :], do_sample=False, max_new_tokens=steps,
                          min_new_tokens=steps)[0, input_ids.shape[1]:]


def probe_gemma_example():
    assert run_gemma_example(model).shape == (2, 1)


def probe_static_example():
    with torch.no_grad():
        generated = run_example(model, max_new_tokens=4)
    assert generated[1, 6:11].tolist() == reference(1, 5).tolist(), "the static decode lost its prefix"


def serve(supports_static_cache, steps=4):
    generator = TpuGenerator(model, supports_static_cache)
    tokens = [generator.prefill(input_ids, attention_mask)]
    for _ in range(steps - 1):
        tokens.append(generator.decode(tokens[-1]))
    return torch.cat(tokens, dim=-1)


def probe_tgi_static():
    assert serve(True)[1].tolist() == reference(1, 4).tolist(), "the static slots lost their prefix"


def probe_tgi_dynamic():
    assert serve(False)[1].tolist() == reference(1, 4).tolist(), "the dynamic slots lost their prefix"
