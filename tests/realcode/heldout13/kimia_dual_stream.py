"""Kimi-Audio's inference loop: the audio LLM reads an audio-token stream and a text-token stream side by side and
predicts one token of each per step. The project's `_generate_loop` keeps `past_key_values = None`, calls
`self.alm.forward(input_ids=audio_ids, text_input_ids=text_ids, position_ids=..., past_key_values=past_key_values,
return_dict=False)` and unpacks `audio_logits, text_logits, past_key_values`; after the prompt it feeds the two
sampled tokens with a single explicit position id (`last_position_id + 1`), and returns when the text stream ends.

Provenance (mechanisms read; this code is written here, not copied):
- MoonshotAI/Kimi-Audio @2607d515f5b7dffa1dcc7526f9f26feb48e356c4
  kimia_infer/api/kimia.py (`KimiAudio._generate_loop`: `decoder_position_ids = torch.arange(0,
  decoder_input_audio_ids.shape[1]).unsqueeze(0)`, `past_key_values = None`, `last_position_id = ... - 1`, the loop
  `audio_logits, text_logits, past_key_values = self.alm.forward(input_ids=decoder_input_audio_ids,
  text_input_ids=decoder_input_text_ids, whisper_input_feature=..., is_continuous_mask=...,
  position_ids=decoder_position_ids, past_key_values=past_key_values, return_dict=False)`, the sampled tokens fed back
  as `next_audio_token.unsqueeze(1)` / `next_token_text.unsqueeze(1)` with `decoder_position_ids =
  torch.zeros(1, 1).fill_(last_position_id + 1).long()`, `text_stream_is_finished` on the text EOS).
Reduced: the ALM (remote code on the Hub, not read) stands as a Llama backbone over the sum of the two token
embeddings with an audio and a text head, `forward(..., return_dict=False)` returning the two logits and the cache;
greedy sampling, no whisper features, no repetition windows or audio delay.
"""

import torch
from torch import nn
from transformers import AutoModel


class KimiaALM(nn.Module):
    def __init__(self, backbone, audio_vocab=48):
        super().__init__()
        self.model = backbone
        hidden = backbone.config.hidden_size
        self.audio_embed = nn.Embedding(audio_vocab, hidden)
        self.audio_head = nn.Linear(hidden, audio_vocab)
        self.text_head = nn.Linear(hidden, backbone.config.vocab_size)

    def forward(self, input_ids, text_input_ids, position_ids=None, past_key_values=None, return_dict=False):
        embeds = self.audio_embed(input_ids) + self.model.embed_tokens(text_input_ids)
        outputs = self.model(inputs_embeds=embeds, position_ids=position_ids, past_key_values=past_key_values,
                             use_cache=True, return_dict=True)
        hidden = outputs.last_hidden_state[:, -1:]
        return self.audio_head(hidden), self.text_head(hidden), outputs.past_key_values


class KimiAudio:
    def __init__(self, model_path, text_eos=2):
        self.alm = KimiaALM(AutoModel.from_pretrained(model_path)).eval()
        self.text_eos = text_eos

    @torch.no_grad()
    def _generate_loop(self, audio_input_ids, text_input_ids, max_new_tokens=5):
        decoder_input_audio_ids = audio_input_ids.clone()
        decoder_input_text_ids = text_input_ids.clone()
        decoder_position_ids = torch.arange(0, decoder_input_audio_ids.shape[1]).unsqueeze(0).long()
        past_key_values = None
        last_position_id = decoder_input_audio_ids.shape[1] - 1
        text_tokens, audio_tokens = [], []
        for _ in range(max_new_tokens):
            audio_logits, text_logits, past_key_values = self.alm.forward(  # clean: km_alm_step
                input_ids=decoder_input_audio_ids,
                text_input_ids=decoder_input_text_ids,
                position_ids=decoder_position_ids,
                past_key_values=past_key_values,
                return_dict=False,
            )
            next_token_text = text_logits[:, -1].argmax(-1)
            next_audio_token = audio_logits[:, -1].argmax(-1)
            text_tokens.append(int(next_token_text))
            audio_tokens.append(int(next_audio_token))
            decoder_input_audio_ids = next_audio_token.unsqueeze(1)
            decoder_input_text_ids = next_token_text.unsqueeze(1)
            decoder_position_ids = torch.zeros(1, 1).fill_(last_position_id + 1).long().view(1, 1)  # clean: km_next_position
            last_position_id += 1
        return audio_tokens, text_tokens, past_key_values


kimia = KimiAudio("moonshotai/Kimi-Audio-7B-Instruct")


def probe_dual_stream():
    audio, text, past = kimia._generate_loop(torch.tensor([[1, 2, 3, 4]]), torch.tensor([[5, 6, 7, 8]]))
    assert len(audio) == len(text) == 5 and past.get_seq_length() == 8
