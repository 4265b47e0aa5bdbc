"""HFC011 on the position a `prepare_inputs_for_generation` hook reads from the model inputs transformers' own hook
returned (issue 29; LiveCC's streaming hook, heldout8 livecc_streaming_commentary.py; docs/facts.md; the HFC011
examples, run on the oracle at 4.57.6, 5.23.0, 5.24.0, 5.25.0, and by hand on 5.3.0 and 5.4.0):

- the hook may be bound onto the model object itself with `functools.partial(f, model)` or `types.MethodType(f,
  model)`, whatever the module loaded it with (`from_pretrained(...).eval()`): generate calls it;
- where it hands its own `cache_position` on by name, the returned key holds that None from 5.4.0, and only a use
  of it raises (`inputs["cache_position"][0]`: TypeError); where the position rides in `**kwargs`, the key is
  absent from 5.4.0 (`inputs["cache_position"]`: KeyError); where it keeps a `cache_position` parameter back, the
  key is None on every release (the hook's own doing: not reported). A test against None is quiet."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

LOAD = ("import functools\nimport types\n\nimport torch\nfrom transformers import AutoModelForCausalLM\n\n"
        'model = AutoModelForCausalLM.from_pretrained("m").eval()\n\n\n')
SIGNATURE = "self, input_ids, past_key_values=None, cache_position=None, **kwargs"
HANDED = ("    inputs = super(self.__class__, self).prepare_inputs_for_generation(\n"
          "        input_ids, past_key_values=past_key_values, cache_position=cache_position, **kwargs)\n")
READ = '    self.continuing = bool(inputs["cache_position"][0] != 0)\n    return inputs\n'
BIND = "\n\nmodel.prepare_inputs_for_generation = functools.partial(prepare, model)\n"


def _hook(signature: str = SIGNATURE, call: str = HANDED, read: str = READ, bind: str = BIND) -> str:
    return f"{LOAD}def prepare({signature}):\n{call}{read}{bind}"


def found(text: str, version: str) -> list[Finding]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC011"]


@pytest.mark.parametrize("version", ["5.4.0", "5.23.0", "5.24.0", "5.25.0"])
def test_handed_on_position_read_raises_from_5_4(version: str) -> None:
    (finding,) = found(_hook(), version)
    assert finding.span.start.line == LOAD.count("\n") + 4
    assert "TypeError: 'NoneType' object is not subscriptable" in finding.message
    assert "since 5.4.0" in finding.message or version == "5.4.0"


@pytest.mark.parametrize("version", ["4.57.6", "5.3.0"])
def test_quiet_where_generate_passes_positions(version: str) -> None:
    assert found(_hook(), version) == []


def test_method_type_binding_is_read() -> None:
    text = _hook(bind="\n\nmodel.prepare_inputs_for_generation = types.MethodType(prepare, model)\n")
    assert len(found(text, "5.24.0")) == 1


def test_bound_to_another_object_is_not_a_hook() -> None:
    # `other` is no loaded model, and `prepare` is bound to `model`, not to it: nothing says generate calls it.
    text = _hook(bind="\n\nother = object()\nother.prepare_inputs_for_generation = functools.partial(prepare, "
                      "model)\n")
    assert found(text, "5.24.0") == []


def test_position_riding_in_kwargs_is_a_key_error() -> None:
    text = _hook(signature="self, input_ids, past_key_values=None, **kwargs",
                 call=HANDED.replace(" cache_position=cache_position,", ""))
    (finding,) = found(text, "5.24.0")
    assert "KeyError: 'cache_position'" in finding.message
    assert finding.span.end.column - finding.span.start.column == len('inputs["cache_position"]')


def test_parameter_kept_back_is_not_reported() -> None:
    # The returned key is None on every release (the hook drops the position itself): no release is to blame.
    text = _hook(call=HANDED.replace(" cache_position=cache_position,", ""))
    assert found(text, "5.24.0") == []


def test_tested_against_none_is_quiet() -> None:
    read = ('    position = inputs.get("cache_position")\n'
            "    self.continuing = position is not None and bool(position[0] != 0)\n    return inputs\n")
    assert found(_hook(read=read), "5.24.0") == []


def test_the_none_itself_is_not_reported() -> None:
    # Handed on, the key holds None from 5.4: reading it without using it raises nothing.
    read = '    self.position = inputs["cache_position"]\n    return inputs\n'
    assert found(_hook(read=read), "5.24.0") == []


UPDATE = ("import torch\nfrom transformers import DynamicCache\n\n\n"
          "class C(DynamicCache):\n"
          "    def update(self, key_states, value_states, layer_idx, cache_kwargs=DEFAULT, **kwargs):\n"
          "        self.read = READ\n"
          "        return super().update(key_states, value_states, layer_idx, cache_kwargs, **kwargs)\n")


@pytest.mark.parametrize("default", ["{}", "dict()"])
def test_update_override_dict_default_subscript_is_a_key_error(default: str) -> None:
    # The oracle (HFC011 example, and by hand on 5.4.0): the empty default dict, KeyError, not TypeError on None.
    text = UPDATE.replace("DEFAULT", default).replace("READ", 'cache_kwargs["cache_position"]')
    (finding,) = found(text, "5.23.0")
    assert "KeyError: 'cache_position'" in finding.message and "TypeError" not in finding.message


@pytest.mark.parametrize("default", ["{}", "dict()"])
def test_update_override_dict_default_get_is_quiet(default: str) -> None:
    # `.get` on the empty default dict answers None (no AttributeError: the oracle, 5.4.0-5.25.0).
    text = UPDATE.replace("DEFAULT", default).replace("READ", 'cache_kwargs.get("sin")')
    assert found(text, "5.23.0") == []


def test_update_override_none_default_get_still_raises() -> None:
    text = UPDATE.replace("DEFAULT", "None").replace("READ", 'cache_kwargs.get("sin")')
    (finding,) = found(text, "5.23.0")
    assert "AttributeError: 'NoneType' object has no attribute 'get'" in finding.message


_EMPTIED = {"or": "        cache_kwargs = cache_kwargs or {}\n",
            "or dict()": "        cache_kwargs = cache_kwargs or dict()\n",
            "if None": "        if cache_kwargs is None:\n            cache_kwargs = {}\n",
            "if None, one line": "        if cache_kwargs is None: cache_kwargs = dict()\n"}


def _emptied(how: str, read: str) -> str:
    return UPDATE.replace("DEFAULT", "None").replace("        self.read = READ\n",
                                                      _EMPTIED[how] + f"        self.read = {read}\n")


@pytest.mark.parametrize("how", sorted(_EMPTIED))
def test_update_override_emptied_dict_subscript_is_a_key_error(how: str) -> None:
    # The oracle (HFC011's examples; by hand 5.4.0-5.25.0 KeyError, 4.57.6 and 5.3.0 run): not a guard.
    (finding,) = found(_emptied(how, 'cache_kwargs["cache_position"]'), "5.23.0")
    assert "KeyError: 'cache_position'" in finding.message and "empty dict" in finding.message
    assert found(_emptied(how, 'cache_kwargs["cache_position"]'), "4.57.6") == []


@pytest.mark.parametrize("how", sorted(_EMPTIED))
def test_update_override_emptied_dict_get_is_quiet(how: str) -> None:
    assert found(_emptied(how, 'cache_kwargs.get("cache_position")'), "5.23.0") == []


def test_update_override_read_before_emptying_is_not_claimed() -> None:
    # A read before `cache_kwargs = cache_kwargs or {}` sees None, not the dict: no KeyError claimed (the statement
    # is still taken for a guard, as before).
    text = UPDATE.replace("DEFAULT", "None").replace(
        "        self.read = READ\n",
        '        self.read = cache_kwargs["cache_position"]\n        cache_kwargs = cache_kwargs or {}\n')
    assert found(text, "5.23.0") == []


def test_update_override_guard_that_is_no_emptying_stays_a_guard() -> None:
    text = UPDATE.replace("DEFAULT", "None").replace(
        "        self.read = READ\n",
        '        if cache_kwargs is not None:\n            self.read = cache_kwargs["cache_position"]\n')
    assert found(text, "5.23.0") == []


@pytest.mark.parametrize("version", ["5.24.0", "5.25.0"])
def test_update_override_without_kwargs_is_not_read_where_the_call_raises(version: str) -> None:
    # The oracle (HFC011's example without `**kwargs`): 5.24+ raise TypeError on `kwargs=` before the body runs;
    # HFC010 reports that, and no read is what breaks. 5.23.0 still reads None.
    text = UPDATE.replace("DEFAULT", "None").replace("READ", 'cache_kwargs.get("cache_position")') \
        .replace(", **kwargs):", "):").replace("cache_kwargs, **kwargs)", "cache_kwargs)")
    every = check_source(text, "t.py", context=Context(target=Target.of(version))).findings
    assert [f.code for f in every if f.code in ("HFC010", "HFC011")] == ["HFC010"]
    (finding,) = found(text, "5.23.0")
    assert finding.code == "HFC011" and "AttributeError" in finding.message
    with_kwargs = text.replace("cache_kwargs=None):", "cache_kwargs=None, kwargs=None):")
    assert [f.code for f in found(with_kwargs, version)] == ["HFC011"]
