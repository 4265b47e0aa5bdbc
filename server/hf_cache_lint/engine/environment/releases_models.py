"""Names a release's model modules and its top level lost, from the release table (data/releases.json).

scripts/release_table.py tables every name the top level of the modeling modules of MODEL_NAME_FAMILIES binds
(`name:transformers.models.llama.modeling_llama.LlamaFlashAttention2`: the architectures real cache code imports
from and patches), and the top-level names `import transformers` serves from `generation` (`export:transformers.
BeamScorer`). An import or a read of one the target lacks raises; a name no release in the table had is never
reported (a typo, or a name older than the table, is not "removed").
"""

from __future__ import annotations

import re
from functools import cache

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version

# scripts/release_table.py MODEL_NAME_FAMILIES (a test keeps the two the same).
MODEL_NAME_FAMILIES: tuple[str, ...] = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl",
                                        "qwen3", "gemma", "gemma2", "phi3", "gpt2", "gpt_neox", "opt", "falcon", "t5",
                                        "whisper")
MODEL_NAME_MODULES: tuple[str, ...] = tuple(f"transformers.models.{f}.modeling_{f}" for f in MODEL_NAME_FAMILIES)
# What the screens look for among a module's compiled names: the dotted module (`from transformers.models.llama.
# modeling_llama import X`, `import transformers.models.llama.modeling_llama as m`) or its last part (`from
# transformers.models.llama import modeling_llama`).
MODEL_SCREEN_NAMES: frozenset[str] = frozenset(
    {*MODEL_NAME_MODULES, *(m.rpartition(".")[2] for m in MODEL_NAME_MODULES)})
# The top-level names `import transformers` served from `generation` that a later release in the table lacks
# (`from transformers import BeamScorer` raises ImportError from 5.0.0; a test derives this list from the table).
REMOVED_GENERATION_EXPORTS: tuple[str, ...] = (
    "BeamScorer", "BeamSearchScorer", "ConstrainedBeamSearchScorer", "Constraint", "ConstraintListState",
    "DisjunctiveConstraint", "ForceTokensLogitsProcessor", "HammingDiversityLogitsProcessor", "LogitsWarper",
    "PhrasalConstraint")

# The attention classes one release kept per implementation and a later one merged into `<Model>Attention` (4.48
# for Llama, later for others): the merged class picks the implementation from `config._attn_implementation`.
_PER_IMPLEMENTATION = re.compile(r"(?P<model>\w+?)(?:FlashAttention2|SdpaAttention|FlexAttention)")
_ATTENTION_CLASSES = re.compile(r"(?P<model>[A-Z0-9_]+)_ATTENTION_CLASSES")


@cache
def first_model_removal() -> Version:
    """The first release without a name (of a tabled model module, or a top-level generation export) an earlier
    release had: a target before it has none of these to report."""
    prefixes = tuple(f"name:{m}." for m in MODEL_NAME_MODULES)
    keys = [k for k in releases.table().facts if k.startswith(prefixes)] + \
        [f"export:transformers.{n}" for n in REMOVED_GENERATION_EXPORTS]
    # From the runs' ends only: the model modules' names are half the table, and a check looks few of them up.
    return releases.first_gone(keys) or releases.known_releases()[-1]


def removed_model_name(module: str, name: str, version: Version) -> str | None:
    """The release since which `module` (one of MODEL_NAME_MODULES) no longer binds `name`, when `version` is at or
    past it; None when it binds it there or no release in the table ever did."""
    if module not in MODEL_NAME_MODULES:
        return None
    gone = releases.gone_since(f"name:{module}.{name}", version)
    return None if gone is None else str(gone)


def removed_generation_export(name: str, version: Version) -> str | None:
    """The release since which `from transformers import <name>` fails, for a name the top level served from
    `generation`, when `version` is at or past it."""
    if name not in REMOVED_GENERATION_EXPORTS:
        return None
    gone = releases.gone_since(f"export:transformers.{name}", version)
    return None if gone is None else str(gone)


def model_replacement(module: str, name: str, version: Version) -> str | None:
    """What replaced a removed model-module name where the replacement is mechanical, as the release table shows it
    at `version`: a per-implementation attention class (or the `*_ATTENTION_CLASSES` dict of them) -> the merged
    `<Model>Attention`; a re-exported name -> the module that still defines it. None otherwise."""
    for pattern in (_PER_IMPLEMENTATION, _ATTENTION_CLASSES):
        if (m := pattern.fullmatch(name)) is not None:
            merged = _merged_attention(module, m["model"], version)
            if merged is not None:
                return (f"`{merged}` (from `{module}`): transformers {version} has one attention class, which "
                        "picks the kernel from `config._attn_implementation`, so a patch of its `forward` replaces "
                        "every implementation")
    before = _last_value(module, name, version)
    if before is not None and before.startswith("import(") and "." in before:
        source, _, original = before[len("import("):-1].rpartition(".")
        absolute = _absolute(module, source)
        if absolute is not None and releases.value(f"name:{absolute}.{original}", version) is not None:
            return f"`from {absolute} import {original}` (where `{name}` came from; transformers {version} has it)"
    return None


@cache
def _merged_attention(module: str, model: str, version: Version) -> str | None:
    """`<Model>Attention` of `module` at `version`, the case of the prefix as the module spells its classes
    (`LLAMA_ATTENTION_CLASSES` -> `LlamaAttention`)."""
    for key in releases.table().facts:
        if key.startswith(f"name:{module}.") and key.endswith("Attention"):
            cls = key.rpartition(".")[2]
            if cls[:-len("Attention")].upper() == model.upper() and releases.value(key, version) is not None:
                return cls
    return None


def _last_value(module: str, name: str, version: Version) -> str | None:
    """The fact's value at the last release before `version` that had it."""
    runs = [run for run in releases.table().facts.get(f"name:{module}.{name}", ()) if run.last < version]
    return runs[-1].value.removeprefix("optional:") if runs else None


def _absolute(module: str, source: str) -> str | None:
    """A relative import's module (`...cache_utils` from `transformers.models.llama.modeling_llama`) made absolute."""
    dots = len(source) - len(source.lstrip("."))
    if dots == 0:
        return source
    parts = module.split(".")
    if dots > len(parts):
        return None
    rest = source[dots:]
    base = ".".join(parts[:len(parts) - dots])
    return f"{base}.{rest}" if rest else base
