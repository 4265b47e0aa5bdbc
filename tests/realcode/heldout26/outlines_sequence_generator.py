"""Outlines (dottxt-ai/outlines, formerly outlines-dev/outlines), structured generation for agents and tool calls:
its `transformers` model wrapper runs the forward pass itself (`Transformers.forward(input_ids, attention_mask,
past_key_values)`: when a cache is given only the last token is fed, and it returns `output.logits,
output.past_key_values`); `__call__` returns the last position's logits and the cache. The FSM-guided
`sequence_generator` keeps `kv_cache` across steps, samples, and after each step reorders every per-sequence state
by the sampler's `ancestors`, the cache with `reorder_kv_cache`, which walks it as a tuple of per-layer tuples
(`for cache_item in kv_cache: for layer in cache_item: torch.index_select(layer, 0, ancestors)`) and hands the
rebuilt tuple of tuples to the next forward. Plain (unguided) calls go through `model.generate` with a
`GenerationConfig` built from the sampling parameters.

Provenance (mechanisms read; this code is written here, not copied):
- outlines-dev/outlines @326ab77040cd5cffb2a884369c2321f5938bbb68 outlines/models/transformers.py (KVCacheType,
  Transformers.forward / __call__, _get_generation_kwargs, _generate_output_seq);
  @269aa87f349ac81d8edd79ac627f3fa5c8f5aee5 outlines/generate/generator.py (sequence_generator, update_token_ids,
  update_attention_masks, reorder_kv_cache).
Reduced: a tiny Llama from a config (its probe fixes generate's length with the model's `min_new_tokens`); the FSM guide allows every token, the sampler is greedy with `ancestors` the
identity (one sequence keeps its own row); the tokenizer wrapper is left out (ids in, ids out). The forward given the
reordered tuple is reached by its own probe, which builds the same tuple of per-layer (key, value) pairs from a
cache's layers, as the generator would on the release it was written for.
"""

import dataclasses

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

hf_model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                        eos_token_id=2, pad_token_id=0)).eval()


@dataclasses.dataclass(frozen=True)
class GenerationParameters:
    max_tokens: int
    stop_at: list | None
    seed: int | None


class Transformers:
    def __init__(self, model):
        self.model = model

    def forward(self, input_ids, attention_mask, past_key_values=None):
        assert 0 < input_ids.ndim < 3
        if past_key_values:  # clean: ol_cache_truthy
            input_ids = input_ids[..., -1].unsqueeze(-1)
        with torch.inference_mode():
            output = self.model(input_ids, attention_mask=attention_mask, return_dict=True,  # site: ol_tuple_forward
                                output_attentions=False, output_hidden_states=False,
                                past_key_values=past_key_values)
        return output.logits, output.past_key_values  # clean: ol_output_cache

    def __call__(self, input_ids, attention_mask, past_key_values=None):
        logits, kv_cache = self.forward(input_ids, attention_mask, past_key_values)
        return logits[..., -1, :], kv_cache

    def generate(self, input_ids, attention_mask, generation_parameters, eos_token_id, pad_token_id):
        max_new_tokens, stop_at, seed = dataclasses.astuple(generation_parameters)
        generation_config = GenerationConfig(max_new_tokens=max_new_tokens, stop_strings=stop_at,  # clean: ol_generation_config
                                             num_return_sequences=1, do_sample=False, num_beams=1,
                                             eos_token_id=eos_token_id, pad_token_id=pad_token_id)
        output_ids = self.model.generate(input_ids=input_ids, attention_mask=attention_mask,  # clean: ol_generate
                                         generation_config=generation_config)
        return output_ids[:, input_ids.shape[1]:]


def reorder_kv_cache(kv_cache, ancestors):
    if kv_cache is None:
        return None
    new_kv_cache = tuple()
    for cache_item in kv_cache:
        new_cache_item = tuple()
        for layer in cache_item:
            layer = torch.index_select(layer, 0, ancestors.to(layer.device))  # site: ol_reorder_layers
            new_cache_item += (layer,)
        new_kv_cache += (new_cache_item,)
    return new_kv_cache


def sequence_generator(model, token_ids, attention_masks, max_tokens):
    kv_cache = None
    for _ in range(max_tokens):
        logits, kv_cache = model(token_ids, attention_masks, kv_cache)
        next_token_ids = logits.argmax(dim=-1, keepdim=True)
        ancestors = torch.arange(token_ids.shape[0])
        token_ids = torch.cat([torch.index_select(token_ids, 0, ancestors), next_token_ids], dim=-1)
        attention_masks = torch.index_select(attention_masks, 0, ancestors)
        attention_masks = torch.cat([attention_masks, torch.ones(attention_masks.shape[:-1] + (1,),
                                                                 dtype=attention_masks.dtype)], dim=-1)
        kv_cache = reorder_kv_cache(kv_cache, ancestors)
        yield token_ids, kv_cache


model = Transformers(hf_model)
prompt = torch.tensor([[1, 7, 8, 9]])
mask = torch.ones_like(prompt)


def probe_first_step():
    logits, cache = model(prompt, mask)
    assert logits.shape == (1, 320) and cache.get_seq_length() == 4


def probe_continue_with_cache():
    _, cache = model(prompt, mask)
    ids = torch.cat([prompt, torch.tensor([[11]])], dim=-1)
    logits, cache = model(ids, torch.ones_like(ids), cache)
    assert logits.shape == (1, 320) and cache.get_seq_length() == 5


def probe_first_guided_step():
    token_ids, kv_cache = next(sequence_generator(model, prompt, mask, max_tokens=1))
    assert token_ids.shape == (1, 5) and len(kv_cache) == 2


def probe_step_with_reordered_tuple():
    _, cache = model(prompt, mask)
    legacy = tuple((layer.keys, layer.values) for layer in cache.layers)
    ids = torch.cat([prompt, torch.tensor([[11]])], dim=-1)
    logits, _ = model(ids, torch.ones_like(ids), legacy)
    assert logits.shape == (1, 320)


def probe_unguided_generate():
    hf_model.generation_config.min_new_tokens = 3
    out = model.generate(prompt, mask, GenerationParameters(3, None, None), eos_token_id=2, pad_token_id=0)
    assert out.shape == (1, 3)
