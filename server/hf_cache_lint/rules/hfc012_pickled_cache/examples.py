"""HFC012 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import prelude

UNPICKLED_TITLE = "Load with `weights_only=False` (a file this code wrote)"
# A prompt cache computed once, saved, and loaded back (CAG's knowledge cache, TurboRAG's chunk caches).
_SAVE = ("import os\nimport tempfile\n\nimport torch\n\n\ndef write_cache(cache, path):\n    torch.save(cache, path)\n"
         "\n\ndef read_cache(path):\n    return torch.load(path, weights_only=True)\n\n\n"
         "path = os.path.join(tempfile.mkdtemp(), \"knowledge.pt\")\n"
         "write_cache(model(**inputs, use_cache=True).past_key_values, path)\n")
_READ = "loaded = read_cache(path)\n"
_ALLOW = "torch.serialization.add_safe_globals([DynamicCache])\n"
# MemoRAG's memory: the cache saved in a dict beside the ids, loaded back with torch's default `weights_only`
# (True from torch 2.6, which every transformers from 5.20 requires: a warning before, an error from then).
_DICT = ("import os\nimport tempfile\n\nimport torch\n\n\ndef save_memory(memory, ids, path):\n"
         "    torch.save({\"memory\": memory, \"ids\": ids}, path)\n\n\ndef load_memory(path):\n"
         "    saved = torch.load(path)\n    return saved[\"memory\"], saved[\"ids\"]\n\n\n"
         "path = os.path.join(tempfile.mkdtemp(), \"memory.bin\")\n"
         "save_memory(model(**inputs, use_cache=True).past_key_values, inputs.input_ids, path)\n"
         "memory, ids = load_memory(path)\n")
_WARN_BEFORE_520 = {"4.57.6": Severity.WARNING, "5.23.0": Severity.ERROR, "5.24.0": Severity.ERROR,
                    "5.25.0": Severity.ERROR}

INVALID: tuple[Invalid, ...] = (
    invalid(
        prelude() + _SAVE + _READ,
        flagged="torch.load(path, weights_only=True)",
        fixes={UNPICKLED_TITLE: ("weights_only=True", "weights_only=False")},
        portable=True,
        message_contains="Unsupported global: GLOBAL transformers.cache_utils.DynamicCache",
        note="a forward pass's cache saved with `torch.save` and loaded back with `weights_only=True`",
    ),
    invalid(
        prelude("DynamicCache") + _SAVE.replace("import torch\n", "import torch\n\n" + _ALLOW) + _READ,
        flagged="torch.load(path, weights_only=True)",
        fixes={UNPICKLED_TITLE: ("weights_only=True", "weights_only=False")},
        portable=True,
        message_contains="GLOBAL transformers.cache_utils.DynamicLayer",
        note="`DynamicCache` allow-listed (enough up to 4.53): from 4.54 the cache holds `DynamicLayer` objects",
    ),
    invalid(
        prelude("DynamicCache") + "import torch\n\ncache = DynamicCache()\nmodel(**inputs, past_key_values=cache, "
        "use_cache=True)\ntorch.save(cache, \"prefix.pt\")\nprefix = torch.load(\"prefix.pt\", weights_only=True)\n",
        flagged="torch.load(\"prefix.pt\", weights_only=True)",
        fixes={UNPICKLED_TITLE: ("weights_only=True", "weights_only=False")},
        portable=True,
        note="a cache built here, saved to a file name and loaded from the same name",
    ),
    invalid(
        prelude() + _DICT,
        flagged="torch.load(path)",
        fixes={UNPICKLED_TITLE: ("torch.load(path)", "torch.load(path, weights_only=False)")},
        portable=True,
        severity=_WARN_BEFORE_520,
        message_contains="a dict whose `memory` is the cache returned by the forward pass",
        note="the cache saved in a dict and loaded with torch's default (`weights_only=True` from torch 2.6, "
             "which transformers requires from 5.20: a warning before)",
    ),
)
