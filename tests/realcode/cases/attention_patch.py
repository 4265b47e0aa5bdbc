"""An attention monkeypatch (a KV-eviction experiment): LlamaAttention.forward is replaced by a function written
against the 4.57 signature, which writes the cache itself."""

import torch
from transformers import AutoModelForCausalLM
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
from transformers.models.llama import modeling_llama

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])
ORIGINAL = modeling_llama.LlamaAttention.forward


def evicting_forward(self, hidden_states, position_embeddings, attention_mask=None, past_key_values=None,  # site: patch_attention_old_signature
                     cache_position=None, **kwargs):
    shape = (*hidden_states.shape[:-1], -1, self.head_dim)
    q = self.q_proj(hidden_states).view(shape).transpose(1, 2)
    k = self.k_proj(hidden_states).view(shape).transpose(1, 2)
    v = self.v_proj(hidden_states).view(shape).transpose(1, 2)
    cos, sin = position_embeddings
    q, k = modeling_llama.apply_rotary_pos_emb(q, k, cos, sin)
    if past_key_values is not None:
        k, v = past_key_values.update(k, v, self.layer_idx)
    attend = ALL_ATTENTION_FUNCTIONS.get(self.config._attn_implementation, modeling_llama.eager_attention_forward)
    out, weights = attend(self, q, k, v, attention_mask, dropout=0.0, scaling=self.scaling)
    out = out.reshape(*hidden_states.shape[:-1], -1).contiguous()
    return self.o_proj(out), weights


def wrapping_forward(self, *args, **kwargs):  # clean: patch_attention_wrapper
    return ORIGINAL(self, *args, **kwargs)


def greedy(n=4):
    return model.generate(prompt, max_new_tokens=n, min_new_tokens=n, do_sample=False)[0, -n:].tolist()


def probe_evicting():
    reference = greedy()
    modeling_llama.LlamaAttention.forward = evicting_forward  # observe: patch_attention_old_signature
    try:
        patched = greedy()
    finally:
        modeling_llama.LlamaAttention.forward = ORIGINAL
    assert patched == reference, f"patch_attention_old_signature: {patched} != {reference}"  # observe: patch_attention_old_signature


def probe_wrapper():
    reference = greedy()
    modeling_llama.LlamaAttention.forward = wrapping_forward
    try:
        patched = greedy()
    finally:
        modeling_llama.LlamaAttention.forward = ORIGINAL
    assert patched == reference
