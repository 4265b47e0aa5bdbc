"""A hand-written greedy decode loop, the way current transformers documents it (must stay silent)."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def decode(ids, steps):
    cache = DynamicCache()  # clean: loop_new_cache
    out = model(ids, past_key_values=cache, use_cache=True)  # clean: loop_prefill
    tokens = []
    for _ in range(steps):
        nxt = out.logits[:, -1:].argmax(-1)
        tokens.append(int(nxt))
        out = model(nxt, past_key_values=out.past_key_values, use_cache=True)  # clean: loop_feed_output
    return tokens, out.past_key_values


def summary(cache):
    lengths = [layer.keys.shape[-2] for layer in cache.layers]  # clean: loop_layer_lengths
    return cache.get_seq_length(), lengths  # clean: loop_seq_len


def rewind(cache, n):
    if n > 0:
        cache.crop(-n)  # clean: loop_crop_negative
    return cache

def probe_decode():
    tokens, cache = decode(prompt, 3)
    assert summary(cache) == (8, [8, 8])
    assert rewind(cache, 2).get_seq_length() == 6
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    reference = model.generate(prompt, max_new_tokens=3, do_sample=False)[0, -3:].tolist()  # clean: loop_reference
    # Both must be greedy continuations of the prompt as a fresh pass without a cache scores them. Not `tokens ==
    # reference`: the random tiny model has near-ties, and the loop and generate sum in other orders (one clean-clone
    # CI run at 5.25.0 saw them pick different tokens of a tie).
    assert greedy_within(tokens) and greedy_within(reference)


def greedy_within(tokens, atol=1e-3):
    full = model(torch.cat([prompt, torch.tensor([tokens])], dim=1)).logits[0]
    rows = full[prompt.shape[1] - 1 : prompt.shape[1] - 1 + len(tokens)]
    return all(float(row.max() - row[t]) <= atol for row, t in zip(rows, tokens, strict=True))
