"""Donut (OCR-free document understanding: a Swin encoder and an MBart decoder): the decoder is an `MBartForCausalLM`
built from a config with cross-attention, whose `config.is_encoder_decoder` is forced to True "to get
cross-attention", whose `forward` is replaced on the instance by the wrapper's own (it runs `model.model.decoder` and
`lm_head`, and hands `past_key_values` on), and whose `prepare_inputs_for_generation` is replaced on the instance by
`prepare_inputs_for_inference(input_ids, encoder_outputs, past_key_values=None, past=None, use_cache=None,
attention_mask=None)`, a fixed keyword list written for transformers 4.11 (`past`) that slices the ids to the last
token once a cache is given. Inference encodes the image once and calls `self.decoder.model.generate(
decoder_input_ids=prompt, encoder_outputs=..., use_cache=True, return_dict_in_generate=True, ...)`.

Provenance (mechanisms read; this code is written here, not copied):
- clovaai/donut @4cfcf972560e1a0f26eb3e294c8fc88a0d336626
  donut/model.py (BARTDecoder.__init__: `self.model = MBartForCausalLM(config=MBartConfig(is_decoder=True,
  is_encoder_decoder=False, add_cross_attention=True, decoder_layers=..., ...))`, `self.model.forward =
  self.forward`, `self.model.config.is_encoder_decoder = True`, `self.model.prepare_inputs_for_generation =
  self.prepare_inputs_for_inference`; prepare_inputs_for_inference: `if past is not None: past_key_values = past`,
  `attention_mask = input_ids.ne(self.tokenizer.pad_token_id).long()`, `if past_key_values is not None: input_ids =
  input_ids[:, -1:]`, the dict with `"encoder_hidden_states": encoder_outputs.last_hidden_state`; forward:
  `outputs = self.model.model.decoder(input_ids=..., encoder_hidden_states=..., past_key_values=past_key_values,
  use_cache=use_cache, ...)`, `logits = self.model.lm_head(outputs[0])`, `ModelOutput(loss=loss, logits=logits,
  past_key_values=outputs.past_key_values, ...)`; DonutModel.inference: `encoder_outputs =
  ModelOutput(last_hidden_state=image_tensors, attentions=None)`, `decoder_output = self.decoder.model.generate(
  decoder_input_ids=prompt_tensors, encoder_outputs=encoder_outputs, max_length=self.config.max_length,
  early_stopping=True, pad_token_id=..., eos_token_id=..., use_cache=True, num_beams=1, bad_words_ids=[[unk]],
  return_dict_in_generate=True, output_attentions=return_attentions)`).
Reduced: no Swin encoder (random image features stand for its output), no tokenizer (token ids in, pad id 1), a
small MBart config, no weight initialisation from asian-bart, no loss; a hand-written greedy loop over the same
decoder (as Donut's training-time teacher forcing feeds it) shows the forward's cache hand-over.
"""

import torch
from transformers import MBartConfig, MBartForCausalLM
from transformers.file_utils import ModelOutput

PAD_ID = 1
EOS_ID = 2


class BARTDecoder(torch.nn.Module):
    def __init__(self, decoder_layer=2, max_position_embeddings=64):
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
                d_model=32, decoder_attention_heads=4, decoder_ffn_dim=64,
                encoder_layers=1, encoder_attention_heads=4, encoder_ffn_dim=64,
            )
        )
        self.model.forward = self.forward  # to get cross attentions and utilize `generate` function
        self.model.config.is_encoder_decoder = True  # to get cross-attention
        self.model.prepare_inputs_for_generation = self.prepare_inputs_for_inference

    def prepare_inputs_for_inference(self, input_ids, encoder_outputs, past_key_values=None, past=None, use_cache=None, attention_mask=None):  # site: dn_prepare_signature
        # for compatibility with transformers==4.11.x
        if past is not None:
            past_key_values = past
        attention_mask = input_ids.ne(PAD_ID).long()
        if past_key_values is not None:
            input_ids = input_ids[:, -1:]
        return {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "past_key_values": past_key_values,
            "use_cache": use_cache,
            "encoder_hidden_states": encoder_outputs.last_hidden_state,
        }

    def forward(self, input_ids, attention_mask=None, encoder_hidden_states=None, past_key_values=None, labels=None,
                use_cache=None, output_attentions=None, output_hidden_states=None, return_dict=None):
        outputs = self.model.model.decoder(
            input_ids=input_ids,
            attention_mask=attention_mask,
            encoder_hidden_states=encoder_hidden_states,
            past_key_values=past_key_values,  # clean: dn_decoder_cache
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=True,
        )
        logits = self.model.lm_head(outputs[0])
        return ModelOutput(logits=logits, past_key_values=outputs.past_key_values)  # clean: dn_return_cache


class DonutModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = BARTDecoder()

    @torch.no_grad()
    def inference(self, image_tensors, prompt_tensors, max_length=8):
        encoder_outputs = ModelOutput(last_hidden_state=image_tensors, attentions=None)
        decoder_output = self.decoder.model.generate(decoder_input_ids=prompt_tensors, encoder_outputs=encoder_outputs, max_length=max_length, min_length=max_length, early_stopping=True, pad_token_id=PAD_ID, eos_token_id=EOS_ID, use_cache=True, num_beams=1, bad_words_ids=[[3]], return_dict_in_generate=True)  # observe: dn_prepare_signature
        return decoder_output.sequences

    @torch.no_grad()
    def greedy(self, image_tensors, prompt_tensors, steps=3):
        ids = prompt_tensors
        out = self.decoder.forward(ids, encoder_hidden_states=image_tensors, use_cache=True)
        past = out.past_key_values  # clean: dn_keep_past
        for _ in range(steps):
            next_id = out.logits[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=-1)
            out = self.decoder.forward(next_id, encoder_hidden_states=image_tensors, past_key_values=past, use_cache=True)  # clean: dn_step
            past = out.past_key_values
        return ids, past


model = DonutModel().eval()
image = torch.randn(1, 6, 32)
prompt = torch.tensor([[0, 5]])


def probe_inference():
    seq = model.inference(image, prompt)
    assert seq.shape == (1, 8)


def probe_greedy():
    ids, past = model.greedy(image, prompt)
    assert ids.shape == (1, 5) and past.get_seq_length() == 5
