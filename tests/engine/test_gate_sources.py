"""The gate's `source` test (engine/facts `Source`, engine/screen/gate.py): a module that names a cache word but holds
no transformers object the interpreter can know (or, for the hook kinds, no transformers import) never reaches the
parser, and no finding is lost by it: every module of transformers' own source trees the gate drops is checked on
parso's path and has none; code at the edge of each source goes on.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from hf_cache_lint.checking.screening import screen
from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.rules.base import CHECKED_VERSIONS
from hf_cache_lint.settings import Settings

REPO = Path(__file__).resolve().parents[2]
ORACLE = Path(os.environ.get("ORACLE_DIR", REPO / ".cache" / "oracle"))
SETTINGS = Settings()

# Cache words with no transformers object behind them: an image's crop, a dict named cache, a tensor's
# `past_key_values` keyword to a project's own callable, a hook-shaped override of a project's class.
DROPPED = {
    "image crop": "from .utils import load_image\nimg = load_image(p)\nimg = img.crop((0, 0, 4, 4))\n",
    "tensor crop": "import torchvision.transforms.functional as F\nx = F.crop(x, 0, 0, 4, 4)\n",
    "relative model": (
        "from ..llama.modeling_llama import LlamaModel\nfrom ...cache_utils import DynamicCache\n"
        "class M(LlamaModel):\n    def forward(self, x, past_key_values=None, cache_position=None):\n"
        "        past_key_values = DynamicCache()\n        past_key_values.crop(4)\n"
        "        return self.layer(x, past_key_values=((1, 2),), cache_position=cache_position)\n"),
    "own cache dict": "cache = {}\ndef f(k):\n    cache[k] = cache.get(k, 0) + 1\n    return cache\n",
    # A transformers class only tested against makes no value (engine/screen/library_values.py `_used_but_tested`).
    "a cache class only tested against": (
        "from transformers import DynamicCache, StaticCache\ndef trim(cache):\n    kind = type(cache)\n"
        "    if isinstance(cache, DynamicCache) or issubclass(kind, (StaticCache, DynamicCache)):\n"
        "        cache.crop(4)\n"),
}

# The same shapes with what makes the object known: each goes on, and both paths agree on every checked release.
KEPT = {
    "a cache class from transformers": (
        "from transformers import DynamicCache\ncache = DynamicCache()\ncache.crop(4)\n", {}),
    "an aliased cache class": (
        "from transformers import DynamicCache as DC\ncache = DC()\ncache.crop(4)\n", {}),
    "a cache class tested against and made": (
        "from transformers import DynamicCache\ncache = DynamicCache()\nif isinstance(cache, DynamicCache):\n"
        "    cache.crop(4)\n", {}),
    "the module itself": ("import transformers\ncache = transformers.DynamicCache()\ncache.crop(4)\n", {}),
    "unsloth": ("from unsloth import FastLanguageModel\nm, t = FastLanguageModel.from_pretrained('x')\n"
                "m(ids, past_key_values=((k, v),))\n", {}),
    "a generate output": (
        "out = lm.generate(ids, return_dict_in_generate=True)\nout.past_key_values.crop(4)\n", {}),
    "a lent cache": ("from helpers import CACHE\nCACHE.crop(4)\n",
                     {"helpers.py": "from transformers import DynamicCache as DC\nCACHE = DC()\n"}),
    "a lent model": ("from helpers import MODEL\nMODEL(ids, past_key_values=((k, v),))\n",
                     {"helpers.py": "from transformers import DynamicCache, LlamaForCausalLM\nMODEL = LlamaForCausalLM(cfg)\n"}),
    "a lent library": ("from helpers import LIB\ncache = LIB.DynamicCache()\ncache.crop(4)\n",
                       {"helpers.py": "import transformers\nfrom transformers import Cache\nLIB = transformers\n"}),
    "a forward hook on an attention": (
        "# a transformers model's layers\ndef hook(module, args, kwargs, output):\n"
        "    return kwargs['cache_position']\n"
        "def attach(layer):\n    layer.self_attn.register_forward_hook(hook, with_kwargs=True)\n", {}),
    "a patched attention": (
        "from transformers.models.llama import modeling_llama\n"
        "def forward(self, hidden_states, past_key_value=None, **kwargs):\n    return past_key_value\n"
        "modeling_llama.LlamaAttention.forward = forward\n", {}),
}


def _write(tmp_path: Path, code: str, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        (tmp_path / rel).write_text(content)
    path = tmp_path / "main.py"
    path.write_text(code)
    return path


@pytest.mark.parametrize("code", DROPPED.values(), ids=DROPPED.keys())
def test_cache_words_without_a_transformers_object_are_dropped(code: str, tmp_path: Path) -> None:
    path = _write(tmp_path, code, {})
    ctx = Context(workspace=tmp_path)
    assert screen(code, str(path), SETTINGS, ctx, gate=False), "the text stage must pass it: nothing is tested"
    assert not screen(code, str(path), SETTINGS, ctx)
    for version in CHECKED_VERSIONS:
        found = check_source(code, str(path), SETTINGS, Context(target=Target.of(version), workspace=tmp_path),
                             use_gate=False)
        assert found.findings == (), version


@pytest.mark.parametrize(("code", "files"), KEPT.values(), ids=KEPT.keys())
def test_each_source_of_a_transformers_object_goes_on(code: str, files: dict[str, str], tmp_path: Path) -> None:
    path = _write(tmp_path, code, files)
    assert screen(code, str(path), SETTINGS, Context(workspace=tmp_path))
    for version in CHECKED_VERSIONS:
        ctx = Context(target=Target.of(version), workspace=tmp_path)
        assert check_source(code, str(path), SETTINGS, ctx) == check_source(code, str(path), SETTINGS, ctx,
                                                                             use_gate=False), version


# The KEPT cases whose code holds a finding on parso's path (the gate would lose it by dropping them). A lent cache
# and a lent library go on too, though the interpreter finds nothing there today: the gate only has to be a superset.
WITH_FINDINGS = tuple(k for k in KEPT if k not in ("a lent cache", "a lent library"))


@pytest.mark.parametrize("name", WITH_FINDINGS)
def test_the_kept_shapes_have_findings(name: str, tmp_path: Path) -> None:
    code, files = KEPT[name]
    path = _write(tmp_path, code, files)
    assert check_source(code, str(path), SETTINGS, Context(workspace=tmp_path), use_gate=False).findings


# -- transformers' own trees: every module the gate drops, on parso's path -------------------------------------
_TREES = sorted(p for p in ORACLE.glob("tf-*/transformers") if p.is_dir()) if ORACLE.is_dir() else []
# One tree by default (each costs about a minute of CPU); HFC_GATE_ALL_TREES=1 checks every oracle tree.
_CHECKED_TREES = _TREES if os.environ.get("HFC_GATE_ALL_TREES") else [p for p in _TREES if "tf-5.24.0" in str(p)]
SHARDS = 8


@cache
def _dropped(tree: Path) -> tuple[Path, ...]:
    """The modules whose text says a word of some kind but which the gate (the compile stage on) drops."""
    ctx = Context(workspace=tree)
    out = []
    for p in sorted(tree.rglob("*.py")):
        text = decode_source(p.read_bytes())
        if screen(text, str(p), SETTINGS, ctx, gate=False) and not screen(text, str(p), SETTINGS, ctx):
            out.append(p)
    return tuple(out)


@pytest.mark.skipif(not _CHECKED_TREES, reason="no transformers tree under ORACLE_DIR")
@pytest.mark.parametrize("shard", range(SHARDS))
@pytest.mark.parametrize("tree", _CHECKED_TREES, ids=lambda p: p.parent.name)
def test_every_module_of_transformers_the_gate_drops_has_no_finding(tree: Path, shard: int) -> None:
    dropped = _dropped(tree)
    assert len(dropped) > 100, "the gate drops almost nothing of transformers: the test no longer tests much"
    ctx = Context(workspace=tree)
    for p in dropped[shard::SHARDS]:
        result = check_source(decode_source(p.read_bytes()), str(p), SETTINGS, ctx, use_gate=False)
        assert result.findings == (), p


# engine/screen/library_values.py: which transformers imports can make a value, read off the text.
LIBRARY_VALUES = [
    ("import os, \\\n    transformers\n", True),  # a module, after a continued line
    ("import transformers as tf\n", True),
    ("from unsloth import FastLanguageModel\n", True),
    ("from transformers import *\n", True),
    ("from transformers import (\n    AutoModel,  # a comment in the list\n)\n", True),
    ("from transformers.utils import logging\nL = logging\n", True),  # handed on: anything may follow
    ("from transformers.utils import logging\nx = logging.models.LlamaModel\n", True),  # a maker through attributes
    ("from transformers import is_torch_available as ok\nf(ok)\n", True),  # passed as an argument
    ("from transformers.utils import logging\nlog = logging.get_logger(__name__)\n", False),
    ("from transformers.utils import auto_docstring\n@auto_docstring\nclass A:\n    pass\n", False),
    ("from transformers.utils import auto_docstring\n@auto_docstring(custom_intro='x')\ndef f():\n    pass\n", False),
    ("x = 1  # import transformers\n", False),
    ('"""\n>>> from transformers import AutoModel\n"""\n', False),  # a doctest, not code
    ("from ..llama import LlamaModel\nfrom ...cache_utils import DynamicCache\n", False),  # relative: never transformers'
    # A maker-shaped class only tested against, on one line with a plain first argument: no value; any other use is.
    ("from transformers import DynamicCache as DC\nok = isinstance(c, DC)\n", False),
    ("from transformers import DynamicCache, Cache\nok = issubclass(t, (Cache, DynamicCache,))\n", False),
    ("from transformers import DynamicCache\nok = isinstance(f(c), DynamicCache)\n", True),
    ("from transformers import DynamicCache\nok = isinstance(c, DynamicCache)\nc = DynamicCache()\n", True),
    ("from transformers import DynamicCache\nok = isinstance(c, DynamicCache.sub)\n", True),
    ("from transformers import DynamicCache\nok = isinstance(c, (\n    DynamicCache,\n))\n", True),
    ("from transformers import DynamicCache\ndef f(c: DynamicCache):\n    return isinstance(c, DynamicCache)\n", True),
]


@pytest.mark.parametrize(("code", "expected"), LIBRARY_VALUES)
def test_library_values_reads_which_imports_can_make_a_value(code: str, expected: bool) -> None:
    from hf_cache_lint.engine.screen.library_values import makes_values

    assert makes_values(code) is expected
