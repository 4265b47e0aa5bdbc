"""Local Gemma (huggingface/local-gemma), a `pip install`-able CLI that chats with Gemma 2 on the user's machine.
`LocalGemma2ForCausalLM.from_pretrained(preset=...)` picks attention, quantisation and the cache: on CUDA (every
preset but `memory_extreme`) `model.generation_config.cache_implementation = "static"` and a compiled forward; with
`memory_extreme`, `cache_implementation = "quantized"`. The CLI sets `model._supports_cache_class = True`, then runs
an interactive loop that keeps one cache for the whole conversation: each turn re-tokenises the chat history and
calls `model.generate(input_ids=..., **generation_kwargs)` with `past_key_values=cache` and
`return_dict_in_generate=True` (and `cache_implementation=None` once a cache exists), then stores
`cache = gen_out.past_key_values` for the next turn; `!new session` clears the history and calls `cache.reset()`
when the cache has one. `--benchmark` times `model.generate(input_ids, do_sample=False, max_new_tokens=n,
min_new_tokens=n)` after warm-up runs.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/local-gemma @0d0998a65f15b3eb7652e990296fc91dc084649b local_gemma_2/cli.py (main's chat loop),
  @03935c5d9f0aa475355282a2ae5b1d04e7e399d0 local_gemma_2/modeling_local_gemma_2.py (from_pretrained's presets),
  @1771b33223accfd603c4b105ffbc97c5e6b8d4f4 local_gemma_2/utils/config.py (get_generation_kwargs),
  @12afb059a5878f18a827bb126f7aff00ea4f0669 local_gemma_2/utils/benchmark.py (benchmark).
Reduced: a tiny Gemma 2 from a config (sliding window 4) built by a `load` function standing for the preset
logic, `device` passed in (the static preset is what CUDA gets; no compile; the `memory_extreme` preset's
quantized cache is left out: optimum-quanto cannot run in the oracle's time limit); token-id lists instead of a tokenizer
and chat template, no streamer; the chat takes its turns from a list instead of `input()`.
"""

import torch
from transformers import Gemma2Config, Gemma2ForCausalLM

CONFIG = Gemma2Config(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, head_dim=32, sliding_window=4,
                      bos_token_id=2, eos_token_id=1, pad_token_id=0)


def load(preset, device="cpu"):
    torch.manual_seed(0)
    model = Gemma2ForCausalLM(CONFIG).eval()
    if preset != "memory_extreme" and device == "cuda":
        model.generation_config.cache_implementation = "static"  # clean: lg_static_preset
    return model


def get_generation_kwargs(mode):
    generation_kwargs = {"do_sample": True}
    if mode == "chat":
        generation_kwargs["temperature"] = 0.7
    elif mode == "factual":
        generation_kwargs["temperature"] = 0.3
        generation_kwargs["repetition_penalty"] = 1.2
    return generation_kwargs


def apply_chat_template(chat_history):
    ids = [2]
    for message in chat_history:
        ids += [106, 9 if message["role"] == "user" else 10] + message["content"] + [107, 108]
    return torch.tensor([ids + [106, 10]])


def chat(model, turns, generation_kwargs, max_new_tokens):
    model._supports_cache_class = True  # clean: lg_supports_flag
    cache = None
    chat_history = []
    replies = []
    for user_input in turns:
        if user_input == "!new session":
            chat_history = []
            if hasattr(cache, "reset"):
                cache.reset()  # site: lg_session_reset
            else:
                cache = None
            continue
        chat_history += [{"role": "user", "content": user_input}]
        tokenized_chat = apply_chat_template(chat_history)
        generation_kwargs.update(
            {
                "assistant_model": None,
                "return_dict_in_generate": True,
                "past_key_values": cache,  # clean: lg_pass_cache
            }
        )
        if cache is not None:
            generation_kwargs["cache_implementation"] = None  # clean: lg_clear_implementation
        generation_kwargs["max_new_tokens"] = max_new_tokens
        gen_out = model.generate(input_ids=tokenized_chat, **generation_kwargs)  # observe: lg_session_reset
        cache = gen_out.past_key_values  # clean: lg_keep_cache
        model_tokens = gen_out.sequences[0, tokenized_chat.shape[1]:]
        replies.append(model_tokens.tolist())
        chat_history += [{"role": "assistant", "content": model_tokens.tolist()}]
    return replies


def benchmark(model, prompt_lengths=(6,), max_new_tokens_list=(4,), warmup_runs=1, num_runs=2):
    results = {}
    model_inputs = torch.tensor([[2] + [30, 31] * 8])
    for prompt_length in prompt_lengths:
        for max_new_tokens in max_new_tokens_list:
            input_ids = model_inputs[:, :prompt_length]
            for _ in range(warmup_runs):
                model.generate(input_ids, do_sample=False, max_new_tokens=max_new_tokens,
                               min_new_tokens=max_new_tokens)
            for _ in range(num_runs):
                gen_out = model.generate(input_ids, do_sample=False, max_new_tokens=max_new_tokens,  # clean: lg_benchmark_generate
                                         min_new_tokens=max_new_tokens)
                if gen_out.shape[1] != prompt_length + max_new_tokens:
                    raise ValueError("Benchmark error: wrong output length")
            results[(prompt_length, max_new_tokens)] = gen_out.shape[1]
    return results


def greedy(model):
    kwargs = get_generation_kwargs("chat")
    kwargs["do_sample"] = False
    model.generation_config.min_new_tokens = 3
    return kwargs


def probe_chat_turns():
    model = load("exact")
    replies = chat(model, [[40, 41, 42, 43, 44], [50, 51, 52]], greedy(model), max_new_tokens=3)
    history = [{"role": "user", "content": [40, 41, 42, 43, 44]}, {"role": "assistant", "content": replies[0]},
               {"role": "user", "content": [50, 51, 52]}]
    prompt = apply_chat_template(history)
    fresh = model.generate(prompt, do_sample=False, max_new_tokens=3, min_new_tokens=3)[0, prompt.shape[1]:]
    assert replies[1] == fresh.tolist(), "the second turn's reply differs from a fresh run"


def probe_new_session():
    model = load("exact")
    replies = chat(model, [[40, 41, 42, 43, 44], [50, 51, 52], "!new session", [60, 61]], greedy(model),
                   max_new_tokens=3)
    prompt = apply_chat_template([{"role": "user", "content": [60, 61]}])
    fresh = model.generate(prompt, do_sample=False, max_new_tokens=3, min_new_tokens=3)[0, prompt.shape[1]:]
    assert replies[2] == fresh.tolist(), "lg_session_reset: the new session answered from the old conversation"  # observe: lg_session_reset


def probe_static_benchmark():
    model = load("speed", device="cuda")
    assert benchmark(model) == {(6, 4): 10}
