"""Optimum Intel (huggingface/optimum-intel), the OpenVINO exporter: a decoder is traced with its cache as plain
model inputs, a list of per-layer `(key, value)` tensors, and the patchers convert on the way in and out.
`preprocess_past_key_values` turns a legacy tuple into a `DynamicCache` (`from_legacy_cache` where the class still
has it, else `DynamicCache(pairs)`), `postprocess_past_key_values` turns the model's cache back into pairs
(`to_legacy_cache()` where present, else the layers' `keys`/`values`). The Gemma 2 patcher wraps the model's forward:
it pops `past_key_values` from the keywords (or takes it positionally), finds the parameter's position with
`list(inspect.signature(self.orig_forward).parameters).index("past_key_values")`, builds the cache the version
wants (`DynamicCache.from_legacy_cache` below 5, `DynamicCache(legacy)` from 5), computes `cache_position` from the
legacy keys' length when the forward still takes it, calls the original forward and converts
`outputs.past_key_values` back to pairs.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/optimum-intel @e1de5beecfd0c3ae6047ea22cea4a4cad4307aff optimum/exporters/openvino/model_patcher.py
  (Gemma2ModelPatcher.__init__'s patched_forward: `sign_names.index("past_key_values")`, `cache_position_index`,
  `DynamicCache.from_legacy_cache(legacy_pkv)` / `DynamicCache(legacy_pkv)` under `is_transformers_version("<",
  "5")`, `past_seen_tokens = legacy_pkv[0][0].shape[-2]`, `outputs.past_key_values =
  postprocess_past_key_values(outputs.past_key_values)`) and optimum/exporters/openvino/patching_utils.py
  (override_arguments, preprocess_past_key_values, postprocess_past_key_values); setup.py pins
  `transformers>=4.51,<5.6`.
Reduced: tiny Gemma 2 and Llama models from configs; the OpenVINO conversion itself is left out (the patched forward
is called as the tracer would call it, with zero-filled dummy pairs as the exporter's dummy input generator makes
them); the encoder-decoder branches of the helpers are left out.
"""

import functools
import inspect

import torch
import transformers
from packaging import version
from transformers import DynamicCache, Gemma2Config, Gemma2ForCausalLM, LlamaConfig, LlamaForCausalLM


def is_transformers_version(op, ref):
    current = version.parse(transformers.__version__)
    return current < version.parse(ref) if op == "<" else current >= version.parse(ref)


def override_arguments(args, kwargs, forward_signature, model_kwargs):
    args = list(args)
    for argument in model_kwargs:
        if argument in forward_signature.parameters:
            argument_index = list(forward_signature.parameters.keys()).index(argument)
            if argument in kwargs or len(args) <= argument_index:
                kwargs[argument] = model_kwargs[argument]
            else:
                args[argument_index] = model_kwargs[argument]
        else:
            kwargs[argument] = model_kwargs[argument]
    return args, kwargs


def preprocess_past_key_values(past_key_values):
    if isinstance(past_key_values, (list, tuple)) and isinstance(past_key_values[0], (list, tuple)):
        if hasattr(DynamicCache, "from_legacy_cache"):
            past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # clean: ov_pre_from_legacy
        else:
            past_key_values = DynamicCache(past_key_values)  # clean: ov_pre_pairs
    return past_key_values


def postprocess_past_key_values(past_key_values):
    if isinstance(past_key_values, DynamicCache):
        if hasattr(past_key_values, "to_legacy_cache"):
            past_key_values = past_key_values.to_legacy_cache()  # clean: ov_post_to_legacy
        else:
            past_key_values = [(lay.keys, lay.values) for lay in past_key_values.layers]  # clean: ov_post_layers
    return past_key_values


class Gemma2ExportPatcher:
    def __init__(self, model, model_kwargs=None):
        self.orig_forward = model.forward
        self.model_kwargs = model_kwargs or {}

        @functools.wraps(self.orig_forward)
        def patched_forward(*args, **kwargs):
            signature = inspect.signature(self.orig_forward)
            args, kwargs = override_arguments(args, kwargs, signature, model_kwargs=self.model_kwargs)
            return_legacy_cache = False
            pkv_in_args = False
            legacy_pkv = None
            if "past_key_values" in kwargs:
                legacy_pkv = kwargs.pop("past_key_values", None)
            sign_names = list(signature.parameters.keys())
            pkv_argument_index = sign_names.index("past_key_values")  # site: ov_pkv_signature_index
            cache_position_index = sign_names.index("cache_position") if "cache_position" in sign_names else -1
            input_ids_index = sign_names.index("input_ids" if "input_ids" in sign_names else "inputs_embeds")
            if legacy_pkv is None and len(args) > pkv_argument_index:
                legacy_pkv = args[pkv_argument_index]
                pkv_in_args = True
            if legacy_pkv is not None:
                if is_transformers_version("<", "5"):
                    pkv = DynamicCache.from_legacy_cache(legacy_pkv)
                else:
                    pkv = DynamicCache(legacy_pkv)
                return_legacy_cache = True
                if not pkv_in_args:
                    kwargs["past_key_values"] = pkv
                else:
                    args[pkv_argument_index] = pkv
            if (return_legacy_cache and cache_position_index != -1
                    and (cache_position_index > len(args) and "cache_position" not in kwargs)):
                past_seen_tokens = legacy_pkv[0][0].shape[-2]
                input_ids = args[input_ids_index] if "input_ids" not in kwargs else kwargs["input_ids"]
                kwargs["cache_position"] = torch.arange(past_seen_tokens, past_seen_tokens + input_ids.shape[1])
            outputs = self.orig_forward(*args, **kwargs)
            if return_legacy_cache:
                outputs.past_key_values = postprocess_past_key_values(outputs.past_key_values)
            return outputs

        self.patched_forward = patched_forward


gemma2 = Gemma2ForCausalLM(Gemma2Config(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                                        sliding_window=16)).eval()
llama = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2)).eval()


def dummy_past(config, past_len, batch=1):
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    shape = (batch, config.num_key_value_heads, past_len, head_dim)
    return [(torch.zeros(shape), torch.zeros(shape)) for _ in range(config.num_hidden_layers)]


def probe_gemma2_trace_inputs():
    patcher = Gemma2ExportPatcher(gemma2)
    ids = torch.tensor([[4, 5]])
    with torch.no_grad():
        out = patcher.patched_forward(input_ids=ids, attention_mask=torch.ones(1, 5, dtype=torch.long),
                                      past_key_values=dummy_past(gemma2.config, 3))
    assert out.logits.shape == (1, 2, 320) and len(out.past_key_values) == 2


def probe_pairs_roundtrip():
    cache = preprocess_past_key_values(dummy_past(llama.config, 3))
    ids = torch.tensor([[4, 5]])
    with torch.no_grad():
        out = llama(input_ids=ids, attention_mask=torch.ones(1, 5, dtype=torch.long), past_key_values=cache)
    pairs = postprocess_past_key_values(out.past_key_values)
    assert len(pairs) == 2 and pairs[0][0].shape[-2] == 5
