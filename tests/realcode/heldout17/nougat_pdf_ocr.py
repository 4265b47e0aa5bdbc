"""Nougat (Meta: academic PDF pages to markup, a Swin encoder and an MBart decoder): `BARTDecoder` builds
`MBartForCausalLM(config=MBartConfig(is_decoder=True, is_encoder_decoder=False, add_cross_attention=True, ...))`,
sets `self.model.config.is_encoder_decoder = True` "to get cross-attention" and replaces the model's
`prepare_inputs_for_generation` on the instance with `prepare_inputs_for_inference(input_ids, encoder_outputs,
past=None, past_key_values=None, use_cache=None, attention_mask=None)`, which merges the two cache names with `past =
past or past_key_values`, slices the ids to the last token once a cache is there and hands it on with the encoder's
hidden states. `NougatModel.inference` encodes the page and calls `self.decoder.model.generate(
encoder_outputs=encoder_outputs, min_length=1, max_length=..., pad_token_id=..., eos_token_id=..., use_cache=True,
bad_words_ids=[[unk]], return_dict_in_generate=True, output_scores=True, do_sample=False,
stopping_criteria=StoppingCriteriaList([StoppingCriteriaScores()] if early_stopping else []))`; the decoder's
`forward` (used in training) hands `past_key_values` to the MBart model.

Provenance (mechanisms read; this code is written here, not copied):
- facebookresearch/nougat @5a92920d342fb6acf05fc9b594ccb4053dbe8e7a
  nougat/model.py (BARTDecoder.__init__: `self.model = MBartForCausalLM(config=MBartConfig(is_decoder=True,
  is_encoder_decoder=False, add_cross_attention=True, decoder_layers=self.decoder_layer, max_position_embeddings=...,
  vocab_size=len(self.tokenizer), scale_embedding=True, add_final_layer_norm=True, d_model=hidden_dimension))`,
  `self.model.config.is_encoder_decoder = True`, `self.model.prepare_inputs_for_generation =
  self.prepare_inputs_for_inference`; prepare_inputs_for_inference: `attention_mask =
  input_ids.ne(self.tokenizer.pad_token_id).long()`, `past = past or past_key_values`, `if past is not None:
  input_ids = input_ids[:, -1:]`, the dict with `"past_key_values": past`, `"encoder_hidden_states":
  encoder_outputs.last_hidden_state`; BARTDecoder.forward: `return self.model.forward(input_ids,
  attention_mask=attention_mask, labels=labels, encoder_hidden_states=encoder_hidden_states,
  past_key_values=past_key_values, use_cache=use_cache, ...)`; NougatModel.inference: `encoder_outputs =
  ModelOutput(last_hidden_state=last_hidden_state, attentions=None)`, `decoder_output =
  self.decoder.model.generate(encoder_outputs=encoder_outputs, min_length=1, max_length=self.config.max_length,
  pad_token_id=..., eos_token_id=..., use_cache=True, bad_words_ids=[[self.decoder.tokenizer.unk_token_id]],
  return_dict_in_generate=True, output_scores=True, output_attentions=return_attentions, do_sample=False,
  stopping_criteria=StoppingCriteriaList([StoppingCriteriaScores()] if early_stopping else []))`).
Reduced: no Swin encoder (random page features), no tokenizer (pad 1, eos 2, unk 3), a small MBart config, no
weights from mbart-large-50, early stopping off; the training-time forward is run as a greedy loop to show its cache
hand-over.
"""

import torch
from transformers import MBartConfig, MBartForCausalLM, StoppingCriteriaList
from transformers.file_utils import ModelOutput

PAD_ID, EOS_ID, UNK_ID = 1, 2, 3


class BARTDecoder(torch.nn.Module):
    def __init__(self, decoder_layer=2, max_position_embeddings=64, hidden_dimension=32):
        super().__init__()
        self.model = MBartForCausalLM(
            config=MBartConfig(
                is_decoder=True,
                is_encoder_decoder=False,
                add_cross_attention=True,
                decoder_layers=decoder_layer,
                max_position_embeddings=max_position_embeddings,
                vocab_size=96,
                scale_embedding=True,
                add_final_layer_norm=True,
                d_model=hidden_dimension,
                decoder_attention_heads=4, decoder_ffn_dim=64, encoder_layers=1, encoder_attention_heads=4,
                encoder_ffn_dim=64, decoder_start_token_id=0,
            )
        )
        self.model.config.is_encoder_decoder = True  # to get cross-attention
        self.model.prepare_inputs_for_generation = self.prepare_inputs_for_inference

    def prepare_inputs_for_inference(self, input_ids, encoder_outputs, past=None, past_key_values=None, use_cache=None, attention_mask=None):  # site: ng_prepare_signature
        attention_mask = input_ids.ne(PAD_ID).long()
        past = past or past_key_values
        if past is not None:
            input_ids = input_ids[:, -1:]
        return {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "past_key_values": past,
            "use_cache": use_cache,
            "encoder_hidden_states": encoder_outputs.last_hidden_state,
        }

    def forward(self, input_ids, attention_mask=None, encoder_hidden_states=None, past_key_values=None, labels=None,
                use_cache=None, output_attentions=None, output_hidden_states=None, return_dict=None):
        return self.model.forward(
            input_ids,
            attention_mask=attention_mask,
            labels=labels,
            encoder_hidden_states=encoder_hidden_states,
            past_key_values=past_key_values,  # clean: ng_forward_cache
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=return_dict,
        )


class NougatModel(torch.nn.Module):
    def __init__(self, max_length=8):
        super().__init__()
        self.decoder = BARTDecoder()
        self.max_length = max_length

    def inference(self, page_features, early_stopping=False):
        encoder_outputs = ModelOutput(last_hidden_state=page_features, attentions=None)
        decoder_output = self.decoder.model.generate(encoder_outputs=encoder_outputs, min_length=self.max_length, max_length=self.max_length, pad_token_id=PAD_ID, eos_token_id=EOS_ID, use_cache=True, bad_words_ids=[[UNK_ID]], return_dict_in_generate=True, output_scores=True, do_sample=False, stopping_criteria=StoppingCriteriaList([]))  # observe: ng_prepare_signature
        return decoder_output.sequences, decoder_output.scores

    @torch.no_grad()
    def teacher_forced_greedy(self, page_features, steps=3):
        ids = torch.tensor([[0]])
        out = self.decoder(ids, encoder_hidden_states=page_features, use_cache=True, return_dict=True)
        for _ in range(steps):
            next_id = out.logits[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=-1)
            out = self.decoder(next_id, encoder_hidden_states=page_features, past_key_values=out.past_key_values,  # clean: ng_step
                               use_cache=True, return_dict=True)
        return ids, out.past_key_values


model = NougatModel().eval()
page = torch.randn(1, 6, 32)


def probe_inference():
    with torch.no_grad():
        sequences, scores = model.inference(page)
    assert sequences.shape[1] == 8


def probe_teacher_forced():
    ids, past = model.teacher_forced_greedy(page)
    assert ids.shape == (1, 4) and past.get_seq_length() == 4
