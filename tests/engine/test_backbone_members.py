"""engine/facts/backbone_generate.py `MIXIN_MEMBERS` is the release table's: every `GenerationMixin` member some
release in the table has (the calls on a backbone-only model class the interpreter records). A release table
regenerated with another member fails this test until the set names it."""

from __future__ import annotations

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.backbone_generate import MIXIN_MEMBERS

_PREFIX = "member:transformers.generation.utils.GenerationMixin."


def test_mixin_members_are_the_tables() -> None:
    names = {key[len(_PREFIX):] for key in releases.table().facts if key.startswith(_PREFIX)}
    assert names == MIXIN_MEMBERS
