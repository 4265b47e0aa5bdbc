"""transformers' class families the engine names: the one Mamba-family detection (models whose cache is their own
state: `MambaCache`, `cache_params=`), the families with sliding-window layers (`windowed_family`), and the pipeline
classes built directly, by task.

A class name of the family contains "mamba" (`MambaForCausalLM`, `Mamba2ForCausalLM`,
`FalconMambaForCausalLM`); Jamba, Bamba and Zamba are hybrids with attention caches and are not of it.
"""

from __future__ import annotations

import re

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


# Families whose released configs give some decoder layers a sliding window (checked on the oracle at 4.57.6 and
# 5.24.0: each config class's defaults have `layer_types` with "sliding_attention" beside "full_attention"; the
# Hub's checkpoints of them keep it). Mistral, Qwen2 and Phi-3 are not among them: their sliding window depends on
# the checkpoint (null in most), and the code rarely says which. Class-name prefix -> name for messages.
_WINDOWED_CLASSES = (("Gemma3n", "Gemma 3n"), ("Gemma3", "Gemma 3"), ("Gemma2", "Gemma 2"),
                     ("Cohere2", "Cohere 2"), ("GptOss", "gpt-oss"), ("Exaone4", "EXAONE 4"), ("Olmo3", "OLMo 3"))
# The same by checkpoint id (`google/gemma-2-2b-it`; `google/gemma-2b` is Gemma 1, without sliding layers).
_WINDOWED_IDS = ((re.compile(r"gemma-?3n", re.IGNORECASE), "Gemma 3n"),
                 (re.compile(r"gemma-?3(-|_|$)", re.IGNORECASE), "Gemma 3"),
                 (re.compile(r"gemma-?2-|gemma2", re.IGNORECASE), "Gemma 2"),
                 (re.compile(r"command-r7b", re.IGNORECASE), "Cohere 2"),
                 (re.compile(r"gpt-oss", re.IGNORECASE), "gpt-oss"),
                 (re.compile(r"exaone-?4", re.IGNORECASE), "EXAONE 4"),
                 (re.compile(r"olmo-?3", re.IGNORECASE), "OLMo 3"))


def windowed_family(class_name: str | None, checkpoint: str | None) -> str | None:
    """The family, named for messages, when the model class or checkpoint id says the model has sliding-window
    layers beside its full-attention ones (a Gemma 2 or 3, ...); None when the code does not say so."""
    if class_name:
        return next((name for prefix, name in _WINDOWED_CLASSES if class_name.startswith(prefix)), None)
    if checkpoint:
        return next((name for pattern, name in _WINDOWED_IDS if pattern.search(checkpoint)), None)
    return None
