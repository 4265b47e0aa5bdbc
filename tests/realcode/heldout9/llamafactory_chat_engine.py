"""LLaMA-Factory's Hugging Face chat engine: at load time `configure_kv_cache` switches `config.use_cache` on
for inference (off for training, on the text sub-config too); each request turns the generating arguments into a
`GenerationConfig` (dropping temperature and top_p when not sampling; `max_new_tokens` replacing `max_length` when
given) and calls `model.generate(inputs=..., attention_mask=..., generation_config=...)`; the streaming variant adds
a `TextIteratorStreamer` and runs `model.generate` in a thread, the caller pulling text pieces from the streamer.

Provenance (mechanisms read; this code is written here, not copied):
- hiyouga/LLaMA-Factory @ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30
  src/llamafactory/model/model_utils/kv_cache.py (configure_kv_cache: `setattr(config, "use_cache",
  model_args.use_kv_cache)` when not trainable, `setattr(config.text_config, "use_cache", ...)` if present, else
  `setattr(config, "use_cache", False)`) and src/llamafactory/chat/hf_engine.py (_process_args: `if not
  generating_args["do_sample"]: generating_args.pop("temperature", None)`, `if max_new_tokens:
  generating_args.pop("max_length", None); generating_args["max_new_tokens"] = max_new_tokens`, `gen_kwargs =
  dict(inputs=inputs, attention_mask=attention_mask, generation_config=GenerationConfig(**generating_args))`;
  _chat: `generate_output = model.generate(**gen_kwargs)`, `response_ids = generate_output[:, prompt_length:]`;
  _stream_chat: `streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=...)`,
  `gen_kwargs["streamer"] = streamer`, `thread = Thread(target=model.generate, kwargs=gen_kwargs, daemon=True)`).
Reduced: no templates, multimodal inputs, seeds or async wrappers; one user message as the prompt.
"""

from threading import Thread

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig, TextIteratorStreamer


def configure_kv_cache(config, use_kv_cache, is_trainable):
    if not is_trainable:
        setattr(config, "use_cache", use_kv_cache)  # clean: lf_config_use_cache
        if hasattr(config, "text_config"):
            setattr(config.text_config, "use_cache", use_kv_cache)
    else:
        setattr(config, "use_cache", False)


def load_model(model_name):
    config = AutoConfig.from_pretrained(model_name)
    configure_kv_cache(config, use_kv_cache=True, is_trainable=False)
    model = AutoModelForCausalLM.from_pretrained(model_name, config=config, torch_dtype=torch.float32)
    return model.eval()


def process_args(tokenizer, generating_args, message, max_new_tokens=None):
    generating_args = dict(generating_args)
    prompt_ids = tokenizer(message, return_tensors="pt").input_ids
    if not generating_args["temperature"]:
        generating_args["do_sample"] = False
    if not generating_args["do_sample"]:
        generating_args.pop("temperature", None)
        generating_args.pop("top_p", None)
    if max_new_tokens:
        generating_args.pop("max_length", None)
        generating_args["max_new_tokens"] = max_new_tokens
    gen_kwargs = dict(inputs=prompt_ids, attention_mask=torch.ones_like(prompt_ids),
                      generation_config=GenerationConfig(**generating_args))  # clean: lf_generation_config
    return gen_kwargs, prompt_ids.shape[1]


@torch.inference_mode()
def chat(model, tokenizer, generating_args, message, max_new_tokens=None):
    gen_kwargs, prompt_length = process_args(tokenizer, generating_args, message, max_new_tokens)
    generate_output = model.generate(**gen_kwargs)  # clean: lf_generate
    return generate_output[:, prompt_length:]


def stream_chat(model, tokenizer, generating_args, message, max_new_tokens=None):
    gen_kwargs, _ = process_args(tokenizer, generating_args, message, max_new_tokens)
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
    gen_kwargs["streamer"] = streamer
    thread = Thread(target=model.generate, kwargs=gen_kwargs, daemon=True)  # clean: lf_stream_thread
    thread.start()
    return streamer


model = load_model("meta-llama/Meta-Llama-3-8B-Instruct")
tokenizer = AutoTokenizer.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
generating_args = {"do_sample": True, "temperature": 0.0, "top_p": 0.7, "top_k": 50, "num_beams": 1,
                   "max_length": 1024, "repetition_penalty": 1.0, "min_new_tokens": 4}


def probe_chat():
    response_ids = chat(model, tokenizer, generating_args, "hello there", max_new_tokens=4)
    assert response_ids.shape[1] == 4 and model.config.use_cache


def probe_stream():
    streamer = stream_chat(model, tokenizer, generating_args, "hello again", max_new_tokens=4)
    pieces = list(streamer)
    assert isinstance("".join(pieces), str)
