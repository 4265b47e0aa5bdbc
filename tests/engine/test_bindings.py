"""engine/interpreter/bindings.py: which names hold a loaded transformers model, answered once for every syntax
reader. Each case is a module's text and the names the answer must (and must not) hold."""

from __future__ import annotations

import parso
import pytest

from hf_cache_lint.engine.interpreter.bindings import SELF_RETURNING, find_models, loaded_model
from hf_cache_lint.engine.interpreter.hook_names import Names, module_names
from hf_cache_lint.engine.syntax.nodes import Node, statements_shared

HEAD = "from transformers import AutoModelForCausalLM, DynamicCache\n"


def _models(text: str) -> Names:
    return _models_in(parso.parse(text))


def _models_in(module: Node) -> Names:
    nodes: list[Node] = []
    stack: list[Node] = [module]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(reversed(getattr(node, "children", [])))
    names = module_names(module)
    find_models([n for n in nodes if n.type == "expr_stmt"],
                [n for n in nodes if n.type in ("for_stmt", "sync_comp_for")],
                [n for n in nodes if n.type == "funcdef"],
                [n for n in nodes if n.type in ("power", "atom_expr")], names)
    return names


@pytest.mark.parametrize("tail", sorted(SELF_RETURNING))
def test_a_load_followed_by_a_self_returning_method_is_the_model(tail: str) -> None:
    names = _models(HEAD + f'model = AutoModelForCausalLM.from_pretrained("m").{tail}()\n')
    assert "model" in names.models


@pytest.mark.parametrize("value", [
    'AutoModelForCausalLM.from_pretrained("m").generate(ids)',  # what generate returns is no model
    'AutoModelForCausalLM.from_pretrained("m").state_dict()',
    'AutoModelForCausalLM.from_pretrained("m").eval().config',
    'Mine.from_pretrained("m").eval()',  # the project's own class: never a transformers model
    'AutoTokenizer.from_pretrained("m")',
])
def test_other_values_are_not_the_model(value: str) -> None:
    names = _models(HEAD + "from transformers import AutoTokenizer\n\n\nclass Mine:\n    pass\n\n\n"
                    f"model = {value}\n")
    assert "model" not in names.models


def test_a_module_function_returning_a_load_binds_what_it_is_called_for() -> None:
    text = HEAD + ("\n\ndef load(path):\n    m = AutoModelForCausalLM.from_pretrained(path)\n    return m.eval()\n\n\n"
                   "def other(path):\n    if path:\n        return AutoModelForCausalLM.from_pretrained(path)\n"
                   "    return None\n\n\nmodel = load('m').to('cpu')\nmaybe = other('m')\n"
                   "\n\ndef install(lm):\n    for layer in lm.model.layers:\n        pass\n\n\ninstall(model)\n")
    names = _models(text)
    assert {"model", "lm", "layer"} <= names.models
    assert "maybe" not in names.models  # one of its returns is None


def test_the_answer_is_made_once_per_analysis() -> None:
    text = HEAD + 'model = AutoModelForCausalLM.from_pretrained("m").eval()\ncache = DynamicCache()\n'
    module = parso.parse(text)
    with statements_shared(module):
        first = _models_of(module)
        second = _models_of(module)
    assert first.models == second.models == {"model"} and first.caches == second.caches == {"cache"}


def _models_of(module: Node) -> Names:
    nodes: list[Node] = []
    stack: list[Node] = [module]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(reversed(getattr(node, "children", [])))
    names = module_names(module)
    find_models([n for n in nodes if n.type == "expr_stmt"], [], [], [], names)
    return names


def test_loaded_model_reads_the_tail_off_the_load() -> None:
    module = parso.parse(HEAD + 'x = AutoModelForCausalLM.from_pretrained("m").half().cuda()\n')
    value = module.children[1].children[0].children[2]
    assert loaded_model(value, module_names(module))


def test_a_construction_binds_the_class_init_s_parameters() -> None:
    # R-KV's adapter: `HybridRKVAdapter(model, budget=4)` hands the loaded model to `__init__(self, model, ...)`.
    text = HEAD + ('model = AutoModelForCausalLM.from_pretrained("m")\n\n\n'
                   "class Adapter:\n    def __init__(self, lm, budget=None):\n"
                   "        for module in lm.modules():\n            pass\n\n\n"
                   "class Unused:\n    def __init__(self, lm):\n        self.lm = lm\n\n\n"
                   "adapter = Adapter(model, budget=4)\nother = Unused(None)\n")
    module = parso.parse(text)
    names = _models_in(module)
    assert {"lm", "module"} <= names.models
    inits = {c.children[1].value: next(c.iter_funcdefs()) for c in module.iter_classdefs()}
    assert names.scopes["lm"] == {id(inits["Adapter"])}  # not Unused's, given None


def test_the_self_of_init_is_not_what_the_construction_passes() -> None:
    text = HEAD + ('model = AutoModelForCausalLM.from_pretrained("m")\n\n\n'
                   "class Wrapper:\n    def __init__(self, first):\n        self.first = first\n\n\n"
                   "w = Wrapper(model)\n")
    names = _models(text)
    assert "first" in names.models and "self" not in names.models


@pytest.mark.parametrize(("store", "held"), [
    ('self.model = AutoModelForCausalLM.from_pretrained("m")', True),
    ('self.base = AutoModelForCausalLM.from_pretrained("m").eval()', True),  # proxy-tuning's DExperts
    ("self.model = LlamaForCausalLM(config).to('cpu')", True),
    ("self.model = Mine(config)", False),  # the project's own class
    ('self.model = AutoModelForCausalLM.from_pretrained("m").generate(ids)', False),
    ('other.model = AutoModelForCausalLM.from_pretrained("m")', False),  # not this instance's attribute
    ('setattr(self, "model", AutoModelForCausalLM.from_pretrained("m").eval())', True),
    ('setattr(other, "model", AutoModelForCausalLM.from_pretrained("m"))', False),
    ('setattr(self, name, AutoModelForCausalLM.from_pretrained("m"))', False),  # which attribute is not said
])
def test_an_attribute_a_class_binds_to_a_model(store: str, held: bool) -> None:
    from hf_cache_lint.engine.interpreter.bindings import attribute_model

    text = HEAD + ("from transformers import LlamaForCausalLM\n\n\nclass Mine:\n    pass\n\n\n"
                   f"class Wrapper:\n    def __init__(self, config, other, ids):\n        {store}\n\n"
                   "    def hook(self):\n        return None\n")
    module = parso.parse(text)
    wrapper = next(c for c in module.iter_classdefs() if c.children[1].value == "Wrapper")
    at = list(wrapper.iter_funcdefs())[1]
    assert attribute_model("self.model" if "base" not in store else "self.base", at, module_names(module)) is held
