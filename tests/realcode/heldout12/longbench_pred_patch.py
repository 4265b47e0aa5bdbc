"""LongBench (THUDM/LongBench, long-context benchmark), its prediction script: `load_model_and_tokenizer` loads
chatglm/internlm/xgen with `AutoModelForCausalLM.from_pretrained(path, ..., torch_dtype=torch.bfloat16)` and, for
llama2, first calls `replace_llama_attn_with_flash_attn()`, which sets
`transformers.models.llama.modeling_llama.LlamaModel._prepare_decoder_attention_mask` and
`LlamaAttention.forward` to its own versions (the forward takes `past_key_value`, reads
`past_key_value[0].shape[-2]`, concatenates the cached keys and returns `(key_states, value_states)`); `get_pred`
truncates the prompt in the middle and calls `model.generate(**input, max_new_tokens=max_gen, num_beams=1,
do_sample=False, temperature=1.0)`, for samsum with `min_length=context_length+1` and two end ids.

Provenance (mechanisms read; this code is written here, not copied):
- THUDM/LongBench @c5ea10bcd06285223c58dfed76bbc92d22273709
  LongBench/pred.py (get_pred's truncation and both generate calls, load_model_and_tokenizer),
  LongBench/llama_flash_attn_monkey_patch.py (forward's signature and its token-by-token branch,
  replace_llama_attn_with_flash_attn).
Reduced: no flash-attn varlen path (the patched forward keeps its non-flash branch), no datasets, tokenizer or
multiprocessing; token ids in, token ids out; `_prepare_decoder_attention_mask` passes the mask through.
"""

import math

import torch
import transformers
from torch import nn
from transformers import AutoModelForCausalLM, LlamaForCausalLM


def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
            output_attentions=False, use_cache=False):  # site: lb_attention_patch
    bsz, q_len, _ = hidden_states.size()
    query_states = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    if past_key_value is not None:
        key_states = torch.cat([past_key_value[0], key_states], dim=2)
        value_states = torch.cat([past_key_value[1], value_states], dim=2)
    past_key_value = (key_states, value_states) if use_cache else None
    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).reshape(bsz, q_len, -1)
    return self.o_proj(attn_output), None, past_key_value


def _prepare_decoder_attention_mask(self, attention_mask, input_shape, inputs_embeds, past_key_values_length):
    return attention_mask


def replace_llama_attn_with_flash_attn():
    transformers.models.llama.modeling_llama.LlamaModel._prepare_decoder_attention_mask = _prepare_decoder_attention_mask
    transformers.models.llama.modeling_llama.LlamaAttention.forward = forward


def load_model_and_tokenizer(path, model_name):
    if "chatglm" in model_name or "internlm" in model_name or "xgen" in model_name:
        model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.bfloat16)  # clean: lb_load_auto
    elif "llama2" in model_name:
        replace_llama_attn_with_flash_attn()
        model = LlamaForCausalLM.from_pretrained(path, torch_dtype=torch.bfloat16)
    model = model.eval()
    model.generation_config.min_new_tokens = 4
    return model


def get_pred(model, input_ids, max_length, max_gen, dataset, eos_token_id=2, newline_id=13):
    if input_ids.shape[-1] > max_length:
        half = int(max_length / 2)
        input_ids = torch.cat([input_ids[:, :half], input_ids[:, -half:]], dim=-1)
    input = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
    context_length = input["input_ids"].shape[-1]
    if dataset == "samsum":
        output = model.generate(**input, max_new_tokens=max_gen, num_beams=1, do_sample=False, temperature=1.0,  # clean: lb_generate_samsum
                                min_length=context_length + 1, eos_token_id=[eos_token_id, newline_id])[0]
    else:
        output = model.generate(**input, max_new_tokens=max_gen, min_new_tokens=max_gen, num_beams=1, do_sample=False, temperature=1.0)[0]  # observe: lb_attention_patch
    return output[context_length:]


document = torch.arange(3, 43).view(1, -1)


def probe_chatglm_samsum():
    model = load_model_and_tokenizer("THUDM/chatglm2-6b", "chatglm2-6b")
    pred = get_pred(model, document, max_length=32, max_gen=4, dataset="samsum")
    assert pred.shape[0] == 4


def probe_llama2_qasper():
    model = load_model_and_tokenizer("meta-llama/Llama-2-7b-chat-hf", "llama2-7b-chat-4k")
    pred = get_pred(model, document, max_length=32, max_gen=4, dataset="qasper")
    assert pred.shape[0] == 4
