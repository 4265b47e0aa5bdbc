"""TransMLA (converting a GQA model into multi-head latent attention): every decoder layer's `self_attn` is replaced
(`setattr(layer, "self_attn", PartialRope(layer.self_attn, ...))`) by a module that keeps the keys and values in one
shared latent head (`latent_dim = num_key_value_heads * head_dim`), absorbs the key up-projection into the query
(`einsum("bthd,hdc->bhtc")`), applies the rotary embedding to the first head's worth of latent dimensions, stores the
latent keys/values with `past_key_value.update(...)` when it has a cache, then expands the values with the value
up-projection. Its forward lists the decoder layer's 4.4x keyword arguments (`past_key_value`, `output_attentions`,
`use_cache`, `cache_position`, `position_embeddings`) and no `**kwargs`. After each conversion step the model's
perplexity is evaluated with `model(**batch, use_cache=False)`.

Provenance (mechanisms read; this code is written here, not copied):
- fxmeng/TransMLA @9c0d25458a31a8eb816362c01970fd798430b42d
  transmla/transmla/partial_rope.py (PartialRope.__init__ from the wrapped attention's config, `self.latent_dim =
  self.num_key_value_heads * self.head_dim`; forward(self, hidden_states, attention_mask=None, position_ids=None,
  past_key_value = None, output_attentions=False, use_cache=False, cache_position=None, position_embeddings=None):
  `query_states = torch.einsum("bthd,hdc->bhtc", query_states, k_up_weight)`, `key_states = key_states.view(bsz, 1,
  q_len, self.latent_dim)`, `if past_key_value is not None: ... past_key_value.update(key_states, value_states,
  self.layer_idx, cache_kwargs)`, `value_states = torch.einsum("bhtc,hgdc->bhgtd", value_states, v_up_weight)`;
  partial_rope: `setattr(layer, "self_attn", PartialRope(layer.self_attn, ...))` then `evaluate_ppl(model, ...)`),
  transmla/transmla/utils.py (evaluate_ppl: `logits = model(**batch, use_cache=False).logits`),
  transmla/transmla/transformers/mla.py (MLAAttention.forward(self, hidden_states, position_embeddings,
  attention_mask, past_key_value: Optional[Cache] = None, cache_position=None, **kwargs): `compressed_kv =
  self.kv_a_proj_with_mqa(hidden_states)`, `k_pass, k_rot = torch.split(compressed_kv, [self.kv_lora_rank,
  self.qk_rope_head_dim], dim=-1)`, `k_pass = self.kv_b_proj(self.kv_a_layernorm(k_pass))`, `if past_key_value is not
  None: ... key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx,
  cache_kwargs)`), transmla/transmla/transformers/llama/modeling_llamamla.py (LlamaMLADecoderLayer(LlamaDecoderLayer):
  `self.self_attn = MLAAttention(config, layer_idx)`, LlamaMLAModel / LlamaMLAForCausalLM over transformers' Llama
  classes; the converted checkpoint is loaded with them and generated from).
Reduced: the rotated/latent weights are built from the original projections without calibration (no PCA or
frequency folding), the rotary embedding is the stock one on the first head's dimensions, SDPA only, one batch; the
MLA model has no q LoRA and no latent layer norms (and no `LossKwargs` import), and is built from its config with
random weights instead of loading a converted checkpoint.
"""

import torch
from transformers import AutoConfig, AutoModelForCausalLM, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaModel, apply_rotary_pos_emb


class PartialRope(torch.nn.Module):
    def __init__(self, self_attn):
        super().__init__()
        self.config = self_attn.config
        self.layer_idx = self_attn.layer_idx
        self.num_attention_heads = self_attn.config.num_attention_heads
        self.num_key_value_heads = self_attn.config.num_key_value_heads
        self.head_dim = self_attn.head_dim
        self.latent_dim = self.num_key_value_heads * self.head_dim
        self.scaling = self.head_dim ** -0.5
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (self_attn.q_proj, self_attn.k_proj, self_attn.v_proj,
                                                              self_attn.o_proj)
        self.k_up_proj = torch.nn.Linear(self.latent_dim, self.num_attention_heads * self.head_dim, bias=False)
        self.v_up_proj = torch.nn.Linear(self.latent_dim, self.num_attention_heads * self.head_dim, bias=False)

    def forward(
        self,
        hidden_states,
        attention_mask=None,
        position_ids=None,
        past_key_value=None,  # site: tm_partial_rope_forward
        output_attentions=False,
        use_cache=False,
        cache_position=None,
        position_embeddings=None,
    ):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_attention_heads, self.head_dim)
        k_up_weight = self.k_up_proj.weight.view(self.num_attention_heads, self.head_dim, self.latent_dim)
        query_states = torch.einsum("bthd,hdc->bhtc", query_states, k_up_weight)
        key_states = self.k_proj(hidden_states).view(bsz, 1, q_len, self.latent_dim)
        value_states = self.v_proj(hidden_states).view(bsz, 1, q_len, self.latent_dim)
        cos, sin = position_embeddings
        q_rope, q_nope = query_states.split([self.head_dim, self.latent_dim - self.head_dim], dim=-1)
        k_rope, k_nope = key_states.split([self.head_dim, self.latent_dim - self.head_dim], dim=-1)
        q_rope, k_rope = apply_rotary_pos_emb(q_rope, k_rope, cos, sin)
        query_states = torch.cat([q_rope, q_nope], dim=-1)
        key_states = torch.cat([k_rope, k_nope], dim=-1)
        if past_key_value is not None:
            cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
        v_up_weight = self.v_up_proj.weight.view(self.num_attention_heads, self.head_dim, self.latent_dim)
        value_states = torch.einsum("bxtc,hdc->bhtd", value_states, v_up_weight)
        key_states = key_states.expand(-1, self.num_attention_heads, -1, -1)
        attn_output = torch.nn.functional.scaled_dot_product_attention(
            query_states, key_states, value_states, is_causal=q_len > 1, scale=self.scaling)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1).contiguous()
        return self.o_proj(attn_output), None


def partial_rope(model):
    for layer_idx, layer in enumerate(model.model.layers):
        setattr(layer, "self_attn", PartialRope(layer.self_attn))  # observe: tm_partial_rope_forward


def evaluate_ppl(model, batch):
    logits = model(**batch, use_cache=False).logits  # observe: tm_partial_rope_forward
    logits = logits[:, :-1, :]
    labels = batch["input_ids"][:, 1:]
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
    return float(loss.exp())


class MLAAttention(torch.nn.Module):
    def __init__(self, config, layer_idx, kv_lora_rank=32, qk_rope_head_dim=64, qk_nope_head_dim=32, v_head_dim=64):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.num_heads = config.num_attention_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.qk_nope_head_dim = qk_nope_head_dim
        self.v_head_dim = v_head_dim
        self.qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
        self.scaling = self.qk_head_dim ** -0.5
        self.q_proj = torch.nn.Linear(config.hidden_size, self.num_heads * self.qk_head_dim, bias=False)
        self.kv_a_proj_with_mqa = torch.nn.Linear(config.hidden_size, kv_lora_rank + qk_rope_head_dim, bias=False)
        self.kv_b_proj = torch.nn.Linear(kv_lora_rank, self.num_heads * (qk_nope_head_dim + v_head_dim), bias=False)
        self.o_proj = torch.nn.Linear(self.num_heads * v_head_dim, config.hidden_size, bias=False)

    def forward(
        self,
        hidden_states,
        position_embeddings,
        attention_mask,
        past_key_value=None,  # site: tm_mla_attention
        cache_position=None,
        **kwargs,
    ):
        batch_size, seq_length = hidden_states.shape[:-1]
        q_states = self.q_proj(hidden_states).view(batch_size, seq_length, -1, self.qk_head_dim).transpose(1, 2)
        q_pass, q_rot = torch.split(q_states, [self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)
        compressed_kv = self.kv_a_proj_with_mqa(hidden_states)
        k_pass, k_rot = torch.split(compressed_kv, [self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        k_pass = self.kv_b_proj(k_pass).view(batch_size, seq_length, -1, self.qk_nope_head_dim + self.v_head_dim)
        k_pass, value_states = torch.split(k_pass.transpose(1, 2), [self.qk_nope_head_dim, self.v_head_dim], dim=-1)
        k_rot = k_rot.view(batch_size, 1, seq_length, self.qk_rope_head_dim)
        cos, sin = position_embeddings
        q_rot, k_rot = apply_rotary_pos_emb(q_rot, k_rot, cos, sin)
        k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
        query_states = torch.cat((q_pass, q_rot), dim=-1)
        key_states = torch.cat((k_pass, k_rot), dim=-1)
        if past_key_value is not None:
            cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
        attn_output = torch.nn.functional.scaled_dot_product_attention(
            query_states, key_states, value_states, is_causal=seq_length > 1, scale=self.scaling)
        attn_output = attn_output.transpose(1, 2).reshape(batch_size, seq_length, -1).contiguous()
        return self.o_proj(attn_output), None


class LlamaMLADecoderLayer(LlamaDecoderLayer):
    def __init__(self, config, layer_idx):
        super().__init__(config, layer_idx)
        self.self_attn = MLAAttention(config, layer_idx)


class LlamaMLAModel(LlamaModel):
    def __init__(self, config):
        super().__init__(config)
        self.layers = torch.nn.ModuleList(
            [LlamaMLADecoderLayer(config, layer_idx) for layer_idx in range(config.num_hidden_layers)])


class LlamaMLAForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.model = LlamaMLAModel(config)


model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B").eval()
batch = {"input_ids": torch.tensor([[1, 110, 111, 112, 113, 114]])}
batch["attention_mask"] = torch.ones_like(batch["input_ids"])


def probe_converted_ppl():
    partial_rope(model)
    with torch.no_grad():
        assert evaluate_ppl(model, batch) > 0


def probe_mla_generate():
    config = AutoConfig.from_pretrained("fxmeng/TransMLA-qwen2.5-7b-deepseek")
    mla = LlamaMLAForCausalLM(config).eval()
    ids = torch.tensor([[1, 115, 116, 117, 118]])
    out = mla.generate(ids, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)
    assert out.sequences.shape == (1, 8)
    assert out.past_key_values.get_seq_length() == 7, "tm_mla_attention: the MLA attention never stored its keys"  # observe: tm_mla_attention
