"""quantized-training (jeffreyyu0602): a research toolkit that quantizes LLMs and lowers them to an accelerator through
torch.export. Its llm_utils swaps every `LlamaAttention` for `LlamaAttentionKIVI` (a full attention module whose
`forward(self, hidden_states, position_embeddings, attention_mask, past_key_values=None, cache_position=None, **kwargs)`
projects, rotates and writes its keys with `past_key_values.update(key_states, value_states, self.layer_idx,
cache_kwargs)` before an eager attention), and exports the decode step with `TorchExportableModuleWithStaticCache`: a
StaticCache created with `StaticCache(max_cache_len=..., config=config)`, laid out at once with
`early_initialization(batch_size, num_heads, head_dim, dtype, device)`, each layer's `keys` / `values` registered as
`key_cache_{i}` / `value_cache_{i}` buffers, and a forward that calls the model with `past_key_values=self.static_cache`
and the caller's `cache_position`. Its `generate` prefills with the eager model, copies each
`past_key_values.layers[i].keys` / `.values` into the first `seq_length` slots of the exported module's buffers, then
decodes one token at a time with `cache_position=torch.tensor([len(response_tokens) - 1])`; without an exported module
it decodes with `model(input_ids=current_token, past_key_values=past_key_values)`.

Provenance (mechanisms read; this code is written here, not copied):
- jeffreyyu0602/quantized-training @e82e488dfdf2870dd6911c9c6731d74e2c39a804 (llm_utils.py last changed 2025-11-12)
  src/quantized_training/llm_utils.py (`generate`: `outputs = model(prompt_token_ids)`, `past_key_values =
  outputs.past_key_values`, `seq_length = past_key_values.get_seq_length()`, `for i, layer in
  enumerate(past_key_values.layers): model_decode.get_buffer(f"key_cache_{i}")[:, :, : seq_length, :] = layer.keys`,
  `model_decode(input_ids=current_token.to(device), cache_position=torch.tensor([len(response_tokens) - 1], ...))`,
  else `outputs = model(input_ids=current_token, past_key_values=past_key_values)`; `LlamaAttentionKIVI.forward`
  with `@deprecate_kwarg("past_key_value", new_name="past_key_values", version="4.58")`, `if past_key_values is not
  None: cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}; key_states, value_states =
  past_key_values.update(...)`; `swap_llama_attention` / `swap_module` with `setattr(module, name, new_attn)`;
  `TorchExportableModuleWithStaticCache.__init__` / `forward`).
Reduced: no residual (KIVI-style second) cache, no custom 4-D mask (the model builds its own), no quantizers, the
exported program is the wrapper module itself (torch.export is not run), greedy decoding with no end-of-sequence test.
"""

from typing import Optional

import torch
from torch import nn
from transformers import AutoModelForCausalLM, PreTrainedModel, StaticCache
from transformers.cache_utils import Cache
from transformers.models.llama.modeling_llama import LlamaAttention, apply_rotary_pos_emb, repeat_kv
from transformers.utils.deprecation import deprecate_kwarg


def eager_attention_forward(module, query, key, value, attention_mask, scaling, **kwargs):
    key_states = repeat_kv(key, module.num_key_value_groups)
    value_states = repeat_kv(value, module.num_key_value_groups)
    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask[:, :, :, : attn_weights.shape[-1]]
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).contiguous()
    return attn_output, attn_weights


class LlamaAttentionKIVI(nn.Module):
    def __init__(self, config, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = self.head_dim**-0.5
        self.q_proj = nn.Linear(config.hidden_size, config.num_attention_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, config.num_key_value_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, config.num_key_value_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(config.num_attention_heads * self.head_dim, config.hidden_size, bias=False)

    @deprecate_kwarg("past_key_value", new_name="past_key_values", version="4.58")
    def forward(
        self,
        hidden_states: torch.Tensor,
        position_embeddings: tuple[torch.Tensor, torch.Tensor],
        attention_mask: Optional[torch.Tensor],
        past_key_values: Optional[Cache] = None,  # site: qt_kivi_forward
        cache_position: Optional[torch.LongTensor] = None,
        **kwargs,
    ):
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
        attn_output, attn_weights = eager_attention_forward(self, query_states, key_states, value_states,
                                                            attention_mask, scaling=self.scaling)
        attn_output = self.o_proj(attn_output.reshape(*input_shape, -1).contiguous())
        return attn_output, attn_weights


def swap_llama_attention(model: PreTrainedModel) -> PreTrainedModel:
    def swap_module(module: nn.Module):
        for name, child in module.named_children():
            if isinstance(child, LlamaAttention):
                new_attn = LlamaAttentionKIVI(child.config, child.layer_idx)
                new_attn.load_state_dict(child.state_dict(), strict=True)
                setattr(module, name, new_attn)
            else:
                swap_module(child)
        return module

    return swap_module(model)


class TorchExportableModuleWithStaticCache(torch.nn.Module):
    def __init__(self, model: PreTrainedModel, batch_size: int, max_cache_len: int):
        super().__init__()
        config = model.config.get_text_config()
        self.model = model
        self.max_cache_len = max_cache_len
        self.static_cache = StaticCache(max_cache_len=max_cache_len, config=config)  # clean: qt_static_cache
        head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
        num_heads = getattr(config, "num_key_value_heads", config.num_attention_heads)
        self.static_cache.early_initialization(batch_size, num_heads, head_dim, model.dtype, model.device)  # clean: qt_early_init
        for i in range(len(self.static_cache)):
            self.register_buffer(f"key_cache_{i}", self.static_cache.layers[i].keys, persistent=False)  # clean: qt_register_keys
            self.register_buffer(f"value_cache_{i}", self.static_cache.layers[i].values, persistent=False)

    def forward(self, input_ids: torch.LongTensor, cache_position: torch.Tensor):
        outs = self.model(
            input_ids=input_ids,
            cache_position=cache_position,  # site: qt_cache_position
            past_key_values=self.static_cache,
            use_cache=True,
        )
        return outs.logits


def generate(model, prompt_token_ids, max_new_tokens, model_decode=None):
    with torch.no_grad():
        outputs = model(prompt_token_ids)  # clean: qt_prefill
        logits = outputs.logits
        past_key_values = outputs.past_key_values
    current_token = torch.argmax(logits[:, -1, :], dim=-1, keepdim=True)
    response_tokens = prompt_token_ids[0].tolist() + [current_token.item()]
    seq_length = past_key_values.get_seq_length()  # clean: qt_seq_length
    if model_decode is not None:
        for i, layer in enumerate(past_key_values.layers):  # clean: qt_layers
            model_decode.get_buffer(f"key_cache_{i}")[:, :, :seq_length, :] = layer.keys  # clean: qt_copy_keys
            model_decode.get_buffer(f"value_cache_{i}")[:, :, :seq_length, :] = layer.values
    for _ in range(1, max_new_tokens):
        with torch.no_grad():
            if model_decode is not None:
                logits = model_decode(input_ids=current_token,
                                      cache_position=torch.tensor([len(response_tokens) - 1], dtype=torch.long))
            else:
                outputs = model(input_ids=current_token, past_key_values=past_key_values)  # clean: qt_decode_step
                logits = outputs.logits
                past_key_values = outputs.past_key_values
        current_token = torch.argmax(logits[:, -1, :], dim=-1, keepdim=True)
        response_tokens.append(current_token.item())
    return torch.tensor([response_tokens], dtype=torch.long), past_key_values


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", torch_dtype=torch.float32).eval()
prompt = torch.tensor([[1, 15, 27, 39]])


def probe_eager_generate():
    tokens, cache = generate(model, prompt, 3)
    assert tokens.shape[1] == 7 and cache.get_seq_length() == 6


def probe_export_layout():
    model_decode = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=12)
    assert model_decode.get_buffer("key_cache_1").shape[2] == 12


def probe_prefill_copy():
    model_decode = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=12)
    tokens, cache = generate(model, prompt, 1, model_decode=model_decode)
    assert torch.equal(model_decode.get_buffer("value_cache_1")[:, :, :4, :], cache.layers[1].values)


def probe_exported_decode():
    model_decode = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=12)
    with torch.no_grad():
        prefill_keys = model(prompt).past_key_values.layers[0].keys
    tokens, _ = generate(model, prompt, 3, model_decode=model_decode)
    kept = model_decode.get_buffer("key_cache_0")[:, :, :4, :]
    assert tokens.shape[1] == 7
    assert torch.equal(kept, prefill_keys), "qt_cache_position: a decode step overwrote the prompt's cache slots"  # observe: qt_cache_position


def probe_kivi_generate():
    swap_llama_attention(model)
    tokens, cache = generate(model, prompt, 3)
    assert tokens.shape[1] == 7
    assert cache.get_seq_length() == 6, "qt_kivi_forward: the swapped attention did not fill the cache"  # observe: qt_kivi_forward
