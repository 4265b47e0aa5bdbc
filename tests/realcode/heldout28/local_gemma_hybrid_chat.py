"""Local Gemma (huggingface/local-gemma), the earlier CLI package `local_gemma`: for an open-ended chat (no
`--max_new_tokens`) it builds one `HybridCache(model.config, max_batch_size=1,
max_cache_len=model.config.max_position_embeddings, device=, dtype=)` for the whole session, clears
`model.generation_config.cache_implementation`, warms a compiled forward up with a few turns and `cache.reset()`,
then passes `past_key_values=cache` to every turn's `model.generate(**model_inputs, **generation_kwargs)`; with a
length budget it drops the cache when `cache.max_cache_len` is too small and asks for `cache_implementation="hybrid"`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/local-gemma @0d910bedc325f2d607bb97f99beae9a17e595802 local_gemma/cli.py (imports, main's cache set-up,
  warm-up and chat loop).
Reduced: a tiny Gemma 2 from a config; token-id lists instead of a tokenizer and chat template; no streamer, no
compile warm-up; the turns come from a list.
"""

import torch
from transformers import Gemma2Config, Gemma2ForCausalLM, HybridCache  # site: lgh_hybrid_import

torch.manual_seed(0)
model = Gemma2ForCausalLM(Gemma2Config(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                       num_attention_heads=2, num_key_value_heads=2, head_dim=32, sliding_window=4,
                                       max_position_embeddings=64, bos_token_id=2, eos_token_id=1,
                                       pad_token_id=0)).eval()


def chat(model, turns, max_new_tokens=None):
    if max_new_tokens is None:
        cache = HybridCache(
            model.config,
            max_batch_size=1,
            max_cache_len=model.config.max_position_embeddings,
            device=model.device,
            dtype=model.dtype,
        )
        model.generation_config.cache_implementation = None
    else:
        cache = None
    generation_kwargs = {"do_sample": False}
    chat_ids = [2]
    replies = []
    for user_input in turns:
        chat_ids = chat_ids + [106] + user_input + [107, 106]
        input_ids = torch.tensor([chat_ids])
        generation_kwargs.update({"assistant_model": None, "past_key_values": cache})
        if max_new_tokens is not None:
            generation_kwargs["max_new_tokens"] = max_new_tokens
            if cache is not None and cache.max_cache_len < max_new_tokens + input_ids.shape[-1]:
                generation_kwargs.pop("past_key_values")
                generation_kwargs["cache_implementation"] = "hybrid"
        else:
            generation_kwargs["max_length"] = input_ids.shape[-1] + 3
        model_tokens = model.generate(input_ids=input_ids, **generation_kwargs)[0, input_ids.shape[1]:]
        replies.append(model_tokens.tolist())
        chat_ids = chat_ids + model_tokens.tolist()
    return replies


def probe_open_ended_chat():
    model.generation_config.min_new_tokens = 3
    replies = chat(model, [[40, 41, 42], [50, 51]])
    assert [len(r) for r in replies] == [3, 3]
