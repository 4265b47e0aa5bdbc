"""Quest's LongBench evaluation: the prompt is split before "Answer the question"; the context is prefilled in one
forward from no cache, the question is then fed one token at a time on the returned cache, and the answer decoded
greedily in a loop that keeps `outputs.past_key_values` each step. For Llama models, load_model_and_tokenizer first
calls `enable_tuple_kv_cache_for_llama()`, which replaces the forwards of transformers' Llama classes with the
project's tuple-cache versions, `LlamaSdpaAttention` and `LlamaFlashAttention2` among the patched classes.

Provenance (mechanisms read; this code is written here, not copied):
- mit-han-lab/Quest @01c1623bf9395009520874e989e29f683203b357
  evaluation/LongBench/pred.py (get_pred: `output = model(input_ids=input.input_ids, past_key_values=None,
  use_cache=True)`, `past_key_values = output.past_key_values`, `for input_id in q_input.input_ids[0]: output =
  model(input_ids=input_id.unsqueeze(0).unsqueeze(0), past_key_values=past_key_values, use_cache=True)`, the
  decode loop `outputs = model(input_ids=pred_token_idx, past_key_values=past_key_values, use_cache=True)`, stop on
  eos; load_model_and_tokenizer: `if 'llama' in model_name.lower() ...: enable_tuple_kv_cache_for_llama()`) and
  evaluation/llama.py (old_flash_attention_2_forward: `kv_seq_len += past_key_value[0].shape[-2]`, `key_states =
  torch.cat([past_key_value[0], key_states], dim=2)`, `past_key_value = (key_states, value_states) if use_cache
  else None`; enable_tuple_kv_cache_for_llama: `...modeling_llama.LlamaAttention.forward =
  old_flash_attention_2_forward`, `...LlamaSdpaAttention.forward = ...`, `...LlamaFlashAttention2.forward = ...`).
Reduced: token ids instead of the tokenizer and dataset, no flash-attn kernels (the patched forward's body is cut to
its cache handling), no Quest attention; the model, loop and patch function keep the project's shapes.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM


def old_attention_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
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
    return hidden_states, None, past_key_value


def enable_tuple_kv_cache_for_llama():
    print("Enabling tuple KV cache for Llama")
    transformers.models.llama.modeling_llama.LlamaAttention.forward = old_attention_forward
    transformers.models.llama.modeling_llama.LlamaSdpaAttention.forward = old_attention_forward  # site: qs_sdpa_patch
    transformers.models.llama.modeling_llama.LlamaFlashAttention2.forward = old_attention_forward


def load_model(path, model_name):
    if "llama" in model_name.lower() or "longchat" in model_name.lower():
        enable_tuple_kv_cache_for_llama()
    model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32)  # clean: qs_load
    return model.eval()


@torch.no_grad()
def get_pred(model, context_ids, question_ids, max_gen, eos_token_id=2):
    output = model(input_ids=context_ids, past_key_values=None, use_cache=True)  # clean: qs_prefill
    past_key_values = output.past_key_values  # clean: qs_keep_prefill
    for input_id in question_ids[0]:
        output = model(input_ids=input_id.unsqueeze(0).unsqueeze(0), past_key_values=past_key_values, use_cache=True)  # clean: qs_question_step
        past_key_values = output.past_key_values
    pred_token_idx = output.logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
    generated_content = [pred_token_idx.item()]
    for _ in range(max_gen - 1):
        outputs = model(input_ids=pred_token_idx, past_key_values=past_key_values, use_cache=True)  # clean: qs_decode_step
        past_key_values = outputs.past_key_values
        pred_token_idx = outputs.logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
        generated_content += [pred_token_idx.item()]
        if pred_token_idx.item() == eos_token_id:
            break
    return generated_content, past_key_values


context_ids = torch.tensor([[1, 40, 41, 42, 43, 44]])
question_ids = torch.tensor([[50, 51, 52]])


def probe_eval_plain():
    model = load_model("mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b")
    content, cache = get_pred(model, context_ids, question_ids, max_gen=4, eos_token_id=-1)
    assert len(content) == 4 and cache.get_seq_length() == 12


def probe_eval_llama():
    model = load_model("lmsys/longchat-7b-v1.5-32k", "longchat-v1.5-7b-32k")
    get_pred(model, context_ids, question_ids, max_gen=4, eos_token_id=-1)
