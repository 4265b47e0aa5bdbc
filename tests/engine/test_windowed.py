"""Sliding-window models (issue 29): which models the code says have sliding-window layers, and what the target
raises for a crop or a quantized cache on them (the release table; docs/facts.md section 8)."""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.environment.families import windowed_family
from hf_cache_lint.engine.environment.target import Target


@pytest.mark.parametrize(("class_name", "checkpoint", "family"), [
    (None, "google/gemma-2-2b-it", "Gemma 2"),
    (None, "google/gemma-3-4b-it", "Gemma 3"),
    (None, "google/gemma-3n-E4B-it", "Gemma 3n"),
    (None, "openai/gpt-oss-20b", "gpt-oss"),
    ("Gemma2ForCausalLM", None, "Gemma 2"),
    ("Gemma3ForConditionalGeneration", "anything", "Gemma 3"),
    ("Cohere2ForCausalLM", None, "Cohere 2"),
    (None, "google/gemma-2b", None),  # Gemma 1: no sliding layers
    (None, "google/gemma-7b-it", None),
    (None, "mistralai/Mistral-7B-v0.3", None),  # its window depends on the checkpoint: not judged
    (None, "meta-llama/Llama-3.2-1B", None),
    ("LlamaForCausalLM", "google/gemma-2-2b-it", None),  # the class decides
    (None, None, None),
])
def test_windowed_family(class_name: str | None, checkpoint: str | None, family: str | None) -> None:
    assert windowed_family(class_name, checkpoint) == family


@pytest.mark.parametrize(("version", "since", "error"), [
    ("4.52.4", None, None),  # a HybridCache: no sliding layers in DynamicCache yet
    ("4.55.4", None, None),
    ("4.56.0", "4.56.0", "ValueError: Cannot `crop` a `DynamicSlidingWindowLayer`"),
    ("4.57.6", "4.56.0", "ValueError: Cannot `crop` a `DynamicSlidingWindowLayer`"),
    ("5.14.1", "4.56.0", "ValueError: Cannot `crop` a `DynamicSlidingWindowLayer`"),
    ("5.15.0", "5.15.0", "RuntimeError: `crop` was called, but the current layer does not track past states"),
    ("5.25.0", "5.15.0", "RuntimeError: `crop` was called, but the current layer does not track past states"),
])
def test_sliding_crop_error(version: str, since: str | None, error: str | None) -> None:
    got = Target.of(version).sliding_crop_error
    if since is None:
        assert got is None
    else:
        assert got is not None and got[1] == since and got[0].startswith(str(error))


@pytest.mark.parametrize(("version", "raises"), [("4.57.6", False), ("5.13.1", False), ("5.14.0", True),
                                                 ("5.25.0", True)])
def test_quantized_window_error(version: str, raises: bool) -> None:
    got = Target.of(version).quantized_window_error
    assert (got is not None) == raises
    if got is not None:
        assert got[1] == "5.14.0" and "only supported for models with only full attention layers" in got[0]


def _findings(text: str, version: str, code: str) -> list[tuple[int, str]]:
    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.environment.context import Context

    ctx = Context(target=Target.of(version))
    return [(f.span.start.line, f.severity.value) for f in check_source(text, "t.py", context=ctx).findings
            if f.code == code]


_HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
         'model = AutoModelForCausalLM.from_pretrained("{model}")\nids = torch.tensor([[1, 2, 3]])\n')


@pytest.mark.parametrize(("model", "body", "version", "want"), [
    ("google/gemma-2-2b-it", "cache = DynamicCache(config=model.config)\nmodel(ids, past_key_values=cache)\n"
     "cache.crop(-1)\n", "5.24.0", [(8, "info")]),
    ("google/gemma-2-2b-it", "cache = model(ids, use_cache=True).past_key_values\ncache.crop(-1)\n", "4.57.6",
     [(7, "info")]),
    # before sliding-window layers (4.56.0) a Gemma 2 cache was a HybridCache: not judged
    ("google/gemma-2-2b-it", "cache = model(ids, use_cache=True).past_key_values\ncache.crop(-1)\n", "4.52.4", []),
    # a cache built without the config has full layers; crop(0) is no rollback
    ("google/gemma-2-2b-it", "cache = DynamicCache()\nmodel(ids, past_key_values=cache)\ncache.crop(-1)\n",
     "5.24.0", []),
    # crop(0) is no rollback (no sliding error on 4.57.6); from 5.14 it is a no-op, HFC008's zero-crop warning
    ("google/gemma-2-2b-it", "cache = model(ids, use_cache=True).past_key_values\ncache.crop(0)\n", "4.57.6", []),
    ("google/gemma-2-2b-it", "cache = model(ids, use_cache=True).past_key_values\ncache.crop(0)\n", "5.24.0",
     [(7, "warning")]),
    # a model whose window the code does not say
    ("mistralai/Mistral-7B-v0.1", "cache = model(ids, use_cache=True).past_key_values\ncache.crop(-1)\n", "5.24.0",
     []),
])
def test_sliding_crop_is_reported_only_where_the_code_says_sliding(model: str, body: str, version: str,
                                                                   want: list[tuple[int, str]]) -> None:
    assert _findings(_HEAD.format(model=model) + body, version, "HFC008") == want


def test_a_remote_code_model_says_nothing_about_its_cache() -> None:
    text = (_HEAD.replace('")', '", trust_remote_code=True)', 1).format(model="google/gemma-2-2b-it")
            + "cache = model(ids, use_cache=True).past_key_values\ncache.crop(-1)\n")
    assert "trust_remote_code=True" in text
    assert _findings(text, "5.24.0", "HFC008") == []
