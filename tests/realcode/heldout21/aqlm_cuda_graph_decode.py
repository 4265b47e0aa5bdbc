"""AQLM (Vahe1994): additive quantization of LLMs. Its CUDA-graph notebook times a 2-bit Llama three ways: a warm-up
`quantized_model.generate(...)` with only `max_new_tokens`, a timed `generate` with `min_new_tokens` and
`max_new_tokens`, and a gpt-fast style loop on a `StaticCache` built positionally as `StaticCache(config, 1,
seq_length + MAX_NEW_TOKENS * 2 + 1, device, dtype)` (the 4.41 signature: config, max_batch_size, max_cache_len,
device, dtype), prefilled with `cache_position=torch.arange(seq_length)` and then decoded one token at a time
through a `torch.compile(..., mode="reduce-overhead", fullgraph=True)` step.

Provenance (mechanisms read; this code is written here, not copied):
- Vahe1994/AQLM @559a36681398d7189297fccf3b1e59e8e030e942 (the notebook's last change, 2024-07-16; the repository's
  newest commit is e79a896ed6656fe4ed06193d42d004e7d0bbdbb2)
  notebooks/aqlm_cuda_graph.ipynb (`pip install transformers>=4.41.0`; `quantized_model.generate(tokenizer("",
  return_tensors="pt")["input_ids"].cuda(), max_new_tokens=10)`; `quantized_model.generate(tokenizer("I'm AQLM, ",
  ...)["input_ids"].cuda(), min_new_tokens=128, max_new_tokens=128)`; `past_key_values = StaticCache(
  quantized_model.config, 1, seq_length + MAX_NEW_TOKENS * 2 + 1, quantized_model.device, quantized_model.dtype)`;
  `decode_one_tokens(model, cur_token, input_pos, cache_position, past_key_values)`).
Reduced: a Llama stands for the AQLM checkpoint (the quantized kernels are not run), CPU instead of CUDA, 4 and 6 new
tokens instead of 10 and 128, the timing and printing cells dropped. The notebook's prefill and compiled decode loop
are not reproduced: they only run on the cache the constructor cell builds.
"""

import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, StaticCache

quantized_model = AutoModelForCausalLM.from_pretrained(
    "ISTA-DASLab/Llama-2-7b-AQLM-2Bit-1x16-hf", torch_dtype="auto", low_cpu_mem_usage=True,
)
tokenizer = AutoTokenizer.from_pretrained("ISTA-DASLab/Llama-2-7b-AQLM-2Bit-1x16-hf")
MAX_NEW_TOKENS = 6


def warm_up():
    return quantized_model.generate(tokenizer("hello", return_tensors="pt")["input_ids"], max_new_tokens=4)  # clean: aq_warmup_generate


def timed_generate():
    start = time.perf_counter()
    output = quantized_model.generate(tokenizer("I am AQLM", return_tensors="pt")["input_ids"],
                                      min_new_tokens=MAX_NEW_TOKENS, max_new_tokens=MAX_NEW_TOKENS)  # clean: aq_timed_generate
    end = time.perf_counter()
    return output, MAX_NEW_TOKENS / (end - start)


def static_cache_for(input_ids):
    seq_length = input_ids.shape[1]
    past_key_values = StaticCache(  # site: aq_static_positional
        quantized_model.config,
        1,
        seq_length + MAX_NEW_TOKENS * 2 + 1,
        quantized_model.device,
        quantized_model.dtype,
    )
    return past_key_values


def probe_warm_up():
    quantized_model.generation_config.min_new_tokens = 4
    output = warm_up()
    assert output.shape[1] == tokenizer("hello", return_tensors="pt")["input_ids"].shape[1] + 4


def probe_timed_generate():
    output, _ = timed_generate()
    assert output.shape[1] == tokenizer("I am AQLM", return_tensors="pt")["input_ids"].shape[1] + MAX_NEW_TOKENS


def probe_static_cache():
    input_ids = tokenizer("I am AQLM", return_tensors="pt")["input_ids"]
    cache = static_cache_for(input_ids)
    assert cache.get_seq_length() == 0
