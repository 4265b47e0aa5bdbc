"""HFC012 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc012_pickled_cache.examples import _DICT, _READ, _SAVE
from hf_cache_lint.rules.snippets import prelude

VALID: tuple[Valid, ...] = (
    Valid(prelude() + _SAVE.replace("weights_only=True", "weights_only=False") + _READ
          + "print(loaded.get_seq_length())\n",
          note="a cache file the code wrote itself, loaded with `weights_only=False`"),
    Valid(prelude() + "import torch\n\nout = model(**inputs, use_cache=True)\n"
          "keys = [layer.keys for layer in out.past_key_values.layers]\ntorch.save(keys, \"keys.pt\")\n"
          "print(len(torch.load(\"keys.pt\", weights_only=True)))\n",
          note="the layers' tensors saved, not the cache object: a list of tensors loads with `weights_only=True`"),
    Valid(prelude() + "import torch\n\ntorch.save(model(**inputs, use_cache=True).past_key_values, \"cache.pt\")\n"
          "torch.save(inputs.input_ids, \"ids.pt\")\nprint(torch.load(\"ids.pt\", weights_only=True).shape)\n",
          note="another file the code saved a tensor to: nothing says it holds the cache"),
    Valid(prelude() + _DICT.replace("torch.load(path)", "torch.load(path, weights_only=False)")
          + "print(memory.get_seq_length())\n",
          note="the dict holding the cache loaded with `weights_only=False`"),
    Valid(prelude() + _DICT.replace("\"memory\": memory, ", "").replace("saved[\"memory\"]", "None")
          + "print(ids.shape)\n",
          note="a dict of tensors only, loaded with torch's default: nothing in it is a cache"),
)
