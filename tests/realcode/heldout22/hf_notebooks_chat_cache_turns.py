"""Hugging Face notebooks (huggingface/notebooks): the transformers documentation's notebooks, run as tutorials. Three
ways they teach to keep a cache across steps and turns: the LLM-optimization tutorial's hand loop (`past_key_values =
None`, then `next_logits, past_key_values = model(next_token_id, past_key_values=past_key_values,
use_cache=True).to_tuple()`, the argmax token fed back alone, `past_key_values.get_seq_length()` printed); its
multi-round chat (`generate(..., return_dict_in_generate=True)`, then the next round's whole re-tokenized
conversation with `past_key_values=generation_output.past_key_values`); and the image-text-to-text guide's multi-turn
chat, which makes a `DynamicCache()` up front, passes it to the first `generate`, and for the follow-up tokenizes only
the new part of the chat template (`full_string[len(cached_string):]`, `add_special_tokens=False`) and calls
`generate(input_ids=new_input_ids, past_key_values=past_key_values, ...)` with no attention mask.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/notebooks @5068b1142e8ed1e691c8b1e9f98e4473ebe55790 (2026-08-20; both notebooks last changed at
  33271ba, 2026-08-07)
  transformers_doc/en/llm_tutorial_optimization.ipynb (section 3.2: the `to_tuple()` loop over five steps; 3.2.1
  "Multi-round conversation": `generation_output = model.generate(**model_inputs, max_new_tokens=60,
  return_dict_in_generate=True)`, the decoded output plus the next question re-tokenized, `past_key_values=
  generation_output.past_key_values`) and transformers_doc/en/image_text_to_text.ipynb (the multi-turn cell:
  `past_key_values = DynamicCache()`, turn 1 `model.generate(**inputs, past_key_values=past_key_values, ...)`, turn 2
  the new string's ids only, `model.generate(input_ids=new_input_ids, past_key_values=past_key_values, ...)`).
Reduced: a text-only Llama stands for Gemma 4 (no images, audio nor processor), the chat template is a plain string
join, no streamer, greedy, CPU, 3-4 new tokens instead of 60-1024; every generate passes min_new_tokens too.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

model = AutoModelForCausalLM.from_pretrained("bigcode/octocoder", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("bigcode/octocoder")


@torch.no_grad()
def hand_loop(prompt, steps):
    past_key_values = None  # clean: nb_start_none
    generated_tokens, lengths = [], []
    next_token_id = tokenizer(prompt, return_tensors="pt")["input_ids"]
    for _ in range(steps):
        next_logits, past_key_values = model(next_token_id, past_key_values=past_key_values, use_cache=True).to_tuple()  # clean: nb_to_tuple
        next_logits = next_logits[:, -1:]
        next_token_id = torch.argmax(next_logits, dim=-1)
        lengths.append(past_key_values.get_seq_length())  # clean: nb_seq_length
        generated_tokens.append(next_token_id.item())
    return generated_tokens, lengths


def multi_round(system_prompt):
    prompt = system_prompt + " question : write a function that turns bytes into giga bytes answer : here"
    model_inputs = tokenizer(prompt, return_tensors="pt")
    generation_output = model.generate(**model_inputs, max_new_tokens=3, min_new_tokens=3,
                                       return_dict_in_generate=True)  # clean: nb_round_one
    decoded_output = tokenizer.batch_decode(generation_output.sequences)[0]
    prompt = decoded_output + " question : how do i return mega bytes instead answer : here"
    model_inputs = tokenizer(prompt, return_tensors="pt")
    generation_output = model.generate(
        **model_inputs,
        past_key_values=generation_output.past_key_values,  # clean: nb_round_two_cache
        max_new_tokens=3,
        min_new_tokens=3,
        return_dict_in_generate=True,
    )
    return model_inputs["input_ids"].shape[1], generation_output


def first_turn(first):
    past_key_values = DynamicCache()  # clean: nb_cache_up_front
    inputs = tokenizer(first, return_tensors="pt")
    output = model.generate(**inputs, past_key_values=past_key_values, max_new_tokens=4, min_new_tokens=4,
                            do_sample=False)  # clean: nb_turn_one
    first_response = tokenizer.decode(output[0][inputs["input_ids"].shape[1]:], skip_special_tokens=True)
    return first + " " + first_response, past_key_values


def follow_up_turn(cached_string, past_key_values, follow_up):
    full_string = cached_string + " " + follow_up
    new_string = full_string[len(cached_string):]
    new_input_ids = tokenizer(new_string, add_special_tokens=False, return_tensors="pt")["input_ids"]
    output2 = model.generate(input_ids=new_input_ids, past_key_values=past_key_values, max_new_tokens=4,
                             min_new_tokens=4, do_sample=False)  # site: nb_new_ids_only
    return new_input_ids.shape[1], output2


def probe_hand_loop():
    prompt = "write a short python function"
    n = tokenizer(prompt, return_tensors="pt")["input_ids"].shape[1]
    tokens, lengths = hand_loop(prompt, 5)
    assert len(tokens) == 5 and lengths == [n, n + 1, n + 2, n + 3, n + 4], lengths


def probe_multi_round():
    n_prompt, out = multi_round("you are a helpful coding assistant .")
    assert out.sequences.shape[1] == n_prompt + 3
    assert out.past_key_values.get_seq_length() == n_prompt + 2


def probe_turn_one():
    prompt = "describe the bee in the garden"
    cached_string, cache = first_turn(prompt)
    assert cache.get_seq_length() == len(tokenizer(prompt)["input_ids"]) + 3


def probe_multi_turn():
    cached_string, cache = first_turn("describe the bee in the garden")
    n_new, out2 = follow_up_turn(cached_string, cache, "summarize that in one sentence")
    assert out2.shape[1] == n_new + 4, f"nb_new_ids_only: the follow-up's output is {out2.shape[1]} long"
