"""Olive (Microsoft's model optimisation toolkit): the ONNX conversion pass exports a causal LM with dummy past
keys and values (a list of `(key, value)` zero tensors per layer). Under the dynamo exporter it branches on the
installed transformers: from 5.0 it registers `DynamicCache` as a pytree node (flattened from `cache.layers`' `keys`
/ `values`, rebuilt with `DynamicCache()` and `update` per layer), patches `DynamicLayer.lazy_initialization(self,
key_states, value_states)` for the export's duration (a context manager that restores it), and converts the dummy
list into `DynamicCache(config=config)` with `dc.update(k, v, layer_idx=i)`; before 5.0 it wraps the model's forward
instead: list or tuple pasts become `DynamicCache.from_legacy_cache(...)` (4-tuples an `EncoderDecoderCache`), and a
cache in the outputs is turned back with `.to_legacy_cache()`.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/Olive @ee6f40fbefcc54f48cccab5ef4746b6c6dd28372
  olive/passes/onnx/conversion.py (`_register_dynamic_cache_export_support`: `_get_cache_dict` returning `{"cache":
  [(layer.keys, layer.values) for layer in cache.layers if layer.keys is not None]}`,
  `torch.utils._pytree.register_pytree_node(DynamicCache, ..., _unflatten_dynamic_cache, ...)` inside `try` / `except
  ValueError` "already registered"; `_unflatten_dynamic_cache`: `cache = DynamicCache()`, `cache.update(key, value,
  i)`; `_patched_dynamic_layer_lazy_initialization(self, key_states, value_states)`; `_patch_dynamic_layer_for_export`
  (`if not hasattr(DynamicLayer, "lazy_initialization")`, swap and restore); `_convert_past_key_values_to_dynamic_cache`
  (`dc = DynamicCache(config=config)`, `dc.update(kv[0], kv[1], layer_idx=layer_idx)`); `_patch_model_if_necessary`
  (`if transformers_version < version.parse("4.45"): return`, `patched_forward`: `DynamicCache.from_legacy_cache(
  kwargs["past_key_values"])` for pairs, `EncoderDecoderCache.from_legacy_cache` for 4-tuples, `if
  isinstance(outputs, dict) and isinstance(outputs.get("past_key_values"), (DynamicCache, EncoderDecoderCache)):
  outputs["past_key_values"] = outputs["past_key_values"].to_legacy_cache()`, `setattr(pytorch_model,
  orig_forward_name, patched_forward)`); `_export_pytorch_model`: `transformers_5_or_later =
  version.parse(transformers.__version__) >= version.parse("5.0")`, the two branches, `torch.onnx.export(...,
  kwargs=dummy_kwargs, dynamo=True)`) and olive/common/hf/io_config/input_generators.py (`_generate_past_key_values`:
  `[(torch.zeros(shape), torch.zeros(shape)) for _ in range(num_layers)]`, shape (batch, kv heads, past length, head
  dim)).
Reduced: `torch.onnx.export` replaced by one call of the model with the dummy inputs (the export traces that call),
no io_config, dynamic shapes, quantization or logits-to-keep handling, positional pasts left out; the pytree
round trip (what torch.export does with the registered node) is run from 5.0 only, where the project registers it.
"""

import contextlib
import functools

import torch
import transformers
from packaging import version
from transformers import AutoModelForCausalLM


def _register_dynamic_cache_export_support():
    from transformers.cache_utils import DynamicCache, DynamicLayer, DynamicSlidingWindowLayer

    def _get_cache_dict(cache):
        if any(not isinstance(layer, (DynamicLayer, DynamicSlidingWindowLayer)) for layer in cache.layers):
            raise RuntimeError("This pytree flattening function should only be applied to DynamicCache")
        return {"cache": [(layer.keys, layer.values) for layer in cache.layers if layer.keys is not None]}  # clean: ol_layers_flatten

    try:
        torch.utils._pytree.register_pytree_node(
            DynamicCache,
            lambda dynamic_cache: torch.utils._pytree._dict_flatten(_get_cache_dict(dynamic_cache)),
            _unflatten_dynamic_cache,
            serialized_type_name=f"{DynamicCache.__module__}.{DynamicCache.__name__}",
            flatten_with_keys_fn=lambda dynamic_cache: torch.utils._pytree._dict_flatten_with_keys(_get_cache_dict(dynamic_cache)),
        )
    except ValueError as e:
        if "already registered as pytree node" not in str(e):
            raise


def _unflatten_dynamic_cache(values, context):
    from transformers.cache_utils import DynamicCache

    dictionary = torch.utils._pytree._dict_unflatten(values, context)
    cache = DynamicCache()
    for i, (key, value) in enumerate(dictionary.get("cache", [])):
        cache.update(key, value, i)  # clean: ol_unflatten_update
    return cache


def _patched_dynamic_layer_lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor):  # clean: ol_lazy_init_signature
    self.dtype, self.device = key_states.dtype, key_states.device
    self.keys = torch.empty_like(torch.narrow(key_states, dim=-2, start=0, length=0))
    self.values = torch.empty_like(torch.narrow(value_states, dim=-2, start=0, length=0))
    self.is_initialized = True


@contextlib.contextmanager
def _patch_dynamic_layer_for_export():
    from transformers.cache_utils import DynamicLayer

    if not hasattr(DynamicLayer, "lazy_initialization"):
        yield
        return
    original = DynamicLayer.lazy_initialization
    DynamicLayer.lazy_initialization = _patched_dynamic_layer_lazy_initialization  # clean: ol_patch_layer
    try:
        yield
    finally:
        DynamicLayer.lazy_initialization = original


def _convert_past_key_values_to_dynamic_cache(dummy_kwargs, config=None):
    pkv = dummy_kwargs.get("past_key_values")
    if pkv is None or not isinstance(pkv, (list, tuple)):
        return dummy_kwargs
    if not pkv or not isinstance(pkv[0], (list, tuple)) or len(pkv[0]) != 2:
        return dummy_kwargs
    from transformers.cache_utils import DynamicCache

    dc = DynamicCache(config=config)  # clean: ol_cache_from_config
    for layer_idx, kv in enumerate(pkv):
        dc.update(kv[0], kv[1], layer_idx=layer_idx)  # clean: ol_convert_update
    dummy_kwargs["past_key_values"] = dc
    return dummy_kwargs


def _patch_model_if_necessary(pytorch_model):
    transformers_version = version.parse(transformers.__version__)
    if transformers_version < version.parse("4.45"):
        return
    orig_forward = pytorch_model.forward

    @functools.wraps(orig_forward)
    def patched_forward(*args, **kwargs):
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache

        if ("past_key_values" in kwargs and isinstance(kwargs["past_key_values"], (list, tuple))
                and isinstance(kwargs["past_key_values"][0], (list, tuple))):
            if len(kwargs["past_key_values"][0]) == 2:
                kwargs["past_key_values"] = DynamicCache.from_legacy_cache(kwargs["past_key_values"])  # clean: ol_from_legacy
            elif len(kwargs["past_key_values"][0]) == 4:
                kwargs["past_key_values"] = EncoderDecoderCache.from_legacy_cache(kwargs["past_key_values"])
            else:
                raise ValueError("past_key_values should have either 2 or 4 elements")
        outputs = orig_forward(*args, **kwargs)
        if isinstance(outputs, dict) and isinstance(outputs.get("past_key_values"), (DynamicCache, EncoderDecoderCache)):
            outputs["past_key_values"] = outputs["past_key_values"].to_legacy_cache()  # clean: ol_to_legacy
        return outputs

    setattr(pytorch_model, "forward", patched_forward)


def _generate_past_key_values(config, batch_size=1, past_sequence_length=3):
    head_dim = config.hidden_size // config.num_attention_heads
    shape = (batch_size, config.num_key_value_heads, past_sequence_length, head_dim)
    return [(torch.zeros(shape), torch.zeros(shape)) for _ in range(config.num_hidden_layers)]


def export_pytorch_model(pytorch_model):
    dummy_kwargs = {
        "input_ids": torch.tensor([[5, 6]]),
        "attention_mask": torch.ones(1, 5, dtype=torch.long),
        "past_key_values": _generate_past_key_values(pytorch_model.config),
    }
    transformers_5_or_later = version.parse(transformers.__version__) >= version.parse("5.0")
    if transformers_5_or_later:
        _register_dynamic_cache_export_support()
    patch_context = _patch_dynamic_layer_for_export() if transformers_5_or_later else contextlib.nullcontext()
    with patch_context:
        if transformers_5_or_later:
            dummy_kwargs = _convert_past_key_values_to_dynamic_cache(dummy_kwargs, config=pytorch_model.config)
        else:
            _patch_model_if_necessary(pytorch_model)
        with torch.no_grad():
            outputs = pytorch_model(**dummy_kwargs)  # clean: ol_export_call
    return outputs


def probe_export():
    pytorch_model = AutoModelForCausalLM.from_pretrained("microsoft/Phi-3-mini-4k-instruct")
    outputs = export_pytorch_model(pytorch_model)
    past = outputs["past_key_values"]
    length = past[0][0].shape[2] if isinstance(past, tuple) else past.get_seq_length()
    assert outputs["logits"].shape[1] == 2 and length == 5


def probe_pytree_roundtrip():
    if version.parse(transformers.__version__) < version.parse("5.0"):
        return
    _register_dynamic_cache_export_support()
    cache = _convert_past_key_values_to_dynamic_cache({"past_key_values": _generate_past_key_values(
        AutoModelForCausalLM.from_pretrained("microsoft/Phi-3-mini-4k-instruct").config)})["past_key_values"]
    leaves, spec = torch.utils._pytree.tree_flatten(cache)
    rebuilt = torch.utils._pytree.tree_unflatten(leaves, spec)
    assert len(leaves) == 2 * len(cache.layers) and rebuilt.get_seq_length() == 3
