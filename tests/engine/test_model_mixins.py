"""The project's mixin written before a transformers model class among a subclass's bases (Petals'
`DistributedLlamaForCausalLM(RemoteGenerationMixin, LlamaForCausalLM)`): its methods run on the model instance
(methods.py `_mixed_in`, Python's MRO up to the first base that is not the module's), and a cache-related member
neither the instance nor its classes have is the model's, whose error names the subclass (expressions.py
`_subclass_model`, cache_uses.py `subclass_member`; heldout8 petals_remote_cache.py:67)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = "from transformers import LlamaForCausalLM\n"


def found(text: str, version: str = "4.57.6") -> list[tuple[int, str]]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line - 1, f.message) for f in result.findings if f.code == "HFC007"]


MIXIN = ("class Mixin:\n    def flag(self):\n        return self._supports_cache_class\n\n\n"  # 1-3
         "class Dist({bases}):\n    pass\n\n\n"                                                  # 6
         "d = Dist.from_pretrained('m')\nd.flag()\n")


def test_a_mixin_before_the_model_runs_on_it() -> None:
    [(line, message)] = found(MIXIN.format(bases="Mixin, LlamaForCausalLM"))
    assert line == 3 and "AttributeError: 'Dist' object has no attribute '_supports_cache_class'" in message


def test_a_mixin_through_the_module_s_own_base() -> None:
    text = MIXIN.format(bases="Middle, LlamaForCausalLM").replace("class Dist", "class Middle(Mixin):\n    pass\n\n\nclass Dist")
    assert [line for line, _ in found(text)] == [3]


@pytest.mark.parametrize("bases", ["LlamaForCausalLM, Mixin", "Mixin"])
def test_a_mixin_after_the_model_or_without_one_is_not_the_model_s(bases: str) -> None:
    # after the transformers class, its method is not the one Python finds first; without one, no model
    assert found(MIXIN.format(bases=bases)) == []


def test_a_member_the_project_sets_is_its_own() -> None:
    text = MIXIN.format(bases="Mixin, LlamaForCausalLM").replace(
        "    pass\n", "    def __init__(self, config):\n        super().__init__(config)\n"
        "        self._supports_cache_class = True\n", 1)
    text = text.replace("class Mixin:\n", "class Mixin:\n    _supports_cache_class = True\n\n")
    assert found(text) == []


def test_the_direct_subclass_s_own_method_reads_the_model_s_member() -> None:
    text = "class Direct(LlamaForCausalLM):\n    def flag(self):\n        return self._supports_cache_class\n\n\n" \
        "Direct.from_pretrained('m').flag()\n"
    [(line, message)] = found(text)
    assert line == 3 and "'Direct' object" in message


PLAIN = ("from transformers import AutoModelForCausalLM, StaticCache\n\n\n"
         "class CacheSetupMixin:\n    def _length_fits(self, cache, n):\n        return cache.max_cache_len >= n\n\n\n"  # 4-6
         "class Generator({bases}):\n    def __init__(self):\n"
         "        self.model = AutoModelForCausalLM.from_pretrained('m')\n\n\n"
         "def probe():\n    gen = Generator()\n"
         "    cache = StaticCache(config=gen.model.config, max_cache_len=32)\n    return gen._length_fits(cache, 16)\n")


@pytest.mark.parametrize(("bases", "reported"), [
    # a plain class inherits its mixin's method as Python's MRO finds it (Parler-TTS's CacheSetupMixin, heldout6
    # parler_static_setup.py pt_max_cache_len: AttributeError max_cache_len from 5.20, the oracle)
    ("CacheSetupMixin", [6]),
    ("Middle", [6]),
    # a library base first may define the method itself: nothing is claimed
    ("dict, CacheSetupMixin", []),
])
def test_a_plain_class_runs_the_method_its_own_mixin_defines(bases: str, reported: list[int]) -> None:
    text = PLAIN.format(bases=bases)
    if bases == "Middle":
        text = text.replace("class Generator", "class Middle(CacheSetupMixin):\n    pass\n\n\nclass Generator")
    assert [line for line, _ in found(text, "5.24.0")] == reported
    assert found(text, "4.57.6") == []
