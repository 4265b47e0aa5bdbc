"""h2oGPT's local Hugging Face path: one chat request becomes a `GenerationConfig` built from the UI's settings
(`use_cache` among them, falcon's off), generate keywords gathered in a dict (`return_dict_in_generate`,
`output_scores`, `max_new_tokens`, `min_new_tokens`, `early_stopping`, `max_time`, stopping criteria), and, with
attention sinks asked for, a `SinkCache(window_length=..., num_sink_tokens=...)` imported where it is needed and
passed as `past_key_values`; `model.generate` runs in a thread feeding a text iterator streamer that the request
drains.

Provenance (mechanisms read; this code is written here, not copied):
- h2oai/h2ogpt @a0ad1920a847cf12a4e9c3453f6cdb736fe97ba0
  src/gen.py (`evaluate`: `if use_cache is None: use_cache = False if 'falcon' in base_model else True`,
  `gen_config_kwargs = dict(num_beams=..., do_sample=..., repetition_penalty=..., num_return_sequences=...,
  renormalize_logits=True, remove_invalid_values=True, use_cache=use_cache, max_new_tokens=...)`, the tokenizer's
  special ids copied in, `generation_config = GenerationConfig(**gen_config_kwargs)`, `gen_kwargs = dict(input_ids=
  input_ids, generation_config=generation_config, return_dict_in_generate=True, output_scores=True, max_new_tokens=
  ..., min_new_tokens=..., early_stopping=..., max_time=..., stopping_criteria=...)`, `if use_cache and
  attention_sinks: from transformers import SinkCache`, `sink_dict['window_length'] = sink_dict.get('window_length',
  max_input_tokens)`, `sink_dict['num_sink_tokens'] = sink_dict.get('num_sink_tokens', 4)`, `cache = SinkCache(
  **sink_dict)`, `gen_kwargs.update(dict(past_key_values=cache))`; the streaming branch: `H2OTextIteratorStreamer(
  tokenizer, skip_prompt=True, ...)`, `gen_kwargs.update(dict(streamer=streamer))`, `EThread(target=
  wrapped_partial(generate_with_exceptions, model.generate, **gen_kwargs), ...)`, `for new_text in streamer:`).
  src/gpt_langchain.py (the LangChain pipeline's keywords: `gen_kwargs = dict(do_sample=..., num_beams=...,
  max_new_tokens=..., min_new_tokens=..., early_stopping=..., max_time=..., repetition_penalty=...,
  num_return_sequences=..., return_full_text=..., handle_long_generation=None)`, then the same `if attention_sinks:
  from transformers import SinkCache`, `cache = SinkCache(**sink_dict)`, `gen_kwargs.update(dict(past_key_values=
  cache))`).
Reduced: `min_new_tokens` also in the config keywords (the oracle's random models), no Gradio, LangChain, LoRA or prompt templates; a plain `threading.Thread` and `TextIteratorStreamer`, one
stop-word criterion, greedy decoding.
"""

import threading

import torch
from transformers import (AutoModelForCausalLM, AutoTokenizer, GenerationConfig, StoppingCriteria,
                          StoppingCriteriaList, TextIteratorStreamer)

base_model = "h2oai/h2ogpt-4096-llama2-7b-chat"
tokenizer = AutoTokenizer.from_pretrained(base_model)
model = AutoModelForCausalLM.from_pretrained(base_model).eval()


class StoppingCriteriaSub(StoppingCriteria):
    def __init__(self, stop_ids):
        super().__init__()
        self.stop_ids = stop_ids

    def __call__(self, input_ids, scores, **kwargs):
        return input_ids[0, -1].item() in self.stop_ids


def evaluate(input_ids, max_new_tokens=4, min_new_tokens=4, use_cache=None, attention_sinks=False, sink_dict=None,
             max_input_tokens=64):
    if use_cache is None:
        use_cache = False if "falcon" in base_model else True
    gen_config_kwargs = dict(num_beams=1,
                             do_sample=False,
                             repetition_penalty=1.07,
                             num_return_sequences=1,
                             renormalize_logits=True,
                             remove_invalid_values=True,
                             use_cache=use_cache,
                             max_new_tokens=max_new_tokens,
                             min_new_tokens=min_new_tokens)
    for token_id in ["eos_token_id", "pad_token_id", "bos_token_id"]:
        if getattr(tokenizer, token_id, None) is not None:
            gen_config_kwargs.update({token_id: getattr(tokenizer, token_id)})
    generation_config = GenerationConfig(**gen_config_kwargs)  # clean: hg_generation_config

    gen_kwargs = dict(input_ids=input_ids,
                      generation_config=generation_config,
                      return_dict_in_generate=True,
                      output_scores=True,
                      max_new_tokens=max_new_tokens,
                      min_new_tokens=min_new_tokens,
                      early_stopping=False,
                      max_time=60,
                      stopping_criteria=StoppingCriteriaList([StoppingCriteriaSub([99999])]))
    if use_cache and attention_sinks:
        from transformers import SinkCache  # site: hg_sink_cache
        sink_dict = dict(sink_dict or {})
        sink_dict["window_length"] = sink_dict.get("window_length", max_input_tokens)
        sink_dict["num_sink_tokens"] = sink_dict.get("num_sink_tokens", 4)
        cache = SinkCache(**sink_dict)  # observe: hg_sink_cache
        gen_kwargs.update(dict(past_key_values=cache))

    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
    gen_kwargs.update(dict(streamer=streamer))
    result = {}

    def target():
        result["out"] = model.generate(**gen_kwargs)  # clean: hg_thread_generate

    thread = threading.Thread(target=target)
    thread.start()
    outputs = ""
    for new_text in streamer:
        outputs += new_text
    thread.join()
    return outputs, result["out"]


def get_llm_gen_kwargs(max_new_tokens=4, min_new_tokens=4, attention_sinks=False, sink_dict=None,
                       max_input_tokens=64):
    gen_kwargs = dict(do_sample=False,
                      num_beams=1,
                      max_new_tokens=max_new_tokens,
                      min_new_tokens=min_new_tokens,
                      early_stopping=False,
                      max_time=60,
                      repetition_penalty=1.07,
                      num_return_sequences=1,
                      return_full_text=False,
                      handle_long_generation=None)
    if attention_sinks:
        from transformers import SinkCache  # site: hg_langchain_sink
        sink_dict = dict(sink_dict or {})
        sink_dict["window_length"] = sink_dict.get("window_length", max_input_tokens)
        sink_dict["num_sink_tokens"] = sink_dict.get("num_sink_tokens", 4)
        cache = SinkCache(**sink_dict)  # observe: hg_langchain_sink
        gen_kwargs.update(dict(past_key_values=cache))
    return gen_kwargs


prompt = tokenizer("hello there how are you", return_tensors="pt").input_ids


def probe_stream():
    _, out = evaluate(prompt)
    assert out.sequences.shape[1] == prompt.shape[1] + 4
    assert len(out.scores) == 4


def probe_no_cache():
    _, out = evaluate(prompt, use_cache=False)
    assert out.sequences.shape[1] == prompt.shape[1] + 4


def probe_langchain_sinks():
    gen_kwargs = get_llm_gen_kwargs(attention_sinks=True)
    assert "past_key_values" in gen_kwargs


def probe_attention_sinks():
    _, out = evaluate(prompt, attention_sinks=True, sink_dict=dict(window_length=32))
    assert out.sequences.shape[1] == prompt.shape[1] + 4
