"""LLMA (LMOps' "inference with reference"): lossless decoding acceleration for serving, where a span of a reference
document that follows a matched n-gram is copied into the input and checked by the model in one forward; the tokens
the model agrees with are accepted and the cache is rolled back over the rejected ones by `make_past_key_values`,
which iterates over the output's `past_key_values` as (key, value) pairs and slices each along the sequence axis into
a tuple of tuples that the next forward receives. The baseline decoder feeds the output cache straight back.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/LMOps @4f2a9deb5f08e459fd44c2e4792344d78ca89fc3
  llma/src/decode.py (`base_generate`: `output = model(input_ids=prepend_ids, past_key_values=past_key_values,
  return_dict=True, use_cache=True)`, `past_key_values = output['past_key_values']`; `make_kv_tupe(input_kv,
  step_length, accepted_step_length)`: `kv[:,:,:l-step_length+accepted_step_length,:]` per tensor; `make_past_key_values
  (past_key_values, step_length, accepted_step_length)`: unchanged when all are accepted, else `for kv in
  past_key_values: kv = make_kv_tupe(kv, ...)` and `return tuple(pkv_list)`; `llma_generate`: `match_prefix` over
  the reference's n-grams, `copied_ids = doc_token_id_list[i][j+prefix_n:j+prefix_n+block_K-1]`, `prepend_ids =
  torch.concat([prepend_ids, copied_ids], dim=-1)`, the same model call, acceptance by comparing `oids[pos-1] ==
  iids[pos]`, `past_key_values = make_past_key_values(past_key_values, step_length, accepted_step_length)`).
Reduced: unigram matching on the last token instead of the n-gram tables, no tokenizer, a step cap instead of
decoding until EOS (the oracle's models are random), CPU tensors.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b").eval()


def base_generate(model, input_ids, max_steps=4):
    prepend_ids = input_ids
    generate_ids = None
    past_key_values = None
    for _ in range(max_steps):
        with torch.no_grad():
            output = model(input_ids=prepend_ids,  # clean: lla_base_forward
                           past_key_values=past_key_values,
                           return_dict=True,
                           use_cache=True)
        output_ids = torch.argmax(output["logits"][:, -1:, :], dim=-1)
        prepend_ids = output_ids
        generate_ids = output_ids if generate_ids is None else torch.concat([generate_ids, output_ids], dim=1)
        past_key_values = output["past_key_values"]  # clean: lla_base_keep
    return generate_ids, past_key_values


def make_kv_tupe(input_kv, step_length, accepted_step_length):
    kv_list = []
    for kv in input_kv:
        seq_len = kv.shape[2]  # observe: lla_rollback
        kv_list.append(kv[:, :, :seq_len - step_length + accepted_step_length, :])
    return tuple(kv_list)


def make_past_key_values(past_key_values, step_length, accepted_step_length):
    if step_length == accepted_step_length:
        return past_key_values
    pkv_list = []
    for kv in past_key_values:  # site: lla_rollback
        kv = make_kv_tupe(kv, step_length, accepted_step_length)
        pkv_list.append(kv)
    return tuple(pkv_list)


def llma_generate(model, input_ids, doc_token_ids, block_K=3, max_steps=4):
    prepend_ids = input_ids
    generate_ids = None
    past_key_values = None
    step = 0
    while step < max_steps:
        last = int(prepend_ids[0, -1])
        if last in doc_token_ids:
            j = doc_token_ids.index(last)
            copied_ids = doc_token_ids[j + 1:j + block_K]
            step_length = 1 + len(copied_ids)
            prepend_ids = torch.concat([prepend_ids, torch.tensor([copied_ids], dtype=prepend_ids.dtype)], dim=-1)
            copy_mode = True
        else:
            step_length = 1
            copy_mode = False
        with torch.no_grad():
            output = model(input_ids=prepend_ids,  # observe: lla_rollback
                           past_key_values=past_key_values,
                           return_dict=True,
                           use_cache=True)
        output_ids = torch.argmax(output["logits"][:, -step_length:, :], dim=-1)
        accepted_step_length = step_length
        past_key_values = output["past_key_values"]
        if copy_mode:
            iids = prepend_ids[0, -step_length:].tolist()
            oids = output_ids[0].tolist()
            real_output_ids = [oids[0]]
            for pos in range(1, len(oids)):
                if oids[pos - 1] == iids[pos]:
                    real_output_ids.append(oids[pos])
                else:
                    break
            accepted_step_length = len(real_output_ids)
            past_key_values = make_past_key_values(past_key_values, step_length, accepted_step_length)
            output_ids = output_ids[:, :accepted_step_length]
        step += accepted_step_length
        prepend_ids = output_ids[:, -1:]
        generate_ids = output_ids if generate_ids is None else torch.concat([generate_ids, output_ids], dim=1)
    return generate_ids


prompt = torch.tensor([[1, 300, 301, 302]])
reference = [302, 310, 311, 312, 313]


def probe_baseline():
    ids, cache = base_generate(model, prompt)
    assert ids.shape == (1, 4) and cache.get_seq_length() == 7


def probe_reference_decode():
    ids = llma_generate(model, prompt, reference)
    assert ids.shape[1] >= 4
