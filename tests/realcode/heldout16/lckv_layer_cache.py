"""LCKV (layer-condensed KV cache: only some layers compute keys/values, the others attend to a target layer's): the
project's `IndexedCache(Cache)` is DynamicCache-like but indexed by the layer ids that compute KVs (dicts
`key_cache`/`value_cache`, `__getitem__`/`__iter__`/`__len__` over them, `update` that concatenates per layer,
`get_seq_length` of the lowest cached layer); its `__init__` calls `super().__init__()` first. A model given a
transformers cache converts it with `IndexedCache.from_cache(dynamic_cache)` (a fresh `cls()`, then every layer of
the DynamicCache updated in). The generation script builds the generate kwargs: with `--sink_cache` a transformers
`SinkCache(window_length, num_sink_tokens)` as `past_key_values`, then `model.generate(input_ids=...,
max_length=length + prompt_length, ...)`.

Provenance (mechanisms read; this code is written here, not copied):
- whyNLP/LCKV @dd21716b9295fb4dbe4af51ec3352a936b2b7df8
  models/cache_utils.py (`from transformers.cache_utils import Cache, DynamicCache, SinkCache`; IndexedCache(Cache):
  `def __init__(self): super().__init__(); self.key_cache: Dict[int, torch.Tensor] = {}`, `update` (`if layer_idx
  not in self.key_cache: new_key_states = key_states else torch.cat(...)`), `get_seq_length` (`layer_idx =
  self.min_layer`), from_cache: `cache = cls(*args, **kwargs)`, `cache._seen_tokens = dynamic_cache._seen_tokens`,
  `for layer_idx in range(len(dynamic_cache.key_cache)): key_states, value_states = dynamic_cache[layer_idx];
  cache.update(...)`), models/modeling_lckv.py (LCKVLlamaModel.forward: `elif isinstance(past_key_values, Cache):
  past_key_values = AutoLayerCache.from_cache(past_key_values)`), run_streaming.py / run_generation.py (`from
  transformers.cache_utils import SinkCache`, `if args.sink_cache: kwargs["past_key_values"] =
  SinkCache(args.window_length, args.num_sink_tokens)`, `output_sequences = model.generate(input_ids=input_ids,
  max_length=args.length + len(encoded_prompt[0]), ...)`; run_streaming.py's chat loop: `chat_history.append(...)`,
  `input_ids = tokenizer.apply_chat_template(chat_history, add_generation_prompt=True, return_tensors="pt")`,
  `output_sequences = model.generate(input_ids=input_ids, max_new_tokens=args.length, ..., **kwargs)`, the reply
  appended to the history).
Reduced: no layer-type parser, sink or sliding-window subclasses; the SinkCache import is made where the option is
read (the project imports it at the top of the script, so there the whole script stops at the import).
"""

from types import SimpleNamespace

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache


class IndexedCache(Cache):
    def __init__(self) -> None:
        super().__init__()  # site: lk_base_init
        self.key_cache = {}
        self.value_cache = {}
        self._seen_tokens = 0

    @property
    def min_layer(self):
        return min(self.key_cache.keys()) if len(self.key_cache) > 0 else None

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if self.min_layer is None or self.min_layer == layer_idx:
            self._seen_tokens += key_states.shape[-2]
        if layer_idx not in self.key_cache:
            new_key_states, new_value_states = key_states, value_states
        else:
            new_key_states = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            new_value_states = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        self.key_cache[layer_idx] = new_key_states
        self.value_cache[layer_idx] = new_value_states
        return new_key_states, new_value_states

    def get_seq_length(self, layer_idx=None):
        layer_idx = self.min_layer if layer_idx is None else layer_idx
        return self.key_cache[layer_idx].shape[-2] if layer_idx in self.key_cache else 0

    @classmethod
    def from_cache(cls, dynamic_cache, *args, **kwargs):
        cache = cls(*args, **kwargs)
        cache._seen_tokens = dynamic_cache._seen_tokens
        for layer_idx in range(len(dynamic_cache.key_cache)):
            key_states, value_states = dynamic_cache[layer_idx]
            cache.update(key_states, value_states, layer_idx)
        return cache


def generation_kwargs(args):
    kwargs = {}
    if args.sink_cache:
        from transformers.cache_utils import SinkCache  # site: lk_sink_cache
        kwargs["past_key_values"] = SinkCache(args.window_length, args.num_sink_tokens)  # observe: lk_sink_cache
    return kwargs


def run_generation(model, encoded_prompt, args):
    kwargs = generation_kwargs(args)
    return model.generate(input_ids=encoded_prompt, max_length=args.length + len(encoded_prompt[0]),  # clean: lk_generate
                          do_sample=False, **kwargs)


def streaming_chat(model, turns, args):
    kwargs = generation_kwargs(args)
    input_ids = None
    replies = []
    for turn in turns:
        input_ids = turn if input_ids is None else torch.cat([input_ids, turn], dim=-1)
        output_sequences = model.generate(input_ids=input_ids, max_new_tokens=args.length, do_sample=False, **kwargs)  # clean: lk_chat_generate
        replies.append(output_sequences[0, input_ids.shape[-1]:])
        input_ids = output_sequences
    return replies


model = AutoModelForCausalLM.from_pretrained("whynlp/tinyllama-lckv-w2-ft-100b").eval()
encoded_prompt = torch.tensor([[1, 120, 121, 122, 123]])


def probe_plain_generation():
    model.generation_config.min_new_tokens = 3
    args = SimpleNamespace(sink_cache=False, window_length=256, num_sink_tokens=4, length=3)
    out = run_generation(model, encoded_prompt, args)
    assert out.shape == (1, 8)


def probe_sink_generation():
    model.generation_config.min_new_tokens = 3
    args = SimpleNamespace(sink_cache=True, window_length=256, num_sink_tokens=4, length=3)
    run_generation(model, encoded_prompt, args)


def probe_convert_cache():
    with torch.no_grad():
        past = model(encoded_prompt, use_cache=True).past_key_values
    assert isinstance(past, DynamicCache)
    cache = IndexedCache.from_cache(past)
    assert cache.get_seq_length() == 5


def probe_streaming_chat():
    model.generation_config.min_new_tokens = 2
    args = SimpleNamespace(sink_cache=False, window_length=256, num_sink_tokens=4, length=2)
    replies = streaming_chat(model, [torch.tensor([[1, 124, 125]]), torch.tensor([[126, 127]])], args)
    assert [r.shape[0] for r in replies] == [2, 2]
