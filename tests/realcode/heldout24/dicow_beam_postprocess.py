"""DiCoW (BUT Speech@FIT): diarization-conditioned Whisper for multi-speaker ASR, a WhisperForConditionalGeneration
subclass whose generate path carries copies of transformers 4.41's Whisper and beam-search internals. The beam loop
updates the kwargs with `self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=...)`
and, `if model_kwargs.get("past_key_values", None) is not None`, reorders the cache along the chosen beams with
`model_kwargs["past_key_values"] = self._temporary_reorder_cache(model_kwargs["past_key_values"], beam_idx)`; its
`_postprocess_outputs` splits a `return_dict_in_generate` result per batch row, skipping the cache by its key
(`elif key == "past_key_values": return None`) and slicing every other tensor or tuple of tensors by row.

Provenance (mechanisms read; this code is written here, not copied):
- BUTSpeechFIT/DiCoW @206ac1709ff42805b813f20d4638a41dc31dfe6c
  modeling_dicow.py (DiCoWForConditionalGeneration._beam_search: `model_kwargs = self._update_model_kwargs_for_
  generation(outputs, model_kwargs, is_encoder_decoder=self.config.is_encoder_decoder)`, `if model_kwargs.get(
  "past_key_values", None) is not None: model_kwargs["past_key_values"] = self._temporary_reorder_cache(
  model_kwargs["past_key_values"], beam_idx)`; `_postprocess_outputs`: `seek_outputs["sequences"] =
  seek_outputs["sequences"][:, decoder_input_ids.shape[-1]:]`, `split_by_batch_index` with `elif key ==
  "past_key_values": return None`, `elif isinstance(values[batch_idx], tuple) and torch.is_tensor(values[batch_idx][0])`,
  `return values[batch_idx].cpu()`), requirements.txt (transformers==4.41.2).
Reduced: a small Whisper built from a config (no checkpoint) stands for the DiCoW encoder and decoder, with random
mel features; one beam step of two beams on given encoder outputs instead of the whole beam search; the CTC
rescorer, timestamps and fallback are left out.
"""

import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration
from transformers.modeling_outputs import BaseModelOutput

config = WhisperConfig(vocab_size=120, num_mel_bins=8, encoder_layers=2, decoder_layers=2, d_model=32,
                       encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                       max_source_positions=16, max_target_positions=32, decoder_start_token_id=1, pad_token_id=0,
                       eos_token_id=2, bos_token_id=1)
model = WhisperForConditionalGeneration(config).eval()
model.generation_config.decoder_start_token_id = 1
model.generation_config.eos_token_id = 2
model.generation_config.pad_token_id = 0
features = torch.randn(2, 8, 32)


def beam_step(self, outputs, model_kwargs, beam_idx):
    model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs,
                                                            is_encoder_decoder=self.config.is_encoder_decoder)
    if model_kwargs.get("past_key_values", None) is not None:
        model_kwargs["past_key_values"] = self._temporary_reorder_cache(  # site: dc_reorder
            model_kwargs["past_key_values"], beam_idx)
    return model_kwargs


def postprocess_outputs(seek_outputs, decoder_input_ids):
    seek_outputs["sequences"] = seek_outputs["sequences"][:, decoder_input_ids.shape[-1]:]

    def split_by_batch_index(values, key, batch_idx):
        if key == "scores":
            return [v[batch_idx].cpu() for v in values]
        elif key == "past_key_values":  # site: dc_skip_cache_key
            return None
        elif isinstance(values[batch_idx], tuple) and torch.is_tensor(values[batch_idx][0]):  # observe: dc_skip_cache_key
            return tuple(tuple(w[batch_idx][None].cpu() for w in v) for v in values)
        return values[batch_idx].cpu()

    sequence_tokens = seek_outputs["sequences"]
    per_row = [{k: split_by_batch_index(v, k, i) for k, v in seek_outputs.items()}
               for i in range(sequence_tokens.shape[0])]
    return sequence_tokens, per_row


def transcribe(input_features, decoder_input_ids):
    return model.generate(input_features=input_features, decoder_input_ids=decoder_input_ids,  # clean: dc_generate
                          max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)


def decoder_step(encoder_outputs, ids):
    with torch.no_grad():
        return model(encoder_outputs=encoder_outputs, decoder_input_ids=ids, use_cache=True)  # clean: dc_beam_forward


def probe_beam_reorder():
    encoder_outputs = BaseModelOutput(last_hidden_state=torch.randn(2, 16, 32))
    outputs = decoder_step(encoder_outputs, torch.tensor([[1, 5], [1, 6]]))
    before = outputs.past_key_values.self_attention_cache.layers[0].keys.clone()
    model_kwargs = {"encoder_outputs": encoder_outputs, "use_cache": True, "cache_position": torch.arange(2)}
    model_kwargs = beam_step(model, outputs, model_kwargs, torch.tensor([1, 1]))
    after = outputs.past_key_values.self_attention_cache.layers[0].keys
    assert torch.equal(after[0], before[1]), "dc_reorder: the beams' cache rows were not reordered"  # observe: dc_reorder


def probe_transcribe():
    seek_outputs = transcribe(features, torch.tensor([[1], [1]]))
    assert seek_outputs.sequences.shape == (2, 4)
    outputs = decoder_step(BaseModelOutput(last_hidden_state=torch.randn(2, 16, 32)), seek_outputs.sequences)
    assert outputs.logits.shape[:2] == (2, 4)


def probe_segment_outputs():
    decoder_input_ids = torch.tensor([[1], [1]])
    seek_outputs = transcribe(features, decoder_input_ids)
    tokens, per_row = postprocess_outputs(seek_outputs, decoder_input_ids)
    assert tokens.shape == (2, 3) and len(per_row) == 2
