"""The one Mamba-family detection: models whose cache is their own state (`MambaCache`, `cache_params=`).

A class name of the family contains "mamba" (`MambaForCausalLM`, `Mamba2ForCausalLM`,
`FalconMambaForCausalLM`); Jamba, Bamba and Zamba are hybrids with attention caches and are not of it.
"""

from __future__ import annotations

MAMBA_FAMILY = ("mamba",)

# A checkpoint id that names a Mamba model (`state-spaces/mamba-130m-hf`), most specific first, and the
# class transformers' Auto classes build for it (used when the config.json is not on disk).
_MAMBA_IDS = (("falcon-mamba", "FalconMambaForCausalLM"), ("mamba2", "Mamba2ForCausalLM"),
              ("mamba-2", "Mamba2ForCausalLM"), ("mamba", "MambaForCausalLM"))
_HYBRIDS = ("jamba", "bamba", "zamba")


def is_mamba_family(class_name: str | None) -> bool:
    """Whether the model class is of the Mamba family (None: an unseen class, which is not known to be)."""
    return bool(class_name) and any(f in (class_name or "").lower() for f in MAMBA_FAMILY)


def mamba_class_from_id(checkpoint: str | None) -> str | None:
    """The Mamba-family class a checkpoint id names (`state-spaces/mamba-130m-hf` -> `MambaForCausalLM`)."""
    if not checkpoint:
        return None
    low = checkpoint.lower()
    for key, cls in _MAMBA_IDS:
        if key in low and not any(h in low for h in _HYBRIDS):
            return cls
    return None
