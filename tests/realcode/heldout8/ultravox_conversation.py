"""Ultravox (a speech LLM: a Whisper encoder's frames stacked and projected into a Llama's embedding space): the
model is a `LlamaPreTrainedModel` + `GenerationMixin` wrapper whose forward embeds the text, merges the audio
embeddings, and hands everything, `past_key_values` and `**kwargs` included, to `self.language_model.forward`; it
forwards `_reorder_cache` to the language model. The inference class keeps a conversation: each turn generates with
`past_key_values=self.past_key_values` and `return_dict_in_generate=True`, stores `output.past_key_values` for the
next turn; the streaming path first runs the prompt (without the generation prompt) for one token, keeps a `copy.deepcopy` of that cache for the
conversation and generates from the other copy. A helper tells an empty cache from a tuple or a Cache.

Provenance (mechanisms read; this code is written here, not copied):
- fixie-ai/ultravox @648efe7f55510afff7adb45f076e904b3aba1d02
  ultravox/model/ultravox_model.py (UltravoxModel(transformers.LlamaPreTrainedModel): `_reorder_cache(self,
  past_key_values, beam_idx): return self.language_model._reorder_cache(past_key_values, beam_idx)`; forward:
  `inputs_embeds = self.get_input_embeddings().forward(input_ids)`, `_prepare_audio_embeds`, `lm_output =
  self.language_model.forward(inputs_embeds=inputs_embeds, labels=labels, attention_mask=attention_mask,
  past_key_values=past_key_values, **kwargs)`; `is_cache_empty`: `isinstance(past_key_values, tuple)` then
  `all(len(c) == 0 for c in past_key_values)`, else `past_key_values.get_seq_length() == 0`) and
  ultravox/inference/infer.py (LocalInference: `self.past_key_values = None`, `infer`: `self._generate(inputs,
  max_tokens, temperature, past_key_values=self.past_key_values)`, `self.update_conversation(past_messages,
  output.past_key_values)`; `infer_stream`: `preserved_past_key_values = copy.deepcopy(output.past_key_values)`;
  `_generate`: `self.model.generate(**inputs, **sampling_args, past_key_values=past_key_values,
  return_dict_in_generate=return_dict_in_generate)`).
Reduced: the audio tower is a linear projection of random frames written over the placeholder positions, no
processor or chat template (token ids in), greedy decoding, no streamer thread.
"""

import copy

import torch
import transformers


class UltravoxModel(transformers.LlamaPreTrainedModel, transformers.GenerationMixin):
    def __init__(self, config):
        super().__init__(config)
        self.language_model = transformers.AutoModelForCausalLM.from_config(config)
        self.projector = torch.nn.Linear(32, config.hidden_size)
        self.post_init()

    def get_input_embeddings(self):
        return self.language_model.get_input_embeddings()

    def _reorder_cache(self, past_key_values, beam_idx):
        return self.language_model._reorder_cache(past_key_values, beam_idx)  # site: uv_reorder_cache

    def forward(self, input_ids=None, audio_values=None, inputs_embeds=None, labels=None, attention_mask=None,
                audio_token_start_idx=None, past_key_values=None, **kwargs):
        if inputs_embeds is None:
            inputs_embeds = self.get_input_embeddings().forward(input_ids)
        if audio_values is not None and len(audio_values) > 0 and inputs_embeds.shape[1] > audio_values.shape[1]:
            audio_embeds = self.projector(audio_values)
            start = int(audio_token_start_idx)
            inputs_embeds = inputs_embeds.clone()
            inputs_embeds[:, start:start + audio_embeds.shape[1]] = audio_embeds
        return self.language_model.forward(inputs_embeds=inputs_embeds, labels=labels, attention_mask=attention_mask,  # clean: uv_forward_lm
                                           past_key_values=past_key_values, **kwargs)


def is_cache_empty(past_key_values):
    if past_key_values is None:
        return True
    if isinstance(past_key_values, tuple):
        return all(len(c) == 0 for c in past_key_values)
    return past_key_values.get_seq_length() == 0  # clean: uv_cache_empty


class LocalInference:
    def __init__(self, model, conversation_mode=True):
        self.model = model.eval()
        self.conversation_mode = conversation_mode
        self.past_key_values = None
        self.past_ids = None
        self.generation_prompt = torch.tensor([[5, 6]])

    def update_conversation(self, past_ids, past_key_values=None):
        self.past_ids = past_ids
        self.past_key_values = past_key_values

    @torch.inference_mode()
    def _generate(self, inputs, max_new_tokens, past_key_values=None, num_beams=1):
        return self.model.generate(**inputs, max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens,
                                   do_sample=False, num_beams=num_beams, past_key_values=past_key_values,  # clean: uv_generate
                                   return_dict_in_generate=True)

    def infer(self, new_ids, audio_values=None, max_tokens=3, num_beams=1):
        input_ids = new_ids if self.past_ids is None else torch.cat([self.past_ids, new_ids], dim=-1)
        inputs = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
        if audio_values is not None:
            inputs.update(audio_values=audio_values, audio_token_start_idx=torch.tensor(1))
        output = self._generate(inputs, max_tokens, past_key_values=self.past_key_values, num_beams=num_beams)
        if self.conversation_mode:
            self.update_conversation(output.sequences, output.past_key_values)  # clean: uv_keep_cache
        return output.sequences[0, input_ids.shape[1]:]

    def infer_stream(self, new_ids, max_tokens=3):
        input_ids = new_ids if self.past_ids is None else torch.cat([self.past_ids, new_ids], dim=-1)
        inputs = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
        output = self._generate(inputs, 1, past_key_values=self.past_key_values)
        preserved_past_key_values = copy.deepcopy(output.past_key_values)  # clean: uv_preserve_copy
        past_key_values = output.past_key_values
        prompt_ids = torch.cat([input_ids, self.generation_prompt], dim=-1)
        inputs = {"input_ids": prompt_ids, "attention_mask": torch.ones_like(prompt_ids)}
        output = self._generate(inputs, max_tokens, past_key_values=past_key_values)
        if self.conversation_mode:
            self.update_conversation(input_ids, preserved_past_key_values)
        return output.sequences[0, prompt_ids.shape[1]:]


config = transformers.AutoConfig.from_pretrained("fixie-ai/ultravox-v0_5-llama-3_2-1b")
model = UltravoxModel(config)
inference = LocalInference(model)
audio = torch.randn(1, 3, 32)


def probe_conversation():
    first = inference.infer(torch.tensor([[1, 7, 7, 7, 12, 13]]), audio_values=audio)
    assert first.shape == (3,) and not is_cache_empty(inference.past_key_values)
    second = inference.infer(torch.tensor([[14, 15]]))
    assert second.shape == (3,) and inference.past_key_values.get_seq_length() == 13


def probe_stream():
    out = inference.infer_stream(torch.tensor([[1, 21, 22, 23]]))
    assert out.shape == (3,) and inference.past_key_values.get_seq_length() == 4


def probe_beams():
    inference.infer(torch.tensor([[1, 31, 32, 33]]), max_tokens=2, num_beams=2)
