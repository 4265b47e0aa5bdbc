"""Version tests in conditions, decided for the target as Python and `packaging` would decide them."""

from __future__ import annotations

import parso
import pytest

from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter.version_guard import Release, VersionGuards

HEAD = ("import importlib.metadata\nimport transformers\nimport transformers as tf\nfrom packaging import version\n"
        "from packaging.version import Version\nfrom transformers import __version__ as TV\n")


def decide(condition: str, version: str, prelude: str = "") -> bool | None:
    module = parso.parse(HEAD + prelude + f"if {condition}:\n    pass\n")
    guards = VersionGuards(module, Target.of(version))
    test = module.children[-2].children[1]  # the if statement (the last child is the end marker)
    return guards.decide(test)


@pytest.mark.parametrize(("condition", "old", "new"), [
    ('version.parse(transformers.__version__) < version.parse("5.0.0")', True, False),
    ('version.parse(transformers.__version__) >= version.parse("5.0.0.dev0")', False, True),
    ('Version(tf.__version__) >= Version("5")', False, True),
    ('version.parse(TV).major >= 5', False, True),
    ('importlib.metadata.version("transformers").startswith("4.")', True, False),
    ('int(transformers.__version__.split(".")[0]) < 5', True, False),
    ('is_transformers_version("<", "5")', True, False),
    ('is_transformers_version(">=", "4.57.0")', True, True),
    ('not is_transformers_version(">=", "5.0")', True, False),
    ('transformers.__version__ >= "5"', False, True),  # a string comparison, as Python does it
    ('is_transformers_version("<", "5") and flag', None, False),  # False and anything is False
    ('is_transformers_version("<", "5") or flag', True, None),
    ("TYPE_CHECKING", False, False),
])
def test_guards_decide_like_the_running_code(condition: str, old: bool | None, new: bool | None) -> None:
    assert decide(condition, "4.57.6") is old
    assert decide(condition, "5.24.0") is new


def test_a_module_level_name_computed_from_the_version_is_decided() -> None:
    prelude = 'TF5 = version.parse(transformers.__version__) >= version.parse("5.0.0")\n'
    assert decide("TF5", "4.57.6", prelude) is False
    assert decide("not TF5", "4.57.6", prelude) is True
    assert decide("TF5", "5.23.0", prelude) is True


def _local_flag(body: str, version: str) -> bool | None:
    """Decide the `if` inside a function shaped like peft's prefix-tuning cache code."""
    module = parso.parse(HEAD + "def f(cache):\n" + body + "    if lt_4_56:\n        pass\n")
    guards = VersionGuards(module, Target.of(version))
    suite = module.children[-2].children[-1]  # the def's body
    [test] = [s.children[1] for s in suite.children if s.type == "if_stmt"]
    return guards.decide(test)


PEFT_FLAG = ('    lt_4_56 = version.parse(transformers.__version__) < version.parse(\n'
             '        "4.56.0.dev0"\n    )\n')


def test_a_function_local_flag_computed_from_the_version_is_decided() -> None:
    assert _local_flag(PEFT_FLAG, "5.24.0") is False
    assert _local_flag(PEFT_FLAG, "4.57.6") is False
    assert _local_flag(PEFT_FLAG.replace('"4.56.0.dev0"', '"4.58"'), "4.57.6") is True


@pytest.mark.parametrize("other", [
    "    lt_4_56 = True\n",  # also bound to a plain value: a flag like any other
    "    for lt_4_56 in (True, False):\n        pass\n",
])
def test_a_local_flag_with_another_binding_stays_undecided(other: str) -> None:
    assert _local_flag(PEFT_FLAG + other, "5.24.0") is None


def test_a_local_flag_bound_to_different_versions_stays_undecided() -> None:
    prelude = 'def g():\n    lt_4_56 = version.parse(transformers.__version__) < version.parse("6")\n'
    module = parso.parse(HEAD + prelude + "def f():\n" + PEFT_FLAG + "    if lt_4_56:\n        pass\n")
    test = module.children[-2].children[-1].children[-1].children[1]
    assert VersionGuards(module, Target.of("5.24.0")).decide(test) is None


@pytest.mark.parametrize("condition", [
    "flag", "args.old_api", "2 ** depth > limit", "transformers.__version__ ** 2", 'version.parse(transformers.__version__) >= version.parse(os.environ["MIN"])',
    'version.parse(torch.__version__) >= version.parse("2.0")',
])
def test_anything_else_stays_undecided(condition: str) -> None:
    assert decide(condition, "5.24.0") is None


def test_a_name_bound_to_a_plain_literal_is_not_a_version_guard() -> None:
    assert decide("OLD", "5.24.0", "OLD = False\n") is None


def test_releases_order_as_packaging_does() -> None:
    assert Release.parse("5") == Release.parse("5.0.0")
    assert Release.parse("5.0.0.dev0") < Release.parse("5.0.0") < Release.parse("5.0.1")
    assert Release.parse("4.57.6") < Release.parse("5.0.0rc1")
    assert Release.parse("not a version") is None


@pytest.mark.parametrize("condition", [
    'version.parse(transformers.__version__) >= version.parse("4.' + "9" * 5000 + '")',
    'is_transformers_version(">=", "' + "9" * 5000 + '")',
    'int("' + "9" * 5000 + '") > 4',
    'int("\u00b2") > 4',  # str.isdigit() is True for "²", int() refuses it
], ids=["version.parse", "is_transformers_version", "int of 5,000 digits", "int of a superscript digit"])
def test_a_number_int_refuses_stays_undecided(condition: str) -> None:
    """int() refuses more than 4,300 digits (and digits that are not decimal) with a ValueError, which raised out
    of the check (an internal error of the file): nothing is decided from such a number and the check goes on."""
    assert Release.parse("4." + "9" * 5000) is None
    assert decide(condition, "5.24.0", "from transformers.utils import is_transformers_version\n") is None
