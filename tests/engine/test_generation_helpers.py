"""engine/facts/cache_use.py `GENERATION_HELPERS` is the release table's: the private `GenerationMixin` methods some
release in the table had and the newest lacks, but the encoder-decoder ones (models of that kind define their
own, which the table does not read) and the cache-related ones (recorded by their name already). A release table
regenerated with another helper gone fails this test until the set names it."""

from __future__ import annotations

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.cache_use import GENERATION_HELPERS, PARSE_NAMES, model_member_recorded

_PREFIX = "member:transformers.generation.utils.GenerationMixin."


def test_generation_helpers_are_the_tables_gone_private_helpers() -> None:
    newest = releases.table().releases[-1]
    names = {key[len(_PREFIX):] for key in releases.table().facts if key.startswith(_PREFIX + "_")}
    gone = {n for n in names if releases.member("transformers.generation.utils", "GenerationMixin", n, newest) is None}
    expected = {n for n in gone if "cache" not in n.lower() and "encoder" not in n and "decoder" not in n}
    assert expected == GENERATION_HELPERS


def test_generation_helpers_are_recorded_and_parsed() -> None:
    assert all(model_member_recorded(n) and n in PARSE_NAMES for n in GENERATION_HELPERS)
    assert not model_member_recorded("_get_logits_processor")  # still there: its uses are not a cache rule's
