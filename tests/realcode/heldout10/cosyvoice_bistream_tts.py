"""CosyVoice 2's speech-token language model (FunAudioLLM): a Qwen2 causal LM wrapped as `Qwen2Encoder`, whose
`forward_one_step` runs the model on new embeddings with `past_key_values=cache`, `use_cache=True` and the last row
of a causal mask, and hands back the last hidden state and `outs.past_key_values`. The offline decoder
(`inference_wrapper`) loops on it, one speech token per step, feeding back the cache it got; the bidirectional
streaming decoder (`inference_bistream`) mixes text and speech chunks and sizes each step's mask from the cached
length, read as `cache[0][0].size(2)` (the first layer's keys).

Provenance (mechanisms read; this code is written here, not copied):
- FunAudioLLM/CosyVoice @7fdd80dc648ec867c61b6b89fea042d475cd64b6
  cosyvoice/llm/llm.py (Qwen2Encoder.forward_one_step: `input_masks = masks[:, -1, :]`, `outs = self.model(
  inputs_embeds=xs, attention_mask=input_masks, output_hidden_states=True, return_dict=True, use_cache=True,
  past_key_values=cache)`, `new_cache = outs.past_key_values`; Qwen2LM.inference_wrapper: `cache = None`, `y_pred,
  cache = self.llm.forward_one_step(lm_input, masks=torch.tril(...), cache=cache)`, `lm_input =
  self.speech_embedding.weight[top_ids].reshape(1, 1, -1)`; inference_bistream: `seq_len = lm_input.shape[1] if
  cache is None else lm_input.shape[1] + cache[0][0].size(2)`, the mask `torch.tril(torch.ones((1, seq_len,
  seq_len)))`).
Reduced: no text frontend, speaker embedding, vLLM path or flow/vocoder; greedy choice instead of the sampling
callable; the bistream decoder takes a list of text-token chunks, appends each to the input, and decodes a fixed
number of speech tokens per chunk (the fill-token schedule is gone); the offline loop's mask is sized from the
tokens fed so far.
"""

import torch
from transformers import Qwen2ForCausalLM


class Qwen2Encoder(torch.nn.Module):
    def __init__(self, pretrain_path):
        super().__init__()
        self.model = Qwen2ForCausalLM.from_pretrained(pretrain_path)

    def forward_one_step(self, xs, masks, cache=None):
        input_masks = masks[:, -1, :]
        outs = self.model(inputs_embeds=xs, attention_mask=input_masks, output_hidden_states=True,  # clean: cv_step_forward
                          return_dict=True, use_cache=True, past_key_values=cache)
        xs = outs.hidden_states[-1]
        new_cache = outs.past_key_values  # clean: cv_new_cache
        return xs, new_cache


class Qwen2LM(torch.nn.Module):
    def __init__(self, llm, speech_token_size=64):
        super().__init__()
        self.llm = llm
        hidden = llm.model.config.hidden_size
        self.speech_token_size = speech_token_size
        self.llm_embedding = torch.nn.Embedding(2, hidden)
        self.llm_decoder = torch.nn.Linear(hidden, speech_token_size + 3)
        self.speech_embedding = torch.nn.Embedding(speech_token_size + 3, hidden)

    @torch.inference_mode()
    def inference_wrapper(self, lm_input, max_len):
        out_tokens = []
        cache = None
        fed = 0
        for i in range(max_len):
            fed += lm_input.shape[1]
            y_pred, cache = self.llm.forward_one_step(lm_input, masks=torch.tril(torch.ones((1, fed, fed))).to(torch.bool),  # clean: cv_offline_step
                                                      cache=cache)
            top_ids = int(self.llm_decoder(y_pred[:, -1]).argmax(-1))
            out_tokens.append(top_ids)
            lm_input = self.speech_embedding.weight[top_ids].reshape(1, 1, -1)
        return out_tokens, cache

    @torch.inference_mode()
    def inference_bistream(self, text_chunks, tokens_per_chunk=2):
        sos_emb = self.llm_embedding.weight[0].reshape(1, 1, -1)
        lm_input = sos_emb
        out_tokens = []
        cache = None
        for this_text in text_chunks:
            lm_input = torch.concat([lm_input, self.llm.model.model.embed_tokens(this_text)], dim=1)
            for _ in range(tokens_per_chunk):
                seq_len = lm_input.shape[1] if cache is None else lm_input.shape[1] + cache[0][0].size(2)  # site: cv_cached_length
                y_pred, cache = self.llm.forward_one_step(lm_input,  # clean: cv_bistream_step
                                                          masks=torch.tril(torch.ones((1, seq_len, seq_len))).bool(),
                                                          cache=cache)
                top_ids = int(self.llm_decoder(y_pred[:, -1]).argmax(-1))
                out_tokens.append(top_ids)
                lm_input = self.speech_embedding.weight[top_ids].reshape(1, 1, -1)
        return out_tokens, cache


llm = Qwen2LM(Qwen2Encoder("pretrained_models/CosyVoice2-0.5B/CosyVoice-BlankEN"))
prompt = torch.randn(1, 5, llm.llm.model.config.hidden_size)


def probe_offline():
    tokens, cache = llm.inference_wrapper(prompt, max_len=4)
    assert len(tokens) == 4 and cache.get_seq_length() == 8


def probe_first_chunk():
    tokens, cache = llm.inference_bistream([torch.tensor([[11, 12, 13]])], tokens_per_chunk=1)
    assert len(tokens) == 1 and cache.get_seq_length() == 4


def probe_bistream():
    chunks = [torch.tensor([[11, 12, 13]]), torch.tensor([[14, 15]])]
    tokens, cache = llm.inference_bistream(chunks)
    assert len(tokens) == 4 and cache.get_seq_length() == 9
