"""Stories written on demand (`check_source(..., lazy_stories=True)`, what the language server asks for): the same
findings and the same stories as a check that writes them at once, and no story written before it is read."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity, Span, Story
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules import ALL_RULES, BY_CODE
from hf_cache_lint.rules.base import CHECKED_VERSIONS, Invalid
from hf_cache_lint.settings import Settings

CONFLICT = '''from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("x")
for i in range(3):
    out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")
a = model.generate(past_key_values=DynamicCache(), cache_implementation="offloaded")
'''


def test_a_story_is_written_once_when_first_read_and_is_its_text_everywhere() -> None:
    calls: list[int] = []

    def write() -> str:
        calls.append(1)
        return "**HFC001** the story"

    story = Story(write)
    assert calls == []
    assert str(story) == "**HFC001** the story" and calls == [1]
    assert str(story) == "**HFC001** the story" and calls == [1]
    assert story == "**HFC001** the story" and hash(story) == hash("**HFC001** the story")
    assert story != "another" and story != Story(lambda: "another")
    restored = pickle.loads(pickle.dumps(story))  # a pool worker's result crosses processes as text
    assert type(restored) is str and restored == "**HFC001** the story"
    lazy = Finding("HFC001", "cache-conflict", "m", Severity.ERROR, Span.of(1, 0, 1, 1), story=Story(write))
    assert lazy == Finding("HFC001", "cache-conflict", "m", Severity.ERROR, Span.of(1, 0, 1, 1),
                           story="**HFC001** the story")


def test_a_lazy_check_writes_no_story_until_one_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rule = BY_CODE["HFC001"]
    told: list[str] = []
    original = type(rule).story

    def counting(self: object, *args: object) -> str:
        text = original(self, *args)  # type: ignore[arg-type]
        told.append(text)
        return text

    monkeypatch.setattr(type(rule), "story", counting)
    path = str(tmp_path / "script.py")
    found = check_source(CONFLICT, path, lazy_stories=True).findings
    assert [f.code for f in found] == ["HFC001", "HFC001"] and told == []
    assert all(isinstance(f.story, Story) for f in found)
    # Each story is its own call's (a story written later must not read a loop's last values).
    assert '"static"' in str(found[0].story) and '"offloaded"' in str(found[1].story) and len(told) == 2
    eager = check_source(CONFLICT, path).findings
    assert all(type(f.story) is str for f in eager) and len(told) == 4
    assert [str(f.story) for f in eager] == [str(f.story) for f in found]


EXAMPLES = [pytest.param(rule, ex, v, id=f"{rule.code}-invalid{i}-{v}")
            for rule in ALL_RULES for i, ex in enumerate(rule.invalid) for v in CHECKED_VERSIONS
            if isinstance(ex, Invalid) and v == ex.versions[0]]


@pytest.mark.parametrize(("rule", "ex", "version"), EXAMPLES)
def test_lazy_and_eager_checks_agree_on_every_rule_example(rule: object, ex: Invalid, version: str,
                                                           tmp_path: Path) -> None:
    for rel, content in ex.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "example.py"
    path.write_text(ex.code)
    context = Context(target=Target.of(version), workspace=tmp_path)
    # An opt-in rule (HFC100) is selected, as its examples are in test_examples.py.
    settings = None if rule.default_enabled else Settings(extend_select=(rule.code,))  # type: ignore[attr-defined]
    eager = check_source(ex.code, str(path), settings, context).findings
    lazy = check_source(ex.code, str(path), settings, context, lazy_stories=True).findings
    assert eager and lazy == eager  # a Story equals its text
    assert [str(f.story) for f in lazy] == [f.story for f in eager]
    assert all(f.story for f in eager), "every finding of a rule example tells a story"
