"""ONNX Runtime's Whisper export tooling (onnxruntime/python/tools/transformers/models/whisper): the decoder is exported
as two graphs. `WhisperDecoderInit(decoder, config)` runs `self.decoder.model(None, encoder_outputs=...,
decoder_input_ids=..., past_key_values=None, use_cache=True, return_dict=True)` and returns the logits and
`out.past_key_values`; `WhisperDecoder(decoder, config).forward(decoder_input_ids, *past)` takes the past as flat
tensors (all self-attention keys/values, then all cross-attention ones), regroups them per layer into 4-tuples with
`PastKeyValuesHelper.back_group_by_layer(past)`, runs `self.decoder(None, encoder_outputs=..., decoder_input_ids=...,
past_key_values=past_key_values, use_cache=True, return_dict=True)` and splits the returned cache back with
`PastKeyValuesHelper.group_by_self_and_cross(decoder_out.past_key_values)`, which iterates the cache layer by layer,
asserts four items per layer and unpacks `present_key_self, present_value_self, present_key_cross,
present_value_cross`. The dummy inputs for the trace are `2 * num_layers` self-attention tensors and `2 *
num_layers` cross-attention ones.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/onnxruntime @a32690053d3a4054dca9f9bedb4d6315ec748aab
  onnxruntime/python/tools/transformers/models/whisper/whisper_decoder.py (WhisperDecoderInit.forward: `out =
  self.decoder.model(None, encoder_outputs=encoder_outputs, decoder_input_ids=decoder_input_ids,
  past_key_values=None, use_cache=True, return_dict=True)`, `logits = self.decoder.proj_out(out[0])`, `return
  logits, out.past_key_values, out.encoder_last_hidden_state`; WhisperDecoder.forward: `if len(past) == 0:
  past_key_values = None else: past_key_values = PastKeyValuesHelper.back_group_by_layer(past)`, `decoder_out =
  self.decoder(None, encoder_outputs=encoder_outputs, decoder_input_ids=decoder_input_ids,
  past_key_values=past_key_values, use_cache=True, return_dict=True)`, `present_self, _ =
  PastKeyValuesHelper.group_by_self_and_cross(decoder_out.past_key_values)`; WhisperDecoderInputs.create_dummy: the
  self and cross past shapes, `for _ in range(2 * num_layers): past.append(torch.rand(...))`)
- microsoft/onnxruntime @16ba81a46c4100c1ef4d02c1a759605ccdb5742e
  onnxruntime/python/tools/transformers/models/whisper/past_helper.py (`back_group_by_layer`: `half_idx =
  len(past_key_values) // 2`, the 4-tuples `(past[idx], past[idx + 1], past[half_idx + idx], past[half_idx + idx +
  1])`; `group_by_self_and_cross`: `for _, present_layer_i in enumerate(present_key_values): assert
  len(present_layer_i) == 4, f"Expected to have four items. Got {len(present_layer_i)}"`, the four-way unpacking,
  `present_self.extend([...])`).
Reduced: a small Whisper built from a config (no checkpoint), the encoder output given as random hidden states of
the encoder's length, the ONNX export and ONNX Runtime comparison left out (the wrappers are called as the tracer
calls them).
"""

from typing import List, Tuple

import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration, file_utils


class PastKeyValuesHelper:
    @staticmethod
    def back_group_by_layer(past_key_values):
        past_tuples = ()
        half_idx = len(past_key_values) // 2
        for i in range(len(past_key_values) // 4):
            idx = 2 * i
            past_tuples += ((past_key_values[idx], past_key_values[idx + 1],
                             past_key_values[half_idx + idx], past_key_values[half_idx + idx + 1]),)
        return past_tuples

    @staticmethod
    def group_by_self_and_cross(present_key_values, concat=False):
        present_self: List[torch.Tensor] = []
        present_cross: List[torch.Tensor] = []
        for _, present_layer_i in enumerate(present_key_values):
            assert len(present_layer_i) == 4, f"Expected to have four items. Got {len(present_layer_i)}"  # site: ow_four_items
            present_key_self, present_value_self, present_key_cross, present_value_cross = present_layer_i
            present_self.extend([present_key_self, present_value_self])
            present_cross.extend([present_key_cross, present_value_cross])
        if concat:
            return present_self + present_cross
        return present_self, present_cross


class WhisperDecoderInit(torch.nn.Module):
    def __init__(self, decoder, config):
        super().__init__()
        self.decoder = decoder
        self.config = config

    def forward(self, decoder_input_ids, encoder_hidden_states):
        encoder_outputs = file_utils.ModelOutput()
        encoder_outputs["last_hidden_state"] = encoder_hidden_states
        encoder_outputs["hidden_states"] = None
        encoder_outputs["attentions"] = None
        out = self.decoder.model(None, encoder_outputs=encoder_outputs, decoder_input_ids=decoder_input_ids,
                                 past_key_values=None, use_cache=True, return_dict=True)  # clean: ow_init_run
        logits = self.decoder.proj_out(out[0])
        return logits, out.past_key_values, out.encoder_last_hidden_state


class WhisperDecoder(torch.nn.Module):
    def __init__(self, decoder, config):
        super().__init__()
        self.decoder = decoder
        self.config = config

    def forward(self, decoder_input_ids, *past):
        encoder_outputs = file_utils.ModelOutput()
        dummy_encoder_hidden_states = torch.randn((decoder_input_ids.shape[0], self.config.max_source_positions, int(self.config.d_model)))
        encoder_outputs["last_hidden_state"] = dummy_encoder_hidden_states
        encoder_outputs["hidden_states"] = dummy_encoder_hidden_states
        encoder_outputs["attentions"] = None
        if len(past) == 0:
            past_key_values = None
        else:
            past_key_values = PastKeyValuesHelper.back_group_by_layer(past)
        decoder_out = self.decoder(None, encoder_outputs=encoder_outputs, decoder_input_ids=decoder_input_ids,
                                   past_key_values=past_key_values, use_cache=True, return_dict=True)  # site: ow_tuple_past
        logits = decoder_out[0]
        present_self, _ = PastKeyValuesHelper.group_by_self_and_cross(decoder_out.past_key_values)  # observe: ow_four_items
        return logits, present_self


def create_dummy_past(config, batch_size, encode_sequence_length, past_decode_sequence_length):
    head_size = config.d_model // config.encoder_attention_heads
    self_shape = [batch_size, config.encoder_attention_heads, past_decode_sequence_length, head_size]
    cross_shape = [batch_size, config.encoder_attention_heads, encode_sequence_length, head_size]
    past = [torch.rand(self_shape) for _ in range(2 * config.decoder_layers)]
    past += [torch.rand(cross_shape) for _ in range(2 * config.decoder_layers)]
    return past


config = WhisperConfig(vocab_size=120, num_mel_bins=8, encoder_layers=2, decoder_layers=2, d_model=32,
                       encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                       max_source_positions=16, max_target_positions=32, decoder_start_token_id=1, pad_token_id=0,
                       eos_token_id=2, bos_token_id=1)
model = WhisperForConditionalGeneration(config).eval()


def probe_decoder_init():
    init = WhisperDecoderInit(model, config)
    with torch.no_grad():
        logits, past, encoder_last = init(torch.tensor([[1, 5]]), torch.randn(1, 16, 32))
    present_self, present_cross = PastKeyValuesHelper.group_by_self_and_cross(past)  # observe: ow_four_items
    assert logits.shape[1] == 2 and len(present_self) == 4 and present_cross[0].shape[2] == 16


def probe_decoder_with_past():
    decoder = WhisperDecoder(model, config)
    past = create_dummy_past(config, 1, 16, 3)
    with torch.no_grad():
        logits, present_self = decoder(torch.tensor([[7]]), *past)
    assert logits.shape[1] == 1 and present_self[0].shape[2] == 4


def probe_init_logits():
    init = WhisperDecoderInit(model, config)
    with torch.no_grad():
        logits, past, encoder_last = init(torch.tensor([[1, 5, 6]]), torch.randn(1, 16, 32))
    assert logits.shape == (1, 3, 120) and past.get_seq_length() == 3
