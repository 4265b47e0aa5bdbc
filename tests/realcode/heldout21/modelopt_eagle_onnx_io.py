"""NVIDIA TensorRT Model Optimizer (modelopt): two of its paths that hold a transformers cache. (1) The ONNX LLM
exporter wraps the model in `WrapperModelForCausalLM`, whose forward takes the cache as a tuple of `(key, value)`
pairs (fixed ONNX input names `past_key_values.{i}.key` / `.value`), turns it into a `DynamicCache(config=...)` by
assigning `cache.key_cache = [kv[0] for kv in past_key_values]` and `cache.value_cache = [...]`, runs the decoder
with it, and returns `outputs.past_key_values.to_legacy_cache()` as the present key values. (2) The EAGLE
speculative-decoding plugin runs the base model with `output_hidden_states=True`, keeps the draft head's own cache
parked on the base cache object (`past_key_values.eagle_cache = eagle_cache`, read back with
`hasattr(past_key_values, "eagle_cache")`), and builds it with `DynamicCache.from_legacy_cache(eagle_cache)` when it
is not a `Cache` yet (the first step).

Provenance (mechanisms read; this code is written here, not copied):
- NVIDIA/TensorRT-Model-Optimizer @5a4242faf4147fb0688bb73e10ca30b8ad3aabb3 (December 2025)
  modelopt/onnx/llm_export_utils/export_utils.py (`WrapperModelForCausalLM.forward(self, input_ids, past_key_values:
  tuple)`: `cache = DynamicCache(config=self.config)`, `cache.key_cache = [kv[0] for kv in past_key_values]`,
  `cache.value_cache = [kv[1] for kv in past_key_values]`, `outputs = self.model(input_ids=input_ids,
  past_key_values=past_key_values, use_cache=True)`, `past_key_values = outputs.past_key_values.to_legacy_cache()`,
  `logits = self.lm_head(hidden_states)`; `llm_to_onnx`'s dummy cache of `torch.rand((dummy_bs, num_key_value_heads,
  dummy_len, head_dim))` pairs) and modelopt/torch/speculative/plugins/transformers.py (HFEagleModel.forward: `if
  past_key_values is not None and hasattr(past_key_values, "eagle_cache"): eagle_cache =
  past_key_values.eagle_cache`, `_base_model_forward`: `outputs = super().forward(..., past_key_values=past_key_values,
  output_hidden_states=True)`, `past_key_values = getattr(outputs, "past_key_values", None)`, `if not
  isinstance(eagle_cache, Cache): eagle_cache = DynamicCache.from_legacy_cache(eagle_cache)`, `_eagle_forward`
  passing `past_key_values=eagle_cache, use_cache=True` to the eagle module, `past_key_values.eagle_cache =
  eagle_cache`).
Reduced: the tuple-to-cache conversion is a helper the wrapper calls (its probe runs the decoder on the converted
cache directly), no torch.onnx export, the EAGLE module is a one-layer Llama decoder fed `fc([embeddings, hidden])`,
no training-time-test loop, no draft vocabulary mapping, no loss.
"""

import copy

import torch
from transformers import AutoModelForCausalLM, DynamicCache
from transformers.cache_utils import Cache
from transformers.models.llama.modeling_llama import LlamaModel


def tuple_to_dynamic_cache(config, past_key_values):
    cache = DynamicCache(config=config)  # clean: mo_cache_from_config
    cache.key_cache = [kv[0] for kv in past_key_values]  # site: mo_key_cache_write
    cache.value_cache = [kv[1] for kv in past_key_values]
    return cache


class WrapperModelForCausalLM(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model.model
        self.lm_head = model.lm_head
        self.config = model.config

    def forward(self, input_ids, past_key_values: tuple):
        past_key_values = tuple_to_dynamic_cache(self.config, past_key_values)
        outputs = self.model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)
        hidden_states = outputs[0]
        past_key_values = outputs.past_key_values.to_legacy_cache()  # site: mo_to_legacy
        logits = self.lm_head(hidden_states)
        return logits, past_key_values


class HFEagleModel(torch.nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base = base
        eagle_config = copy.deepcopy(base.config)
        eagle_config.num_hidden_layers = 1
        self.eagle_module = LlamaModel(eagle_config)
        self.fc = torch.nn.Linear(2 * base.config.hidden_size, base.config.hidden_size, bias=False)

    def _base_model_forward(self, input_ids, past_key_values):
        with torch.no_grad():
            outputs = self.base(input_ids=input_ids, past_key_values=past_key_values, output_hidden_states=True)  # clean: mo_base_forward
            past_key_values = getattr(outputs, "past_key_values", None)  # clean: mo_base_cache
        return outputs.hidden_states[-1], outputs.logits, past_key_values

    def forward(self, input_ids, past_key_values=None):
        if past_key_values is not None and hasattr(past_key_values, "eagle_cache"):  # clean: mo_has_eagle
            eagle_cache = past_key_values.eagle_cache
        else:
            eagle_cache = None
        hidden_states, logits, past_key_values = self._base_model_forward(input_ids, past_key_values)
        if not isinstance(eagle_cache, Cache):
            eagle_cache = DynamicCache.from_legacy_cache(eagle_cache)  # site: mo_eagle_from_legacy
        inputs_embeds = self.base.model.embed_tokens(input_ids)
        eagle_out = self.eagle_module(inputs_embeds=self.fc(torch.cat([inputs_embeds, hidden_states], dim=-1)),
                                      past_key_values=eagle_cache, use_cache=True)  # clean: mo_eagle_step
        past_key_values.eagle_cache = eagle_out.past_key_values  # clean: mo_park_eagle
        return logits, eagle_out.last_hidden_state, past_key_values


model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-8B", torch_dtype=torch.float32).eval()
input_ids = torch.tensor([[3, 17, 29, 41, 53]])


def dummy_kv_cache(past_len):
    config = model.config
    head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
    return tuple((torch.rand(1, config.num_key_value_heads, past_len, head_dim),
                  torch.rand(1, config.num_key_value_heads, past_len, head_dim))
                 for _ in range(config.num_hidden_layers))


def probe_wrapper_first_call():
    wrapper = WrapperModelForCausalLM(model)
    logits, present = wrapper(input_ids, ())
    assert logits.shape[1] == 5 and present[0][0].shape[2] == 5


def probe_converted_past():
    cache = tuple_to_dynamic_cache(model.config, dummy_kv_cache(3))
    outputs = model.model(input_ids=input_ids, past_key_values=cache, use_cache=True)
    assert outputs.past_key_values.get_seq_length() == 8, "mo_key_cache_write: the decoder never saw the 3 past tokens"  # observe: mo_key_cache_write


def probe_empty_conversion():
    cache = tuple_to_dynamic_cache(model.config, ())
    assert cache.get_seq_length() == 0


def probe_eagle_first_step():
    eagle = HFEagleModel(model).eval()
    logits, _, cache = eagle(input_ids)
    assert cache.eagle_cache.get_seq_length() == 5


def probe_eagle_parked_cache():
    eagle = HFEagleModel(model).eval()
    cache = DynamicCache()
    cache.eagle_cache = DynamicCache()
    with torch.no_grad():
        logits, _, cache = eagle(input_ids, past_key_values=cache)
        logits, _, cache = eagle(torch.tensor([[7]]), past_key_values=cache)
    assert cache.get_seq_length() == 6 and cache.eagle_cache.get_seq_length() == 6
