"""IndexTTS's speech-token generator: a `GPT2InferenceModel` built on `GPT2PreTrainedModel` and a GenerationMixin
wraps a GPT-2 transformer whose input is the cached conditioning (mel) embedding followed by the text; its
`prepare_inputs_for_generation(input_ids, past_key_values=None, **kwargs)` keeps only the last token `if
past_key_values:` (truthiness of whatever generate hands it), its static `_reorder_cache(past, beam_idx)` rebuilds a
legacy tuple with `index_select` per layer for beam search, and the project's vendored copy of transformers'
generation utilities imports `QuantizedCacheConfig` from `transformers.cache_utils` and asks
`self._supports_cache_class` before converting a tuple the user passed.

Provenance (mechanisms read; this code is written here, not copied):
- index-tts/index-tts @ee40fa7d6c6b8a2c7f06105f9f1e65775b74868c
  indextts/gpt/model_v2.py (`class GPT2InferenceModel(GPT2PreTrainedModel)`, `store_mel_emb`,
  `prepare_inputs_for_generation`: `if not self.kv_cache: past_key_values = None`, `if past_key_values: input_ids =
  input_ids[:, -1].unsqueeze(-1)`, position ids from the attention mask; `forward`: mel embedding concatenated to the
  text embedding when `input_ids.shape[1] != 1`, `self.transformer(inputs_embeds=emb, past_key_values=...)`;
  `_reorder_cache`: `tuple(tuple(past_state.index_select(0, beam_idx.to(past_state.device)) for past_state in
  layer_past) for layer_past in past)`; `inference_speech` calling `self.inference_model.generate(...,
  num_return_sequences=..., **hf_generate_kwargs)`), indextts/gpt/transformers_gpt2.py (`GPT2PreTrainedModel`
  deriving the vendored `GenerationMixin`) and indextts/gpt/transformers_generation_utils.py (`from
  transformers.cache_utils import (Cache, DynamicCache, EncoderDecoderCache, OffloadedCache, QuantizedCacheConfig,
  StaticCache)`; `_supports_default_dynamic_cache`: `self._supports_cache_class and "jamba" not in ...`;
  `_prepare_cache_for_generation`: `if isinstance(user_defined_cache, tuple) and
  self._supports_default_dynamic_cache(): ... DynamicCache.from_legacy_cache(user_defined_cache)`).
Reduced: transformers' own GenerationMixin instead of the vendored copy (its cache import and the tuple check kept
as two module functions: the vendored mixin's `_supports_default_dynamic_cache` method, kept on the model, would
replace transformers' own one that generate calls; the import moved into a function so the other probes run), a tiny GPT-2 with a learned mel
embedding, no conformer/perceiver conditioning, no position-embedding tables of its own.
"""

import torch
from torch import nn
from transformers import GenerationMixin, GPT2Config, GPT2Model
from transformers.modeling_outputs import CausalLMOutputWithCrossAttentions
from transformers.models.gpt2.modeling_gpt2 import GPT2PreTrainedModel


class GPT2InferenceModel(GPT2PreTrainedModel, GenerationMixin):
    def __init__(self, config, kv_cache=True):
        super().__init__(config)
        self.transformer = GPT2Model(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.kv_cache = kv_cache
        self.cached_mel_emb = None
        self.step_lengths = []
        self.post_init()

    def store_mel_emb(self, mel_emb):
        self.cached_mel_emb = mel_emb  # clean: it_store_mel

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):
        if not self.kv_cache:
            past_key_values = None
        if past_key_values:  # site: it_last_token
            input_ids = input_ids[:, -1].unsqueeze(-1)
        attention_mask = kwargs.get("attention_mask", None)
        return {
            "input_ids": input_ids,
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache"),
            "attention_mask": attention_mask,
        }

    def forward(self, input_ids=None, past_key_values=None, attention_mask=None, use_cache=None, return_dict=None,
                **kwargs):
        self.step_lengths.append(input_ids.shape[1])
        mel_len = self.cached_mel_emb.shape[1]
        if input_ids.shape[1] != 1:
            text_emb = self.embeddings(input_ids[:, mel_len:])
            mel_emb = self.cached_mel_emb.repeat_interleave(text_emb.shape[0] // self.cached_mel_emb.shape[0], 0)
            emb = torch.cat([mel_emb, text_emb], dim=1)
        else:
            emb = self.embeddings(input_ids)
        transformer_outputs = self.transformer(  # clean: it_transformer_cache
            inputs_embeds=emb,
            past_key_values=past_key_values,
            attention_mask=attention_mask,
            use_cache=use_cache,
            return_dict=True,
        )
        lm_logits = self.lm_head(transformer_outputs[0])
        return CausalLMOutputWithCrossAttentions(
            logits=lm_logits,
            past_key_values=transformer_outputs.past_key_values,  # clean: it_output_cache
        )

    @staticmethod
    def _reorder_cache(past, beam_idx):
        return tuple(
            tuple(
                past_state.index_select(0, beam_idx.to(past_state.device))  # site: it_reorder_tuple
                for past_state in layer_past
            )
            for layer_past in past
        )


def supports_default_dynamic_cache(model):
    return (
        model._supports_cache_class  # site: it_supports_cache_class
        and "jamba" not in model.__class__.__name__.lower()
    )


def _vendored_cache_imports():
    from transformers.cache_utils import (  # site: it_vendored_import
        Cache,
        DynamicCache,
        QuantizedCacheConfig,
        StaticCache,
    )
    return Cache, DynamicCache, QuantizedCacheConfig, StaticCache


config = GPT2Config(vocab_size=64, n_positions=128, n_embd=32, n_layer=2, n_head=2, use_cache=True)
inference_model = GPT2InferenceModel(config, kv_cache=True)
inference_model.eval()


def inference_speech(text_ids, num_beams=1, max_generate_length=4):
    mel_emb = torch.randn(1, 3, config.n_embd)
    inference_model.store_mel_emb(mel_emb)
    fake_inputs = torch.cat([torch.zeros(1, 3, dtype=torch.long), text_ids], dim=1)
    inference_model.step_lengths = []
    return inference_model.generate(  # clean: it_generate
        fake_inputs,
        attention_mask=torch.ones_like(fake_inputs),
        max_new_tokens=max_generate_length,
        min_new_tokens=max_generate_length,
        num_beams=num_beams,
        do_sample=False,
        pad_token_id=0,
        eos_token_id=1,
    )


def probe_greedy_tokens():
    codes = inference_speech(torch.tensor([[5, 6, 7]]))
    assert codes.shape[1] == 10


def probe_one_token_steps():
    inference_speech(torch.tensor([[8, 9, 10]]))
    assert all(n == 1 for n in inference_model.step_lengths[1:]), "it_last_token: " + str(  # observe: it_last_token
        inference_model.step_lengths)


def probe_beams():
    codes = inference_speech(torch.tensor([[11, 12, 13]]), num_beams=2)
    assert codes.shape[1] == 10


def probe_user_tuple():
    supports_default_dynamic_cache(inference_model)


def probe_vendored_import():
    _vendored_cache_imports()
