"""InternLM's PAL agent and chat demo (InternLM/InternLM) stream tokens with their own copy of generate's sampling
loop: `model_kwargs = generation_config.update(**kwargs)`, logits processors from the private
`model._get_logits_processor(...)`, stopping criteria from `model._get_stopping_criteria(...)` and warpers from
`model._get_logits_warper(generation_config)`; each step calls `model.prepare_inputs_for_generation(input_ids,
**model_kwargs)`, runs `model(**model_inputs, return_dict=True, ...)`, appends the next token and carries the cache
forward with `model_kwargs = model._update_model_kwargs_for_generation(outputs, model_kwargs,
is_encoder_decoder=False)`, yielding the decoded response after every token.

Provenance (mechanisms read; this code is written here, not copied):
- InternLM/InternLM @fe4c2eb273c61886d335524d4895a55331bb171b
  agent/pal_inference.py (generate_interactive: `copy.deepcopy(generation_config)`, `model_kwargs =
  generation_config.update(**kwargs)`, `max_length = max_new_tokens + input_ids_seq_length`,
  `model._get_logits_processor(generation_config=..., input_ids_seq_length=..., encoder_input_ids=input_ids,
  prefix_allowed_tokens_fn=..., logits_processor=...)`, `model._get_stopping_criteria(generation_config=...,
  stopping_criteria=...)`, `model._get_logits_warper(generation_config)`, the while loop with
  `prepare_inputs_for_generation`, the forward, `_update_model_kwargs_for_generation(outputs, model_kwargs,
  is_encoder_decoder=False)`, `unfinished_sequences`, `tokenizer.decode`), chat/web_demo.py (sets
  `generation_config._eos_token_tensor = generation_config.eos_token_id` itself; the same loop without stopping
  criteria, warper or `_update_model_kwargs_for_generation`: every step re-runs the whole sequence).
Reduced: InternLM2 (remote code) replaced by Llama; greedy; the set-up of the processors split from the loop so the
loop's probes are reached whatever the set-up does (the PAL loop's probe brings its own max-length criterion); a
fixed number of steps (min_new_tokens in the config; the web demo's stream taken three tokens at a time).
"""

import copy
from itertools import islice

import torch
from torch import nn
from transformers import AutoModelForCausalLM, AutoTokenizer, LogitsProcessorList, MaxLengthCriteria, StoppingCriteriaList

tokenizer = AutoTokenizer.from_pretrained("internlm/internlm2-chat-7b")
model = AutoModelForCausalLM.from_pretrained("internlm/internlm2-chat-7b")


def prepare(prompt, generation_config=None, **kwargs):
    inputs = tokenizer([prompt], padding=True, return_tensors="pt")
    input_ids = inputs["input_ids"]
    if generation_config is None:
        generation_config = model.generation_config
    generation_config = copy.deepcopy(generation_config)
    model_kwargs = generation_config.update(**kwargs)  # clean: il_config_update
    generation_config.max_length = generation_config.max_new_tokens + input_ids.shape[-1]
    return input_ids, generation_config, model_kwargs


def logits_processors(generation_config, input_ids):
    return model._get_logits_processor(generation_config=generation_config,  # clean: il_logits_processor
                                       input_ids_seq_length=input_ids.shape[-1], encoder_input_ids=input_ids,
                                       prefix_allowed_tokens_fn=None, logits_processor=LogitsProcessorList())


def pal_stopping(generation_config):
    return model._get_stopping_criteria(generation_config=generation_config,  # site: il_stopping
                                        stopping_criteria=StoppingCriteriaList())


def web_demo_config(generation_config):
    generation_config._eos_token_tensor = generation_config.eos_token_id  # clean: il_eos_tensor
    return generation_config


def warpers(generation_config):
    return model._get_logits_warper(generation_config)  # site: il_logits_warper


@torch.inference_mode()
def stream(input_ids, generation_config, model_kwargs, logits_processor, stopping_criteria, carry_cache=True):
    input_length = input_ids.shape[1]
    eos_token_id = generation_config.eos_token_id
    eos_token_id = [eos_token_id] if isinstance(eos_token_id, int) else list(eos_token_id or [])
    unfinished_sequences = input_ids.new(input_ids.shape[0]).fill_(1)
    while True:
        model_inputs = model.prepare_inputs_for_generation(input_ids, **model_kwargs)  # clean: il_prepare
        outputs = model(**model_inputs, return_dict=True, output_attentions=False, output_hidden_states=False)  # clean: il_forward
        next_token_scores = logits_processor(input_ids, outputs.logits[:, -1, :])
        probs = nn.functional.softmax(next_token_scores, dim=-1)
        next_tokens = torch.argmax(probs, dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        if carry_cache:
            model_kwargs = model._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=False)  # site: il_carry_cache
        unfinished_sequences = unfinished_sequences.mul(min(next_tokens != i for i in eos_token_id).long())
        yield tokenizer.decode(input_ids[0].tolist()[input_length:]), input_ids, model_kwargs
        if unfinished_sequences.max() == 0 or (stopping_criteria is not None and stopping_criteria(input_ids, None).all()):
            break


def probe_warpers():
    _, config, _ = prepare("hello there", max_new_tokens=3, min_new_tokens=3)
    warpers(config)


def probe_pal_stopping():
    _, config, _ = prepare("hello there", max_new_tokens=3, min_new_tokens=3)
    pal_stopping(config)


def probe_web_demo_stream():
    input_ids, config, model_kwargs = prepare("hello there friend", max_new_tokens=3, min_new_tokens=3)
    config = web_demo_config(config)
    logits_processor = logits_processors(config, input_ids)
    steps = list(islice(stream(input_ids, config, model_kwargs, logits_processor, None, carry_cache=False), 3))
    assert steps[-1][1].shape[1] == input_ids.shape[1] + 3


def probe_pal_stream():
    input_ids, config, model_kwargs = prepare("hello there friend", max_new_tokens=3, min_new_tokens=3)
    logits_processor = logits_processors(config, input_ids)
    stopping_criteria = StoppingCriteriaList([MaxLengthCriteria(max_length=config.max_length)])
    steps = list(stream(input_ids, config, model_kwargs, logits_processor, stopping_criteria))
    final_ids, final_kwargs = steps[-1][1], steps[-1][2]
    cache = final_kwargs.get("past_key_values", final_kwargs.get("cache"))
    assert final_ids.shape[1] == input_ids.shape[1] + 3
    assert cache.get_seq_length() == final_ids.shape[1] - 1, (  # observe: il_carry_cache
        "il_carry_cache: every step fed the whole sequence again onto the carried cache")
