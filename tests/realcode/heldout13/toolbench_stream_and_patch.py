"""ToolBench's tool-use agent (ToolLLaMA): the inference server streams tokens with its own loop, a first full forward
then one token per step with `past_key_values=` the previous output's cache (an encoder-decoder model runs its
decoder stack by hand, `model.decoder(..., encoder_hidden_states=..., past_key_values=...)` and `model.lm_head`); the
training script swaps Llama's attention for a flash-attention forward written for the 4.3x attention signature
(`forward(self, hidden_states, attention_mask, position_ids, past_key_value, output_attentions, use_cache)`, returning
three values, asserting the cache is unused) and the mask preparation for an identity, by assignment on the
transformers classes.

Provenance (mechanisms read; this code is written here, not copied):
- OpenBMB/ToolBench @d56fdd89faf8c91fa135090b212bb9057ee5cfc2
  toolbench/inference/utils.py (`generate_stream`: `if model.config.is_encoder_decoder: encoder_output =
  model.encoder(input_ids=...)[0]`, `start_ids` from `model.generation_config.decoder_start_token_id`; `past_key_values =
  out = None`; step 0 `out = model(torch.as_tensor([input_ids]), use_cache=True)` or `model.decoder(input_ids=start_ids,
  encoder_hidden_states=encoder_output, use_cache=True)` with `logits = model.lm_head(out[0])`; later steps `model(
  input_ids=torch.as_tensor([[token]]), use_cache=True, past_key_values=past_key_values)` / the decoder with
  `past_key_values=past_key_values`; `past_key_values = out.past_key_values`; greedy when temperature is small) and
  toolbench/train/llama_flash_attn_monkey_patch.py (`forward_2(self, hidden_states, attention_mask=None,
  position_ids=None, past_key_value=None, output_attentions=False, use_cache=False)` with `assert not use_cache` and
  `assert past_key_value is None`, `_prepare_decoder_attention_mask` returning the mask, `replace_llama_attn_with_flash_
  attn()` assigning both to `transformers.models.llama.modeling_llama.LlamaModel` / `LlamaAttention`).
Reduced: greedy decoding only, no stop strings, echo or logits processors; the patched attention body reduced to the
projections and SDPA over the model's own head counts.
"""

import torch
import torch.nn.functional as F
import transformers
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM


@torch.inference_mode()
def generate_stream(model, input_ids, max_new_tokens=4):
    output_ids = list(input_ids)
    if model.config.is_encoder_decoder:
        encoder_output = model.encoder(input_ids=torch.as_tensor([input_ids]))[0]
        start_ids = torch.as_tensor([[model.generation_config.decoder_start_token_id]], dtype=torch.int64)
    past_key_values = out = None
    token = None
    for i in range(max_new_tokens):
        if i == 0:
            if model.config.is_encoder_decoder:
                out = model.decoder(input_ids=start_ids, encoder_hidden_states=encoder_output, use_cache=True)
                logits = model.lm_head(out[0])
            else:
                out = model(torch.as_tensor([input_ids]), use_cache=True)  # clean: tb_prefill
                logits = out.logits
            past_key_values = out.past_key_values  # clean: tb_keep_prefill
        else:
            if model.config.is_encoder_decoder:
                out = model.decoder(  # clean: tb_decoder_step
                    input_ids=torch.as_tensor([[token]]),
                    encoder_hidden_states=encoder_output,
                    use_cache=True,
                    past_key_values=past_key_values,
                )
                logits = model.lm_head(out[0])
            else:
                out = model(  # clean: tb_decoder_only_step
                    input_ids=torch.as_tensor([[token]]),
                    use_cache=True,
                    past_key_values=past_key_values,
                )
                logits = out.logits
            past_key_values = out.past_key_values  # clean: tb_keep_step
        token = int(torch.argmax(logits[0, -1]))
        output_ids.append(token)
    del past_key_values, out
    return output_ids


def forward_2(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
              output_attentions=False, use_cache=False):
    bsz, q_len, _ = hidden_states.size()
    heads = self.config.num_attention_heads
    query_states = self.q_proj(hidden_states).view(bsz, q_len, heads, self.head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    assert not output_attentions, "output_attentions is not supported"
    assert not use_cache, "use_cache is not supported"
    assert past_key_value is None, "past_key_value is not supported"
    key_states = key_states.repeat_interleave(heads // key_states.shape[1], dim=1)
    value_states = value_states.repeat_interleave(heads // value_states.shape[1], dim=1)
    attn_output = F.scaled_dot_product_attention(query_states, key_states, value_states, is_causal=True)
    attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1)
    return self.o_proj(attn_output), None, None


def _prepare_decoder_attention_mask(self, attention_mask, input_shape, inputs_embeds, past_key_values_length):
    return attention_mask


def replace_llama_attn_with_flash_attn():
    transformers.models.llama.modeling_llama.LlamaModel._prepare_decoder_attention_mask = (  # clean: tb_mask_patch
        _prepare_decoder_attention_mask
    )
    transformers.models.llama.modeling_llama.LlamaAttention.forward = forward_2  # site: tb_attention_patch


tool_llama = AutoModelForCausalLM.from_pretrained("ToolBench/ToolLLaMA-2-7b-v2")
flan = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-base")


def probe_stream_llama():
    assert len(generate_stream(tool_llama, [1, 40, 41, 42])) == 8


def probe_stream_t5():
    assert len(generate_stream(flan, [40, 41, 42, 1])) == 8


def probe_train_step():
    replace_llama_attn_with_flash_attn()
    model = AutoModelForCausalLM.from_pretrained("ToolBench/ToolLLaMA-2-7b-v2")
    model.train()
    batch = torch.tensor([[1, 40, 41, 42, 43]])
    loss = model(input_ids=batch, labels=batch, use_cache=False).loss  # observe: tb_attention_patch
    loss.backward()


def probe_patch_installed():
    replace_llama_attn_with_flash_attn()
    assert transformers.models.llama.modeling_llama.LlamaModel._prepare_decoder_attention_mask is (
        _prepare_decoder_attention_mask)
