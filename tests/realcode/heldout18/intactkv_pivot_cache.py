"""IntactKV (keeping the KV cache of the pivot tokens, <bos> or the system prompt, in full precision while the model
is quantized): the pivot's cache is computed once by the full-precision model, copied to CPU layer by layer as legacy
`(key, value)` tuples (`for layer_kv in outputs.past_key_values: for cache in layer_kv: cache.detach().cpu()`), and
the quantized model's wrapper hands that tuple of tuples to the inner LlamaModel as `past_key_values` whenever a
request starts without a cache, dropping the pivot ids from the input.

Provenance (mechanisms read; this code is written here, not copied):
- ruikangliu/IntactKV @e9b841e9357c59ed800620373454110fc52fbfe4
  intactkv/utils.py (`gen_bos_kv` / `gen_vicuna_prompt_kv`: `outputs = model(input_ids=input_ids)`, `for layer_kv
  in outputs.past_key_values:`, `for cache in layer_kv: cpu_layer_kv.append(cache.detach().cpu())`, `intactkv =
  tuple(intactkv)`), intactkv/inference_model.py (`activate_intactkv = (past_key_values is None and self.intactkv
  is not None)`, `past_key_values = self.intactkv`, `outputs = self.model(input_ids=..., past_key_values=
  past_key_values, use_cache=True, ...)`, `logits = self.lm_head(outputs[0])`, the pivot's logits prepended),
  intactkv/train_model.py (the trainable pivot cache, one stacked key/value parameter per layer;
  `get_past_key_values`: `past_key_values = [layer_kv.clone() for layer_kv in self.intactkv]`, `tuple(...)`, handed
  to `self.model(..., past_key_values=past_key_values, use_cache=True)`).
Reduced: the wrapper is a plain class holding a tiny Llama instead of a LlamaForCausalLM subclass; no quantization,
no fastchat template (the pivot is <bos>); the pivot tuple for the wrapper's probe is also built from the cache's
layers by a helper so that the wrapper's forward is reached on every release.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache

model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5")
bos_ids = torch.tensor([[1]])


@torch.no_grad()
def gen_bos_kv(model, input_ids=bos_ids):
    outputs = model(input_ids=input_ids)
    intactkv = []
    for layer_kv in outputs.past_key_values:
        cpu_layer_kv = []
        for cache in layer_kv:
            cpu_layer_kv.append(cache.detach().cpu())  # site: ik_layer_unpack
        intactkv.append(tuple(cpu_layer_kv))
    return tuple(intactkv), input_ids


@torch.no_grad()
def pivot_from_layers(model, input_ids=bos_ids):
    cache = model(input_ids=input_ids, use_cache=True).past_key_values  # clean: ik_pivot_cache
    return tuple((layer.keys.cpu(), layer.values.cpu()) for layer in cache.layers)  # clean: ik_layers


class IntactKVInference:
    def __init__(self, model, intactkv, intactkv_ids):
        self.model = model.model
        self.lm_head = model.lm_head
        self.intactkv = intactkv
        self.intactkv_ids = intactkv_ids
        self.intactkv_len = intactkv_ids.shape[1]

    def get_past_key_values(self):
        return tuple(tuple(t.clone() for t in layer_kv) for layer_kv in self.intactkv)

    @torch.no_grad()
    def forward(self, input_ids, past_key_values=None):
        activate_intactkv = past_key_values is None and self.intactkv is not None
        if activate_intactkv:
            if (input_ids[:, :self.intactkv_len] == self.intactkv_ids).all():
                input_ids = input_ids[:, self.intactkv_len:]
            past_key_values = self.get_past_key_values()
        outputs = self.model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)  # site: ik_tuple_forward
        return self.lm_head(outputs[0]), outputs.past_key_values


class IntactKVTrain(torch.nn.Module):
    def __init__(self, model, intactkv, intactkv_ids):
        super().__init__()
        self.model = model.model
        self.lm_head = model.lm_head
        self.intactkv = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.stack(layer_kv)) for layer_kv in intactkv])
        self.intactkv_ids = intactkv_ids
        self.intactkv_len = intactkv_ids.shape[1]

    def get_past_key_values(self):
        past_key_values = [layer_kv.clone() for layer_kv in self.intactkv]
        return tuple(past_key_values)

    def forward(self, input_ids, past_key_values=None):
        if past_key_values is None and self.intactkv is not None:
            if (input_ids[:, :self.intactkv_len] == self.intactkv_ids).all():
                input_ids = input_ids[:, self.intactkv_len:]
            past_key_values = self.get_past_key_values()
        outputs = self.model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)  # site: ik_train_tuple
        return self.lm_head(outputs[0])


@torch.no_grad()
def forward_with_cache(input_ids):
    cache = DynamicCache()
    wrapper = IntactKVInference(model, None, bos_ids)
    logits, cache = wrapper.forward(input_ids, past_key_values=cache)  # clean: ik_own_cache
    return logits, cache


def probe_gen_bos_kv():
    intactkv, ids = gen_bos_kv(model)
    assert len(intactkv) == model.config.num_hidden_layers and intactkv[0][0].shape[2] == 1


def probe_pivot_layers():
    intactkv = pivot_from_layers(model)
    assert intactkv[0][0].shape[2] == 1


def probe_wrapper_forward():
    wrapper = IntactKVInference(model, pivot_from_layers(model), bos_ids)
    logits, _ = wrapper.forward(torch.tensor([[1, 15, 27, 39]]))
    assert logits.shape[1] == 3


def probe_train_forward():
    trainer = IntactKVTrain(model, pivot_from_layers(model), bos_ids)
    trainer(torch.tensor([[1, 15, 27, 39]]))


def probe_own_cache():
    logits, cache = forward_with_cache(torch.tensor([[1, 15, 27, 39]]))
    assert logits.shape[1] == 4 and cache.get_seq_length() == 4
