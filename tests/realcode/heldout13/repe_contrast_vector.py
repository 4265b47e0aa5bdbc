"""Representation Engineering's contrast-vector control: `ContrastVecLlamaForCausalLM` rebuilds a Llama whose inner
model's forward is replaced (`self.model.forward = partial(forward_contrast_vector, self.model)`), turns off generate's
keyword validation (`self._validate_model_kwargs = partial(_always_true, self)`) so the control keywords (`alpha`,
`contrast_tokens`, `compute_contrast`) reach the forward, and decodes with its own greedy search whose output is a
`GreedySearchDecoderOnlyOutput`. The replaced forward handles the cache the 4.3x way: a non-`Cache` past is converted
with `DynamicCache.from_legacy_cache`, its length read with `get_usable_length(seq_length)`, and the new cache
handed back with `to_legacy_cache()` when the caller passed a legacy one; contrast mode asks for `use_cache=False`.

Provenance (mechanisms read; this code is written here, not copied):
- andyzoujm/representation-engineering @5455d8a375d5fb1cb191f9ebcd089b7c21e9a31e
  repe/rep_control_contrast_vec.py (imports `from transformers.cache_utils import Cache, DynamicCache` and `from
  transformers.generation import GreedySearchDecoderOnlyOutput`; `contrast_greedy_search` asserting `not
  compute_contrast or not model_kwargs.get('use_cache', False)` and returning `GreedySearchDecoderOnlyOutput(sequences=
  ..., past_key_values=model_kwargs.get("past_key_values"))`; `forward_contrast_vector`: `if use_cache:
  use_legacy_cache = not isinstance(past_key_values, Cache)`, `past_key_values = DynamicCache.from_legacy_cache(
  past_key_values)`, `past_key_values_length = past_key_values.get_usable_length(seq_length)`, the layers run with
  `past_key_value=past_key_values`, `next_cache = next_decoder_cache.to_legacy_cache() if use_legacy_cache else
  next_decoder_cache`; `ContrastVecMistralForCausalLM.__init__` / `ContrastVecLlamaForCausalLM` patching
  `self.model.forward`, `self.greedy_search = partial(contrast_greedy_search, self)` and `self._validate_model_kwargs`, and a `forward(..., **repe_kwargs)`
  handing the control keywords to `self.model`).
Reduced: the greedy search reduced to its loop (no streamer, scores or stopping criteria), the layer loop delegated
to LlamaModel's own forward, the contrast step replaced by adding `alpha` times a
fixed direction to the last hidden state, the cache handling split into three helpers (each reached by its own
probe), the output class imported where the greedy search builds it (the module-level import would stop every
probe on 5.x).
"""

from functools import partial

import torch
from transformers import AutoConfig
from transformers.cache_utils import Cache, DynamicCache
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.models.llama.modeling_llama import LlamaForCausalLM, LlamaModel


def _as_cache(past_key_values):
    use_legacy_cache = not isinstance(past_key_values, Cache)
    if use_legacy_cache:
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: re_from_legacy
    return past_key_values, use_legacy_cache


def _past_length(past_key_values, seq_length):
    return past_key_values.get_usable_length(seq_length)  # site: re_usable_length


def _next_cache(next_decoder_cache, use_legacy_cache):
    return next_decoder_cache.to_legacy_cache() if use_legacy_cache else next_decoder_cache  # site: re_to_legacy


def forward_contrast_vector(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                            inputs_embeds=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                            return_dict=None, alpha=None, contrast_tokens=None, compute_contrast=False, **kwargs):
    use_legacy_cache = False
    if use_cache:
        past_key_values, use_legacy_cache = _as_cache(past_key_values)
        _past_length(past_key_values, input_ids.shape[1])
    outputs = LlamaModel.forward(  # clean: re_inner_forward
        self,
        input_ids=input_ids,
        attention_mask=attention_mask,
        position_ids=position_ids,
        past_key_values=past_key_values,
        use_cache=use_cache,
        return_dict=True,
    )
    if alpha is not None:
        outputs.last_hidden_state[:, -1] += alpha * self.control_direction
    if use_cache:
        outputs.past_key_values = _next_cache(outputs.past_key_values, use_legacy_cache)
    return outputs


def contrast_greedy_search(self, input_ids, logits_processor=None, stopping_criteria=None, max_length=None,
                           pad_token_id=None, eos_token_id=None, **model_kwargs):
    self.contrast_search_calls += 1
    assert not model_kwargs.get("compute_contrast", False) or not model_kwargs.get("use_cache", False)
    while max_length is None or input_ids.shape[1] < max_length:
        logits = self(input_ids=input_ids, use_cache=False, **model_kwargs).logits
        input_ids = torch.cat([input_ids, logits[:, -1:].argmax(-1)], dim=-1)
        if max_length is None:
            break
    return input_ids


def _always_true(self, *args, **kwargs):
    return True


class ContrastVecLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.model.control_direction = torch.ones(config.hidden_size)
        self.model.forward = partial(forward_contrast_vector, self.model)
        self.contrast_search_calls = 0
        self.greedy_search = partial(contrast_greedy_search, self)  # site: re_greedy_hook
        self._validate_model_kwargs = partial(_always_true, self)  # clean: re_skip_validation

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                return_dict=None, **repe_kwargs):
        outputs = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,  # clean: re_pass_cache
            use_cache=use_cache,
            **{k: v for k, v in repe_kwargs.items() if k in ("alpha", "contrast_tokens", "compute_contrast")},
        )
        logits = self.lm_head(outputs[0]).float()
        return CausalLMOutputWithPast(logits=logits, past_key_values=outputs.past_key_values)


def contrast_greedy_output(sequences, model_kwargs):
    from transformers.generation import GreedySearchDecoderOnlyOutput  # site: re_greedy_output

    return GreedySearchDecoderOnlyOutput(sequences=sequences, past_key_values=model_kwargs.get("past_key_values"))


config = AutoConfig.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
model = ContrastVecLlamaForCausalLM(config)
model.eval()
prompt = torch.tensor([[1, 14, 15, 16, 17]])


def probe_controlled_generate():
    out = model.generate(  # clean: re_generate_no_cache
        prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False, use_cache=False, alpha=0.5,
        compute_contrast=True,
    )
    assert out.shape[1] == 9


def probe_contrast_search_used():
    model.contrast_search_calls = 0
    model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False, use_cache=False, alpha=0.5,
                   compute_contrast=True)
    assert model.contrast_search_calls > 0, "re_greedy_hook: generate decoded without the contrast search"  # observe: re_greedy_hook


def probe_legacy_past():
    _as_cache(None)


def probe_past_length():
    _past_length(DynamicCache(), 5)


def probe_legacy_out():
    with torch.no_grad():
        out = model.model(input_ids=prompt, use_cache=False)
    cache = DynamicCache()
    cache.update(torch.zeros(1, 2, 5, 8), torch.zeros(1, 2, 5, 8), 0)
    assert out.last_hidden_state.shape[1] == 5
    _next_cache(cache, True)


def probe_greedy_output():
    result = contrast_greedy_output(prompt, {"use_cache": False})
    assert result.sequences.shape[1] == 5
