"""Inference-Time Intervention (likenneth/honest_llama): truthfulness directions are found per attention head from
the head outputs (the input of `o_proj`, which the repository's own llama copy exposes as `self_attn.head_out`),
collected with baukit's `TraceDict` over a forward with `output_hidden_states=True`; at answer time `TraceDict(model,
layers_to_intervene, edit_output=...)` shifts the chosen heads' outputs along their directions at the last position
(`start_edit_location='lt'`) while `model.generate(input_ids, top_k=1, max_length=..., num_return_sequences=1)`
runs. The repository's llama/modeling_llama.py is a copy of transformers' Llama whose attention forward adds the
`head_out` identity before `o_proj`; ports to newer transformers swap that copy for a patched `LlamaAttention.forward`
that keeps the same hook point and updates the cache itself.

Provenance (mechanisms read; this code is written here, not copied):
- likenneth/honest_llama @c2aff68a9dce1e9cab7484cfc3141784fc05f131 utils.py (get_llama_activations_bau,
  tqa_run_answers with TraceDict edit_output, the intervention function adding `direction * alpha * std` at the last
  position), @207bb14b2c005e0593487cca8d22e072cbcb987b llama/modeling_llama.py (LlamaAttention with head_out).
Reduced: a tiny Llama from a config; the baukit TraceDict is replaced by a forward pre-hook on `o_proj` (the same
tensor); random directions; the patched attention is written for transformers 4.5x (eager attention only).
"""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM
from transformers.models.llama import modeling_llama
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

torch.manual_seed(0)
config = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, bos_token_id=1, eos_token_id=2, pad_token_id=0)
model = LlamaForCausalLM(config).eval()
num_heads, head_dim = 4, 8


def get_llama_activations(prompt):
    with torch.no_grad():
        output = model(prompt, output_hidden_states=True)  # clean: iti_hidden_states
    hidden_states = torch.stack(output.hidden_states, dim=0).squeeze()
    return hidden_states[:, -1, :]


def make_intervention(layer_directions, alpha=5.0):
    def pre_hook(module, args):
        head_output = args[0]
        b, s, _ = head_output.shape
        head_output = head_output.view(b, s, num_heads, head_dim).clone()
        for head, direction in layer_directions:
            head_output[:, -1, head, :] += alpha * direction  # clean: iti_last_position_edit
        return (head_output.view(b, s, num_heads * head_dim),)
    return pre_hook


def run_answers(prompt, interventions, max_new_tokens=3):
    handles = [model.model.layers[layer].self_attn.o_proj.register_forward_pre_hook(make_intervention(dirs))
               for layer, dirs in interventions.items()]
    try:
        return model.generate(prompt, top_k=1, max_length=prompt.shape[-1] + max_new_tokens,  # clean: iti_generate
                              num_return_sequences=1, do_sample=False)
    finally:
        for h in handles:
            h.remove()


def head_out_attention_forward(self, hidden_states, position_embeddings, attention_mask,
                               past_key_values=None, cache_position=None, **kwargs):  # site: iti_attn_patch_cache
    input_shape = hidden_states.shape[:-1]
    hidden_shape = (*input_shape, -1, self.head_dim)
    query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    cos, sin = position_embeddings
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
    if past_key_values is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_values.update(key_states, value_states, self.layer_idx, cache_kwargs)
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask[:, :, :, : key_states.shape[-2]]
    attn_weights = torch.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).contiguous()
    attn_output = attn_output.reshape(*input_shape, -1)
    attn_output = self.o_proj(self.head_out(attn_output))
    return attn_output, attn_weights


prompt = torch.tensor([[1, 60, 61, 62, 63]])
directions = {1: [(0, torch.randn(head_dim)), (3, torch.randn(head_dim))]}


def probe_activations_and_answers():
    acts = get_llama_activations(prompt)
    assert acts.shape == (3, 32)
    model.generation_config.min_new_tokens = 3
    out = run_answers(prompt, directions)
    assert out.shape == (1, 8)


def probe_patched_attention_cache():
    original = modeling_llama.LlamaAttention.forward
    for layer in model.model.layers:
        layer.self_attn.head_out = torch.nn.Identity()
    modeling_llama.LlamaAttention.forward = head_out_attention_forward
    try:
        cache = DynamicCache()
        with torch.no_grad():
            model(prompt, past_key_values=cache, use_cache=True)
        n = cache.get_seq_length()
        assert n == 5, f"iti_attn_patch_cache: the patched attention cached {n} of 5 prompt tokens"  # observe: iti_attn_patch_cache
    finally:
        modeling_llama.LlamaAttention.forward = original
