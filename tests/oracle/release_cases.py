"""Oracle cases for the release table's hand-written behaviours (scripts/release_behaviours.py).

Each case raises exactly when its behaviour holds: the transformers error itself, or, for a silent behaviour,
`RuntimeError("BEHAVIOUR <id>")` once the snippet has observed the silent effect. tests/oracle/test_releases.py
runs each at the behaviour's first release and the release before it.
"""

from __future__ import annotations

LLAMA = """\
import torch
import transformers
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM
torch.manual_seed(0)
config = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2)
model = LlamaForCausalLM(config).eval()
ids = torch.tensor([[1, 2, 3, 4, 5]])
"""

GEMMA2 = """\
import torch
from transformers import DynamicCache, Gemma2Config, Gemma2ForCausalLM
torch.manual_seed(0)
config = Gemma2Config(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=8, sliding_window=4)
model = Gemma2ForCausalLM(config).eval()
ids = torch.tensor([[1, 2, 3, 4, 5, 6, 7]])
"""

T5 = """\
import torch
from transformers import T5Config, T5ForConditionalGeneration
torch.manual_seed(0)
config = T5Config(vocab_size=320, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                  decoder_start_token_id=0)
model = T5ForConditionalGeneration(config).eval()
source = torch.tensor([[5, 6, 7, 8, 1]])
"""

GPT2 = """\
import torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(vocab_size=320, n_embd=32, n_layer=2, n_head=4, n_positions=64)
model = GPT2LMHeadModel(config).eval()
ids = torch.tensor([[1, 2, 3, 4, 5]])
"""

CASES: dict[str, str] = {
    "cache_subscript": LLAMA + """
cache = model(ids, use_cache=True).past_key_values
keys, values = cache[0]
""",
    "cache_iterates_triples": LLAMA + """
cache = model(ids, use_cache=True).past_key_values
for keys, values in cache:
    pass
""",
    "tuple_cache_to_generate": LLAMA + """
legacy = tuple((torch.zeros(1, 2, 4, 8), torch.zeros(1, 2, 4, 8)) for _ in range(2))
model.generate(ids, past_key_values=legacy, max_new_tokens=2, min_new_tokens=2, do_sample=False)
""",
    # A static cache written at position 5 by a caller that says so: before 5.4 slot 5 holds it, after slot 0.
    "static_cache_ignores_cache_position": LLAMA + """
from transformers import StaticCache
cache = StaticCache(config=config, max_cache_len=8)
k = torch.ones(1, 2, 1, 8)
cache.update(k, k, 0, {"cache_position": torch.tensor([5])})
written = cache.layers[0].keys[0, 0, :, 0].nonzero().flatten().tolist()
if written == [0]:
    raise RuntimeError("BEHAVIOUR static_cache_ignores_cache_position")
assert written == [5], written
""",
    "crop_zero_keeps": LLAMA + """
cache = model(ids, use_cache=True).past_key_values
cache.crop(0)
if cache.get_seq_length() == 5:
    raise RuntimeError("BEHAVIOUR crop_zero_keeps")
assert cache.get_seq_length() == 0, cache.get_seq_length()
""",
    "sliding_crop_needs_recording": GEMMA2 + """
cache = DynamicCache(config=config)
model(ids, past_key_values=cache, use_cache=True)
cache.crop(-1)
""",
    "quantized_cache_full_attention_only": GEMMA2 + """
from transformers import QuantizedCache
QuantizedCache(backend="quanto", config=config)
""",
    "crop_positive_raises": LLAMA + """
cache = model(ids, use_cache=True).past_key_values
cache.crop(2)
assert cache.get_seq_length() == 2, cache.get_seq_length()
""",
    # A 4.x-style override that slices the input once it has a cache: the lengths the model sees tell whether
    # the cache reached it (5, 1, 1) or not (5, 6, 7).
    "cache_reaches_hooks_as_cache": LLAMA + """
seen = []
class Old(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):
        if past_key_values is not None and past_key_values.get_seq_length() > 0:
            input_ids = input_ids[:, -1:]
        seen.append(input_ids.shape[1])
        kwargs.pop("cache_position", None)
        kwargs.pop("position_ids", None)
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True,
                "attention_mask": kwargs.get("attention_mask")}
m = Old(config).eval()
m.generate(ids, max_new_tokens=3, min_new_tokens=3, do_sample=False)
if seen[1:] == [6, 7]:
    raise RuntimeError("BEHAVIOUR cache_reaches_hooks_as_cache")
assert seen == [5, 1, 1], seen
""",
    # A wrapper of the model's own hook that reads the cache from the inputs it returns, then swaps in its own: the
    # key it finds the cache under, and whether the forward then uses the swapped cache (its `update` counts).
    "model_inputs_hold_cache": LLAMA + """
class Counting(DynamicCache):
    updates = 0
    def update(self, *args, **kwargs):
        Counting.updates += 1
        return super().update(*args, **kwargs)
original = model.prepare_inputs_for_generation
found = []
def wrapped(*args, **kwargs):
    inputs = original(*args, **kwargs)
    found.append(type(inputs.get("past_key_values")).__name__)
    if not isinstance(inputs.get("past_key_values"), Counting):
        inputs["past_key_values"] = Counting()
    return inputs
model.prepare_inputs_for_generation = wrapped
model.generate(ids, max_new_tokens=2, min_new_tokens=2, do_sample=False)
if found[0] == "NoneType" and Counting.updates == 0:
    raise RuntimeError("BEHAVIOUR model_inputs_hold_cache")
assert found[0] == "DynamicCache" and Counting.updates > 0, (found, Counting.updates)
""",
    "encoder_decoder_cache_iterates_six": T5 + """
cache = model(input_ids=source, decoder_input_ids=torch.tensor([[0]]), use_cache=True).past_key_values
for self_keys, self_values, cross_keys, cross_values in cache:
    assert cross_keys.shape[-2] == 5, cross_keys.shape
""",
    # GPT-2's forward converted a tuple on 4.57.6 (with a deprecation warning); from 5.0.0 no forward does.
    "tuple_cache_to_forward": GPT2 + """
legacy = tuple((torch.zeros(1, 4, 3, 8), torch.zeros(1, 4, 3, 8)) for _ in range(2))
out = model(ids, past_key_values=legacy, use_cache=True)
assert out.past_key_values.get_seq_length() == 8, out.past_key_values.get_seq_length()
""",
    # Still exported on 4.53-4.57, but its constructor only raises (the class is gone in 5.0.0).
    "sink_cache_moved": LLAMA + """
from transformers import SinkCache
cache = SinkCache(window_length=8, num_sink_tokens=2)
""",
    # The attention layers' fourth argument to `Cache.update`: the positions a press-style override reads.
    "update_gets_no_cache_kwargs": LLAMA + """
class PressCache(DynamicCache):
    def update(self, key_states, value_states, layer_idx, cache_kwargs=None, **kwargs):
        position = cache_kwargs["cache_position"]
        return super().update(key_states, value_states, layer_idx, cache_kwargs, **kwargs)
model(ids, past_key_values=PressCache(), use_cache=True)
""",
    "update_called_with_kwargs": LLAMA + """
class PressCache(DynamicCache):
    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        return super().update(key_states, value_states, layer_idx, cache_kwargs)
model(ids, past_key_values=PressCache(), use_cache=True)
""",
}
