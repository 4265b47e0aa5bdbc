"""An encoder-decoder (T5-style, as speech and translation models use) decoding helper that reads the
self- and cross-attention caches."""

import torch
from transformers import AutoModelForSeq2SeqLM

model = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")
source = torch.tensor([[5, 6, 7, 8, 1]])
start = torch.tensor([[0]])


def step(past=None, token=start):
    return model(input_ids=source, decoder_input_ids=token, past_key_values=past, use_cache=True)


def cross_keys(past):
    return past[0][2]  # site: s2s_index_cross


def unpack_layers(past):
    shapes = []
    for sk, sv, ck, cv in past:  # site: s2s_iter_four
        shapes.append(ck.shape)
    return shapes


def cross_keys_compat(past):
    return past.cross_attention_cache.layers[0].keys  # clean: s2s_cross_layers


def probe_cross():
    assert cross_keys(step().past_key_values).shape[-2] == 5


def probe_iter():
    assert len(unpack_layers(step().past_key_values)) == 2


def probe_compat():
    out = step()
    nxt = step(out.past_key_values, out.logits[:, -1:].argmax(-1))  # clean: s2s_feed_back
    assert cross_keys_compat(nxt.past_key_values).shape[-2] == 5
    assert nxt.past_key_values.self_attention_cache.get_seq_length() == 2  # clean: s2s_self_len
