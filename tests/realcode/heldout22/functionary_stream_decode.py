"""Functionary (MeetKai/functionary): a function-calling chat model and its OpenAI-compatible server. Its plain
transformers backend streams a reply token by token with a loop of its own: `past_key_values = None`, at step 0 a
prefill `model(input_ids, use_cache=True)`, afterwards `model(input_ids=token_ts, use_cache=True,
past_key_values=past_key_values)` with only the last token, `past_key_values = out.past_key_values` after every step,
the warpers of a `LogitsProcessorList` applied by hand, the text delta yielded per token, and at the end `del
past_key_values, out` to free the cache.

Provenance (mechanisms read; this code is written here, not copied):
- MeetKai/functionary @e240e8c54684718aa9357ccf9d59ff035a6ff351 (2026-06-30; functionary/inference_stream.py last
  changed at 3323257, 2024-08-07)
  functionary/inference_stream.py (`prepare_logits_processor(temperature, repetition_penalty, top_p, top_k)`:
  `TemperatureLogitsWarper`, `TopPLogitsWarper`, `TopKLogitsWarper` in a `LogitsProcessorList`;
  `generate_text_stream`: the prefill / decode branches on `i == 0`, `past_key_values = out.past_key_values`, the greedy
  `torch.topk(last_token_logits, 2)`, the decode-diff of the text, the stop-token check, `del past_key_values, out`).
Reduced: no chat template, functions or tools in the prompt (functionary.inference's prompt templates are not about the
cache), greedy only, no repetition penalty, CPU, the stream collected into a list by the probe.
"""

import gc

import torch
from transformers import AutoTokenizer, LlamaForCausalLM
from transformers.generation.logits_process import LogitsProcessorList, TopKLogitsWarper


def prepare_logits_processor(top_k):
    processor_list = LogitsProcessorList()
    if top_k > 0:
        processor_list.append(TopKLogitsWarper(top_k))
    return processor_list


def generate_text_stream(*, model, tokenizer, prompt, max_new_tokens=256, stop_token_ids=()):
    device = model.device
    logits_processor = prepare_logits_processor(top_k=5)
    input_ids = tokenizer(prompt, return_tensors="pt").input_ids
    output_ids = input_ids.clone().detach()
    past_key_values = None  # clean: fn_no_cache_yet
    token_ts = None
    for i in range(max_new_tokens):
        if i == 0:
            out = model(input_ids, use_cache=True)  # clean: fn_prefill
        else:
            out = model(input_ids=token_ts, use_cache=True, past_key_values=past_key_values)  # clean: fn_decode_step
        logits = out.logits
        past_key_values = out.past_key_values  # clean: fn_keep_cache
        last_token_logits = logits_processor(output_ids, logits[:, -1, :])[0]
        token_int = int(torch.topk(last_token_logits, 2).indices[0])
        token_ts = torch.as_tensor([[token_int]], device=device)
        current = tokenizer.decode(output_ids[0].tolist(), skip_special_tokens=False)
        output_ids = torch.cat((output_ids, token_ts), 1)
        yield tokenizer.decode(output_ids[0].tolist(), skip_special_tokens=False)[len(current):], past_key_values
        if token_int in stop_token_ids:
            break
    del past_key_values, out  # clean: fn_free_cache
    gc.collect()


model = LlamaForCausalLM.from_pretrained("meetkai/functionary-small-v3.2", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("meetkai/functionary-small-v3.2")


@torch.no_grad()
def probe_stream():
    prompt = "what is the weather in paris today"
    n_prompt = tokenizer(prompt, return_tensors="pt").input_ids.shape[1]
    seen = [cache.get_seq_length() for _, cache in generate_text_stream(
        model=model, tokenizer=tokenizer, prompt=prompt, max_new_tokens=3)]
    assert seen == [n_prompt, n_prompt + 1, n_prompt + 2], seen
