"""A classmethod called on the project's own subclass of a transformers cache class (cache_uses.py `_class_subject`,
removed_calls.py): `OwnCache.from_legacy_cache(past)` is transformers' where the project's classes on the way do not
define it (5.x raise, naming the subclass), the project's own where they do; a class that is no cache subclass is
never transformers'."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = "from transformers import DynamicCache\n\n\n"
CALL = "\n\ndef choose(past):\n    return {cls}.from_legacy_cache(past)\n"


def hfc007(text: str, version: str) -> list[tuple[int, str]]:
    found = check_source(text, "t.py", context=Context(target=Target.of(version))).findings
    return [(f.span.start.line, f.message) for f in found if f.code == "HFC007"]


@pytest.mark.parametrize("version", ["5.23.0", "5.25.0"])
def test_an_inherited_classmethod_is_transformers(version: str) -> None:
    text = HEAD + "class NormalCache(DynamicCache):\n    pass\n" + CALL.format(cls="NormalCache")
    [(line, message)] = hfc007(text, version)
    assert line == 9
    assert "type object 'NormalCache' has no attribute 'from_legacy_cache'" in message


def test_through_the_project_own_intermediate_class() -> None:
    text = HEAD + ("class Base(DynamicCache):\n    pass\n\n\nclass Paged(Base):\n    pass\n"
                   + CALL.format(cls="Paged"))
    assert [line for line, _ in hfc007(text, "5.24.0")] == [13]


@pytest.mark.parametrize("body", [
    # the subclass defines it
    "class NormalCache(DynamicCache):\n    @classmethod\n    def from_legacy_cache(cls, past):\n        return cls()\n",
    # a class of the project's that is no cache
    "class NormalCache:\n    @classmethod\n    def from_legacy_cache(cls, past):\n        return cls()\n",
])
def test_the_project_own_classmethod_is_not(body: str) -> None:
    assert hfc007(HEAD + body + CALL.format(cls="NormalCache"), "5.24.0") == []


def test_nothing_on_4_57() -> None:
    text = HEAD + "class NormalCache(DynamicCache):\n    pass\n" + CALL.format(cls="NormalCache")
    assert hfc007(text, "4.57.6") == []
