"""VibeVoice's streaming TTS generation: the language model is fed text in windows while a negative (unconditional)
copy of the prompt runs beside it for classifier-free guidance. The project drives both with its own loop over
`prepare_inputs_for_generation(input_ids, **model_kwargs)` and a forward, then advances `model_kwargs`: the positive
stream with a module-level `_update_model_kwargs_for_generation(outputs, model_kwargs, num_new_tokens=window)` that
sets the cache, the mask and `cache_position` itself, the negative stream with the model's own override, which calls
`super()._update_model_kwargs_for_generation(...)` (generate's private helper) and then patches the cache with
`_ensure_cache_has_layers` (a compatibility shim that rebuilds `layers` only where `key_cache` exists). The cache is
initialised by a helper that inspects `DynamicCache.__init__` for a `config` parameter and lets the model build it.
The ASR model of the same project generates through `generate` with its own `prepare_inputs_for_generation`, which
keeps the tokens after the cache's length when `past_key_values` is set, slices only the position ids it builds from
the attention mask, and rebuilds `cache_position` from the cache when generate sends none.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/VibeVoice @e73d1e17c3754f046352014856a922f8208fb5d3
  vibevoice/modular/modeling_vibevoice_streaming_inference.py (`MockCacheLayer`; `_ensure_cache_has_layers`:
  `setattr` of `layer_class_to_replicate` / `offloading` / `is_compileable` under `try/except AttributeError`, `if
  hasattr(cache, 'key_cache') and hasattr(cache, 'value_cache'): cache.layers = [...]`; module-level
  `_update_model_kwargs_for_generation`: `model_kwargs["past_key_values"] = _ensure_cache_has_layers(
  outputs.past_key_values)`, mask extended by `num_new_tokens`, `model_kwargs["cache_position"] =
  torch.arange(cache_pos[-1] + 1, cache_pos[-1] + num_new_tokens + 1)`; `prepare_inputs_for_generation(self,
  input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, cache_position=None, **kwargs)` slicing
  `input_ids[:, -cache_position.shape[0]:]` or `input_ids[:, cache_position]`; the override
  `_update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False, num_new_tokens=1)`
  calling `super()` then `_ensure_cache_has_layers(model_kwargs["past_key_values"])`; `_init_cache_for_generation`:
  `sig = inspect.signature(DynamicCache.__init__)`, `if 'config' in sig.parameters: return None`; `generate`: the
  positive kwargs advanced with the module function, `negative_model_kwargs = self._update_model_kwargs_for_generation(
  negative_outputs, negative_model_kwargs, is_encoder_decoder=False)`, `forward_lm` calling the language model with
  `past_key_values=` and `cache_position=`).
  vibevoice/modular/modeling_vibevoice_asr.py (`VibeVoiceASRForConditionalGeneration`: `_supports_cache_class = True`;
  `prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
  cache_position=None, position_ids=None, use_cache=True, speech_tensors=None, ...)`: `if past_key_values is not
  None:` past length from `past_key_values[0][0].shape[2]` for a tuple or `get_seq_length()`, `input_ids =
  input_ids[:, past_length:]`, position ids from the mask, `cache_position` rebuilt from the cache when None, speech
  inputs only when `cache_position[0] == 0`; the model inputs returned without the other keywords).
Reduced: one Llama stands for the text LM and the TTS LM (and the ASR decoder, whose speech encoder is left out), no
diffusion head, acoustic tokenizer or streamer, a fixed number of windows, the negative stream fed one placeholder
token per step; the ASR forward records its input length.
"""

import inspect

import torch
from transformers import AutoModelForCausalLM, LlamaForCausalLM
from transformers.cache_utils import DynamicCache

TTS_TEXT_WINDOW_SIZE = 3


def _ensure_cache_has_layers(cache):
    if cache is None:
        return cache
    for attr, default in [("layer_class_to_replicate", None), ("offloading", False), ("is_compileable", False)]:
        if not hasattr(cache, attr):
            try:
                setattr(cache, attr, default)
            except AttributeError:
                pass
    if hasattr(cache, "key_cache") and hasattr(cache, "value_cache"):  # clean: vv_probe_key_cache
        cache.layers = [(cache.key_cache[i], cache.value_cache[i]) for i in range(len(cache.key_cache))]
    return cache


def _update_model_kwargs_for_generation(outputs, model_kwargs, num_new_tokens=1):
    model_kwargs["past_key_values"] = _ensure_cache_has_layers(outputs.past_key_values)  # clean: vv_window_cache
    attention_mask = model_kwargs["attention_mask"]
    model_kwargs["attention_mask"] = torch.cat(
        [attention_mask, attention_mask.new_ones((attention_mask.shape[0], num_new_tokens))], dim=-1
    )
    cache_pos = model_kwargs["cache_position"]
    model_kwargs["cache_position"] = torch.arange(cache_pos[-1] + 1, cache_pos[-1] + num_new_tokens + 1)
    return model_kwargs


class VibeVoiceStreamingLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
                                      inputs_embeds=None, cache_position=None, **kwargs):
        model_inputs = {"cache_position": cache_position}
        if past_key_values is not None:
            model_inputs["past_key_values"] = past_key_values
            if cache_position is not None and cache_position[-1] >= input_ids.shape[1]:
                input_ids = input_ids[:, -cache_position.shape[0]:]
            elif cache_position is not None and input_ids.shape[1] != cache_position.shape[0]:
                input_ids = input_ids[:, cache_position]  # clean: vv_slice_positions
        model_inputs["input_ids"] = input_ids.clone(memory_format=torch.contiguous_format)
        if attention_mask is not None:
            model_inputs["attention_mask"] = attention_mask
        for key, value in kwargs.items():
            if key not in model_inputs:
                model_inputs[key] = value
        return model_inputs

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False,
                                            num_new_tokens=1):
        model_kwargs = super()._update_model_kwargs_for_generation(
            outputs, model_kwargs, is_encoder_decoder=is_encoder_decoder, num_new_tokens=num_new_tokens
        )
        if "past_key_values" in model_kwargs:
            model_kwargs["past_key_values"] = _ensure_cache_has_layers(model_kwargs["past_key_values"])
        return model_kwargs

    def _init_cache_for_generation(self, model_kwargs):
        sig = inspect.signature(DynamicCache.__init__)
        if "config" in sig.parameters:  # clean: vv_init_signature
            return None
        return model_kwargs.get("past_key_values")

    def forward_lm(self, input_ids=None, attention_mask=None, past_key_values=None, cache_position=None,
                   use_cache=True, **kwargs):
        outputs = self.model(  # clean: vv_forward_lm
            input_ids=input_ids,
            attention_mask=attention_mask,
            past_key_values=past_key_values,
            cache_position=cache_position,
            use_cache=use_cache,
            **kwargs,
        )
        outputs.logits = self.lm_head(outputs.last_hidden_state)
        return outputs


class VibeVoiceASRForConditionalGeneration(LlamaForCausalLM):
    _supports_cache_class = True

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, use_cache=None, cache_position=None, speech_tensors=None, **kwargs):
        self.step_lengths.append(input_ids.shape[1])
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # observe: vv_asr_hook_past
                               past_key_values=past_key_values, use_cache=use_cache, cache_position=cache_position,
                               **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,  # site: vv_asr_hook_past
                                      cache_position=None, position_ids=None, use_cache=True, speech_tensors=None,
                                      **kwargs):
        if past_key_values is not None:
            if isinstance(past_key_values, tuple):
                past_length = past_key_values[0][0].shape[2]
            else:
                past_length = past_key_values.get_seq_length()
            if input_ids is not None and input_ids.shape[1] > past_length:
                input_ids = input_ids[:, past_length:]
        if position_ids is None and attention_mask is not None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values is not None and input_ids is not None:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        if cache_position is None:
            past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0
            cache_position = torch.arange(past_seen_tokens, past_seen_tokens + input_ids.shape[1])
        model_inputs = {"input_ids": input_ids}
        model_inputs.update({"position_ids": position_ids, "cache_position": cache_position,
                             "past_key_values": past_key_values, "use_cache": use_cache,
                             "attention_mask": attention_mask})
        if cache_position is not None and len(cache_position) > 0 and cache_position[0] == 0:
            model_inputs["speech_tensors"] = speech_tensors
        return model_inputs


model = AutoModelForCausalLM.from_pretrained("microsoft/VibeVoice-Realtime-0.5B")
asr = VibeVoiceASRForConditionalGeneration(model.config)
asr.eval()
asr.step_lengths = []
lm = VibeVoiceStreamingLM(model.config)
lm.eval()


def _kwargs_for(input_ids):
    model_kwargs = {"attention_mask": torch.ones_like(input_ids), "use_cache": True}
    model_kwargs["past_key_values"] = lm._init_cache_for_generation(model_kwargs)
    model_kwargs["cache_position"] = torch.arange(input_ids.shape[1])
    return model_kwargs


@torch.no_grad()
def stream(text_ids, windows=2):
    input_ids = text_ids[:, :TTS_TEXT_WINDOW_SIZE]
    negative_ids = torch.full((1, 1), 7)
    model_kwargs = _kwargs_for(input_ids)
    negative_model_kwargs = _kwargs_for(negative_ids)
    outputs = lm.forward_lm(**lm.prepare_inputs_for_generation(input_ids, **model_kwargs))
    negative_outputs = lm.forward_lm(**lm.prepare_inputs_for_generation(negative_ids, **negative_model_kwargs))
    for window in range(1, windows + 1):
        model_kwargs = _update_model_kwargs_for_generation(outputs, model_kwargs, num_new_tokens=TTS_TEXT_WINDOW_SIZE)
        negative_model_kwargs = lm._update_model_kwargs_for_generation(  # site: vv_negative_update
            negative_outputs, negative_model_kwargs, is_encoder_decoder=False
        )
        cur = text_ids[:, window * TTS_TEXT_WINDOW_SIZE:(window + 1) * TTS_TEXT_WINDOW_SIZE]
        input_ids = torch.cat([input_ids, cur], dim=-1)
        model_inputs = lm.prepare_inputs_for_generation(input_ids, **model_kwargs)  # clean: vv_prepare_positive
        outputs = lm.forward_lm(**model_inputs)
        negative_ids = torch.cat([negative_ids, torch.full((1, 1), 7)], dim=-1)
        negative_inputs = lm.prepare_inputs_for_generation(negative_ids, **negative_model_kwargs)
        negative_outputs = lm.forward_lm(**negative_inputs)
    return input_ids, outputs.past_key_values, negative_ids, negative_outputs.past_key_values


text = torch.tensor([[11, 12, 13, 14, 15, 16, 17, 18, 19]])


def probe_positive_windows():
    input_ids, cache, _, _ = stream(text)
    assert cache.get_seq_length() == input_ids.shape[1]


def probe_negative_stream():
    _, _, negative_ids, negative_cache = stream(text)
    assert negative_cache.get_seq_length() == negative_ids.shape[1], "vv_negative_update: " + str(  # observe: vv_negative_update
        negative_cache.get_seq_length())



def probe_asr_steps():
    asr.step_lengths = []
    asr.generate(torch.tensor([[1, 25, 26, 27, 28]]), max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert all(n == 1 for n in asr.step_lengths[1:]), "vv_asr_hook_past: " + str(asr.step_lengths)  # observe: vv_asr_hook_past
