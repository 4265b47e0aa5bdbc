"""XTTS's GPT inference model (Coqui TTS): a GPT2PreTrainedModel subclass wrapping a GPT2Model backbone, with prefix
conditioning embeddings stored beforehand, its own `prepare_inputs_for_generation` (only the last token once a cache
exists) and `forward` (prefix + token embeddings on the first step, the fixed position embedding of one token
afterwards), a tuple-of-tuples `_reorder_cache` for beam search, and `generate` called on it to sample audio
codes.

Provenance (mechanisms read; this code is written here, not copied):
- coqui-ai/TTS @dbf1a08a0d4e47fdad6172e433eeb34bc6b13b4e
  TTS/tts/layers/xtts/gpt_inference.py (`class GPT2InferenceModel(GPT2PreTrainedModel)`, `store_prefix_emb`,
  `prepare_inputs_for_generation`: `if past_key_values is not None: input_ids = input_ids[:, -1].unsqueeze(-1)`,
  position ids from the attention mask; `forward`: `self.transformer(inputs_embeds=emb,
  past_key_values=past_key_values, attention_mask=attention_mask, ..., use_cache=use_cache, ...)`,
  `CausalLMOutputWithCrossAttentions(..., past_key_values=transformer_outputs.past_key_values)`; `_reorder_cache`
  over `layer_past in past`) and TTS/tts/layers/xtts/gpt.py (`self.gpt_inference.store_prefix_emb(...)`,
  `self.gpt_inference.generate(fake_inputs, bos_token_id=..., ...)`).
Reduced: the learned position embedding is a plain Embedding, no streaming generator.
"""

import torch
from torch import nn
from transformers import GPT2Config, GPT2Model, GPT2PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithCrossAttentions


class GPT2InferenceModel(GPT2PreTrainedModel):  # site: xt_no_generation_mixin
    def __init__(self, config, gpt, pos_emb, embeddings, norm, linear, kv_cache):
        super().__init__(config)
        self.transformer = gpt
        self.pos_embedding = pos_emb
        self.embeddings = embeddings
        self.lm_head = nn.Sequential(norm, linear)
        self.kv_cache = kv_cache
        self.cached_prefix_emb = None

    def store_prefix_emb(self, prefix_emb):
        self.cached_prefix_emb = prefix_emb

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):
        if not self.kv_cache:
            past_key_values = None
        if past_key_values is not None:
            input_ids = input_ids[:, -1].unsqueeze(-1)
        attention_mask = kwargs.get("attention_mask", None)
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                "attention_mask": attention_mask}

    def forward(self, input_ids=None, past_key_values=None, attention_mask=None, use_cache=None, return_dict=None,
                **kwargs):
        prefix_len = self.cached_prefix_emb.shape[1]
        if input_ids.shape[1] != 1:
            gen_emb = self.embeddings(input_ids[:, prefix_len:])
            gen_emb = gen_emb + self.pos_embedding(torch.arange(gen_emb.shape[1]))
            emb = torch.cat([self.cached_prefix_emb.to(gen_emb.dtype), gen_emb], dim=1)
        else:
            emb = self.embeddings(input_ids)
            emb = emb + self.pos_embedding(torch.tensor([attention_mask.shape[1] - (prefix_len + 1)]))
        transformer_outputs = self.transformer(  # clean: xt_backbone_forward
            inputs_embeds=emb,
            past_key_values=past_key_values,
            attention_mask=attention_mask,
            use_cache=use_cache,
            return_dict=True,
        )
        lm_logits = self.lm_head(transformer_outputs[0])
        return CausalLMOutputWithCrossAttentions(logits=lm_logits,
                                                 past_key_values=transformer_outputs.past_key_values)  # clean: xt_output_cache

    @staticmethod
    def _reorder_cache(past, beam_idx):
        return tuple(tuple(past_state.index_select(0, beam_idx) for past_state in layer_past)  # clean: xt_reorder_tuples
                     for layer_past in past)


torch.manual_seed(0)
config = GPT2Config(vocab_size=64, n_positions=256, n_embd=32, n_layer=2, n_head=4, bos_token_id=1, eos_token_id=2)
gpt = GPT2Model(config)
inference = GPT2InferenceModel(config, gpt, nn.Embedding(256, 32), nn.Embedding(64, 32), nn.LayerNorm(32),
                               nn.Linear(32, 64), kv_cache=True)
inference.eval()
prefix = torch.randn(1, 5, 32)


def probe_generate_codes():
    inference.store_prefix_emb(prefix)
    fake_inputs = torch.full((1, 6), 1, dtype=torch.long)
    with torch.no_grad():
        codes = inference.generate(fake_inputs, bos_token_id=1, pad_token_id=0, eos_token_id=2, do_sample=False,  # observe: xt_no_generation_mixin
                                   min_new_tokens=3, max_new_tokens=3)
    assert codes.shape == (1, 9)


def probe_forward_steps():
    inference.store_prefix_emb(prefix)
    fake_inputs = torch.full((1, 6), 1, dtype=torch.long)
    with torch.no_grad():
        out = inference(input_ids=fake_inputs, attention_mask=torch.ones(1, 6), use_cache=True)
        step = inference(input_ids=torch.tensor([[7]]), past_key_values=out.past_key_values,
                         attention_mask=torch.ones(1, 7), use_cache=True)
    assert step.logits.shape == (1, 1, 64)


def probe_reorder():
    past = tuple((torch.randn(2, 4, 3, 8), torch.randn(2, 4, 3, 8)) for _ in range(2))
    reordered = GPT2InferenceModel._reorder_cache(past, torch.tensor([1, 0]))
    assert torch.equal(reordered[0][0][0], past[0][0][1])
