"""Tiny checkpoints on disk, and from_pretrained redirected to them (runs inside the oracle worker).

User code says `AutoModelForCausalLM.from_pretrained("meta-llama/...")`; the Hub is unreachable and
the weights are huge. We save tiny randomly initialised checkpoints with `save_pretrained` and hand
their folder to the REAL `from_pretrained`, so loading semantics (generation_config.json, unknown
kwargs reaching the model's __init__, dtype handling) are transformers' own.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import transformers
from transformers import AutoConfig, GenerationConfig, PreTrainedModel

# head_dim 64: optimum-quanto quantizes in groups of 64 along the head dimension.
SIZE: dict[str, Any] = dict(vocab_size=320, hidden_size=128, intermediate_size=128, num_hidden_layers=2,
                            num_attention_heads=2, num_key_value_heads=1, head_dim=64,
                            max_position_embeddings=8192, state_size=8, sliding_window=32,
                            n_embd=32, n_layer=2, n_head=4, d_model=32, d_ff=64, num_layers=2, num_heads=4,
                            d_kv=8, n_positions=8192)

# What the Hub ships as generation_config.json for each family (small token ids so they fit vocab 320).
# Gemma 2/3 really ship "cache_implementation": "hybrid" (docs/facts.md §2).
HUB_GENERATION: dict[str, dict[str, Any]] = {
    "llama": {"bos_token_id": 1, "eos_token_id": 2, "transformers_version": "4.50.0"},
    "mamba": {"bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0, "transformers_version": "4.39.0.dev0"},
    "gemma2": {"bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 107],
               "pad_token_id": 0, "transformers_version": "4.42.4"},
    "t5": {"decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0, "transformers_version": "4.27.0"},
    "gpt2": {"bos_token_id": 0, "eos_token_id": 0, "transformers_version": "4.27.0"},
    "gemma3_text": {"bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 106],
                    "pad_token_id": 0, "transformers_version": "4.50.0.dev0"},
    "gemma3": {"bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 106],
               "pad_token_id": 0, "transformers_version": "4.50.0.dev0"},
}

# Hub id -> model_type, first match wins. "google/gemma-2b" is Gemma 1 (no hybrid): only "gemma-2-" is 2.
ID_RULES: tuple[tuple[str, str], ...] = (
    (r"falcon-?mamba", "falcon_mamba"), (r"mamba-?2|mamba2", "mamba2"), (r"mamba", "mamba"),
    (r"gemma-?3", "gemma3_text"), (r"gemma-?2-|gemma2", "gemma2"),
    (r"llava", "llava"), (r"(^|/)(flan-)?t5", "t5"), (r"(^|/)gpt2|distilgpt2", "gpt2"),
)
PREBUILT = ("llama", "mamba", "gemma2", "gemma3_text")
WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
# Loading options that only make sense with a GPU or bitsandbytes/accelerate: the simulation drops them.
HARDWARE_KWARGS = ("device_map", "low_cpu_mem_usage", "max_memory", "offload_folder", "offload_state_dict",
                   "quantization_config", "load_in_8bit", "load_in_4bit")

ROOT = Path(tempfile.mkdtemp(prefix="oracle-tiny-"))


def model_type_for(name: str, cls: type | None = None) -> str:
    """The family to build: the concrete class decides, else the id, else Llama."""
    config_class = getattr(cls, "config_class", None)
    mt = getattr(config_class, "model_type", "") if config_class is not None else ""
    if mt:
        return str(mt)
    for pattern, family in ID_RULES:
        if re.search(pattern, name.lower()):
            return family
    return "llama"


def _shrunk(config_class: Any) -> Any:
    """The class's defaults with every size knob it has set small; sub-configs (text/vision) likewise."""
    defaults = config_class()
    kwargs: dict[str, Any] = {k: v for k, v in SIZE.items() if hasattr(defaults, k)}
    for name in getattr(config_class, "sub_configs", None) or {}:
        sub = getattr(defaults, name, None)
        if sub is not None and hasattr(sub, "to_dict"):
            kwargs[name] = _shrunk(type(sub)).to_dict()
    for key, small in (("pad_token_id", 0), ("bos_token_id", 1), ("eos_token_id", 2)):
        if "vocab_size" in kwargs and isinstance(getattr(defaults, key, None), int) \
                and getattr(defaults, key) >= kwargs["vocab_size"]:
            kwargs[key] = small  # e.g. Phi-3's pad id 32000 must fit the tiny vocabulary
    if hasattr(defaults, "image_size") and hasattr(defaults, "patch_size"):
        kwargs.update(image_size=32, patch_size=8)  # 16 patches
    return config_class(**kwargs)


def tiny_config(model_type: str) -> Any:
    config_class = transformers.CONFIG_MAPPING[model_type]
    if model_type == "mamba2":  # Mamba2 ties heads to the inner size: keep them consistent
        return config_class(**{k: v for k, v in SIZE.items() if k in ("vocab_size", "num_hidden_layers", "state_size")},
                            hidden_size=64, num_heads=8, head_dim=16, n_groups=1, expand=2)
    config = _shrunk(config_class)
    if model_type == "gemma3":
        config.mm_tokens_per_image = 16  # = the tiny vision tower's patch count
    return config


def build(model_type: str, dest: Path) -> Path:
    """Save a tiny random model of this family (the causal-LM class, else seq2seq) with Hub-like defaults."""
    config = tiny_config(model_type)
    model = None
    for auto in (transformers.AutoModelForCausalLM, transformers.AutoModelForImageTextToText,
                 transformers.AutoModelForSeq2SeqLM):
        try:
            model = auto.from_config(config)
            break
        except ValueError:
            continue
    if model is None:
        raise ValueError(f"oracle: no tiny model class for model_type {model_type!r}")
    model.save_pretrained(dest)
    if model_type in HUB_GENERATION:
        (dest / "generation_config.json").write_text(json.dumps(HUB_GENERATION[model_type], indent=2))
    return dest


def checkpoint(model_type: str) -> Path:
    dest = ROOT / model_type
    if not (dest / "config.json").exists():
        build(model_type, dest)
    return dest


def is_complete(folder: Path) -> bool:
    return (folder / "config.json").exists() and any((folder / w).exists() for w in WEIGHTS)


def resolve(name: Any, cls: type | None = None, *, keep_dirs: bool = False) -> Any:
    """Where a from_pretrained call should really load from."""
    if not isinstance(name, (str, os.PathLike)):
        return name
    folder = Path(name)
    if folder.is_dir():
        if is_complete(folder) or keep_dirs:
            return name
        # A user folder holding only generation_config.json (and maybe config.json): the real loader
        # would read those, so a copy of a tiny checkpoint takes the user's files on top.
        mt = model_type_for(folder.name, cls)
        if (folder / "config.json").exists():
            mt = json.loads((folder / "config.json").read_text()).get("model_type", mt)
        dest = Path(tempfile.mkdtemp(prefix="oracle-local-")) / folder.name
        shutil.copytree(checkpoint(mt), dest)
        if (folder / "generation_config.json").exists():
            shutil.copy(folder / "generation_config.json", dest / "generation_config.json")
        return str(dest)
    return str(checkpoint(model_type_for(str(name), cls)))


def _redirect(original: Callable[..., Any], *, model: bool, keep_dirs: bool = False) -> classmethod:  # type: ignore[type-arg]
    func = original.__func__ if hasattr(original, "__func__") else original

    @functools.wraps(func)
    def from_pretrained(cls: type, name: Any = None, *args: Any, **kwargs: Any) -> Any:
        if model:
            for k in HARDWARE_KWARGS:
                kwargs.pop(k, None)
            if str(kwargs.get("attn_implementation", "")).startswith("flash_attention"):
                kwargs["attn_implementation"] = "sdpa"
        hint = cls if getattr(cls, "config_class", None) is not None else None
        return func(cls, resolve(name, hint, keep_dirs=keep_dirs), *args, **kwargs)

    return classmethod(from_pretrained)


def install() -> None:
    """Patch the loaders (before any fork) and prebuild the common families."""
    from transformers.models.auto.auto_factory import _BaseAutoModelClass

    _BaseAutoModelClass.from_pretrained = _redirect(_BaseAutoModelClass.from_pretrained, model=True)
    PreTrainedModel.from_pretrained = _redirect(PreTrainedModel.from_pretrained, model=True)
    AutoConfig.from_pretrained = _redirect(AutoConfig.from_pretrained, model=False)
    base_config = getattr(transformers, "PreTrainedConfig", None) or transformers.PretrainedConfig
    base_config.from_pretrained = _redirect(base_config.from_pretrained, model=False)
    # A local folder is read as is (real semantics); only Hub ids are redirected.
    GenerationConfig.from_pretrained = _redirect(GenerationConfig.from_pretrained, model=False, keep_dirs=True)
    for mt in PREBUILT:
        checkpoint(mt)
