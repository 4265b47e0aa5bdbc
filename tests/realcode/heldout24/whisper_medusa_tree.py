"""Whisper-Medusa (aiOla): Whisper with extra Medusa heads that propose several next tokens, verified in one
decoder pass over a tree of candidates. The greedy loop runs the base decoder step with the cache, turns the Medusa
heads' top-k into tree candidates, runs `tree_decoding` (the decoder over the candidates with `outputs[
"past_key_values"]` and tree position ids), picks the accepted prefix, and `_update_medusa_outputs` rebuilds the
cache as a tuple of per-layer 4-tuples: for each layer `tree_outputs.past_key_values[i]` and
`outputs.past_key_values[i]` are indexed (self-attention key and value `[j]` for j in 0, 1, the cross-attention pair
`[2]`, `[3]`), the accepted tree rows are gathered with `[:, :, select_indices, :]` and concatenated after the
original past, and the tuple is assigned back to `tree_outputs.past_key_values` for the next step's forward.

Provenance (mechanisms read; this code is written here, not copied):
- aiola-lab/whisper-medusa @19819c37ab15db6e68826e406614a2c86fbb946e
  whisper_medusa/models/model.py (Whisper2MedusaHeadsConditionalGeneration; `_update_medusa_outputs`: `for i in
  range(len(outputs.past_key_values))`, `layer_tree_past_key_values = tree_outputs.past_key_values[i]`,
  `layer_orig_past_key_values = outputs.past_key_values[i]`, `tree_past = layer_tree_past_key_values[j][:, :,
  select_indices, :]`, `torch.cat([orig_past, tree_past], dim=2)`, `layer_orig_past_key_values[2]`, `[3]`,
  `tree_outputs.past_key_values = all_past_key_values_tuple`; `_medusa_greedy_search`: the base forward, then
  `medusa_utils.tree_decoding(self, tree_candidates, outputs["past_key_values"], ...)`) and
  whisper_medusa/models/medusa_utils.py (tree_decoding: `position_ids = medusa_position_ids + input_ids.shape[1]`,
  the forward over the tree candidates with the cache; generate_candidates; evaluate_posterior), written for
  transformers 4.49 (requirements.txt).
Reduced: a small Whisper built from a config (no checkpoint), the encoder's output given (a random BaseModelOutput);
two Medusa heads are linear layers on the last decoder hidden state, the tree is a chain (one candidate per head, no
tree mask), greedy acceptance; the base past is deep-copied before the tree pass (in the original the tree pass extends
the one cache both outputs hold); the next step's forward with the rebuilt tuple is reached by its own probe, which
builds the same per-layer 4-tuples from the cache's layers.
"""

import copy

import torch
from torch import nn
from transformers import WhisperConfig, WhisperForConditionalGeneration
from transformers.modeling_outputs import BaseModelOutput

config = WhisperConfig(vocab_size=120, num_mel_bins=8, encoder_layers=2, decoder_layers=2, d_model=32,
                       encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                       max_source_positions=16, max_target_positions=32, decoder_start_token_id=1, pad_token_id=0,
                       eos_token_id=2, bos_token_id=1)
model = WhisperForConditionalGeneration(config).eval()
d_model = model.config.d_model
medusa_heads = nn.ModuleList([nn.Linear(d_model, model.config.vocab_size) for _ in range(2)])
encoder_outputs = BaseModelOutput(last_hidden_state=torch.randn(1, 16, d_model))
start_ids = torch.tensor([[model.config.decoder_start_token_id, 5, 6]])


@torch.inference_mode()
def base_step(decoder_input_ids, past_key_values=None):
    outputs = model(encoder_outputs=encoder_outputs, decoder_input_ids=decoder_input_ids,  # site: wm_tuple_back
                    past_key_values=past_key_values, use_cache=True, output_hidden_states=True, return_dict=True)
    hidden = outputs.decoder_hidden_states[-1][:, -1]
    medusa_logits = torch.stack([head(hidden) for head in medusa_heads])
    return outputs, medusa_logits


@torch.inference_mode()
def tree_decoding(tree_candidates, past_key_values, cur_len):
    position_ids = torch.arange(tree_candidates.shape[1]).unsqueeze(0) + cur_len
    return model(encoder_outputs=encoder_outputs, decoder_input_ids=tree_candidates,  # clean: wm_tree_forward
                 past_key_values=past_key_values, decoder_position_ids=position_ids, use_cache=True, return_dict=True)


def update_medusa_outputs(outputs, tree_outputs, select_indices, accept_length):
    all_past = ()
    for i in range(len(outputs.past_key_values)):
        layer_tree = tree_outputs.past_key_values[i]  # site: wm_layer_past
        layer_orig = outputs.past_key_values[i]
        layer_past = ()
        for j in range(2):
            tree_past = layer_tree[j][:, :, select_indices, :][:, :, :accept_length, :]
            layer_past += (torch.cat([layer_orig[j], tree_past], dim=2),)
        layer_past += (layer_orig[2], layer_orig[3])
        all_past += (layer_past,)
    tree_outputs.past_key_values = all_past


def propose_and_verify(decoder_input_ids):
    outputs, medusa_logits = base_step(decoder_input_ids)
    base_token = outputs.logits[:, -1].argmax(-1)
    candidates = torch.cat([base_token, medusa_logits[:, 0].argmax(-1)]).unsqueeze(0)
    cur_len = outputs.past_key_values.get_seq_length()  # clean: wm_cur_len
    base_past = copy.deepcopy(outputs.past_key_values)
    tree_outputs = tree_decoding(candidates, outputs["past_key_values"], cur_len)  # clean: wm_outputs_key
    outputs.past_key_values = base_past
    return outputs, tree_outputs, candidates, cur_len


def medusa_step(decoder_input_ids):
    outputs, tree_outputs, candidates, cur_len = propose_and_verify(decoder_input_ids)
    accept_length = 2
    select_indices = torch.arange(cur_len, cur_len + candidates.shape[1])
    update_medusa_outputs(outputs, tree_outputs, select_indices, accept_length)
    return candidates[:, :accept_length], tree_outputs


def probe_tree_verify():
    outputs, tree_outputs, candidates, cur_len = propose_and_verify(start_ids)
    assert cur_len == start_ids.shape[1] and tree_outputs.logits.shape[1] == candidates.shape[1]
    assert outputs.past_key_values.get_seq_length() == cur_len


def probe_rebuild_past():
    accepted, tree_outputs = medusa_step(start_ids)
    assert tree_outputs.past_key_values[0][0].shape[2] == start_ids.shape[1] + 2


def probe_next_step_with_rebuilt():
    outputs, _ = base_step(start_ids)
    cache = outputs.past_key_values
    rebuilt = tuple((s.keys, s.values, c.keys, c.values) for s, c in
                    zip(cache.self_attention_cache.layers, cache.cross_attention_cache.layers))
    base_step(torch.tensor([[9]]), rebuilt)
