"""A KV-compression toolkit's instrumentation: pre-hooks on the decoder layers (found with `named_modules()`,
or bound to their layer index with `functools.partial`) that read the cache from the keywords each layer is
called with, and layer overrides that take the positions as a `cache_position` parameter."""

import functools

import torch
from transformers import AutoModelForCausalLM
from transformers.models.llama import modeling_llama
from transformers.models.llama.modeling_llama import LlamaDecoderLayer

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def length_hook(module, args, kwargs):
    module.cached = kwargs["past_key_values"].get_seq_length()  # site: layer_prehook_subscript


def tagged_hook(layer_idx, module, args, kwargs):
    cache = kwargs.get("past_key_values")  # site: layer_prehook_get
    module.cached = None if cache is None else cache.get_seq_length(layer_idx)


def compat_hook(module, args, kwargs):
    cache = kwargs.get("cache", kwargs.get("past_key_values"))  # clean: layer_prehook_compat
    module.cached = cache.get_seq_length()


def install(lm, hook):
    handles = []
    for name, module in lm.named_modules():
        if isinstance(module, LlamaDecoderLayer):
            handles.append(module.register_forward_pre_hook(hook, with_kwargs=True))
    return handles


def install_tagged(lm):
    for i, layer in enumerate(lm.model.layers):
        layer.register_forward_pre_hook(functools.partial(tagged_hook, i), with_kwargs=True)


class PrefillAwareLayer(LlamaDecoderLayer):
    def forward(self, hidden_states, cache_position=None, **kwargs):
        self.prefill = bool(cache_position[0] == 0)  # site: layer_position_parameter
        return super().forward(hidden_states, cache_position=cache_position, **kwargs)


original_attention = modeling_llama.LlamaAttention.forward


def attention_forward(self, hidden_states, cache_position=None, **kwargs):
    if cache_position is None:  # clean: attention_position_guarded
        cache_position = torch.arange(hidden_states.shape[1])
    self.last_position = int(cache_position[-1])
    return original_attention(self, hidden_states, **kwargs)


def probe_prehook_subscript():
    install(model, length_hook)
    model.generate(prompt, max_new_tokens=2, min_new_tokens=2)
    assert model.model.layers[0].cached == 5


def probe_prehook_get():
    install_tagged(model)
    model.generate(prompt, max_new_tokens=2, min_new_tokens=2)
    assert model.model.layers[0].cached == 5, "layer_prehook_get: the hook saw no cache"  # observe: layer_prehook_get


def probe_prehook_compat():
    install(model, compat_hook)
    model.generate(prompt, max_new_tokens=2, min_new_tokens=2)
    assert model.model.layers[0].cached == 5


def probe_position_parameter():
    for layer in model.model.layers:
        layer.__class__ = PrefillAwareLayer
    model.generate(prompt, max_new_tokens=2, min_new_tokens=2)
    assert not model.model.layers[0].prefill


def probe_position_guarded():
    modeling_llama.LlamaAttention.forward = attention_forward
    assert model.generate(prompt, max_new_tokens=2, min_new_tokens=2).shape[-1] == 7
