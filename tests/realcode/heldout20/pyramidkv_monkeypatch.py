"""PyramidKV's LongBench runner: `replace_llama(method)` swaps the forward of Llama's attention classes
(`LlamaAttention`, `LlamaFlashAttention2`, `LlamaSdpaAttention`) for the method's own, which compresses the prompt's
keys and values per layer before writing them to the cache; some methods also replace
`LlamaForCausalLM.prepare_inputs_for_generation` with a copy of 4.4x's that resets every layer's `kv_seq_len` when
`len(past_key_values.key_cache) == 0`; the "FullKV" baseline patches nothing and calls `model.generate` with
`max_new_tokens`, `min_length = context_length + 1` and a list of EOS ids.

Provenance (mechanisms read; this code is written here, not copied):
- Zefan-Cai/PyramidKV @5d4e2e1ca4c339620a4ddbf545ac9df66c5e8352
  pyramidkv/monkeypatch.py (`replace_llama`: `transformers.models.llama.modeling_llama.LlamaAttention.forward =
  llama_attn_forward_PyramidKV`, then `...LlamaFlashAttention2.forward = ...`; the minference branch:
  `LlamaForCausalLM.prepare_inputs_for_generation = prepare_inputs_for_generation_llama_new`),
  pyramidkv/llama_model.py (`llama_attn_forward_PyramidKV`: `query_states.view(bsz, q_len, self.num_heads,
  self.head_dim)`; `prepare_inputs_for_generation_llama_new`: `if not isinstance(past_key_values, tuple): if
  len(past_key_values.key_cache) == 0:` reset `layer.self_attn.kv_seq_len = 0`, then the 4.4x slicing through
  `cache_position`), run_longbench.py (the per-layer `self_attn.config.window_size` / `max_capacity_prompt` writes,
  `model.generate(**tokenized_prompts, max_new_tokens=..., num_beams=1, do_sample=False, temperature=1.0,
  min_length=context_length+1, eos_token_id=[tokenizer.eos_token_id])`).
Reduced: the attention replacement keeps its projections and head split only (the compression and cache write come
after the line every release stops at); the prepare hook keeps its reset and the 4.4x slicing; one prompt.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM
from transformers.models.llama import modeling_llama

model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
model.eval()
ORIGINAL_ATTENTION = modeling_llama.LlamaAttention.forward
ORIGINAL_PREPARE = modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation


def llama_attn_forward_PyramidKV(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                                 output_attentions=False, use_cache=False, cache_position=None,
                                 position_embeddings=None, **kwargs):
    bsz, q_len, _ = hidden_states.size()
    query_states = self.q_proj(hidden_states)
    query_states = query_states.view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)  # site: pk_num_heads
    raise NotImplementedError("compression not reduced")


def prepare_inputs_for_generation_llama_new(self, input_ids, past_key_values=None, attention_mask=None,
                                            inputs_embeds=None, cache_position=None, position_ids=None,
                                            use_cache=True, **kwargs):
    if not isinstance(past_key_values, tuple):
        if len(past_key_values.key_cache) == 0:  # site: pk_key_cache
            for layer in self.model.layers:
                layer.self_attn.kv_seq_len = 0
    if past_key_values is not None:
        if input_ids.shape[1] != cache_position.shape[0]:
            input_ids = input_ids[:, cache_position]
    return {"input_ids": input_ids, "position_ids": position_ids, "cache_position": cache_position,
            "past_key_values": past_key_values, "use_cache": use_cache, "attention_mask": attention_mask}


def replace_llama(method):
    if method == "pyramidkv":
        transformers.models.llama.modeling_llama.LlamaAttention.forward = llama_attn_forward_PyramidKV
        transformers.models.llama.modeling_llama.LlamaFlashAttention2.forward = llama_attn_forward_PyramidKV  # site: pk_flash_class
    elif method == "minference":
        transformers.models.llama.modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation = prepare_inputs_for_generation_llama_new


def configure_layers(model, window_size=8, max_capacity_prompt=16):
    for i in range(len(model.model.layers)):
        model.model.layers[i].self_attn.config.window_size = window_size
        model.model.layers[i].self_attn.config.max_capacity_prompt = max_capacity_prompt


def run_longbench(model, tokenized_prompts, method, output_max_len=3):
    if method != "FullKV":
        configure_layers(model)
    context_length = tokenized_prompts["input_ids"].shape[-1]
    output = model.generate(  # clean: pk_generate
        **tokenized_prompts,
        max_new_tokens=output_max_len,
        num_beams=1,
        do_sample=False,
        temperature=1.0,
        min_length=context_length + 1,
        eos_token_id=[2],
    )
    return output[0][context_length:]


tokenized_prompts = {"input_ids": torch.tensor([[1, 45, 46, 47, 48, 49]]),
                     "attention_mask": torch.ones(1, 6, dtype=torch.long)}


def probe_full_kv():
    model.generation_config.min_new_tokens = 3
    assert len(run_longbench(model, tokenized_prompts, "FullKV")) == 3


def probe_replace_pyramidkv():
    try:
        replace_llama("pyramidkv")
    finally:
        modeling_llama.LlamaAttention.forward = ORIGINAL_ATTENTION


def probe_pyramidkv_attention():
    modeling_llama.LlamaAttention.forward = llama_attn_forward_PyramidKV
    try:
        model.generation_config.min_new_tokens = 3
        run_longbench(model, tokenized_prompts, "pyramidkv")
    finally:
        modeling_llama.LlamaAttention.forward = ORIGINAL_ATTENTION


def probe_minference_prepare():
    replace_llama("minference")
    try:
        model.generation_config.min_new_tokens = 3
        assert len(run_longbench(model, tokenized_prompts, "minference")) == 3
    finally:
        modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation = ORIGINAL_PREPARE
