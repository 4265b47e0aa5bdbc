"""optimum-neuron's traced T5 decoder: for compilation to Neuron devices the decoder runs inside a wrapper module that
keeps the self- and cross-attention caches as flat lists of fixed-size tensors (two per layer each), reorders them
with `torch.gather` for beam search, regroups them four per layer and hands them to the HF decoder as
`EncoderDecoderCache.from_legacy_cache(...)`, reads the new cache back from `decoder_output["past_key_values"]`,
and shifts it one position (`update_past`: iterate the cache's layers, `past_layer[i][:, :, 1:]` for the two
self-attention tensors, the cross-attention pair kept) so the traced shapes never change.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/optimum-neuron @213224e6aae42e570b88b3a5e6f2716112823469
  optimum/exporters/neuron/model_wrappers.py (the T5 decoder wrapper: `self.past_key_values_sa` /
  `self.past_key_values_ca` lists of `num_decoder_layers * 2` tensors; `update_past`: `for past_layer in
  past_key_values: new_past_layer = list(past_layer)`, `new_past_layer[i] = past_layer[i][:, :, 1:]` for the first
  two, `new_past_sa += [new_past_layer[:2]]`, `new_past_ca += [new_past_layer[2:]]`; `reorder_cache` gathering each
  flat tensor by `beam_idx`; `forward`: `[*past_key_values_sa[i * 2 : i * 2 + 2], *past_key_values_ca[i * 2 : i *
  2 + 2]]` per layer, `self.model.decoder(..., past_key_values=EncoderDecoderCache.from_legacy_cache(
  past_key_values), use_cache=True, ...)`, `past_key_values = decoder_output["past_key_values"]`, the flattening
  back and `self.past_key_values_sa = past_key_values_sa` on CPU) and optimum/neuron/generation/utils.py (the beam
  loop calling the model and `self._reorder_cache(beam_idx)`).
Reduced: no tracing, no ParameterList aliasing, greedy only (the beam-score top-k dropped), the encoder run once by
the probe, the caches started from a first decoder call instead of zeros.
"""

import torch
from transformers import AutoModelForSeq2SeqLM, EncoderDecoderCache


class T5DecoderWrapper(torch.nn.Module):
    def __init__(self, model, num_beams=1):
        super().__init__()
        self.model = model
        self.config = model.config
        self.num_beams = num_beams
        self.past_key_values_sa = []
        self.past_key_values_ca = []

    def update_past(self, past_key_values):
        new_past_sa = []
        new_past_ca = []
        for past_layer in past_key_values:
            new_past_layer = list(past_layer)  # site: nr_iterate_layers
            for i in range(len(new_past_layer[:2])):
                new_past_layer[i] = past_layer[i][:, :, 1:]
            new_past_sa += [new_past_layer[:2]]
            new_past_ca += [new_past_layer[2:]]
        return new_past_sa, new_past_ca

    def reorder_cache(self, past_key_values, beam_idx):
        for i in range(len(past_key_values)):
            gather_index = beam_idx.view([beam_idx.shape[0], 1, 1, 1]).expand_as(past_key_values[i])
            past_key_values[i] = torch.gather(past_key_values[i], dim=0, index=gather_index)  # clean: nr_gather_flat
        return past_key_values

    def forward(self, input_ids, decoder_attention_mask, encoder_hidden_states, encoder_attention_mask, beam_idx):
        if self.num_beams > 1:
            past_key_values_sa = self.reorder_cache(self.past_key_values_sa, beam_idx)
            past_key_values_ca = self.reorder_cache(self.past_key_values_ca, beam_idx)
        else:
            past_key_values_sa = self.past_key_values_sa
            past_key_values_ca = self.past_key_values_ca
        past_key_values = [
            [*past_key_values_sa[i * 2: i * 2 + 2], *past_key_values_ca[i * 2: i * 2 + 2]]
            for i in range(0, int(len(past_key_values_ca) / 2))
        ]
        decoder_output = self.model.decoder(
            input_ids=input_ids,
            attention_mask=decoder_attention_mask,
            past_key_values=EncoderDecoderCache.from_legacy_cache(past_key_values),  # site: nr_from_legacy
            encoder_hidden_states=encoder_hidden_states,
            encoder_attention_mask=encoder_attention_mask,
            use_cache=True,
        )
        last_hidden_state = decoder_output["last_hidden_state"]
        past_key_values = decoder_output["past_key_values"]
        lm_logits = self.model.lm_head(last_hidden_state * (self.config.d_model ** -0.5))
        past_key_values_sa, past_key_values_ca = self.update_past(past_key_values)
        self.past_key_values_sa = [vec for kv_per_layer in past_key_values_sa for vec in kv_per_layer]
        self.past_key_values_ca = [vec for kv_per_layer in past_key_values_ca for vec in kv_per_layer]
        return lm_logits[:, -1, :].argmax(-1)


model = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")
source = torch.tensor([[21, 22, 23, 24, 1]])


@torch.no_grad()
def first_step():
    encoder_out = model.encoder(input_ids=source)  # clean: nr_encoder
    start = torch.tensor([[0]])
    out = model(encoder_outputs=encoder_out, decoder_input_ids=start, use_cache=True)  # clean: nr_first_decoder_step
    return encoder_out, out


def probe_shift_cache():
    _, out = first_step()
    wrapper = T5DecoderWrapper(model)
    sa, ca = wrapper.update_past(out.past_key_values)
    assert len(sa) == model.config.num_decoder_layers
    kinds = [[type(t).__name__ for t in pair] for pair in (sa[0], ca[0])]
    assert kinds == [["Tensor", "Tensor"]] * 2, f"nr_iterate_layers: the first layer's pairs are {kinds}"  # observe: nr_iterate_layers
    assert sa[0][0].shape[2] == 0 and ca[0][0].shape[2] == 5


def probe_first_step():
    encoder_out, out = first_step()
    assert encoder_out.last_hidden_state.shape[1] == 5 and out.logits.shape[1] == 1


def probe_decode_step():
    encoder_out, out = first_step()
    legacy = [(layer.keys, layer.values) for layer in out.past_key_values.self_attention_cache.layers]
    cross = [(layer.keys, layer.values) for layer in out.past_key_values.cross_attention_cache.layers]
    wrapper = T5DecoderWrapper(model)
    wrapper.past_key_values_sa = [t for pair in legacy for t in pair]
    wrapper.past_key_values_ca = [t for pair in cross for t in pair]
    with torch.no_grad():
        token = wrapper(torch.tensor([[7]]), torch.ones(1, 2), encoder_out.last_hidden_state, torch.ones(1, 5), None)
    assert token.shape == (1,)


def probe_beam_gather():
    wrapper = T5DecoderWrapper(model, num_beams=2)
    flat = [torch.arange(2.0).view(2, 1, 1, 1).expand(2, 2, 3, 4).clone() for _ in range(4)]
    out = wrapper.reorder_cache(flat, torch.tensor([1, 1]))
    assert float(out[0][0].sum()) == 24.0
