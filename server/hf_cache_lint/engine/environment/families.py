"""transformers' class families the engine names: the one Mamba-family detection (models whose cache is their own
state: `MambaCache`, `cache_params=`), and the pipeline classes built directly, by task.

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


# Pipeline classes built directly, by the task they run (engine/interpreter/generate_calls.py: which keywords of
# each task's call reach generate; the screen's gate counts them like `pipeline`).
PIPELINE_CLASSES = {"TextGenerationPipeline": "text-generation",
                    "AutomaticSpeechRecognitionPipeline": "automatic-speech-recognition",
                    "Text2TextGenerationPipeline": "text2text-generation", "SummarizationPipeline": "summarization",
                    "TranslationPipeline": "translation", "ImageTextToTextPipeline": "image-text-to-text",
                    "AnyToAnyPipeline": "any-to-any", "TextToAudioPipeline": "text-to-audio"}
