"""The fact kind `pickled_cache`: a transformers cache written to a file with `torch.save(cache, path)`, and a
`torch.load(path, weights_only=True)`, recorded by engine/interpreter/known.py; the rule (HFC012) reports a load
of a file the code saved a cache to (the same path value: one constant, or one expression or parameter the path
came from). Both sides are facts of this one kind, so a replayed run (interpreter/replay.py) keeps them alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.text.text import contains, has_call


@dataclass(frozen=True)
class PickledCache:
    """`what` "save": `torch.save(cache, path)` of a value the code says is a transformers cache (`cache`: what it
    is, `cls` its class, DynamicCache when the code does not say); "load": `torch.load(path, weights_only=True)`
    (`keyword` the `weights_only=True` argument) or `torch.load(path)` without it (`last` its last argument, where
    the keyword goes). `span` the whole call; `file` what the path value is, as a key (`'chunk0.pt'`, `the
    parameter \\`path\\``), equal on both sides where the same value reaches them."""

    what: Literal["save", "load"]
    span: Span
    file: str
    cache: str = ""
    cls: str = "DynamicCache"
    keyword: Span | None = None
    last: Span | None = None


def _might_pickle(text: str) -> bool:
    """HFC012 pairs a load with the save of a cache to the same file, and engine/interpreter/known.py records
    neither where this says no: a call of each, however spaced (`torch . save (`). The word `load` alone is in most
    modules (with `save`, in 8 of transformers' own that then reached the parser for nothing)."""
    return contains(text, "save") and contains(text, "load") and has_call(text, "save") and has_call(text, "load")


# `torch.load(..., weights_only=True)`, or `torch.load(path)` (the word `load`: `torch . load (path)` is the same
# call) whose default is `weights_only=True` from torch 2.6
# (the torch every transformers from 5.20 requires; the rule says which). Only in a module with a transformers
# cache (`source`) that it saves.
KIND: FactKind[PickledCache] = FactKind("pickled_cache", PickledCache, triggers=("weights_only", "load"),
                                        parse_names=frozenset({"load"}), source="cache", distinct=True,
                                        might_occur=_might_pickle)
