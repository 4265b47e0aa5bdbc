"""LLaMA-Omni2 (ictnlp): a speech-to-speech assistant built on Qwen2.5 (written for transformers 4.43.4). The
speech-to-speech model subclasses the causal LM; its `prepare_inputs_for_generation(self, input_ids,
past_key_values=None, inputs_embeds=None, **kwargs)` pops `speech` / `speech_lengths`, calls the parent's hook with
every argument by keyword and puts the speech back into the model inputs. Its `generate` runs
`GenerationWithTTS.generate(self, ...)`, a copy of transformers 4.43's `generate` that starts with
`self._validate_model_class()`, `self._prepare_generation_config(...)`, `self._validate_model_kwargs(...)`,
`self._validate_assistant(assistant_model)`, later `self._validate_generated_length(...)` and, for the cache,
`self._supports_default_dynamic_cache()` before a default `DynamicCache()`. The streaming speech generator
(`LLMSpeechGenerator.generate_units`) feeds projected LLM hidden states into a small Qwen2 LM with
`self.model.generate(inputs_embeds=..., max_new_tokens=M, ...)` and appends the new units' embeddings.

Provenance (mechanisms read; this code is written here, not copied):
- ictnlp/LLaMA-Omni2 @c8afa9061a9c2d2c1919f7293f5492d946869752
  llama_omni2/model/language_model/omni2_speech2s_qwen2.py (Omni2Speech2SQwen2ForCausalLM.forward: its keyword list
  with `past_key_values` and `cache_position` and no `**kwargs`, the parent forward called with
  `past_key_values=past_key_values`; Omni2Speech2SQwen2ForCausalLM.generate:
  `GenerationWithTTS.generate(self, position_ids=..., attention_mask=..., inputs_embeds=..., ...)`;
  prepare_inputs_for_generation: `super().prepare_inputs_for_generation(input_ids,
  past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)`, `inputs['speech'] = speech`);
  llama_omni2/model/speech_generator/generation.py (GenerationWithTTS.generate: the helper calls quoted above, `elif
  generation_config.cache_implementation is None and self._supports_default_dynamic_cache():` ... `DynamicCache()`);
  llama_omni2/model/speech_generator/speech_generator.py (LLMSpeechGenerator.generate_units); pyproject.toml
  (transformers==4.43.4).
Reduced: Qwen2 is a tiny Llama; the speech encoder's output is ignored by the forward (the hook only carries it),
which runs the parent's forward with its own keywords (`prepare_inputs_labels_for_speech_and_text` left out) and
returns a CausalLMOutputWithPast as the original does;
the copied generate's first checks and its cache set-up are split into helpers reached by their own probes (at
4.57.6 the first check stops the copy before the rest runs); the unit generator is greedy with M=3 and its
projection a linear layer.
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM, DynamicCache, GenerationConfig, LlamaForCausalLM
from transformers.modeling_outputs import CausalLMOutputWithPast


class Omni2Speech2SQwen2ForCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None,
                past_key_values=None,  # site: o2_forward_cache
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                speech=None, speech_lengths=None, return_dict=None, cache_position=None):
        self.step_lengths.append(input_ids.shape[1])
        out = super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                              past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache,
                              output_hidden_states=True, return_dict=return_dict)
        return CausalLMOutputWithPast(logits=out.logits, past_key_values=out.past_key_values,
                                      hidden_states=out.hidden_states)

    def prepare_inputs_for_generation(self, input_ids,
                                      past_key_values=None,
                                      inputs_embeds=None, **kwargs):
        speech = kwargs.pop("speech", None)
        speech_lengths = kwargs.pop("speech_lengths", None)
        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,
                                                       inputs_embeds=inputs_embeds, **kwargs)
        if speech is not None:
            inputs["speech"] = speech
            inputs["speech_lengths"] = speech_lengths
        return inputs


model = Omni2Speech2SQwen2ForCausalLM.from_pretrained("ICTNLP/LLaMA-Omni2-0.5B").eval()
model.step_lengths = []
unit_lm = AutoModelForCausalLM.from_pretrained("ICTNLP/cosy2_decoder").eval()
input_proj = nn.Linear(model.config.hidden_size, unit_lm.config.hidden_size)


def validate_model_class(self):
    self._validate_model_class()  # site: o2_validate_class


def validate_assistant(self, assistant_model=None):
    self._validate_assistant(assistant_model)  # site: o2_validate_assistant


def prepare_cache(self, generation_config, input_ids_length, has_default_max_length, model_kwargs):
    self._validate_generated_length(generation_config, input_ids_length, has_default_max_length)  # clean: o2_validate_length
    if generation_config.cache_implementation is None and self._supports_default_dynamic_cache():  # clean: o2_default_dynamic
        if model_kwargs.get("past_key_values") is None:
            model_kwargs["past_key_values"] = DynamicCache()
    return model_kwargs


def generate_units(tts_inputs, new_hidden_states, m=3):
    new_hidden_states = input_proj(new_hidden_states)
    tts_inputs = new_hidden_states if tts_inputs is None else torch.cat([tts_inputs, new_hidden_states], dim=0)
    with torch.no_grad():
        outputs = unit_lm.generate(inputs_embeds=tts_inputs.unsqueeze(0), do_sample=False, num_beams=1,  # clean: o2_units_generate
                                   max_new_tokens=m)
    generated_tokens = outputs[0]
    tts_inputs = torch.cat([tts_inputs, unit_lm.get_input_embeddings()(generated_tokens)], dim=0)
    return tts_inputs, generated_tokens


prompt = torch.tensor([[1, 8, 9, 10, 11]])


def probe_validate_class():
    validate_model_class(model)


def probe_validate_assistant():
    validate_assistant(model)


def probe_cache_setup():
    config = GenerationConfig(max_length=20)
    model_kwargs = prepare_cache(model, config, prompt.shape[1], False, {})
    assert isinstance(model_kwargs["past_key_values"], DynamicCache)


def probe_speech_chat():
    model.step_lengths.clear()
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), speech=torch.randn(1, 4, 8),  # observe: o2_forward_cache
                         speech_lengths=torch.tensor([4]), max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == prompt.shape[1] + 3
    assert model.step_lengths == [prompt.shape[1], 1, 1]


def probe_stream_units():
    unit_lm.generation_config.min_new_tokens = 3
    tts_inputs, units = generate_units(None, torch.randn(4, model.config.hidden_size))
    tts_inputs, more = generate_units(tts_inputs, torch.randn(2, model.config.hidden_size))
    assert units.shape[0] == 3 and more.shape[0] == 3 and tts_inputs.shape[0] == 4 + 3 + 2 + 3
