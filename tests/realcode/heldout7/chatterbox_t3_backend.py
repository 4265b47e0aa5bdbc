"""Chatterbox TTS's T3 inference: the speech-token LM is a LlamaModel wrapped in a LlamaPreTrainedModel +
GenerationMixin backend with the project's own speech embedding and speech head; inference runs the project's own
sampling loop (classifier-free guidance over a batch of two): a first forward over the conditioning embeddings with
`past_key_values=None, use_cache=True`, then one token at a time with `past_key_values=past` and `past =
output.past_key_values`. The backend's forward checks `len(past_key_values) > 0` to refuse a long input on top of
a cache; its `prepare_inputs_for_generation` keeps only the last token once a cache is given.

Provenance (mechanisms read; this code is written here, not copied):
- resemble-ai/chatterbox @5de7a54aa4e5e2baadb0182dde554908b48b85c2
  src/chatterbox/models/t3/inference/t3_hf_backend.py (T3HuggingfaceBackend(LlamaPreTrainedModel, GenerationMixin):
  `prepare_inputs_for_generation(input_ids, decoder_cond, use_cache, past_key_values=None, cache_position=None)`
  trimming `input_ids[:, -1:]`, `forward`: `has_cache = past_key_values is not None and len(past_key_values) > 0`,
  `self.model(inputs_embeds=..., past_key_values=past_key_values, use_cache=use_cache, ...,
  output_hidden_states=True, return_dict=True)`, `CausalLMOutputWithCrossAttentions(logits=...,
  past_key_values=tfmr_out.past_key_values, ...)`) and src/chatterbox/models/t3/t3.py (T3.inference: the
  patched model built once, the initial forward with `past_key_values=None, use_cache=True`, `past =
  output.past_key_values`, the CFG sampling loop forwarding `past_key_values=past`).
Reduced: greedy instead of min-p/top-p sampling, a plain Embedding for the positions, no alignment analyser.
"""

import torch
from torch import nn
from transformers import GenerationMixin, LlamaConfig, LlamaModel, LlamaPreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithCrossAttentions


class T3HuggingfaceBackend(LlamaPreTrainedModel, GenerationMixin):
    def __init__(self, config, llama, *, speech_enc, speech_head):
        super().__init__(config)
        self.model = llama
        self.speech_enc = speech_enc
        self.speech_head = speech_head

    def prepare_inputs_for_generation(self, input_ids, decoder_cond, use_cache, past_key_values=None,
                                      cache_position=None):
        if not use_cache:
            past_key_values = None
        if past_key_values is not None:
            input_ids = input_ids[:, -1:]
        inputs_embeds = self.speech_enc(input_ids)
        return {"inputs_embeds": inputs_embeds, "past_key_values": past_key_values, "use_cache": use_cache}

    def forward(self, inputs_embeds, past_key_values=None, use_cache=True, output_attentions=False,
                output_hidden_states=True, return_dict=True):
        is_large_input = inputs_embeds.size(1) != 1
        has_cache = past_key_values is not None and len(past_key_values) > 0  # clean: cb_cache_len
        assert not (is_large_input and has_cache)
        tfmr_out = self.model(  # clean: cb_backbone_forward
            inputs_embeds=inputs_embeds,
            past_key_values=past_key_values,
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=True,
        )
        logits = self.speech_head(tfmr_out.hidden_states[-1])
        return CausalLMOutputWithCrossAttentions(logits=logits, past_key_values=tfmr_out.past_key_values,
                                                 hidden_states=tfmr_out.hidden_states)


class T3(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = LlamaConfig(vocab_size=8, hidden_size=128, intermediate_size=128, num_hidden_layers=2,
                               num_attention_heads=2, num_key_value_heads=1, head_dim=64)
        self.tfmr = LlamaModel(self.cfg)
        self.speech_emb = nn.Embedding(100, 128)
        self.speech_pos_emb = nn.Embedding(64, 128)
        self.speech_head = nn.Linear(128, 100, bias=False)
        self.patched_model = None

    @torch.inference_mode()
    def inference(self, cond_embeds, max_new_tokens=5, cfg_weight=0.5):
        if self.patched_model is None:
            self.patched_model = T3HuggingfaceBackend(self.cfg, self.tfmr, speech_enc=self.speech_emb,
                                                      speech_head=self.speech_head)
        output = self.patched_model(  # clean: cb_initial_forward
            inputs_embeds=cond_embeds,
            past_key_values=None,
            use_cache=True,
            output_hidden_states=True,
            return_dict=True,
        )
        past = output.past_key_values  # clean: cb_keep_past
        predicted = []
        for i in range(max_new_tokens):
            logits_step = output.logits[:, -1, :]
            cond, uncond = logits_step[0:1, :], logits_step[1:2, :]
            logits = cond + cfg_weight * (cond - uncond)
            next_token = logits.argmax(-1, keepdim=True)
            predicted.append(next_token)
            next_token_embed = self.speech_emb(next_token) + self.speech_pos_emb(torch.tensor([i + 1]))
            next_token_embed = torch.cat([next_token_embed, next_token_embed])
            output = self.patched_model(  # clean: cb_step_forward
                inputs_embeds=next_token_embed,
                past_key_values=past,
                output_hidden_states=True,
                return_dict=True,
            )
            past = output.past_key_values
        return torch.cat(predicted, dim=1), past


torch.manual_seed(0)
t3 = T3().eval()


def probe_inference():
    tokens, past = t3.inference(torch.randn(2, 7, 128), max_new_tokens=5)
    assert tokens.shape == (1, 5) and past.get_seq_length() == 12


def probe_guard():
    t3.inference(torch.randn(2, 3, 128), max_new_tokens=1)
    past = t3.patched_model(inputs_embeds=torch.randn(2, 4, 128), use_cache=True).past_key_values
    try:
        t3.patched_model(inputs_embeds=torch.randn(2, 2, 128), past_key_values=past)
    except AssertionError:
        pass
    else:
        raise AssertionError("the backend took a long input on top of a cache")
