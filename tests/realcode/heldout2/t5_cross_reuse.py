"""An encoder-decoder scorer (T5/BART-style rerankers): the encoder runs once, the decoder's cache is read for
its cross-attention keys and its self-attention length, and converted to the 4.x nested tuples for a helper.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/transformers, the Russian kv_cache page of its docs (search excerpt: the cache classes and legacy format)
- castorini-style T5 rerankers read `past_key_values[layer][2]` (the cross-attention key of the 4-tuple format);
  mechanism as described in the issue's survey of encoder-decoder users
"""

import torch
from transformers import AutoModelForSeq2SeqLM

model = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-base")
source = torch.tensor([[5, 9, 13, 17, 2]])
start = torch.tensor([[0]])


def decode_once():
    return model(input_ids=source, decoder_input_ids=start, use_cache=True)


def cross_keys(past):
    return past[0][2]  # site: t5_cross_index


def self_length(past):
    return past.self_attention_cache.get_seq_length()  # clean: t5_self_length


def as_tuples(past):
    return past.to_legacy_cache()  # site: t5_to_legacy


def probe_cross():
    out = decode_once()
    assert cross_keys(out.past_key_values).shape[-2] == 5


def probe_self():
    out = decode_once()
    assert self_length(out.past_key_values) == 1


def probe_legacy():
    out = decode_once()
    assert len(as_tuples(out.past_key_values)) == 2
