"""steering-vectors (steering-vectors/steering-vectors), a library for training and applying steering vectors to
Hugging Face models: `SteeringVector.patch_activations` finds the decoder blocks (`guess_and_enhance_layer_config`),
registers a forward hook on each steered block that takes the block's output tensor (`untuple_tensor`), masks the
positions before `min_token_index` and adds `multiplier * vector` in place, and returns a handle whose `remove()`
undoes it; `apply(...)` is the context-manager form used around `model.generate`; recording activations (for
training the vectors) is the same kind of hook keeping each block's output. The repository's patching notebook helper `get_completion` generates greedily
with a list of end-of-sequence ids. Steering scripts that serve many steered completions after one shared system
prompt prefill that prompt once and reuse its cache per request.

Provenance (mechanisms read; this code is written here, not copied):
- steering-vectors/steering-vectors @20c80afaac5b8852fba41d253ab0b1e8f01a74de steering_vectors/steering_vector.py
  (SteeringVector.patch_activations / apply, _create_additive_hook); @251080d464200b440ec58f03b2e49f41a8b68a69
  aengus/patching_helpers.py (get_completion).
Reduced: a tiny Llama from a config and its `model.layers.N` blocks named directly (no layer matching); the shared
prefix reuse (deep copy of the prefilled cache per request, its length read back, the cache cut back to the prefix
after a request, and the cached keys read for a probe of the steered layer) is this case's own, written the way
4.3x-4.4x-era serving scripts did it, next to the
same steps written against the layered Cache API; a static-cache variant (for compiled serving) asks how much room is
left after the prefix.
"""

import copy

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM, StaticCache

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()


def untuple_tensor(x):
    return x[0] if isinstance(x, tuple) else x


def create_additive_hook(target_activation, min_token_index):
    def hook_fn(_m, _inputs, outputs):
        original_tensor = untuple_tensor(outputs)  # clean: sv_untuple_output
        mask = torch.ones(original_tensor.shape[1])
        mask[:min_token_index] = 0
        original_tensor[None] = original_tensor + mask.reshape(1, -1, 1) * target_activation
        return outputs
    return hook_fn


def patch_activations(layer_activations, multiplier=1.0, min_token_index=0):
    return [model.model.layers[n].register_forward_hook(
        create_additive_hook(multiplier * act.reshape(1, 1, -1), min_token_index))
        for n, act in layer_activations.items()]


def record_activations(prompt):
    recorded = {}
    hooks = [layer.register_forward_hook(lambda m, i, o, n=n: recorded.setdefault(n, []).append(untuple_tensor(o)))
             for n, layer in enumerate(model.model.layers)]
    try:
        with torch.no_grad():
            model(prompt)
    finally:
        for h in hooks:
            h.remove()
    return recorded


def get_completion(input_ids, max_new_tokens=3):
    with torch.no_grad():
        return model.generate(input_ids=input_ids, attention_mask=torch.ones_like(input_ids),  # clean: sv_steered_generate
                              max_new_tokens=max_new_tokens, eos_token_id=[2], do_sample=False)


def prefill(system_ids):
    cache = DynamicCache()
    with torch.no_grad():
        model(input_ids=system_ids, past_key_values=cache, use_cache=True)  # clean: sv_prefill
    return cache


def steered_reply(prefix_cache, system_ids, user_ids, max_new_tokens=3):
    cache = copy.deepcopy(prefix_cache)
    input_ids = torch.cat([system_ids, user_ids], dim=-1)
    out = model.generate(input_ids=input_ids, past_key_values=cache, max_new_tokens=max_new_tokens,  # clean: sv_prefix_generate
                         do_sample=False)
    return out[:, input_ids.shape[1]:]


def prefix_length(prefix_cache):
    return prefix_cache[0][0].shape[-2]  # site: sv_prefix_len_index


def reset_to_prefix(cache, prefix_len):
    cache.crop(prefix_len)  # site: sv_prefix_crop
    return cache


def steered_layer_keys(cache, layer):
    return cache.key_cache[layer]  # site: sv_key_cache_read


def prefix_length_v2(prefix_cache):
    return prefix_cache.get_seq_length()  # clean: sv_prefix_seq_len


def reset_to_prefix_v2(cache, prefix_len):
    cache.crop(-(cache.get_seq_length() - prefix_len))  # clean: sv_reset_negative
    return cache


def steered_layer_keys_v2(cache, layer):
    return cache.layers[layer].keys  # clean: sv_layer_keys


def static_prefix(system_ids, capacity=32):
    cache = StaticCache(config=model.config, max_cache_len=capacity)
    with torch.no_grad():
        model(input_ids=system_ids, past_key_values=cache, use_cache=True)
    return cache


def room_left(cache, used):
    return cache.get_max_cache_shape() - used  # site: sv_static_capacity


def room_left_v2(cache, used):
    return cache.layers[0].max_cache_len - used  # clean: sv_static_layer_capacity


system = torch.tensor([[1, 70, 71, 72, 73, 74]])
user = torch.tensor([[80, 81]])
vector = torch.randn(32)


def probe_patch_and_record():
    handles = patch_activations({1: vector}, multiplier=2.0, min_token_index=3)
    try:
        model.generation_config.min_new_tokens = 3
        out = get_completion(torch.cat([system, user], dim=-1))
    finally:
        for h in handles:
            h.remove()
    assert out.shape == (1, 11)
    assert record_activations(system)[1][0].shape == (1, 6, 32)


def probe_prefix_reuse():
    model.generation_config.min_new_tokens = 3
    prefix = prefill(system)
    first = steered_reply(prefix, system, user)
    second = steered_reply(prefix, system, user)
    assert torch.equal(first, second) and prefix.get_seq_length() == 6


def probe_prefix_length():
    assert prefix_length(prefill(system)) == 6


def probe_reset_to_prefix():
    cache = prefill(torch.cat([system, user], dim=-1))
    assert reset_to_prefix(cache, 6).get_seq_length() == 6


def probe_layer_keys():
    keys = steered_layer_keys(prefill(system), 1)
    assert keys.shape[-2] == 6


def probe_prefix_v2():
    cache = prefill(torch.cat([system, user], dim=-1))
    assert prefix_length_v2(cache) == 8
    assert reset_to_prefix_v2(cache, 6).get_seq_length() == 6
    assert steered_layer_keys_v2(cache, 1).shape[-2] == 6


def probe_static_room():
    assert room_left(static_prefix(system), 6) == 26


def probe_static_room_v2():
    assert room_left_v2(static_prefix(system), 6) == 26
