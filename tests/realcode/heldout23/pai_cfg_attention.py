"""PAI (paying more attention to the image, LALBJ/PAI): hallucination mitigation for LLaVA-style models by two
decoding-time interventions. `llama_modify` replaces the `forward` of the chosen layers' self-attention modules, one
instance at a time (`self_attn.forward = types.MethodType(llama_new_forward, self_attn)`), with a copy of the 4.36-era
LlamaAttention forward (its own `past_key_value` parameter, `past_key_value.get_usable_length(kv_seq_len, layer_idx)`,
`past_key_value.update(...)`, then the image-attention boost); and `CFGLogits`, a logits processor handed to
`generate`, runs the model a second time on an unconditional prompt with its own cache: the first call prefills
`self.uncond` with `use_cache=True`, each later call feeds `input_ids[:, -1:]` with `past_key_values=self.out.
past_key_values`, and the processor mixes the two log-probabilities with the guidance scale.

Provenance (mechanisms read; this code is written here, not copied):
- LALBJ/PAI @9bbd8bd57a0b0923f996197e4bd3e02cc10b8d58
  CFG.py (`CFGLogits(LogitsProcessor).__call__`: `if self.out is None: self.out = self.model(self.uncond,
  use_cache=True)` / `else: self.out = self.model(input_ids[:, -1:], use_cache=True, past_key_values=self.out.
  past_key_values)`, the `use_cfg` flags set on the layers around it, `self.guidance_scale * (scores -
  unconditional_logits) + unconditional_logits` with the plausibility cutoff) and attention.py (`llama_new_forward(
  self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None, output_attentions=False,
  use_cache=False)`: `self.num_heads`, `kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`,
  `cos, sin = self.rotary_emb(value_states, seq_len=kv_seq_len)`, `past_key_value.update(key_states, value_states,
  self.layer_idx, cache_kwargs)`, the `use_attn` boost of the image tokens' attention; `llama_modify(model,
  start_layer, end_layer, use_attn, alpha, use_cfg, img_start_idx, img_end_idx)` setting the flags and
  `types.MethodType(llama_new_forward, model.model.layers[i].self_attn)`) and mllm/models/shikra/shikra.py (Shikra,
  one of the models PAI evaluates: `ShikraLlamaForCausalLM(LlamaForCausalLM)` with its own `forward(self, input_ids,
  attention_mask, past_key_values, inputs_embeds, labels, use_cache, output_attentions, output_hidden_states, images,
  return_dict)` returning `CausalLMOutputWithPast(..., past_key_values=outputs.past_key_values, ...)`, and
  `prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
  **kwargs)`: `if past_key_values: input_ids = input_ids[:, -1:]`, the dict of `input_ids`, `past_key_values`,
  `use_cache`, `attention_mask`, `images`).
Reduced: Shikra's vision tower and loss dropped (its inner model is the plain LlamaModel); a text-only Llama (LLaVA-1.5's Vicuna language model; the image span is a range of prompt positions), no causal mask (the prompt's attention is
as the copy computes it), the unconditional prompt is the conditional one without its "image" positions.
"""

import math
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, LlamaForCausalLM, LogitsProcessor, LogitsProcessorList
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb


class CFGLogits(LogitsProcessor):
    def __init__(self, guidance_scale, uncond, model, start_layer=0, end_layer=2):
        self.guidance_scale = guidance_scale
        self.uncond = uncond
        self.model = model
        self.out = None
        self.start_layer, self.end_layer = start_layer, end_layer

    def __call__(self, input_ids, scores):
        scores = F.log_softmax(scores, dim=-1)
        if self.guidance_scale == 1:
            return scores
        for i in range(self.start_layer, self.end_layer):
            self.model.model.layers[i].self_attn.use_cfg = True
        if self.out is None:
            self.out = self.model(self.uncond, use_cache=True)  # clean: pa_uncond_prefill
        else:
            self.out = self.model(input_ids[:, -1:], use_cache=True, past_key_values=self.out.past_key_values)  # clean: pa_uncond_step
        for i in range(self.start_layer, self.end_layer):
            self.model.model.layers[i].self_attn.use_cfg = False
        unconditional_logits = F.log_softmax(self.out.logits[:, -1, :], dim=-1)
        cutoff = torch.log(torch.tensor(0.1)) + scores.max(dim=-1, keepdim=True).values
        out = self.guidance_scale * (scores - unconditional_logits) + unconditional_logits
        return out.masked_fill(scores < cutoff, -float("inf"))


def llama_new_forward(self, hidden_states, attention_mask=None, position_ids=None,
                      past_key_value=None,  # site: pa_patched_attention
                      output_attentions=False, use_cache=False):
    bsz, q_len, _ = hidden_states.size()
    query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
    kv_seq_len = key_states.shape[-2]
    if past_key_value is not None:
        kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)
    cos, sin = self.rotary_emb(value_states, seq_len=kv_seq_len)
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin, position_ids)
    if past_key_value is not None:
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, {"sin": sin, "cos": cos})
    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
    if self.use_attn and not self.use_cfg:
        attn_weights[:, :, -1, self.img_start_idx:self.img_end_idx] = (
            attn_weights[:, :, -1, self.img_start_idx:self.img_end_idx].abs() * self.alpha
            + attn_weights[:, :, -1, self.img_start_idx:self.img_end_idx])
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).reshape(bsz, q_len, self.hidden_size)
    return self.o_proj(attn_output), None, past_key_value


def llama_modify(model, start_layer, end_layer, use_attn, alpha, use_cfg, img_start_idx, img_end_idx):
    for i in range(start_layer, end_layer):
        attn = model.model.layers[i].self_attn
        attn.use_attn, attn.alpha, attn.use_cfg = use_attn, alpha, use_cfg
        attn.img_start_idx, attn.img_end_idx = img_start_idx, img_end_idx
        attn.forward = types.MethodType(llama_new_forward, attn)


class ShikraLlamaForCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None, labels=None,
                use_cache=None, output_attentions=None, output_hidden_states=None, images=None, return_dict=None):
        outputs = self.model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache, output_attentions=output_attentions, output_hidden_states=output_hidden_states, return_dict=True)  # clean: pa_shikra_inner
        logits = self.lm_head(outputs[0])
        return CausalLMOutputWithPast(logits=logits, past_key_values=outputs.past_key_values, hidden_states=outputs.hidden_states, attentions=outputs.attentions)  # clean: pa_shikra_output

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs):  # site: pa_shikra_prepare
        if past_key_values:  # observe: pa_shikra_prepare
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask, "images": kwargs.get("images", None)})
        return model_inputs


model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5").eval()
shikra = ShikraLlamaForCausalLM.from_pretrained("shikras/shikra-7b-delta-v1").eval()
prompt = torch.tensor([[1, 30, 31, 32, 33, 34, 35, 36]])
uncond = torch.tensor([[1, 35, 36]])


def probe_cfg():
    cfg = CFGLogits(1.5, uncond, model)
    with torch.no_grad():
        out = model.generate(prompt, logits_processor=LogitsProcessorList([cfg]), max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: pa_guided_generate
    assert out.shape == (1, 11)
    assert cfg.out.past_key_values.get_seq_length() == 5


def probe_pai():
    llama_modify(model, 0, 2, True, 0.5, False, 1, 5)
    with torch.no_grad():
        out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # observe: pa_patched_attention
    assert out.shape == (1, 11)


def probe_shikra():
    fed = []
    handle = shikra.model.embed_tokens.register_forward_hook(lambda module, args, out: fed.append(args[0].shape[1]))
    with torch.no_grad():
        out = shikra.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    handle.remove()
    assert out.shape == (1, 11)
    assert fed == [8, 1, 1], "pa_shikra_prepare: the model was not fed the prompt once, then one new token a step"  # observe: pa_shikra_prepare


def probe_shikra_forward():
    with torch.no_grad():
        first = shikra(input_ids=prompt, use_cache=True, return_dict=True)
        step = shikra(input_ids=torch.tensor([[37]]), past_key_values=first.past_key_values, use_cache=True, return_dict=True)
    assert step.past_key_values.get_seq_length() == 9
