"""Manual decoding of an encoder-decoder (speech-style) model: the encoder runs once, the decoder steps with
the cache the previous step returned, and the decoder's self-attention length is read for timestamps.
(Reduced on a T5 checkpoint: the cache is the same EncoderDecoderCache a Whisper decoder gets.)

Provenance (mechanisms read; this code is written here, not copied):
- thanh-nt25/Whisper-context-biasing temp.py (a Whisper subclass whose forward takes and returns
  `past_key_values` and a prompt-conditioned decoder loop)
"""

import torch
from transformers import AutoModelForSeq2SeqLM

model = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")
features = torch.tensor([[5, 6, 7, 8, 9, 1]])


def decode(steps):
    enc = model.get_encoder()(input_ids=features)
    dec = torch.tensor([[0]])
    out = model(encoder_outputs=enc, decoder_input_ids=dec, use_cache=True)
    past = out.past_key_values
    for _ in range(steps):
        dec = out.logits[:, -1:].argmax(-1)
        out = model(encoder_outputs=enc, decoder_input_ids=dec, past_key_values=past, use_cache=True)  # clean: sd_step
        past = out.past_key_values
    return past


def decoded_length(past):
    return past.self_attention_cache.get_seq_length()  # clean: sd_self_length


def decoded_length_legacy(past):
    return past[0][0].shape[2]  # site: sd_index


def cross_lengths(past):
    lengths = []
    for self_k, self_v, cross_k, cross_v in past:  # site: sd_iter_four
        lengths.append(cross_k.shape[2])
    return lengths


def probe_length():
    assert decoded_length(decode(2)) == 3


def probe_index():
    assert decoded_length_legacy(decode(2)) == 3


def probe_cross():
    assert cross_lengths(decode(1)) == [6, 6]
