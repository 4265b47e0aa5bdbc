"""CALM x contrastive decoding (early exit as the amateur): GPT-2 XL is run on the whole sequence with
`use_cache=True, output_hidden_states=True`; an intermediate layer's hidden state, put through the final layer
norm and the tied LM head, gives the "amateur" distribution, contrasted with the final one inside a hand-written
beam search that re-runs the full sequence every step; plain beam search (`model.generate(..., max_length=...,
num_beams=5)`) is printed beside it.

Provenance (mechanisms read; this code is written here, not copied):
- vikhyat/calm-contrastive-decoding @666272d11e848c3b3359b77af78c1556e3c518d1
  generate.py (`predict_next_token_probabilities`: `output = model(input_ids, use_cache=True,
  output_hidden_states=True)`, `output.hidden_states[intermediate_layer]`, `model.lm_head(model.transformer.ln_f(
  ...))`, the plausibility mask `log_probabilities >= log_alpha + max_log_prob`; `contrastive_beam_search` with
  `heapq.nsmallest`; `model.generate(encoded_input, max_length=args.max_length, num_beams=5)`).
Reduced: the intermediate layer is the tiny model's second to last; two beam steps; a fixed prompt of ids.
"""

import heapq
import math

import torch
import torch.nn.functional as F
from transformers import GPT2LMHeadModel

model = GPT2LMHeadModel.from_pretrained("gpt2-xl")
encoded_input = torch.tensor([[46, 20, 75, 21, 18]])


@torch.no_grad()
def predict_next_token_probabilities(model, input_ids, alpha=0.1, intermediate_layer=-2, temperature=0.5):
    output = model(input_ids, use_cache=True, output_hidden_states=True)  # clean: cm_full_forward
    log_probabilities = F.log_softmax(output.logits.squeeze(0)[-1], dim=0)
    intermediate_output = output.hidden_states[intermediate_layer].squeeze(0)[-1]
    intermediate_logits = model.lm_head(model.transformer.ln_f(intermediate_output))
    intermediate_log_probs = F.log_softmax(intermediate_logits / temperature, dim=0)
    mask = log_probabilities >= math.log(alpha) + torch.max(log_probabilities)
    return [(i, -(log_probabilities[i] - intermediate_log_probs[i]).item()) for i in mask.nonzero()]


def contrastive_beam_search(model, initial_sequence, beam_width=3, steps=2):
    heap = [(0, initial_sequence)]
    for _ in range(steps):
        candidates = []
        for score, sequence in heap:
            for next_token, next_log_prob in predict_next_token_probabilities(model, sequence):
                candidates.append((score + next_log_prob,
                                   torch.cat((sequence.squeeze(0), next_token), dim=0).unsqueeze(0)))
        heap = heapq.nsmallest(beam_width, candidates, key=lambda tup: tup[0])
    return sorted(heap, key=lambda tup: tup[0])


def probe_contrastive():
    best = contrastive_beam_search(model, encoded_input)
    assert best[0][1].shape[1] == encoded_input.shape[1] + 2


def probe_beam_baseline():
    output = model.generate(encoded_input, max_length=9, num_beams=5)  # clean: cm_beam_generate
    assert output.shape[0] == 1
