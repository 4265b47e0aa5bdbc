"""A legacy tuple a helper returns (None early on some path, else `tuple(list)` of pairs it appended in a loop),
given to a model's forward: a `forward_cache` fact marked `maybe_none` (HFC002 says when it raises); a value that
is a cache on some path is not claimed."""

from __future__ import annotations

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.forward_cache import KIND, ForwardCache
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = (
    "import torch\n"
    "from transformers import AutoModelForCausalLM, DynamicCache\n\n"
    "model = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B')\n\n"
    "def load_prev(n):\n"
    "    if not n:\n        return None\n"
    "    pairs = []\n"
    "    for i in range(n):\n        pairs.append((torch.zeros(1), torch.zeros(1)))\n"
)
RUN = "def run(ids, n):\n    prev = load_prev(n)\n    return model(ids, past_key_values=prev, use_cache=True)\n"


def facts(text: str) -> list[ForwardCache]:
    return list(analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).of(KIND))


def test_a_helper_returning_none_or_a_tuple() -> None:
    got = facts(HEAD + "    return tuple(pairs)\n\n" + RUN)
    assert [(f.value_text, f.container, f.maybe_none) for f in got] == [("prev", "tuple", True)]


def test_a_helper_returning_the_tuple_on_every_path() -> None:
    text = HEAD.replace("    if not n:\n        return None\n", "") + "    return tuple(pairs)\n\n" + RUN
    assert [(f.container, f.maybe_none) for f in facts(text)] == [("tuple", False)]


def test_a_helper_returning_none_or_a_cache_is_no_tuple() -> None:
    assert not facts(HEAD + "    return DynamicCache.from_legacy_cache(tuple(pairs))\n\n" + RUN)


CONVERT = (
    "import torch\n"
    "from transformers import AutoModelForCausalLM, DynamicCache\n\n"
    "model = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B')\n"
    "legacy = tuple((torch.zeros(1), torch.zeros(1)) for _ in range(2))\n\n\n"
    "def to_cache(past):\n"
    "    if not isinstance(past, tuple) or len(past) == 0:\n        return past\n"
    "    try:\n        return DynamicCache(past)\n    except (TypeError, ValueError):\n        pass\n"
    "    return past\n\n\n"
    "model(torch.tensor([[1]]), past_key_values=to_cache(legacy), use_cache=True)\n"
)


def test_a_helper_that_converts_the_tuple_and_returns_it_where_that_failed_is_no_tuple() -> None:
    """The tuple is returned as it came only where the conversion failed or was not needed: the forward gets the
    cache the helper built (a Maybe's first option, the early `return past`, does not say the tuple reaches it)."""
    assert not facts(CONVERT)


def test_a_helper_whose_every_path_returns_the_tuple_is_still_one() -> None:
    assert [f.container for f in facts(CONVERT.replace("return DynamicCache(past)", "return tuple(past)"))] == \
        ["tuple"]


WRAPPER = (
    "import torch\n"
    "from transformers import AutoModelForCausalLM\n\n"
    "model = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B')\n\n\n"
    "class Wrapper(torch.nn.Module):\n"
    "    def __init__(self, model):\n        super().__init__()\n        self.model = model\n\n"
    "    def forward(self, ids, *flat):\n"
    "        past = [list(flat[i:i + 2]) for i in range(0, len(flat), 2)] if len(flat) > 0 else None\n"
    "        return self.model(ids, position_ids=torch.tensor([[5]]), past_key_values=past)\n\n\n"
    "wrapped = Wrapper(model).eval()\n"
    "wrapped(torch.tensor([[1]]), torch.zeros(1), torch.zeros(1))\n"
)


def test_a_list_or_none_into_a_forward_through_an_evaluated_module() -> None:
    """`Wrapper(model).eval()` is the wrapper (torch's `Module.eval` returns it), its forward runs; the lists it
    builds, None on the first step, reach the model's forward with `position_ids`."""
    got = facts(WRAPPER)
    assert [(f.container, f.maybe_none, f.positions) for f in got] == [("list", True, True)]


def test_without_position_ids_or_eval() -> None:
    text = WRAPPER.replace("position_ids=torch.tensor([[5]]), ", "").replace(".eval()", ".to('cpu')")
    assert [(f.container, f.positions) for f in facts(text)] == [("list", False)]
    assert not facts(WRAPPER.replace(".eval()", ".named_modules()"))  # not the module itself
