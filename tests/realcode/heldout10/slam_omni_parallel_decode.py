"""SLAM-Omni (X-LANCE SLAM-LLM, the speech-to-speech example): one LLM emits a text token and several audio-codec
tokens per step from a vocabulary laid out as [text | audio layer 0 | audio layer 1 | ...]. `generate` first encodes
the speech prompt into `inputs_embeds`, then decodes step by step: from the second step the input is the mean of
the embeddings of the previous text token and the layer-shifted audio tokens, the model runs with
`past_key_values=past_key_values, use_cache=True` and a mask grown by one column per step, the output's cache is kept
for the next step, and the logits are split into the text slice and one slice per audio layer for greedy or sampled
choices, until both the text and audio streams have ended.

Provenance (mechanisms read; this code is written here, not copied):
- X-LANCE/SLAM-LLM @a68e78f93a12a678438c8b43974fd987abb66927
  examples/s2s/model/slam_model_s2s.py (slam_model_s2s.generate: `inputs_embeds, attention_mask = self.forward(...,
  inference_mode=True)`, `past_key_values = None`, the loop `audio_tokens =
  torch.cat([layershift(current_audio_tokens[i], i).unsqueeze(1) for i in range(self.code_layer)], dim=1)`,
  `inputs_embeds = torch.mean(self.llm.model.embed_tokens(combined_input_ids), dim=1).unsqueeze(1)`, `outputs =
  self.llm(inputs_embeds=inputs_embeds, attention_mask=attention_mask, past_key_values=past_key_values,
  use_cache=True)`, `past_key_values = outputs.past_key_values`, `xt_logits = logits[..., :text_vocab_size]`,
  `xa_logits = [logits[..., text_vocab_size + audio_vocab_size * i : ...] for i in range(self.code_layer)]`,
  `attention_mask = torch.cat([attention_mask, torch.ones(...)], dim=1)`).
Reduced: the Whisper encoder and projector are one linear layer over random frames; two audio layers of 64 codes
and a 128-token text vocabulary inside the tiny model's 320; greedy choices, no repetition penalty, a fixed number
of steps (no end-of-text / end-of-audio check).
"""

import torch
from transformers import AutoModelForCausalLM

TEXT_VOCAB, AUDIO_VOCAB, CODE_LAYER = 128, 64, 2


def layershift(tokens, i):
    return tokens + TEXT_VOCAB + i * AUDIO_VOCAB


class SlamModelS2S(torch.nn.Module):
    def __init__(self, llm_path):
        super().__init__()
        self.llm = AutoModelForCausalLM.from_pretrained(llm_path).eval()
        self.encoder_projector = torch.nn.Linear(40, self.llm.config.hidden_size)
        self.code_layer = CODE_LAYER

    def forward(self, input_ids, speech):
        text_embeds = self.llm.model.embed_tokens(input_ids)
        inputs_embeds = torch.cat([self.encoder_projector(speech), text_embeds], dim=1)
        return inputs_embeds, torch.ones(inputs_embeds.shape[:2])

    @torch.no_grad()
    def generate(self, input_ids, speech, max_new_tokens=4):
        inputs_embeds, attention_mask = self.forward(input_ids, speech)
        generated_ids = [torch.zeros((max_new_tokens,), dtype=torch.long) for _ in range(self.code_layer + 1)]
        current_input_text = None
        current_audio_tokens = [None for _ in range(self.code_layer)]
        past_key_values = None
        for step in range(max_new_tokens):
            if current_input_text is not None:
                audio_tokens = torch.cat([layershift(current_audio_tokens[i], i).unsqueeze(1)
                                          for i in range(self.code_layer)], dim=1)
                combined_input_ids = torch.cat([audio_tokens, current_input_text.unsqueeze(1)], dim=1)
                inputs_embeds = torch.mean(self.llm.model.embed_tokens(combined_input_ids), dim=1).unsqueeze(1)
            outputs = self.llm(inputs_embeds=inputs_embeds, attention_mask=attention_mask,  # clean: sl_parallel_step
                               past_key_values=past_key_values, use_cache=True)
            logits = outputs.logits[0]
            past_key_values = outputs.past_key_values  # clean: sl_keep_cache
            xt_logits = logits[..., :TEXT_VOCAB]
            xa_logits = [logits[..., TEXT_VOCAB + AUDIO_VOCAB * i: TEXT_VOCAB + AUDIO_VOCAB * (i + 1)]
                         for i in range(self.code_layer)]
            next_token_text = xt_logits[-1, :].argmax(-1, keepdim=True)
            next_tokens_audio = [xa_logits[i][-1, :].argmax(-1, keepdim=True) for i in range(self.code_layer)]
            current_input_text = next_token_text
            for i in range(self.code_layer):
                current_audio_tokens[i] = next_tokens_audio[i]
                generated_ids[i][step] = next_tokens_audio[i]
            generated_ids[self.code_layer][step] = next_token_text
            attention_mask = torch.cat([attention_mask, torch.ones((input_ids.size(0), 1))], dim=1)
        return generated_ids, past_key_values


model = SlamModelS2S("Qwen/Qwen2-0.5B")


def probe_speech_to_speech():
    generated, past = model.generate(torch.tensor([[1, 60, 61]]), torch.randn(1, 4, 40))
    assert len(generated) == 3 and generated[2].shape == (4,) and past.get_seq_length() == 10
