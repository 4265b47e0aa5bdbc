"""HFC010 on a function patched in as a transformers layer class's `forward` that reads `self.<name>` the class
no longer has at the target (the release table's `attr:` facts; engine/interpreter/patched_self_reads.py): reported
at the first such read. Not where the module sets the name itself or names it in a string (`hasattr`), where the
function sets it first, where the name was never the class's (the project's own), in a nested function, where the
target still has it (4.47.1), or where the target lacks the class itself (the patch statement raises: HFC007's).
The oracle: HFC010's `_SELF_READ` examples (AttributeError on 4.57.6, 5.23.0, 5.24.0, 5.25.0)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

TEXT = ("from transformers.models.llama import modeling_llama\n"
        "from transformers.models.llama.modeling_llama import LlamaAttention\n\n\n"
        "def patched(self, hidden_states, *args, **kwargs):\n"
        "    BODY\n"
        "    return self.o_proj(hidden_states), None\n\n\n"
        "PATCH\n")


def lines(body: str, patch: str = "modeling_llama.LlamaAttention.forward = patched", version: str = "5.24.0",
          extra: str = "") -> list[int]:
    text = TEXT.replace("BODY", body).replace("PATCH", patch) + extra
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f.span.start.line for f in result.findings if f.code == "HFC010" and "AttributeError" in f.message]


@pytest.mark.parametrize("patch", ["modeling_llama.LlamaAttention.forward = patched",
                                   "LlamaAttention.forward = patched",
                                   "transformers.models.llama.modeling_llama.LlamaAttention.forward = patched",
                                   'setattr(LlamaAttention, "forward", patched)'])
def test_each_patch_form(patch: str) -> None:
    assert lines("n = self.num_heads * self.head_dim", patch, extra="import transformers\n") == [6]


def test_first_missing_read_only() -> None:
    assert lines("n = self.head_dim + self.hidden_size + self.num_heads") == [6]


@pytest.mark.parametrize("version", ["4.57.6", "5.23.0", "5.25.0"])
def test_every_release_since_4_48(version: str) -> None:
    assert lines("n = self.num_heads", version=version) == [6]


def test_not_where_the_release_still_has_it() -> None:
    assert lines("n = self.num_heads", version="4.47.1") == []


@pytest.mark.parametrize(("body", "extra"), [
    ("n = self.head_dim", ""),  # every release has it
    ("n = self.my_scale", ""),  # never the class's: the project's own
    ("self.num_heads = 2\n    n = self.num_heads", ""),  # the function sets it first
    ("n = self.num_heads", "for m in []:\n    m.num_heads = 2\n"),  # the module sets it on the modules
    ("n = self.num_heads if hasattr(self, 'num_heads') else 2", ""),  # named in a string
    ("def inner(self):\n        return self.num_heads\n    n = 1", ""),  # a nested function's
])
def test_not_flagged(body: str, extra: str) -> None:
    assert lines(body, extra=extra) == []


def test_not_where_the_class_is_gone() -> None:
    # 4.57.6 has no `LlamaFlashAttention2`: the patch statement raises AttributeError first (HFC007 reports it)
    assert lines("n = self.num_heads", "modeling_llama.LlamaFlashAttention2.forward = patched", "4.57.6") == []
    assert lines("n = self.num_heads", "modeling_llama.LlamaFlashAttention2.forward = patched", "4.47.1") == []


_WALK = ("import types\n"
         "from transformers.models.llama.modeling_llama import LlamaAttention\n\n\n"
         "def shifted(self, hidden_states, *args, **kwargs):\n"
         "    n = self.num_heads\n"
         "    return self.o_proj(hidden_states), None\n\n\n"
         "def enable(model):\n"
         "    for name, module in reversed(model._modules.items()):\n"
         "        if len(list(module.children())) > 0:\n"
         "            enable(module)\n"
         "        TEST\n"
         "            model._modules[name].forward = types.MethodType(shifted, model._modules[name])\n")


@pytest.mark.parametrize(("test", "want"), [
    ("if isinstance(module, LlamaAttention):", [6]),  # streaming-llm's pos-shift patch
    ('if module.__class__.__name__ == "LlamaAttention":', [6]),
    ('if type(module).__name__ == "LlamaAttention":', [6]),
    ("if isinstance(module, torch.nn.Linear):", []),  # not a transformers layer class
    ("if module is not None:", []),  # no class said
])
def test_an_instance_patch_under_a_class_test(test: str, want: list[int]) -> None:
    text = _WALK.replace("TEST", test)
    result = check_source(text, "t.py", context=Context(target=Target.of("5.24.0")))
    got = [f.span.start.line for f in result.findings if f.code == "HFC010" and "AttributeError" in f.message]
    assert got == want


@pytest.mark.parametrize(("guard", "want"), [
    ('if version.parse(transformers.__version__) < version.parse("4.48.0"):\n    ', []),  # ruled out at 5.24.0
    ('if version.parse(transformers.__version__) >= version.parse("4.48.0"):\n    pass\nelse:\n    ', []),
    ('if version.parse(transformers.__version__) >= version.parse("4.48.0"):\n    ', [6]),  # runs at 5.24.0
])
def test_a_patch_a_version_test_rules_out(guard: str, want: list[int]) -> None:
    extra = "import transformers\nfrom packaging import version\n"
    assert lines("n = self.num_heads", guard + "modeling_llama.LlamaAttention.forward = patched", extra=extra) == want


def test_a_read_a_version_test_rules_out() -> None:
    body = ('if version.parse(transformers.__version__) < version.parse("4.48.0"):\n        n = self.num_heads\n'
            "    else:\n        n = self.config.num_attention_heads")
    assert lines(body, extra="import transformers\nfrom packaging import version\n") == []
    assert lines(body, version="4.47.1", extra="import transformers\nfrom packaging import version\n") == []
