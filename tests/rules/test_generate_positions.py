"""`generate(..., cache_position=...)` (HFC005): from 5.4.0 no model's forward takes `cache_position` (the release
table's forwards; docs/facts.md), so generate refuses it as unused. Reported at the call for a transformers model,
never for one with its own code (`trust_remote_code=`) nor before 5.4.0; a `**` dict carries it in as well. And a
key a dict gets under `isinstance(model, C)` reaches generate where the model was loaded as a `C`
(engine/interpreter/narrowing.py `model_is_instance`: KVzip's per-class generate keywords)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

LOAD = ("import torch\nfrom transformers import AutoModelForCausalLM, LlamaForCausalLM, Qwen3ForCausalLM\n\n"
        'model = AutoModelForCausalLM.from_pretrained("gpt2")\nids = torch.tensor([[1, 2]])\n')
CALL = "model.generate(ids, cache_position=torch.arange(5, 7), max_new_tokens=2)\n"


def findings(text: str, version: str) -> list[tuple[int, str]]:
    result = check_source(LOAD + text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line - LOAD.count("\n"), f.message) for f in result.findings if f.code == "HFC005"]


@pytest.mark.parametrize(("version", "found"), [("4.57.6", False), ("5.3.0", False), ("5.4.0", True),
                                                ("5.23.0", True), ("5.25.0", True)])
def test_positions_given_to_generate(version: str, found: bool) -> None:
    got = findings(CALL, version)
    assert bool(got) is found
    if found:
        assert got[0][0] == 1 and "['cache_position']" in got[0][1] and "from transformers 5.4.0" in got[0][1]


@pytest.mark.parametrize("text", [
    CALL.replace("cache_position=torch.arange(5, 7)", "cache_position=None"),  # None passes generate's check
    'model = AutoModelForCausalLM.from_pretrained("x/y", trust_remote_code=True)\n' + CALL,  # its own forward
    "def generate(ids, cache_position=None):\n    return ids\n\n\ngenerate(ids, cache_position=torch.arange(2))\n",
])
def test_no_claim_where_the_code_does_not_say_it(text: str) -> None:
    assert findings(text, "5.23.0") == []


def test_a_dict_carries_positions_in() -> None:
    text = "kw = {'max_new_tokens': 2}\nkw['cache_position'] = torch.arange(5, 7)\nmodel.generate(ids, **kw)\n"
    got = findings(text, "5.23.0")
    assert [line for line, _ in got] == [3] and f"(set at line {LOAD.count(chr(10)) + 2})" in got[0][1]


KVZIP = ("class Runner:\n"
         "    def __init__(self, name):\n"
         "        self.model = {cls}.from_pretrained(name)\n"
         "        self.gen_kwargs = {{'max_new_tokens': 2}}\n"
         "        if isinstance(self.model, Qwen3ForCausalLM):\n"
         "            self.gen_kwargs['use_model_defaults'] = False\n\n"
         "    def run(self, ids):\n"
         "        return self.model.generate(ids, **self.gen_kwargs)\n")


@pytest.mark.parametrize(("cls", "lines"), [
    ("Qwen3ForCausalLM", [9]),  # loaded as one: the test holds, the key reaches generate
    ("LlamaForCausalLM", []),  # another class: nothing says the test holds (a subclass might)
    ("AutoModelForCausalLM", []),  # class unsaid
])
def test_isinstance_of_the_loaded_model_class_decides_the_branch(cls: str, lines: list[int]) -> None:
    assert [line for line, _ in findings(KVZIP.format(cls=cls), "5.23.0")] == lines
