"""HFC011 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc011_ignored_cache_position.examples import (
    _LOAD,
    PATCHED,
    PREPARE,
    PRESS,
    RETURNED,
    ROLLBACK,
)

# The model's forward replaced by the project's function, which takes `cache_position` itself (Olive's export wrapper
# pattern): a call of the model runs it, so what transformers' forward does with the positions is not what happens.
_OWN_FORWARD = ("original_forward = model.forward\n\n\n"
                "def forward(*args, cache_position=None, **kwargs):\n"
                "    model.positions = cache_position\n"
                "    return original_forward(*args, **kwargs)\n\n\n"
                'setattr(model, "forward", forward)\n')

VALID: tuple[Valid, ...] = (
    Valid(
        "import torch\nfrom transformers import DynamicCache\n\n\n"
        "class PositionCache(DynamicCache):\n"
        "    positions = []\n\n"
        "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
        '        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n'
        "        return super().update(key_states, value_states, layer_idx)\n\n\n"
        "cache = PositionCache()\n"
        'cache.update(torch.zeros(1, 2, 3, 8), torch.zeros(1, 2, 3, 8), 0, {"cache_position": torch.arange(3)})\n'
        "assert cache.positions == [2] and cache.get_seq_length() == 3\n",
        note="an override reading `cache_kwargs` that only the project calls, with its own dict: no transformers "
             "forward or generate is given the cache",
    ),
    Valid(
        PRESS.replace('self.positions.append(int(cache_kwargs["cache_position"][-1]))',
                      "self.positions.append(self.get_seq_length(layer_idx) + key_states.shape[-2] - 1)"),
        note="the position from the cache's own length: the same number on every release",
    ),
    Valid(
        PRESS.replace('        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n',
                      "        if cache_kwargs is not None and \"cache_position\" in cache_kwargs:\n"
                      '            self.positions.append(int(cache_kwargs["cache_position"][-1]))\n'),
        note="a read guarded by a test of `cache_kwargs`",
    ),
    Valid(
        PRESS.replace('        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n',
                      "        cache_kwargs = cache_kwargs or {}\n"
                      '        if cache_kwargs.get("cache_position") is not None:\n'
                      '            self.positions.append(int(cache_kwargs.get("cache_position")[-1]))\n'),
        note="`cache_kwargs = cache_kwargs or {}` first (SpecSplit's static cache): a dict on every release, so "
             "`.get` answers None where 5.4+ pass none",
    ),
    Valid(
        ROLLBACK.replace(", cache_position=torch.tensor([5])", ""),
        note="a sequential step without positions",
    ),
    Valid(
        ROLLBACK.replace(_LOAD, _LOAD + _OWN_FORWARD),
        note="the same rollback through the project's own forward installed on the model (`setattr(model, "
             "\"forward\", forward)`), which takes the positions itself: the call runs that function, not "
             "transformers' forward",
    ),
    Valid(
        _LOAD + "\n\ndef step(ids, cache_position=None):\n    return ids, cache_position\n\n\n"
        "step(prompt, cache_position=torch.tensor([0]))\n",
        note="`cache_position=` given to a function of the project's own",
    ),
    Valid(
        PATCHED.replace("    self.last_position = int(cache_position[-1])\n",
                        "    if cache_position is None:  # 5.4+ pass none\n"
                        "        cache_position = torch.arange(hidden_states.shape[1])\n"
                        "    self.last_position = int(cache_position[-1])\n"),
        note="a `cache_position` parameter tested against None before it is used",
    ),
    Valid(
        PATCHED.replace("    self.last_position = int(cache_position[-1])\n"
                        "    return original(self, hidden_states, **kwargs)\n",
                        '    self.cache_kwargs = {"sin": None, "cos": None, "cache_position": cache_position}\n'
                        "    return original(self, hidden_states, cache_position=cache_position, **kwargs)\n"),
        note="a `cache_position` parameter handed on under its own name in the `cache_kwargs` dict a patched "
             "attention gives `Cache.update` (KVzip, cakekv): from 5.4 nothing passes it, and no transformers cache "
             "reads it either",
    ),
    Valid(
        PREPARE.replace("        self.decoding = bool(cache_position[0] > 0)\n", ""),
        note="a `cache_position` parameter only handed on by name (None goes on where nothing passes it)",
    ),
    Valid(
        PRESS.replace('int(cache_kwargs["cache_position"][-1])', 'cache_kwargs.get("sin")')
        .replace("cache_kwargs=None, **kwargs):", "cache_kwargs=dict(), **kwargs):"),
        note="`cache_kwargs=dict()` as the default: from 5.4 `.get` reads that empty dict and answers None",
    ),
    Valid(
        RETURNED.replace('    self.continuing = bool(model_inputs["cache_position"][0] != 0)\n',
                         '    position = model_inputs.get("cache_position")\n'
                         "    self.continuing = position is not None and bool(position[0] != 0)\n"),
        note="the position from the returned inputs tested against None before it is used (5.4+ hold None)",
    ),
)
