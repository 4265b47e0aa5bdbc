"""LongLoRA's inference scripts: `replace_llama_attn(use_flash_attn=False)` assigns the project's
`forward_noflashattn` (a 4.3x-style attention taking `past_key_value` as a `(keys, values)` tuple) to transformers'
`LlamaAttention.forward` before loading; inference.py then streams an answer with `generate(..., use_cache=True,
streamer=TextStreamer(...))`. The streaming chat script runs a greedy loop on the model's returned cache and, before
each new prompt, makes room with its copy of StreamingLLM's `StartRecentKVCache.evict_for_space`, which reads the
length from `past_key_values[0][0]` and rebuilds `[k, v]` lists of the start and recent windows `for k, v in
past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- dvlab-research/LongLoRA @d4eb344c5ccc9e91c0812a2b2aeea69070df8c33
  llama_attn_replace.py (forward_noflashattn(self, hidden_states, attention_mask=None, position_ids=None,
  past_key_value=None, output_attentions=False, use_cache=False, padding_mask=None): `kv_seq_len +=
  past_key_value[0].shape[-2]`, `key_states = torch.cat([past_key_value[0], key_states], dim=2)`, `past_key_value =
  (key_states, value_states) if use_cache else None`; replace_llama_attn: `transformers.models.llama.modeling_llama
  .LlamaAttention.forward = forward_noflashattn` when not use_flash_attn), inference.py (`replace_llama_attn(
  inference=True)` before `AutoModelForCausalLM.from_pretrained`, `model.generate(**inputs, max_new_tokens=max_gen_len,
  temperature=temperature, top_p=top_p, use_cache=use_cache, streamer=streamer)`), run_streaming_llama_longalpaca.py
  (greedy_generate: `outputs = model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)`,
  `past_key_values = outputs.past_key_values`, the argmax loop; streaming_inference: `past_key_values =
  kv_cache.evict_for_space(past_key_values, space_needed)`) and streaming_llm/kv_cache.py (StartRecentKVCache
  .evict_for_space: `seq_len = past_key_values[0][0].size(self.k_seq_dim)`, `if seq_len + num_coming <=
  self.cache_size: return past_key_values`, the `[[torch.cat([self.k_slice(k, 0, self.start_size), self.k_slice(k,
  seq_len - self.recent_size + num_coming, seq_len)], dim=self.k_seq_dim), ...] for k, v in past_key_values]`).
Reduced: the non-flash forward is cut to its cache handling (no rotary, shift or softmax details); no tokenizer
prompts, flash-attn kernels or position-shift attention; token ids in, token ids out.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer, TextStreamer


def forward_noflashattn(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,  # site: ll_noflash_forward
                        output_attentions=False, use_cache=False, padding_mask=None):
    bsz, q_len, _ = hidden_states.size()
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    kv_seq_len = key_states.shape[-2]
    if past_key_value is not None:
        kv_seq_len += past_key_value[0].shape[-2]
        key_states = torch.cat([past_key_value[0], key_states], dim=2)
        value_states = torch.cat([past_key_value[1], value_states], dim=2)
    past_key_value = (key_states, value_states) if use_cache else None
    return self.o_proj(torch.zeros_like(hidden_states)), None, past_key_value


def replace_llama_attn(use_flash_attn=True, use_full=False, inference=False):
    if not use_flash_attn:
        transformers.models.llama.modeling_llama.LlamaAttention.forward = forward_noflashattn


def slice2d(x, start, end):
    return x[:, :, start:end, ...]


class StartRecentKVCache:
    def __init__(self, start_size=4, recent_size=512, k_seq_dim=2, v_seq_dim=2):
        self.start_size = start_size
        self.recent_size = recent_size
        self.cache_size = start_size + recent_size
        self.k_seq_dim = k_seq_dim
        self.v_seq_dim = v_seq_dim
        self.k_slice = slice2d
        self.v_slice = slice2d

    def evict_for_space(self, past_key_values, num_coming):
        if past_key_values is None:
            return None
        seq_len = past_key_values[0][0].size(self.k_seq_dim)  # site: ll_evict_length
        if seq_len + num_coming <= self.cache_size:
            return past_key_values
        return [
            [
                torch.cat([self.k_slice(k, 0, self.start_size),
                           self.k_slice(k, seq_len - self.recent_size + num_coming, seq_len)], dim=self.k_seq_dim),
                torch.cat([self.v_slice(v, 0, self.start_size),
                           self.v_slice(v, seq_len - self.recent_size + num_coming, seq_len)], dim=self.v_seq_dim),
            ]
            for k, v in past_key_values
        ]


@torch.no_grad()
def greedy_generate(model, input_ids, past_key_values, max_gen_len, eos_token_id=-1):
    outputs = model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)  # clean: ll_prefill
    past_key_values = outputs.past_key_values  # clean: ll_keep_prefill
    pred_token_idx = outputs.logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
    generated_ids = [pred_token_idx.item()]
    for _ in range(max_gen_len - 1):
        outputs = model(input_ids=pred_token_idx, past_key_values=past_key_values, use_cache=True)  # clean: ll_greedy_step
        past_key_values = outputs.past_key_values  # clean: ll_keep_step
        pred_token_idx = outputs.logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
        generated_ids.append(pred_token_idx.item())
        if pred_token_idx == eos_token_id:
            break
    return past_key_values


@torch.no_grad()
def streaming_inference(model, prompts, kv_cache=None, max_gen_len=1000):
    past_key_values = None
    for input_ids in prompts:
        seq_len = input_ids.shape[1]
        if kv_cache is not None:
            space_needed = seq_len + max_gen_len
            past_key_values = kv_cache.evict_for_space(past_key_values, space_needed)
        past_key_values = greedy_generate(model, input_ids, past_key_values, max_gen_len=max_gen_len)
    return past_key_values


def build_generator(model, tokenizer, temperature=0.6, top_p=0.9, max_gen_len=4096, use_cache=True):
    def response(inputs):
        streamer = TextStreamer(tokenizer)
        output = model.generate(**inputs, max_new_tokens=max_gen_len, temperature=temperature, top_p=top_p,  # clean: ll_stream_generate
                                use_cache=use_cache, streamer=streamer)
        return output
    return response


prompts = [torch.tensor([[1, 110, 111, 112, 113]]), torch.tensor([[1, 120, 121]])]


def probe_inference():
    model = AutoModelForCausalLM.from_pretrained("Yukang/LongAlpaca-7B")
    tokenizer = AutoTokenizer.from_pretrained("Yukang/LongAlpaca-7B")
    model.generation_config.min_new_tokens = 3
    respond = build_generator(model, tokenizer, max_gen_len=3)
    inputs = tokenizer("hello how are you", return_tensors="pt")
    out = respond(inputs)
    assert out.shape[1] == inputs["input_ids"].shape[1] + 3


def probe_patched_inference():
    replace_llama_attn(use_flash_attn=False, inference=True)
    model = AutoModelForCausalLM.from_pretrained("Yukang/LongAlpaca-7B")
    with torch.no_grad():
        cache = model(prompts[0], use_cache=True).past_key_values  # observe: ll_noflash_forward
    assert cache.get_seq_length() == 5, "ll_noflash_forward: the patched attention did not fill the cache"  # observe: ll_noflash_forward


def probe_stream_roomy():
    model = AutoModelForCausalLM.from_pretrained("Yukang/LongAlpaca-7B")
    kv_cache = StartRecentKVCache(start_size=4, recent_size=64)
    cache = streaming_inference(model, prompts, kv_cache, max_gen_len=3)
    assert cache.get_seq_length() == 12



def probe_greedy():
    model = AutoModelForCausalLM.from_pretrained("Yukang/LongAlpaca-7B")
    cache = greedy_generate(model, prompts[0], None, max_gen_len=3)
    assert cache.get_seq_length() == 7
