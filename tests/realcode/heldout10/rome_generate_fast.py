"""ROME's `generate_fast` (model editing / interpretability, kmeng01): a hand-rolled batched top-k sampler that
keeps the attention cache between steps. `cur_context` is the slice of the token ids not yet in
`past_key_values`; each step runs the model on that slice of ids and mask with `past_key_values=past_key_values`
and `use_cache=True`, takes `logits, past_key_values = model_out.logits, model_out.past_key_values`, samples the
next token among the top k, grows the ids and mask by one column when needed, and moves `cur_context` to the next
single position. The editing experiments call it before and after a rank-one edit to compare the texts.

Provenance (mechanisms read; this code is written here, not copied):
- kmeng01/rome @448f8fe556cf267e0b71d02a9f3b4dec9858ec58
  util/generate.py (generate_fast: `past_key_values, cur_context = None, slice(0, attention_mask.sum(1).min().item())`,
  `model_out = model(input_ids=input_ids[:, cur_context], attention_mask=attention_mask[:, cur_context],
  past_key_values=past_key_values, use_cache=True)`, `logits, past_key_values = model_out.logits,
  model_out.past_key_values`, `torch.topk(softmax_out, top_k, dim=1)`, `torch.multinomial`, the padding column
  appended `if cur_context.stop == input_ids.size(1)`, `cur_context = slice(cur_context.stop, cur_context.stop + 1)`).
Reduced: token ids in and out (no tokenizer, no unicode normalisation), GPT-2 as in the paper; the mask passed is
the whole mask up to the context's end (the project's slice of one column relied on old GPT-2 broadcasting); a fixed
seed; the edit itself (rome_main) is a weight update that does not touch the cache and is left out.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2-xl").eval()
PAD = 0


def generate_fast(model, input_ids, attention_mask, top_k=5, max_out_len=12):
    batch_size = input_ids.size(0)
    past_key_values, cur_context = None, slice(0, attention_mask.sum(1).min().item())
    with torch.no_grad():
        while input_ids.size(1) < max_out_len:
            model_out = model(input_ids=input_ids[:, cur_context], attention_mask=attention_mask[:, :cur_context.stop],  # clean: rm_step
                              past_key_values=past_key_values, use_cache=True)
            logits, past_key_values = model_out.logits, model_out.past_key_values  # clean: rm_keep_cache
            softmax_out = torch.nn.functional.softmax(logits[:, -1, :], dim=1)
            tk = torch.topk(softmax_out, top_k, dim=1).indices
            softmax_out_top_k = torch.gather(softmax_out, 1, tk)
            softmax_out_top_k = softmax_out_top_k / softmax_out_top_k.sum(1)[:, None]
            new_toks = torch.gather(tk, 1, torch.multinomial(softmax_out_top_k, 1))
            if cur_context.stop == input_ids.size(1):
                attention_mask = torch.cat([attention_mask, attention_mask.new_zeros(batch_size, 1)], dim=1)
                input_ids = torch.cat([input_ids, input_ids.new_ones(batch_size, 1) * PAD], dim=1)
            last_non_masked = attention_mask.sum(1) - 1
            for i in range(batch_size):
                new_idx = last_non_masked[i] + 1
                if last_non_masked[i].item() + 1 != cur_context.stop:
                    continue
                if new_idx < max_out_len:
                    input_ids[i][new_idx] = new_toks[i]
                    attention_mask[i][new_idx] = 1
            cur_context = slice(cur_context.stop, cur_context.stop + 1)
    return input_ids, past_key_values


def probe_generate():
    torch.manual_seed(0)
    ids = torch.tensor([[5, 17, 23, 42, 8], [9, 31, 4, 77, 60]])
    out, past = generate_fast(model, ids, torch.ones_like(ids))
    assert out.shape == (2, 12) and past.get_seq_length() == 11


def probe_compare_after_edit():
    torch.manual_seed(1)
    ids = torch.tensor([[3, 14, 15, 92]])
    before, _ = generate_fast(model, ids.clone(), torch.ones_like(ids), max_out_len=8)
    with torch.no_grad():
        model.transformer.h[0].mlp.c_proj.weight.add_(0.01)
    after, past = generate_fast(model, ids.clone(), torch.ones_like(ids), max_out_len=8)
    assert before.shape == after.shape == (1, 8) and past.get_seq_length() == 7
