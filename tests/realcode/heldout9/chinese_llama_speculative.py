"""Chinese-LLaMA-Alpaca-2's speculative sampling script: `speculative_sample` prepares a generation the way
generate did (its private `_prepare_model_inputs`, `_get_logits_processor` with a TypeError fallback for older
signatures, `_get_stopping_criteria`, and `_get_logits_warper` when sampling), then `_speculative_sampling` loops:
the draft model extends the prefix k tokens on its own cache (re-feeding the last accepted token when nothing was
rejected), the target model checks them in one forward on its cache, and after a rejection both caches are cut to
the valid prefix by rebuilding `(key[:, :, :n_valid, :], value[:, :, :n_valid, :])` for every `key, value` pair.

Provenance (mechanisms read; this code is written here, not copied):
- ymcui/Chinese-LLaMA-Alpaca-2 @2a334d1634c857a7f02f885026d02ac4b469479d
  scripts/inference/speculative_sample.py (_draft_model_serial_forward: `if past_key_values != None: if rejected ==
  False: output = draft_model(input_ids[:,-2:-1], past_key_values = past_key_values, use_cache=True)`, the k-step
  loop `output = draft_model(input_ids, past_key_values = past_key_values, use_cache=True)`, `past_key_values =
  output.past_key_values`; _speculative_sampling: `outputs = target_model(x[:,-(unchecked_token_count+1):],
  past_key_values=target_past_key_values, use_cache=True)` else `target_model(x, use_cache=True)`,
  `target_past_key_values = outputs.past_key_values`, the acceptance test, and on rejection `draft_past_key_values =
  [(key[:,:,:n_valid,:], value[:,:,:n_valid,:]) for key,value in draft_past_key_values]` and the same for the
  target; speculative_sample: `target_model._prepare_model_inputs(input_ids, generation_config.bos_token_id,
  model_kwargs)`, `try: target_model._get_logits_processor(generation_config=..., input_ids_seq_length=...,
  encoder_input_ids=..., prefix_allowed_tokens_fn=None, logits_processor=..., model_kwargs=..., negative_prompt_ids=...,
  negative_prompt_attention_mask=...) except TypeError: ...`, `target_model._get_stopping_criteria(...)`,
  `logits_warper=target_model._get_logits_warper(generation_config) if generation_config.do_sample else None`).
Reduced: batch 1 greedy runs, no streamer, BLOOM layout or adaptive k; generate's special-token preparation is
made by the probes that reach the loop; the rejection branch's cache cut is a helper
(`_cut_caches`) that the loop calls and a probe reaches with a fixed valid length.
"""

import copy

import torch
from transformers import AutoModelForCausalLM, GenerationConfig, LogitsProcessorList, StoppingCriteriaList


def norm_logits(x, logits, logits_processor, logits_warper, do_sample=False, cur_len=None):
    new_logits = logits[:, :]
    if len(logits_processor) > 0:
        for i in range(x.shape[1] - cur_len + 1):
            new_logits[:, i, :] = logits_processor(x[:, : cur_len + i], new_logits[:, i, :])
    if do_sample and len(logits_warper) > 0:
        for i in range(x.shape[1] - cur_len + 1):
            new_logits[:, i, :] = logits_warper(x[:, : cur_len + i], new_logits[:, i, :])
    return new_logits.softmax(dim=-1)


def sample(probs, do_sample=False):
    return torch.multinomial(probs, num_samples=1) if do_sample else torch.argmax(probs, keepdim=True).view(1, 1)


def _draft_model_serial_forward(prefix, draft_k, draft_model, logits_processor, logits_warper, do_sample=False,
                                past_key_values=None, rejected=False):
    x = prefix
    input_ids = x
    probs = None
    if past_key_values != None:  # clean: cs_cache_not_none
        if rejected == False:
            output = draft_model(input_ids[:, -2:-1], past_key_values=past_key_values, use_cache=True)  # clean: cs_refeed_last
            past_key_values = output.past_key_values
            input_ids = input_ids[:, -1:]
            probs = norm_logits(x[:, :-1], output.logits, logits_processor, logits_warper, do_sample, x.shape[1] - 1)
        else:
            input_ids = input_ids[:, -1:]
    for _ in range(draft_k):
        output = draft_model(input_ids, past_key_values=past_key_values, use_cache=True)  # observe: cs_cut_pairs
        new_probs = norm_logits(x, output.logits[:, -1:], logits_processor, logits_warper, do_sample, x.shape[1])
        next_tok = sample(new_probs[:, -1, :], do_sample=do_sample)
        past_key_values = output.past_key_values
        probs = torch.cat((probs, new_probs), dim=1) if probs != None else torch.cat((output.logits[:, :-1], new_probs), dim=1)
        input_ids = next_tok
        x = torch.cat((x, next_tok), dim=1)
    return x, probs, past_key_values


def _cut_caches(draft_past_key_values, target_past_key_values, n_valid):
    draft_past_key_values = [(key[:, :, :n_valid, :], value[:, :, :n_valid, :]) for key, value in draft_past_key_values]  # site: cs_cut_pairs
    target_past_key_values = [(key[:, :, :n_valid, :], value[:, :, :n_valid, :]) for key, value in target_past_key_values]
    return draft_past_key_values, target_past_key_values


@torch.no_grad()
def _speculative_sampling(prefix, target_model, draft_model, max_new_tokens, draft_k=2, logits_processor=None,
                          logits_warper=None, do_sample=False):
    T = prefix.shape[1] + max_new_tokens
    draft_past_key_values = None
    draft_probs = None
    target_past_key_values = None
    target_probs = None
    rejected = False
    logits_processor = logits_processor if logits_processor is not None else LogitsProcessorList()
    logits_warper = logits_warper if logits_warper is not None else LogitsProcessorList()
    while prefix.shape[1] < T:
        prefix_len = prefix.shape[1]
        x, new_draft_probs, draft_past_key_values = _draft_model_serial_forward(
            prefix, draft_k, draft_model, logits_processor, logits_warper, do_sample, draft_past_key_values, rejected)
        draft_probs = torch.concat((draft_probs, new_draft_probs), dim=1) if draft_probs != None else new_draft_probs
        if target_past_key_values != None:
            unchecked_token_count = x.shape[1] - target_probs.shape[1] - 1
            outputs = target_model(x[:, -(unchecked_token_count + 1):], past_key_values=target_past_key_values, use_cache=True)  # clean: cs_target_verify
        else:
            unchecked_token_count = x.shape[1] - prefix_len
            outputs = target_model(x, use_cache=True)
        new_target_probs = norm_logits(x, outputs.logits[:, -(unchecked_token_count + 1):], logits_processor,
                                       logits_warper, do_sample, prefix_len)
        if target_probs != None:
            target_probs = torch.cat((target_probs, new_target_probs), dim=1)
        else:
            target_probs = torch.cat((outputs.logits[:, : -(unchecked_token_count + 1)], new_target_probs), dim=1)
        target_past_key_values = outputs.past_key_values  # clean: cs_keep_target
        is_all_accept = True
        n_valid = prefix_len
        for i in range(unchecked_token_count):
            r = torch.rand(1)
            cur_token_id = x[:, prefix_len + i]
            cur_pos = prefix_len + i - 1
            if r < torch.min(torch.tensor([1.0]), target_probs[:, cur_pos, cur_token_id] / draft_probs[:, cur_pos, cur_token_id]):
                n_valid += 1
            else:
                target_new_token = sample(target_probs[:, n_valid - 1, :], do_sample=do_sample)
                is_all_accept = False
                rejected = True
                break
        n_valid = min(n_valid, T - 1)
        prefix = x[:, :n_valid]
        if is_all_accept:
            target_new_token = sample(target_probs[:, -1, :], do_sample=do_sample)
            rejected = False
        else:
            draft_probs = draft_probs[:, :n_valid, :]
            target_probs = target_probs[:, :n_valid, :]
            draft_past_key_values, target_past_key_values = _cut_caches(draft_past_key_values, target_past_key_values, n_valid)
        prefix = torch.cat((prefix, target_new_token), dim=1)
    return prefix


def speculative_sample(input_ids, target_model, draft_model, generation_config, draft_k=2, **kwargs):
    generation_config = copy.deepcopy(generation_config)
    model_kwargs = generation_config.update(**kwargs)
    generation_config.validate()
    logits_processor = LogitsProcessorList()
    stopping_criteria = StoppingCriteriaList()
    inputs_tensor, _, model_kwargs = target_model._prepare_model_inputs(input_ids, generation_config.bos_token_id, model_kwargs)
    model_kwargs["use_cache"] = generation_config.use_cache
    input_ids_seq_length = input_ids.shape[-1]
    if generation_config.max_new_tokens is not None:
        generation_config.max_length = generation_config.max_new_tokens + input_ids_seq_length
    try:
        logits_processor = target_model._get_logits_processor(
            generation_config=generation_config, input_ids_seq_length=input_ids_seq_length,
            encoder_input_ids=inputs_tensor, prefix_allowed_tokens_fn=None, logits_processor=logits_processor,
            model_kwargs=model_kwargs, negative_prompt_ids=None, negative_prompt_attention_mask=None)
    except TypeError:
        logits_processor = target_model._get_logits_processor(
            generation_config=generation_config, input_ids_seq_length=input_ids_seq_length,
            encoder_input_ids=inputs_tensor, prefix_allowed_tokens_fn=None, logits_processor=logits_processor)
    stopping_criteria = target_model._get_stopping_criteria(generation_config=generation_config, stopping_criteria=stopping_criteria)  # site: cs_stopping_criteria
    logits_warper = target_model._get_logits_warper(generation_config) if generation_config.do_sample else None  # site: cs_logits_warper
    return _speculative_sampling(prefix=input_ids, target_model=target_model, draft_model=draft_model,
                                 max_new_tokens=generation_config.max_new_tokens, draft_k=draft_k,
                                 logits_processor=logits_processor, logits_warper=logits_warper,
                                 do_sample=generation_config.do_sample)


target_model = AutoModelForCausalLM.from_pretrained("hfl/chinese-alpaca-2-7b")
draft_model = AutoModelForCausalLM.from_pretrained("hfl/chinese-alpaca-2-1.3b")
prompt = torch.tensor([[1, 90, 91, 92]])


def probe_script_setup():
    config = GenerationConfig(max_new_tokens=4, min_new_tokens=4, do_sample=False)
    speculative_sample(prompt, target_model, target_model, config, draft_k=2)


def probe_self_draft():
    # generate's own special-token preparation, which the script's copy of generate's set-up leaves out
    config = GenerationConfig(max_new_tokens=4, min_new_tokens=4, do_sample=False)
    target_model._prepare_special_tokens(config)
    out = speculative_sample(prompt, target_model, target_model, config, draft_k=2)
    assert out.shape[1] >= 8


def probe_sampling_setup():
    config = GenerationConfig(max_new_tokens=4, min_new_tokens=4, do_sample=True, temperature=0.5, top_k=40)
    target_model._prepare_special_tokens(config)
    speculative_sample(prompt, target_model, target_model, config, draft_k=2)


def probe_cut_after_reject():
    with torch.no_grad():
        x, _, draft_cache = _draft_model_serial_forward(prompt, 2, draft_model, LogitsProcessorList(), LogitsProcessorList())
        target_cache = target_model(x, use_cache=True).past_key_values
        draft_cache, target_cache = _cut_caches(draft_cache, target_cache, 5)
        _draft_model_serial_forward(x[:, :6], 1, draft_model, LogitsProcessorList(), LogitsProcessorList(),
                                    past_key_values=draft_cache, rejected=True)
