"""InternVL's remote-code Phi-3 language model (modeling_phi3.py shipped with the Mini-InternVL checkpoints): its
`prepare_inputs_for_generation` is an older transformers copy that, for a Cache, reads `get_seq_length()`, the
`seen_tokens` counter and `get_max_length()`, for a legacy tuple `past_key_values[0][0].shape[2]`; it drops the
processed tokens, crops the attention mask to the maximum, narrows the position ids, and uses `inputs_embeds` on the
first step (`past_key_values is None` or `len(past_key_values) == 0`).

Provenance (mechanisms read; this code is written here, not copied):
- OpenGVLab/InternVL @2410d1dbf208f0e799459aff9376e5747dbf41a2
  internvl_chat/internvl/model/phi3/modeling_phi3.py (Phi3ForCausalLM.prepare_inputs_for_generation:
  `if isinstance(past_key_values, Cache): cache_length = past_key_values.get_seq_length()`, `past_length =
  past_key_values.seen_tokens`, `max_cache_length = past_key_values.get_max_length()`, else
  `cache_length = past_length = past_key_values[0][0].shape[2]`; the token/mask trimming; `if past_key_values:`
  position narrowing; `(inputs_embeds is not None and past_key_values is None) or (inputs_embeds is not None and
  len(past_key_values) == 0)`).
Reduced: the Phi-3 body is transformers' Phi3 (the remote file carries its own copy); the cache reads are split
into helpers (each read once) so that every one is reached.
"""

import torch
from transformers import Phi3Config, Phi3ForCausalLM as _Phi3ForCausalLM
from transformers.cache_utils import Cache, DynamicCache


def _cached_tokens(past_key_values):
    return past_key_values.get_seq_length()  # clean: p3_seq_length


def _seen_tokens(past_key_values):
    return past_key_values.seen_tokens  # site: p3_seen_tokens


def _max_cache_length(past_key_values):
    return past_key_values.get_max_length()  # site: p3_max_length


class Phi3ForCausalLM(_Phi3ForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        if past_key_values is not None:
            if isinstance(past_key_values, Cache):
                cache_length = _cached_tokens(past_key_values)
                past_length = _seen_tokens(past_key_values)
                max_cache_length = _max_cache_length(past_key_values)
            else:
                cache_length = past_length = past_key_values[0][0].shape[2]  # clean: p3_legacy_length
                max_cache_length = None
            if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
                input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
            elif past_length < input_ids.shape[1]:
                input_ids = input_ids[:, past_length:]
            if (max_cache_length is not None and attention_mask is not None
                    and cache_length + input_ids.shape[1] > max_cache_length):
                attention_mask = attention_mask[:, -max_cache_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        if (inputs_embeds is not None and past_key_values is None) or (
                inputs_embeds is not None and len(past_key_values) == 0):  # clean: p3_empty_cache_len
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                             "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
        return model_inputs


torch.manual_seed(0)
config = Phi3Config(vocab_size=320, hidden_size=128, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                    num_key_value_heads=1, bos_token_id=1, eos_token_id=2, pad_token_id=0)
model = Phi3ForCausalLM(config).eval()
prompt = torch.tensor([[1, 17, 19, 23, 29, 31]])


def probe_generate():
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3,
                         do_sample=False)
    assert out.shape == (1, 9)


def probe_max_length():
    with torch.no_grad():
        cache = model(input_ids=prompt, use_cache=True).past_key_values
    assert _max_cache_length(cache) in (None, -1)


def probe_cached_tokens():
    with torch.no_grad():
        cache = model(input_ids=prompt, use_cache=True).past_key_values
    assert _cached_tokens(cache) == 6


def probe_legacy_tuple():
    legacy = tuple((torch.zeros(1, 1, 6, 64), torch.zeros(1, 1, 6, 64)) for _ in range(2))
    inputs = model.prepare_inputs_for_generation(torch.tensor([[1, 17, 19, 23, 29, 31, 37]]), past_key_values=legacy,
                                                 attention_mask=torch.ones(1, 7, dtype=torch.long),
                                                 inputs_embeds=torch.randn(1, 7, 128))
    assert inputs["input_ids"].shape == (1, 1) and inputs["position_ids"].tolist() == [[6]]
