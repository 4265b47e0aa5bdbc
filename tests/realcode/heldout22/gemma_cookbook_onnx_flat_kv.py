"""Gemma Cookbook (google-gemini/gemma-cookbook): the PaliGemma 2 to ONNX tutorial notebook. To export the decoder with
its cache as flat graph inputs and outputs, it patches the model's forward to take `*args` = `inputs_embeds,
position_ids, *past_key_values_args`: with no past arguments the cache is None, otherwise it builds
`DynamicCache(config.num_hidden_layers)` and fills it layer by layer with `past_key_values.update(key_states=key,
value_states=value, layer_idx=i)` from the popped key / value pairs; after `self.language_model.forward(inputs_embeds=...,
position_ids=..., past_key_values=...)` it flattens the returned cache into `present.{i}.key` / `present.{i}.value`
outputs with `zip(output_past_key_values.key_cache, output_past_key_values.value_cache)`.

Provenance (mechanisms read; this code is written here, not copied):
- google-gemini/gemma-cookbook @e119e3d24e2f618fafa7203662c8f7a2c791de35 (2026-03-13; the notebook last changed at
  8fd5887, 2025-02-27)
  PaliGemma/[PaliGemma_2]Convert_PaliGemma2_to_ONNX.ipynb (the conversion cell: `VisionEncoder`,
  `PatchedPaliGemmaForConditionalGeneration.forward(self, *args)`, the `DynamicCache(config.num_hidden_layers)` and
  `update(...)` loop, the `language_model.forward` call, the `key_cache` / `value_cache` flattening into the outputs
  dict).
Reduced: a Llama causal LM stands for PaliGemma 2's Gemma 2 language model (no vision tower, projector nor processor,
no `torch.onnx.export` nor the `torch.Tensor.__len__` patch the trace needed), the all-zeros 4D attention mask is left
out, the patched forward is a module wrapping the model, the cache building and the flattening are helpers of their
own; CPU.
"""

import torch
import torch.nn as nn
from transformers import AutoTokenizer, DynamicCache, LlamaForCausalLM


def unflatten_past(config, past_key_values_args):
    past_key_values_args = list(past_key_values_args)
    if len(past_key_values_args) == 0:
        past_key_values = None  # clean: gc_no_past
    else:
        past_key_values = DynamicCache(config.num_hidden_layers)  # site: gc_cache_positional
        for i in range(config.num_hidden_layers):
            key = past_key_values_args.pop(0)
            value = past_key_values_args.pop(0)
            past_key_values.update(key_states=key, value_states=value, layer_idx=i)
    return past_key_values


def flatten_present(logits, output_past_key_values):
    outputs = {"logits": logits}
    for i, (key, value) in enumerate(
        zip(output_past_key_values.key_cache, output_past_key_values.value_cache)  # site: gc_key_cache_read
    ):
        outputs[f"present.{i}.key"] = key
        outputs[f"present.{i}.value"] = value
    return outputs


class PatchedDecoder(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm
        self.config = lm.config

    def decode(self, inputs_embeds, position_ids, past_key_values):
        return self.lm.forward(inputs_embeds=inputs_embeds, position_ids=position_ids,
                               past_key_values=past_key_values)  # clean: gc_embeds_forward

    def forward(self, *args):
        inputs_embeds, position_ids, *past_key_values_args = args
        past_key_values = unflatten_past(self.config, past_key_values_args)
        o = self.decode(inputs_embeds, position_ids, past_key_values)
        return flatten_present(o.logits, o.past_key_values)


model = LlamaForCausalLM.from_pretrained("google/paligemma2-3b-pt-224", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("google/paligemma2-3b-pt-224")
decoder = PatchedDecoder(model)
embed_layer = model.model.embed_tokens


def _prompt():
    ids = tokenizer("caption en a cat on a mat", return_tensors="pt").input_ids
    return embed_layer(ids), torch.arange(ids.shape[1])[None, :]


@torch.no_grad()
def probe_no_past():
    assert unflatten_past(model.config, []) is None


@torch.no_grad()
def probe_embeds_forward():
    embeds, position_ids = _prompt()
    o = decoder.decode(embeds, position_ids, None)
    assert o.logits.shape[1] == embeds.shape[1] and o.past_key_values.get_seq_length() == embeds.shape[1]


@torch.no_grad()
def probe_export_first_step():
    embeds, position_ids = _prompt()
    out = decoder(embeds, position_ids)
    assert len(out) == 1 + 2 * model.config.num_hidden_layers


@torch.no_grad()
def probe_export_with_past():
    embeds, position_ids = _prompt()
    n = model.config.num_hidden_layers
    kv = model.config.num_key_value_heads
    head_dim = model.config.hidden_size // model.config.num_attention_heads
    past = [torch.zeros(1, kv, 4, head_dim) for _ in range(2 * n)]
    cache = unflatten_past(model.config, past)
    assert cache.get_seq_length() == 4
