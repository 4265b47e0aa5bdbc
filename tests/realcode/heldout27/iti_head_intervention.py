"""Inference-Time Intervention (likenneth/honest_llama): truthfulness directions are found per attention head from
the head-wise activations (the input of `o_proj`); the validation script builds, for every intervened layer, one
direction of `head_dim * num_heads` from the heads' centre-of-mass directions scaled by the standard deviation of the
tuning activations' projections, and wraps it as an intervener on `model.layers[L].self_attn.o_proj.input` (earlier
versions: baukit `TraceDict(..., edit_output=lt_modulated_vector_add)` on each layer's `self_attn.head_out`, adding
`alpha * proj_val_std * direction` to the chosen heads at the last position, `start_edit_location='lt'`) while the
TruthfulQA answers are generated greedily. Ports of the older `head_out` hook point to newer transformers patch
`LlamaAttention.forward` to call a `head_out` identity before `o_proj`, and then update the cache themselves.

Provenance (mechanisms read; this code is written here, not copied):
- likenneth/honest_llama @01f5f4008a0a6ae9fee0ea6ec4c329ded5e0e22c validation/validate_2fold.py (main: com
  directions, proj_val_std, the `o_proj.input` intervention config around the evaluation); the `head_out` /
  `lt_modulated_vector_add` form as the repository's earlier scripts and their forks use it.
Reduced: a tiny Llama from a config; pyvene / baukit replaced by a forward pre-hook on `o_proj` (the same tensor); random
directions; the patched attention (eager only, written for transformers 4.5x) is this case's own port of the
`head_out` hook point.
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
