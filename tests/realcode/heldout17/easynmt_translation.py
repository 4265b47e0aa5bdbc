"""EasyNMT (UKPLab: sentence and document translation over OPUS-MT, mBART-50 and M2M-100): the OpusMT backend keeps a
small LRU of `MarianMTModel.from_pretrained('Helsinki-NLP/opus-mt-{src}-{tgt}')` models and translates a batch with
`model.generate(**inputs, num_beams=beam_size, **kwargs)` under `torch.no_grad()`; the AutoModel backend loads
`AutoModelForSeq2SeqLM.from_pretrained(model_name)`, sets the tokenizer's source language, adds
`kwargs['forced_bos_token_id']` when the tokenizer has language codes, and calls the same generate. Extra keywords
from `EasyNMT.translate(...)` (e.g. `max_length`) reach generate through `**kwargs`.

Provenance (mechanisms read; this code is written here, not copied):
- UKPLab/EasyNMT @d9db97fbd780cd8c607769e048d7bcdcff6eb709
  easynmt/models/OpusMT.py (`load_model`: `model = MarianMTModel.from_pretrained(model_name)`, `model.eval()`, the
  oldest entry evicted past `max_loaded_models`; `translate_sentences(self, sentences, source_lang, target_lang,
  device, beam_size=5, **kwargs)`: `model_name = 'Helsinki-NLP/opus-mt-{}-{}'.format(source_lang, target_lang)`,
  `translated = model.generate(**inputs, num_beams=beam_size, **kwargs)`) and easynmt/models/AutoModel.py
  (`self.model = AutoModelForSeq2SeqLM.from_pretrained(model_name)`, `if hasattr(self.tokenizer,
  'lang_code_to_id'): kwargs['forced_bos_token_id'] = self.tokenizer.lang_code_to_id[target_lang]`, `translated =
  self.model.generate(**inputs, num_beams=beam_size, **kwargs)`).
Reduced: token ids instead of the tokenizers (no decode), the language-code table a dict, the mBART checkpoint a
T5 one, the OPUS-MT checkpoint a Marian model built from a small config (the oracle builds no tiny Marian
checkpoint), a fixed number of new tokens.
"""

import time

import torch
from transformers import AutoModelForSeq2SeqLM, MarianConfig, MarianMTModel

MARIAN_CONFIG = MarianConfig(vocab_size=96, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                             decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                             pad_token_id=0, eos_token_id=2, decoder_start_token_id=0)


class OpusMT:
    def __init__(self, max_loaded_models=10):
        self.models = {}
        self.max_loaded_models = max_loaded_models

    def load_model(self, model_name):
        if model_name in self.models:
            self.models[model_name]["last_loaded"] = time.time()
            return self.models[model_name]["model"]
        model = MarianMTModel(MARIAN_CONFIG)  # the checkpoint `model_name`, built from a small config here
        model.eval()
        if len(self.models) >= self.max_loaded_models:
            oldest_model = min(self.models, key=lambda name: self.models[name]["last_loaded"])
            del self.models[oldest_model]
        self.models[model_name] = {"model": model, "last_loaded": time.time()}
        return model

    def translate_sentences(self, inputs, source_lang, target_lang, device="cpu", beam_size=5, **kwargs):
        model = self.load_model("Helsinki-NLP/opus-mt-{}-{}".format(source_lang, target_lang))
        model.to(device)
        with torch.no_grad():
            translated = model.generate(**inputs, num_beams=beam_size, **kwargs)  # clean: en_marian_generate
        return translated


class AutoModel:
    def __init__(self, model_name, lang_code_to_id=None):
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_name)
        self.lang_code_to_id = lang_code_to_id

    def translate_sentences(self, inputs, source_lang, target_lang, device="cpu", beam_size=5, **kwargs):
        self.model.to(device)
        with torch.no_grad():
            if self.lang_code_to_id is not None:
                kwargs["forced_bos_token_id"] = self.lang_code_to_id[target_lang]
            translated = self.model.generate(**inputs, num_beams=beam_size, **kwargs)  # clean: en_auto_generate
        return translated


inputs = {"input_ids": torch.tensor([[5, 6, 7, 2], [8, 9, 2, 0]]), "attention_mask": torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])}


def probe_opus():
    out = OpusMT().translate_sentences(inputs, "en", "de", beam_size=2, max_new_tokens=4, min_new_tokens=4)
    assert out.shape[0] == 2


def probe_auto():
    backend = AutoModel("google-t5/t5-small", lang_code_to_id={"de_DE": 9})
    out = backend.translate_sentences(inputs, "en_XX", "de_DE", beam_size=3, max_new_tokens=4, min_new_tokens=4)
    assert out.shape[0] == 2
