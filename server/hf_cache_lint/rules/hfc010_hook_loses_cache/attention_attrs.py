"""HFC010's patched layer forwards reading `self.<name>` their class no longer has (engine/facts/patched_self_read.py):
the release table's `attr:` facts say, per release, what an instance of each attention and decoder-layer class of
the tabled model families has from its class (what `__init__` sets on `self`, the methods, properties and class
attributes), read from each wheel. A forward written for 4.4x and patched onto `LlamaAttention` reads
`self.num_heads`, which `__init__` set up to 4.47.1; from 4.48.0 no release has it, and every layer's forward raises
`AttributeError: 'LlamaAttention' object has no attribute 'num_heads'` (the oracle: this module's examples,
`recall:heldout20/pyramidkv_monkeypatch.py`, `recall:heldout15/easykv_eviction.py`). The name reported is the
function's first read (as written) of one its class had at an earlier release and lacks at the target. Not where
the layer's call of the function raises TypeError first (`_unbound_forwards` in this package's `__init__`: a
parameter list without `**kwargs` lacking the keyword the layer passes the cache under, or one the call cannot
bind; ToolBench's `forward_2`): the body never runs, and that TypeError is the finding. No mechanical fix: what the
name held is the project's to read off `self.config` or set on each module."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.patched_self_read import PatchedSelfRead
from hf_cache_lint.engine.output.analysis import Analysis

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

# What a 4.4x attention's `__init__` copied off its config, under the config's own name (Llama's and the families'
# configs built like it): read off `self.config` where the class still sets `config`.
_FROM_CONFIG = {"num_heads": "num_attention_heads", "num_key_value_heads": "num_key_value_heads",
                "hidden_size": "hidden_size", "max_position_embeddings": "max_position_embeddings"}


def missing(fact: PatchedSelfRead, version: object) -> tuple[str, int, str, str, str] | None:
    """(the name, the index of its read in `fact.reads`, what the class last had it as, the last release that had
    it, the first release without it) for the first read of a name the class had at an earlier release and lacks at
    `version`; None where the class itself is absent at `version` (the patch statement raises: HFC007) or every
    read name is there (or was never the class's: the project's own)."""
    at = str(version)
    if releases.value(f"name:{fact.module}.{fact.cls}", at) is None:
        return None
    for i, (name, _span) in enumerate(fact.reads):
        key = f"attr:{fact.module}.{fact.cls}.{name}"
        if releases.value(key, at) is not None:
            continue
        gone = releases.gone_since(key, at)
        if gone is None:
            continue
        had = [run for run in releases.table().facts.get(key, ()) if run.last < gone]
        if not had:
            continue
        return name, i, had[-1].value, str(had[-1].last), str(gone)
    return None


def finding(rule: Rule, analysis: Analysis, fact: PatchedSelfRead) -> Finding | None:
    target = analysis.context.target
    found = missing(fact, target.version)
    if found is None:
        return None
    name, index, kind, last, gone = found
    read = fact.reads[index][1]
    error = f"`AttributeError: '{fact.cls}' object has no attribute '{name}'`"
    how = "its `__init__` set it on `self`" if kind == "init" else f"it had it (a {kind})"
    config = _FROM_CONFIG.get(name)
    if config is not None and releases.value(f"attr:{fact.module}.{fact.cls}.config", str(target.version)):
        advice = f"read `self.config.{config}`, which the class sets on every release"
    else:
        advice = (f"set `{name}` on each patched module before it runs, or work it out from what the class has at "
                  "this release")
    message = (f"`{fact.function}`, patched in as `{fact.cls}.forward` (line {fact.span.start.line}), reads "
               f"`self.{name}`, which transformers {target}'s `{fact.cls}` does not have ({how} up to {last}; no "
               f"release has it since {gone}): every layer's forward raises {error}. Instead, {advice}")
    return rule.report(read, message, story=partial(_story, fact, str(target), name, how, last, gone, error))


def _story(fact: PatchedSelfRead, target: str, name: str, how: str, last: str, gone: str, error: str) -> str:
    return (f"**A patched `{fact.cls}.forward` reads `self.{name}`, which transformers {target}'s class lacks**\n\n"
            f"`{fact.function}` replaces `{fact.cls}.forward`, so it runs with each `{fact.cls}` module as `self`. "
            f"Up to {last} {how}; from {gone} the class no longer has it (the release table's `attr:` facts, read "
            f"from each wheel's `{fact.module}`), so the first forward raises {error}.\n\nForwards written for 4.4x "
            "attention classes read the head counts and sizes their `__init__` copied off the config; read them "
            "off `self.config`, or set them on each module before patching.")
