"""HFC007 on a model's call of a private generate helper whose parameters changed (the release table's `member:`
signatures, engine/interpreter/removed_members.py `_misfit`): the exact TypeError the target raises, the first
release of its signature, and no finding where the call binds or where no release ever took it."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import analyse
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.snippets import prelude

HFC007 = next(r for r in ALL_RULES if r.code == "HFC007")
LOAD = prelude()


def messages(code: str, version: str) -> list[str]:
    analysis = analyse(code, "example.py", Context(target=Target.of(version)))
    return [f.message for f in HFC007.check(analysis)]


def test_the_4_41_call_raises_the_typeerror_of_the_4_52_signature() -> None:
    code = LOAD + 'kwargs = model._get_initial_cache_position(inputs["input_ids"], {"use_cache": True})\n'
    assert messages(code, "4.51.3") == []
    for version in ("4.52.1", "4.57.6", "5.3.0"):
        (message,) = messages(code, version)
        assert "(since 4.52.1)" in message and "takes `(seq_length, device, model_kwargs)`" in message
        assert "TypeError: GenerationMixin._get_initial_cache_position() missing 1 required positional argument: " \
               "'model_kwargs'" in message
    (gone,) = messages(code, "5.4.0")
    assert "removed in 5.4.0" in gone and "AttributeError" in gone


@pytest.mark.parametrize("call", [
    'model._get_initial_cache_position(inputs["input_ids"].shape[1], "cpu", {})',  # binds at the target
    "model._get_initial_cache_position(*args)",  # a spread: not judged
    "model._get_initial_cache_position(1, 2, 3, 4, 5)",  # no release ever took it: not a change of transformers'
])
def test_no_finding_where_the_call_binds_or_no_release_took_it(call: str) -> None:
    assert messages(LOAD + "args = ()\n" + call + "\n", "4.57.6") == []


def test_misfit_words_the_error_as_python_does() -> None:
    sig = "def(self, a, b=1, *, c, **kw)"
    # each as Python 3.11 words it for `class M` with `def f(self, a, b=1, *, c, **kw)`
    assert releases.misfit(sig, "M.f", 3, ()) == "TypeError: M.f() takes from 2 to 3 positional arguments but 4 were given"
    assert releases.misfit(sig, "M.f", 3, ("c",)) == ("TypeError: M.f() takes from 2 to 3 positional arguments but 4 "
                                                     "positional arguments (and 1 keyword-only argument) were given")
    assert releases.misfit("def(self, a, b)", "M.h", 3, ()) == \
        "TypeError: M.h() takes 3 positional arguments but 4 were given"
    assert releases.misfit("def(self, a, b)", "M.h", 0, ()) == \
        "TypeError: M.h() missing 2 required positional arguments: 'a' and 'b'"
    assert releases.misfit(sig, "M.f", 1, ("a", "c")) == "TypeError: M.f() got multiple values for argument 'a'"
    assert releases.misfit(sig, "M.f", 0, ()) == "TypeError: M.f() missing 1 required positional argument: 'a'"
    assert releases.misfit(sig, "M.f", 1, ()) == "TypeError: M.f() missing 1 required keyword-only argument: 'c'"
    assert releases.misfit(sig, "M.f", 1, ("c", "zz")) is None  # **kw takes any keyword
    assert releases.misfit("def(self, a)", "M.f", 1, ("zz",)) == "TypeError: M.f() got an unexpected keyword argument 'zz'"


def test_a_constructor_call_in_4_4x_positional_order() -> None:
    """`StaticCache(config, batch, length, device, dtype)`: 4.41-4.53 bind it (4.54-4.55's `*args` too), 4.56+
    take `(config, max_cache_len, ...)`; the error names the first release of that run."""
    code = prelude("StaticCache") + "import torch\n\ncache = StaticCache(model.config, 1, 32, 'cpu', torch.float32)\n"
    assert messages(code, "4.53.3") == [] and messages(code, "4.55.4") == []
    for version in ("4.56.0", "4.57.6", "5.24.0"):
        (message,) = messages(code, version)
        assert "(since 4.56.0)" in message
        assert "TypeError: StaticCache.__init__() takes from 3 to 5 positional arguments but 6 were given" in message
    # what the target takes binds; `*args` is not judged
    for call in ("StaticCache(model.config, 32)", "StaticCache(*args)"):
        assert messages(prelude("StaticCache") + "args = ()\ncache = " + call + "\n", "4.57.6") == []


def test_rejected_since_is_the_first_release_of_the_rejecting_run() -> None:
    fact = "member:transformers.generation.utils.GenerationMixin._get_initial_cache_position"
    assert str(releases.rejected_since(fact, "5.3.0", 2, ())) == "4.52.1"
    assert releases.rejected_since(fact, "4.51.3", 2, ()) is None  # the target takes it
    assert releases.rejected_since(fact, "4.57.6", 5, ()) is None  # no release took five arguments
