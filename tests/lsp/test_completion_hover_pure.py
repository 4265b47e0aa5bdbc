"""checking/completion.py and checking/hover.py: pure functions, no server (the rule docs passed in as data)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.completion import complete, describe, written_value_at
from hf_cache_lint.checking.hover import (
    RuleDoc,
    finding_markdown,
    hover,
    value_markdown,
    without_quoted_message,
)
from hf_cache_lint.checking.rule_docs import rule_docs
from hf_cache_lint.engine.base.findings import Finding, Position, Related, Severity, Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

NEWEST = Target.of("5.24.0")
OLD = Target.of("4.57.6")


def at_end(text: str) -> Position:
    lines = text.split("\n")
    return Position(len(lines), len(lines[-1]))


@pytest.mark.parametrize("text", [
    'model.generate(x, cache_implementation="',
    'GenerationConfig(max_new_tokens=3, cache_implementation="st',
    "model.generation_config.cache_implementation = '",
    'kwargs = {"cache_implementation": "',
    "kwargs = {'cache_implementation': 'off",
    "model.generation_config.update(cache_implementation=",
])
def test_values_are_offered_wherever_a_value_is_being_written(text):
    found = complete(text, at_end(text), NEWEST)
    assert found is not None
    assert {i.value for i in found.items} == set(NEWEST.valid_cache_implementations)


@pytest.mark.parametrize("text", ["cache_implementation", "model.generate(x, ", "x = 'cache_implementation'"])
def test_nothing_is_offered_elsewhere(text):
    assert complete(text, at_end(text), NEWEST) is None


def test_the_typed_prefix_is_replaced_and_a_missing_quote_added():
    text = 'f(cache_implementation="st'
    found = complete(text, at_end(text), NEWEST)
    assert found.replace == Span.of(1, len(text) - 2, 1, len(text))
    assert next(i for i in found.items if i.value == "static").insert == 'static"'


def test_an_existing_closing_quote_is_kept_and_the_rest_of_the_word_replaced():
    text = 'f(cache_implementation="stat")'
    found = complete(text, Position(1, text.index("stat") + 2), NEWEST)
    assert found.replace == Span.of(1, text.index("stat"), 1, text.index("stat") + 4)
    assert next(i for i in found.items if i.value == "static").insert == "static"


def test_a_bare_value_is_inserted_quoted():
    text = "f(cache_implementation="
    found = complete(text, at_end(text), NEWEST)
    assert next(i for i in found.items if i.value == "static").insert == '"static"'


def test_deprecated_values_are_tagged_and_sorted_last():
    found = complete('f(cache_implementation="', Position(1, 24), NEWEST)
    deprecated = [i for i in found.items if i.deprecated]
    assert {i.value for i in deprecated} == set(NEWEST.deprecated_cache_implementations)
    assert min(i.sort_key for i in deprecated) > max(i.sort_key for i in found.items if not i.deprecated)


def test_values_follow_the_target_version():
    assert describe("paged", NEWEST) and describe("paged", OLD) is None
    assert describe("dynamic_full", OLD) and describe("dynamic_full", NEWEST) is None
    assert "StaticCache" in describe("sliding_window", NEWEST)  # deprecated in 5.x: builds a StaticCache
    # 4.57 too: `_get_cache` builds a StaticCache for every static name, logging the deprecated ones (oracle).
    assert "deprecation" in describe("sliding_window", OLD) and "StaticCache" in describe("sliding_window", OLD)
    assert "never conflicts" in describe("hybrid", NEWEST)


def test_every_valid_value_has_a_description():
    for target in (NEWEST, OLD, Target.of("4.50.0")):
        for value in target.valid_cache_implementations:
            assert describe(value, target), (target, value)


def test_written_value_under_the_cursor():
    text = 'cfg = {"cache_implementation": "static"}'
    found = written_value_at(text, Position(1, text.index("static")))
    assert found is not None and found.value == "static"
    assert written_value_at(text, Position(1, 0)) is None


def test_value_hover_names_the_version_its_source_and_the_exact_error():
    context = Context(target=NEWEST, version_source="setting")
    text = value_markdown("static", context)
    assert "transformers 5.24.0" in text and "`transformersVersion` setting" in text
    assert NEWEST.conflict_message("cache", None) in text
    assert "`cache=`" in text  # the 5.24 keyword


def test_value_hover_for_old_versions_uses_their_keyword():
    text = value_markdown("static", Context(target=OLD))
    assert OLD.conflict_message("past_key_values", None) in text


def test_invalid_value_hover_shows_the_validation_error():
    text = value_markdown("Static", Context(target=NEWEST))
    assert "Invalid `cache_implementation` (Static)" in text


FINDING = Finding("HFC001", "cache-conflict", "msg", Severity.ERROR, Span.of(2, 4, 2, 10),
                  related=(Related(Span.of(2, 12, 2, 20), "set here"),), story="the story")


def test_hover_on_a_finding_or_its_related_place_shows_story_then_docs():
    docs = {"HFC001": RuleDoc("HFC001", "cache-conflict", "# HFC001 docs")}
    for column in (4, 10, 15):
        result = hover([FINDING], "", Position(2, column), Context(), docs=docs)
        assert result is not None
        assert result.markdown.index("the story") < result.markdown.index("# HFC001 docs")
    assert hover([FINDING], "", Position(2, 11), Context(), docs=docs) is None


def test_a_finding_without_story_falls_back_to_its_message_unless_the_message_is_shown_beside_it():
    bare = Finding("HFC001", "cache-conflict", "the message", Severity.ERROR, Span.of(1, 0, 1, 1))
    assert finding_markdown(bare, docs={}).startswith("**HFC001** the message")
    docs = {"HFC001": RuleDoc("HFC001", "cache-conflict", "summary")}
    beside = finding_markdown(bare, docs=docs, beside_message=True)
    assert "the message" not in beside and beside.startswith("**[HFC001 cache-conflict](")


ERROR = "ValueError: Passing both `a` and\n`b` is unsupported."
STORY = f"**HFC001**: they meet.\n\n- where\n\n`generate()` raises (transformers 5.23.0):\n\n```\n{ERROR}\n```\n\n**Fixes**: x"


def test_the_error_the_message_already_quotes_is_not_repeated_with_its_lead_in():
    message = "`a` meets `b`; transformers 5.23.0 raises ValueError: Passing both `a` and `b` is unsupported."
    assert without_quoted_message(STORY, message) == "**HFC001**: they meet.\n\n- where\n\n**Fixes**: x"
    # A block the message only paraphrases (HFC006 quotes the exact warning) is new: it stays.
    assert without_quoted_message(STORY, "`a` and `b` clash") == STORY


def test_the_hover_on_the_flagged_range_drops_the_repeat_and_on_a_related_place_keeps_it():
    message = "`a` meets `b`; transformers 5.23.0 raises ValueError: Passing both `a` and `b` is unsupported."
    finding = Finding("HFC001", "cache-conflict", message, Severity.ERROR, Span.of(2, 4, 2, 10),
                      related=(Related(Span.of(2, 12, 2, 20), "set here"),), story=STORY)
    own = hover([finding], "", Position(2, 5), Context(), docs={})
    related = hover([finding], "", Position(2, 15), Context(), docs={})
    assert own is not None and related is not None
    assert "Passing both" not in own.markdown and "- where" in own.markdown and "**Fixes**" in own.markdown
    assert "Passing both" in related.markdown  # no message is shown beside a related place


def test_overlapping_findings_tell_each_story_once_then_point_to_each_rule():
    other = Finding("HFC006", "deprecated-cache-usage", "m", Severity.HINT, Span.of(2, 4, 2, 10), story="the hint")
    text = hover([FINDING, FINDING, other], "", Position(2, 5), Context(),  # the registry's docs
                 docs=rule_docs()).markdown  # type: ignore[union-attr]
    assert text.count("the story") == 1 and text.count("the hint") == 1
    assert text.index("the hint") < text.index("**[HFC001 cache-conflict](")
    assert "docs/rules/HFC006.md)**: " in text
    assert "## What it does" not in text
