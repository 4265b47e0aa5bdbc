"""Bunny (BAAI-DCAI/Bunny, lightweight VLMs): `BunnyLlamaForCausalLM` subclasses the Llama it vendors; its `forward`
lists its keywords up to `images`, `return_dict`, `cache_position` (no `**kwargs`), rebuilds the multimodal
embeddings when `inputs_embeds` is None and calls `super().forward(..., past_key_values=past_key_values, ...,
cache_position=None)`; `prepare_inputs_for_generation` pops `images` and calls the parent with
`past_key_values=..., inputs_embeds=..., attention_mask=..., **kwargs`. The vendored 4.38-era `LlamaModel.forward`
wraps whatever cache it is given with `DynamicCache.from_legacy_cache(past_key_values)` unless it is a
`StaticCache`, reads `past_seen_tokens = past_key_values.get_seq_length()`, and returns
`next_decoder_cache.to_legacy_cache()` when the layers handed back a `Cache`.

Provenance (mechanisms read; this code is written here, not copied):
- BAAI-DCAI/Bunny @3a683ea0c89a47efd8f4b320071b18f2788a3114
  bunny/model/language_model/bunny_llama.py (BunnyLlamaForCausalLM.forward's signature and super().forward call,
  prepare_inputs_for_generation).
- BAAI-DCAI/Bunny @3333e622dfd61f23c616dbac6d8a724a12c0940e
  bunny/model/language_model/llama/modeling_llama.py (LlamaModel.forward: the `use_cache` block with
  `from_legacy_cache` and `get_seq_length`, the `cache_position` default, the `to_legacy_cache` return).
Reduced: the parent is transformers' own LlamaForCausalLM instead of the vendored copy, whose cache handling is kept
as two helpers reached by their own probes; the vision tower and projector (bunny_arch) are a linear layer over
(n, hidden) features put before the text.
"""

import torch
from torch import nn
from transformers import LlamaForCausalLM
from transformers.cache_utils import Cache, DynamicCache, StaticCache


def vendored_cache_in(past_key_values, inputs_embeds, use_cache=True, cache_position=None):
    past_seen_tokens = 0
    if use_cache:
        if not isinstance(past_key_values, StaticCache):  # clean: bn_static_check
            past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: bn_from_legacy
            past_seen_tokens = past_key_values.get_seq_length()
    if cache_position is None:
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + inputs_embeds.shape[1])
    return past_key_values, cache_position


def vendored_cache_out(next_decoder_cache, use_cache=True):
    next_cache = None
    if use_cache:
        next_cache = next_decoder_cache.to_legacy_cache() if isinstance(next_decoder_cache, Cache) else next_decoder_cache  # site: bn_to_legacy
    return next_cache


class BunnyLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.mm_projector = nn.Linear(config.hidden_size, config.hidden_size)
        self.post_init()

    def get_model(self):
        return self.model

    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels,
                                             images):
        if images is None or input_ids.shape[1] == 1:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels
        embeds = torch.cat([self.mm_projector(images), self.get_model().embed_tokens(input_ids)], dim=1)
        return None, None, torch.ones(embeds.shape[:2], dtype=torch.long), past_key_values, embeds, labels

    def forward(  # site: bn_forward_signature
            self,
            input_ids=None,
            attention_mask=None,
            position_ids=None,
            past_key_values=None,
            inputs_embeds=None,
            labels=None,
            use_cache=None,
            output_attentions=None,
            output_hidden_states=None,
            images=None,
            return_dict=None,
            cache_position=None,
    ):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds, labels) = \
                self.prepare_inputs_labels_for_multimodal(input_ids, position_ids, attention_mask, past_key_values,
                                                          labels, images)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # clean: bn_super_forward
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict,
                               cache_position=None)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, attention_mask=None,
                                      **kwargs):
        images = kwargs.pop("images", None)
        _inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,  # clean: bn_super_prepare
                                                        inputs_embeds=inputs_embeds, attention_mask=attention_mask,
                                                        **kwargs)
        if images is not None:
            _inputs["images"] = images
        return _inputs


model = BunnyLlamaForCausalLM.from_pretrained("BAAI/Bunny-v1_1-Llama-3-8B-V").eval()
model.generation_config.min_new_tokens = 3
prompt = torch.tensor([[1, 77, 105, 8, 260, 31]])
image = torch.randn(1, 2, model.config.hidden_size)


def probe_text_generate():
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, use_cache=True)  # observe: bn_forward_signature
    assert out.shape[1] == prompt.shape[1] + 3


@torch.no_grad()
def probe_image_forward():
    first = model(input_ids=prompt, images=image, use_cache=True)
    nxt = model(input_ids=first.logits[:, -1:].argmax(-1), past_key_values=first.past_key_values, use_cache=True)
    assert nxt.logits.shape[1] == 1


def probe_prepare():
    inputs = model.prepare_inputs_for_generation(prompt, past_key_values=None, images=image,
                                                 attention_mask=torch.ones_like(prompt), use_cache=True,
                                                 cache_position=torch.arange(6))
    assert inputs["images"] is image


def probe_cache_in():
    cache, positions = vendored_cache_in(None, torch.zeros(1, 4, 8))
    assert positions.tolist() == [0, 1, 2, 3]


def probe_static_cache():
    static = StaticCache(config=model.config, max_cache_len=16)
    cache, positions = vendored_cache_in(static, torch.zeros(1, 4, 8), cache_position=torch.arange(4))
    assert cache is static


@torch.no_grad()
def probe_cache_out():
    out = model(input_ids=prompt, use_cache=True)
    legacy = vendored_cache_out(out.past_key_values)
    assert len(legacy) == model.config.num_hidden_layers
