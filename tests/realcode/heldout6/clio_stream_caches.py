"""A voice assistant's streaming chat experiments: the same chat loop run with different cache strategies (an
attention-sink cache from transformers, `cache_implementation="sliding_window"`, a fresh DynamicCache per turn,
no cache at all), each turn re-templating the whole conversation and streaming the reply.

Provenance (mechanisms read; this code is written here, not copied):
- ThePickleGawd/CLI-O @9076cc4d04c30c27cc52b87cbded66d8c234e680 tests/sink.py and tests/stream_sink.py
  (`SinkCache(window_length=256, num_sink_tokens=4)` from transformers, passed as `past_key_values` to every
  `generate(..., streamer=streamer, use_cache=True, past_key_values=past_key_values)` of the chat loop),
  tests/stream_window.py (`generate(..., cache_implementation="sliding_window")`), tests/stream_nosink.py
  (`use_cache=False`)
Reduced: the offloaded variant (tests/stream_offloaded.py) is left out (it needs a GPU); the dataset loop is a
fixed list of user turns, sampling is greedy, the scripts are one module whose functions pick the strategy; the
sink cache is reached as `transformers.SinkCache` (the scripts import it by name); the fresh-cache variant is
the sink script with a DynamicCache per turn.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer, TextStreamer

model_id = "Qwen/Qwen2.5-1.5B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(model_id)
model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype="auto")
streamer = TextStreamer(tokenizer, skip_prompt=True)


def chat_turn(messages, **cache_options):
    formatted_prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    inputs = tokenizer(formatted_prompt, return_tensors="pt")
    with torch.no_grad():
        output_ids = model.generate(**inputs, max_new_tokens=8, min_new_tokens=8, do_sample=False,
                                    streamer=streamer, **cache_options)
    response = tokenizer.decode(output_ids[0][inputs["input_ids"].shape[1]:], skip_special_tokens=True)
    messages.append({"role": "assistant", "content": response})
    return output_ids


def run_sink_chat(user_turns):
    past_key_values = transformers.SinkCache(window_length=256, num_sink_tokens=4)  # site: cl_sink_cache
    messages = [{"role": "user", "content": "I am going to repeat the same thing"}]
    for user_input in user_turns:
        messages.append({"role": "user", "content": user_input})
        chat_turn(messages, use_cache=True, past_key_values=past_key_values)
    return messages


def run_window_chat(user_turns):
    messages = [{"role": "user", "content": "I am going to repeat the same thing"}]
    for user_input in user_turns:
        messages.append({"role": "user", "content": user_input})
        chat_turn(messages, cache_implementation="sliding_window")  # clean: cl_window
    return messages


def run_nocache_chat(user_turns):
    messages = [{"role": "user", "content": "I am going to repeat the same thing"}]
    for user_input in user_turns:
        messages.append({"role": "user", "content": user_input})
        chat_turn(messages, use_cache=False)  # clean: cl_no_cache
    return messages


def run_dynamic_chat(user_turns):
    messages = [{"role": "user", "content": "I am going to repeat the same thing"}]
    for user_input in user_turns:
        messages.append({"role": "user", "content": user_input})
        chat_turn(messages, use_cache=True, past_key_values=transformers.DynamicCache())  # clean: cl_fresh_dynamic
    return messages


turns = ["tell me a story", "and another one"]


def probe_sink():
    assert len(run_sink_chat(turns)) == 5


def probe_window():
    assert len(run_window_chat(turns)) == 5


def probe_no_cache():
    assert len(run_nocache_chat(turns)) == 5


def probe_dynamic():
    assert len(run_dynamic_chat(turns)) == 5
