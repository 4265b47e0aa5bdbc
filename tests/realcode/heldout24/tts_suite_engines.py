"""TTS Audio Suite (diodiogod): a ComfyUI node pack that vendors several TTS engines and patches each for the
transformers releases its users run. Chatterbox's T3 backend wraps a Llama backbone with its own speech embedding
and head (`T3HuggingfaceBackend(LlamaPreTrainedModel, GenerationMixin)`) and samples speech tokens in a manual CFG
loop: a first forward with `past_key_values=None`, then one token per step with `past_key_values=cache`, taking
`cache = output.past_key_values` back `if output.past_key_values:`; its forward tests `len(past_key_values) > 0`.
The vendored Higgs Audio model copies one KV cache into another in `_copy_kv_cache`: for two DynamicCaches it clears
the target with `to_cache.crop(0)` and re-fills it layer by layer from `key_cache, value_cache = from_cache[layer_idx]`
through `to_cache.update(...)`; `get_cache_max_length` probes `get_max_length` / `max_cache_len` with `hasattr`.
CosyVoice's `Qwen2Encoder.forward_one_step` reads the cached length with `get_seq_length()` when the cache has it
(else `cache[0][0].shape[2]` of a tuple) to build the full attention mask, and steps the Qwen2 LM with the cache.

Provenance (mechanisms read; this code is written here, not copied):
- diodiogod/TTS-Audio-Suite @d1bfe54ffdf764e344c054f91c37d89aa5e929d6
  engines/chatterbox/models/t3/inference/t3_hf_backend.py (T3HuggingfaceBackend.__init__ and forward: `has_cache =
  past_key_values is not None and len(past_key_values) > 0`, `assert not (is_large_input and has_cache)`,
  `self.model(inputs_embeds=..., past_key_values=pkv, use_cache=use_cache, ...)`, CausalLMOutputWithCrossAttentions
  built with `past_key_values=tfmr_out.past_key_values`);
  engines/chatterbox/models/t3/t3.py (inference: the initial `self.patched_model(inputs_embeds=..., use_cache=True,
  past_key_values=None)`, `cache = output.past_key_values`, CFG on the two batch rows, the step
  `self.patched_model(inputs_embeds=next_token_embed, past_key_values=cache, use_cache=True, ...)`, `if
  output.past_key_values: cache = output.past_key_values`);
  engines/higgs_audio/boson_multimodal/model/higgs_audio/modeling_higgs_audio.py (get_cache_seq_length,
  get_cache_max_length, `_copy_kv_cache`: `to_cache.crop(0)  # Clear existing cache`, `key_cache, value_cache =
  from_cache[layer_idx]`, `to_cache.update(key_cache, value_cache, layer_idx)`);
  engines/cosyvoice/impl/cosyvoice/llm/llm.py (Qwen2Encoder.forward_one_step).
Reduced: the backbones are a tiny Llama; speech embeddings and heads are random layers; greedy instead of top-p
sampling; the Higgs model's dual-FFN layer count and its StaticCache branch are left out; the copy's clearing and
its re-fill are reached by separate probes (a cache copied from an empty template only clears).
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM, GenerationMixin, LlamaPreTrainedModel, StaticCache
from transformers.cache_utils import DynamicCache
from transformers.modeling_outputs import CausalLMOutputWithCrossAttentions

SPEECH_VOCAB = 40
STOP_SPEECH = 39


class T3HuggingfaceBackend(LlamaPreTrainedModel, GenerationMixin):
    def __init__(self, config, llama, *, speech_enc, speech_head):
        config.use_cache = True
        config.return_dict = True
        super().__init__(config)
        self.model = llama
        self.speech_enc = speech_enc
        self.speech_head = speech_head

    @torch.inference_mode()
    def forward(self, inputs_embeds, past_key_values=None, use_cache=True, output_attentions=False,
                output_hidden_states=True, return_dict=True):
        is_large_input = inputs_embeds.size(1) != 1
        has_cache = past_key_values is not None and len(past_key_values) > 0  # clean: ts_has_cache
        assert not (is_large_input and has_cache)
        tfmr_out = self.model(inputs_embeds=inputs_embeds, past_key_values=past_key_values, use_cache=use_cache,
                              return_dict=True)
        logits = self.speech_head(tfmr_out.last_hidden_state)
        return CausalLMOutputWithCrossAttentions(logits=logits, past_key_values=tfmr_out.past_key_values)


backbone_lm = AutoModelForCausalLM.from_pretrained("ResembleAI/chatterbox").eval()
llama = backbone_lm.model
hidden = llama.config.hidden_size
speech_emb = nn.Embedding(SPEECH_VOCAB, hidden)
patched_model = T3HuggingfaceBackend(llama.config, llama, speech_enc=speech_emb,
                                     speech_head=nn.Linear(hidden, SPEECH_VOCAB)).eval()


@torch.inference_mode()
def t3_inference(embeds, max_new_tokens=4, cfg_weight=0.5):
    bos = torch.tensor([[0]])
    bos_embed = torch.cat([speech_emb(bos), speech_emb(bos)])
    inputs_embeds = torch.cat([embeds, bos_embed], dim=1)
    output = patched_model(inputs_embeds=inputs_embeds, use_cache=True, output_hidden_states=True,  # clean: ts_t3_prefill
                           return_dict=True, past_key_values=None)
    cache = output.past_key_values
    predicted = []
    for _ in range(max_new_tokens):
        logits = output.logits[:, -1, :]
        logits = logits[0:1] + cfg_weight * (logits[0:1] - logits[1:2])
        next_token = logits.argmax(dim=-1, keepdim=True)
        predicted.append(next_token)
        next_embed = speech_emb(next_token)
        next_embed = torch.cat([next_embed, next_embed])
        output = patched_model(inputs_embeds=next_embed, past_key_values=cache, use_cache=True,  # clean: ts_t3_step
                               return_dict=True)
        if output.past_key_values:  # clean: ts_cache_truthy
            cache = output.past_key_values
    return torch.cat(predicted, dim=1), cache


def get_cache_max_length(cache):
    if isinstance(cache, DynamicCache):
        return 999999
    if hasattr(cache, "get_max_length"):
        return cache.get_max_length()  # clean: ts_max_length
    elif hasattr(cache, "max_cache_len"):
        return cache.max_cache_len
    return cache.get_seq_length()


def copy_kv_cache(from_cache, to_cache):
    if isinstance(from_cache, DynamicCache) and isinstance(to_cache, DynamicCache):
        num_layers = len(from_cache) if hasattr(from_cache, "__len__") else 0
        to_cache.crop(0)  # site: ts_clear_crop
        for layer_idx in range(num_layers):
            if layer_idx < len(from_cache):
                key_cache, value_cache = from_cache[layer_idx]  # site: ts_layer_index
                if key_cache is not None and value_cache is not None:
                    to_cache.update(key_cache, value_cache, layer_idx)


def forward_one_step(lm, xs, cache=None):
    if cache is not None:
        if hasattr(cache, "get_seq_length"):
            cached_len = cache.get_seq_length()
        elif hasattr(cache, "__len__") and len(cache) > 0:
            cached_len = cache[0][0].shape[2]  # clean: ts_tuple_branch
        else:
            cached_len = 0
        input_masks = torch.ones((xs.shape[0], cached_len + xs.shape[1]), dtype=torch.long)
    else:
        input_masks = torch.ones(xs.shape[:2], dtype=torch.long)
    outs = lm(inputs_embeds=xs, attention_mask=input_masks, output_hidden_states=True, return_dict=True,  # clean: ts_cosy_step
              use_cache=True, past_key_values=cache)
    return outs.hidden_states[-1], outs.past_key_values


def _filled(n):
    with torch.no_grad():
        return backbone_lm(torch.arange(3, 3 + n).unsqueeze(0), use_cache=True).past_key_values


def probe_t3():
    tokens, cache = t3_inference(torch.randn(2, 3, hidden))
    assert tokens.shape == (1, 4)
    assert cache.get_seq_length() == 3 + 1 + 4


def probe_static_capacity():
    cache = StaticCache(config=backbone_lm.config, max_cache_len=16)
    assert get_cache_max_length(cache) == 16


def probe_reset_bucket():
    bucket = _filled(5)
    copy_kv_cache(DynamicCache(), bucket)
    assert bucket.get_seq_length() == 0, "ts_clear_crop: the bucket cache still holds the last generation"  # observe: ts_clear_crop


def probe_copy_prefix():
    bucket = DynamicCache()
    copy_kv_cache(_filled(3), bucket)
    assert bucket.get_seq_length() == 3


def probe_cosy_steps():
    xs = torch.randn(1, 4, hidden)
    _, cache = forward_one_step(backbone_lm, xs)
    out, cache = forward_one_step(backbone_lm, torch.randn(1, 1, hidden), cache)
    assert cache.get_seq_length() == 5
