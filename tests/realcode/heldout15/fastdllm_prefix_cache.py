"""Fast-dLLM (NVlabs): block-wise decoding of a diffusion LLM with an approximate prefix KV cache. The whole
sequence (prompt plus a masked answer) is run once with `use_cache=True`, the cache is cut back to the tokens before
the current block by slicing every layer's key and value (`past_key_values[i][j][:, :, :current_block_start]`) into
a new list of tuples, and each denoising step then runs only the block onward with `past_key_values=` that list.

Provenance (mechanisms read; this code is written here, not copied):
- NVlabs/Fast-dLLM @24cc59e75f20a6384bae8c905965bb090b96388e
  llada/generate.py (`generate_with_prefix_cache`: `output = model(x, use_cache=True)`, `past_key_values =
  output.past_key_values`, the loop `new_past_key_values = []`, `for i in range(len(past_key_values))`,
  `new_past_key_values.append(())`, `for j in range(len(past_key_values[i]))`, `new_past_key_values[i] +=
  (past_key_values[i][j][:, :, :current_block_start],)`, then `logits = model(x[:, current_block_start:],
  past_key_values=past_key_values, use_cache=True).logits` per denoising step) and
  dream/model/generation_utils_block.py (the same truncation for Dream, sliced on dim 1).
Reduced: the LLaDA model is a causal Llama (the mask token is an ordinary id, no bidirectional attention), one
block, greedy unmasking of one token per step instead of the confidence threshold, the slicing and the block step in
two helpers (each reached by its own probe).
"""

import torch
from transformers import AutoModelForCausalLM

MASK_ID = 5
model = AutoModelForCausalLM.from_pretrained("GSAI-ML/LLaDA-8B-Instruct").eval()


def truncate_prefix(past_key_values, current_block_start):
    new_past_key_values = []
    for i in range(len(past_key_values)):
        new_past_key_values.append(())
        for j in range(len(past_key_values[i])):  # site: fd_slice_prefix
            new_past_key_values[i] += (past_key_values[i][j][:, :, :current_block_start],)
    return new_past_key_values


def denoise_block(x, past_key_values, current_block_start, steps):
    for _ in range(steps):
        logits = model(x[:, current_block_start:], past_key_values=past_key_values, use_cache=True).logits  # site: fd_block_step
        mask_index = x[:, current_block_start:] == MASK_ID
        if not mask_index.any():
            break
        first = int(mask_index[0].nonzero()[0])
        x[0, current_block_start + first] = logits[0, first].argmax()
    return x


@torch.no_grad()
def generate_with_prefix_cache(prompt, gen_length=4):
    x = torch.full((1, prompt.shape[1] + gen_length), MASK_ID, dtype=torch.long)
    x[:, :prompt.shape[1]] = prompt
    output = model(x, use_cache=True)  # clean: fd_prefill
    past_key_values = output.past_key_values  # clean: fd_keep_cache
    current_block_start = prompt.shape[1]
    x[0, current_block_start] = output.logits[0, current_block_start - 1].argmax()
    return x, past_key_values, current_block_start


prompt = torch.tensor([[1, 31, 32, 33, 34]])


def probe_prefill():
    x, cache, start = generate_with_prefix_cache(prompt)
    assert cache.get_seq_length() == 9 and start == 5


def probe_truncate():
    _, cache, start = generate_with_prefix_cache(prompt)
    with torch.no_grad():
        prefix = truncate_prefix(cache, start)
    assert prefix[0][0].shape[2] == 5


def probe_denoise():
    x, cache, start = generate_with_prefix_cache(prompt)
    legacy = [(layer.keys[:, :, :start], layer.values[:, :, :start]) for layer in cache.layers]
    with torch.no_grad():
        denoise_block(x, legacy, start, steps=3)
