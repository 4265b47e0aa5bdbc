"""Unlimiformer's generation script (transformers' run_generation.py as the repository carries it): with `--jit` the
model is wrapped in `_ModelFallbackWrapper`, whose `__call__` fills a missing cache with all-zero tuples of
`(key, value)` per layer (`generate_past_key_values`), runs the model, and hands `outputs[1]` back; its
`prepare_inputs_for_generation` delegates to the wrapped model, and `_reorder_cache` to the wrapped model's
`_reorder_cache` for beam search.

Provenance (mechanisms read; this code is written here, not copied):
- abertsch72/unlimiformer @e38b0149488636da9528c7504d2befdfb76f6d98
  src/run_generation.py (`generate_past_key_values`: `tuple((torch.empty([batch, heads, seq_len, head_dim]), ...)
  for _ in range(num_hidden_layers))`; `_ModelFallbackWrapper.__call__`: `if kwargs["past_key_values"] is None and
  self._default.config.use_cache: kwargs["past_key_values"] = generate_past_key_values(...)`;
  `prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, use_cache=None,
  **kwargs)` → `self._default.prepare_inputs_for_generation(...)`; `_reorder_cache` → `self._default._reorder_cache`).
- src/unlimiformer.py (`inject_hooks`: `self.original_generate_func = model.generate`, `model.generate =
  self.pre_generate_hook`, `self.original_reorder_cache_func = model._reorder_cache`, `model._reorder_cache =
  self.reorder_cache_hook`; `reorder_cache_hook` records `beam_idx` and calls the original).
Reduced: no retrieval index nor cross-attention hooks (only the generate and beam-reorder hooks); no TorchScript trace (the "optimized" model is the model itself); the zero cache has length 0 instead of the
trace's dummy length; the beam reorder is called the way beam search called it.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model.eval()


def generate_past_key_values(model, batch_size, seq_len):
    num_heads = model.config.n_head
    head_dim = model.config.n_embd // num_heads
    return tuple(
        (torch.zeros([batch_size, num_heads, seq_len, head_dim]), torch.zeros([batch_size, num_heads, seq_len, head_dim]))
        for _ in range(model.config.n_layer)
    )


class _ModelFallbackWrapper:
    def __init__(self, optimized, default):
        self._optimized = optimized
        self._default = default

    def __call__(self, *args, **kwargs):
        if kwargs["past_key_values"] is None and self._default.config.use_cache:  # clean: uf_missing_cache
            kwargs["past_key_values"] = generate_past_key_values(self._default, kwargs["input_ids"].shape[0], 0)
        outputs = self._optimized(**kwargs)  # site: uf_zero_tuple
        return outputs

    def __getattr__(self, item):
        return getattr(self._default, item)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, use_cache=None,
                                      **kwargs):
        return self._default.prepare_inputs_for_generation(  # clean: uf_prepare
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache, **kwargs)

    def _reorder_cache(self, past_key_values, beam_idx):
        return self._default._reorder_cache(past_key_values, beam_idx)  # site: uf_reorder


class Unlimiformer:
    def __init__(self, model):
        self.model = model
        self.hooks_injected = False
        self.last_beam_idx = None

    def pre_generate_hook(self, input_ids, **kwargs):
        return self.original_generate_func(input_ids, **kwargs)

    def reorder_cache_hook(self, past, beam_idx):
        self.last_beam_idx = beam_idx
        return self.original_reorder_cache_func(past, beam_idx)

    def inject_hooks(self, model):
        if self.hooks_injected:
            return
        self.original_generate_func = model.generate
        model.generate = self.pre_generate_hook
        self.original_reorder_cache_func = model._reorder_cache  # site: uf_hook_reorder
        model._reorder_cache = self.reorder_cache_hook
        self.hooks_injected = True


wrapped = _ModelFallbackWrapper(model, model)
input_ids = torch.tensor([[15, 87, 19, 26]])


def probe_prepare():
    inputs = wrapped.prepare_inputs_for_generation(input_ids, past_key_values=None, use_cache=True)
    out = model(**inputs)
    assert out.logits.shape[1] == 4


def probe_first_call():
    out = wrapped(input_ids=input_ids, past_key_values=None, use_cache=True)
    assert out.logits.shape[1] == 4


def probe_reorder():
    out = model(input_ids=input_ids.repeat(2, 1), use_cache=True)
    reordered = wrapped._reorder_cache(out.past_key_values, torch.tensor([1, 0]))
    assert reordered is not None


def probe_beam_generate():
    out = model.generate(input_ids, num_beams=2, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: uf_beams
    assert out.shape[1] == 7


def probe_call_with_cache():
    first = model(input_ids=input_ids, use_cache=True)
    out = wrapped(input_ids=torch.tensor([[31]]), past_key_values=first.past_key_values, use_cache=True)
    assert out.past_key_values.get_seq_length() == 5


def probe_inject_hooks():
    unlimiformer = Unlimiformer(model)
    unlimiformer.inject_hooks(model)
    out = model.generate(input_ids, num_beams=2, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 7
