"""engine/environment/releases.py (the release table) and the `Target` answers that come from it.

The table's agreement with real transformers is tests/oracle/test_releases.py; its agreement with the wheels is
tests/engine/test_release_table_generator.py. Here: the queries, and the answers the rules get.
"""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.environment import api_changes, releases
from hf_cache_lint.engine.environment.api_changes import REMOVED_CACHE_CLASSES, REMOVED_CACHE_METHODS
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target

V = Version.parse


def test_every_release_from_4_41_to_the_newest_is_known() -> None:
    known = [str(v) for v in releases.known_releases()]
    assert known[0] == "4.41.0" and known == sorted(known, key=V) and len(set(known)) == len(known)
    for v in ("4.57.6", "5.0.0", "5.4.0", "5.5.0", "5.13.1", "5.14.0", "5.19.0", "5.20.0", "5.23.0", "5.24.0"):
        assert v in known
    # Every minor in between is there (5.10 has no .0 on PyPI: 5.10.1 is its first release).
    minors = {(v.major, v.minor) for v in releases.known_releases()}
    assert {(4, m) for m in range(41, 58)} <= minors and {(5, m) for m in range(0, 25)} <= minors


def test_a_version_that_is_no_release_answers_as_the_release_below_it() -> None:
    assert releases.value("cache_implementation:dynamic_full", "5.10.0") == releases.value(
        "cache_implementation:dynamic_full", "5.9.0")
    newest = releases.known_releases()[-1]
    assert releases.value("export:transformers.DynamicCache", "9.0.0") == releases.value(
        "export:transformers.DynamicCache", newest)


def test_dynamic_full_is_valid_on_5_0_and_invalid_from_its_real_first_release() -> None:
    gone = releases.gone_since("cache_implementation:dynamic_full", releases.known_releases()[-1])
    assert gone is not None and V("5.0.0") < gone <= V("5.23.0")
    before = releases.known_releases()[releases.known_releases().index(gone) - 1]
    assert "dynamic_full" in Target.of("5.0.0").valid_cache_implementations
    assert "dynamic_full" in Target.of(str(before)).valid_cache_implementations
    assert "dynamic_full" not in Target.of(str(gone)).valid_cache_implementations
    assert "dynamic_full" in Target.of("4.57.6").valid_cache_implementations


def test_cache_utils_sliding_window_cache_fails_only_from_5_0_to_5_5_0() -> None:
    path = "transformers.cache_utils.SlidingWindowCache"
    assert releases.importable(path, "4.57.6") and not releases.importable(path, "5.0.0")
    assert not releases.importable(path, "5.5.0") and releases.importable(path, "5.5.1")
    assert releases.importable(path, "5.23.0") and releases.importable(path, "5.24.0")
    assert Target.of("5.0.0").import_fails("transformers.cache_utils", "SlidingWindowCache") == "5.0.0"
    assert Target.of("5.23.0").import_fails("transformers.cache_utils", "SlidingWindowCache") is None
    assert Target.of("5.23.0").import_fails("transformers", "SlidingWindowCache") == "5.0.0"


def test_mamba_cache_is_gone_from_its_real_release() -> None:
    assert releases.importable("transformers.MambaCache", "5.4.0")
    assert not releases.importable("transformers.MambaCache", "5.5.0")
    assert Target.of("5.4.0").removed_cache_class("MambaCache") is None
    assert Target.of("5.5.0").removed_cache_class("MambaCache") == "5.5.0"
    assert Target.of("5.24.0").removed_cache_class("MambaCache") == "5.5.0"
    mamba = "transformers.models.mamba.modeling_mamba.MambaCache"
    assert releases.importable(mamba, "4.57.6") and releases.importable(mamba, "5.4.0")
    assert not releases.importable(mamba, "5.5.0")
    # 4.43-4.53 define it in cache_utils and modeling_mamba imports it from there: importable from both at every
    # release up to 5.4.0 (the table once had no run for 4.43-4.53, so the import looked absent there).
    assert all(releases.importable(mamba, v) for v in releases.known_releases() if v <= Version.parse("5.4.0"))
    assert releases.value(f"name:{mamba}", "4.45.0") == "import(...cache_utils.MambaCache)"


def test_positive_crop_raises_from_its_real_release() -> None:
    b = releases.behaviour("crop_positive_raises")
    assert str(b.first) == "5.20.0"
    assert not releases.holds(b.id, "5.19.0") and releases.holds(b.id, "5.20.0") and releases.holds(b.id, "5.24.0")
    assert "Calling `crop` with a positive value" in b.effect


def test_behaviour_changes_are_the_releases_inside_the_range() -> None:
    changes = [str(v) for v in releases.behaviour_changes("4.57.6", "5.24.0")]
    assert changes == sorted(changes, key=V)
    assert {"5.0.0", "5.4.0", "5.14.0", "5.20.0", "5.24.0"} <= set(changes)
    assert "4.57.6" not in changes and all(V("4.57.6") < V(c) <= V("5.24.0") for c in changes)
    assert [str(v) for v in releases.behaviour_changes("5.20.0", "5.23.0")] == []
    # With a fact: the release it changes at is named too.
    with_fact = releases.behaviour_changes("4.57.6", "5.24.0", ["export:transformers.MambaCache"])
    assert V("5.5.0") in with_fact


def test_members_resolve_through_the_bases() -> None:
    cu = "transformers.cache_utils"
    assert releases.member(cu, "DynamicCache", "to_legacy_cache", "4.57.6") is not None
    assert releases.member(cu, "DynamicCache", "to_legacy_cache", "5.0.0") is None
    assert str(releases.member_gone_since(cu, "DynamicCache", "to_legacy_cache", "5.24.0")) == "5.0.0"
    crop = releases.member(cu, "DynamicCache", "crop", "5.24.0")
    assert crop is not None and releases.parameters(crop) == ("tokens_to_remove",)
    assert releases.parameters("@deprecate_kwarg('a', new_name='b') (self, x, y=1, *args, z, **kw)") == (
        "x", "y", "args", "z", "kw")


def test_removed_class_table_agrees_with_the_release_table() -> None:
    newest = releases.known_releases()[-1]
    for name, removed in REMOVED_CACHE_CLASSES.items():
        assert str(releases.gone_since(f"export:transformers.{name}", newest)) == removed, name
    for name, (removed, _) in REMOVED_CACHE_METHODS.items():
        assert str(releases.member_gone_since("transformers.cache_utils", "DynamicCache", name, newest)) == removed


# The answers the rules got before the table, at the three releases whose output must not change.
_OLD_VALID_5 = ("static", "offloaded_static", "dynamic", "offloaded", "quantized", "paged", "sliding_window", "hybrid",
                "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked")
_OLD_VALID_457 = ("static", "offloaded_static", "dynamic", "offloaded", "quantized", "dynamic_full", "sliding_window",
                  "hybrid", "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked")
_DEPRECATED = ("sliding_window", "hybrid", "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked")


@pytest.mark.parametrize("version", ["4.57.6", "5.23.0", "5.24.0"])
def test_the_checked_releases_answer_as_before(version: str) -> None:
    t = Target.of(version)
    assert t.valid_cache_implementations == (_OLD_VALID_457 if version == "4.57.6" else _OLD_VALID_5)
    assert t.deprecated_cache_implementations == _DEPRECATED
    choices = (("static", "offloaded_static", *_DEPRECATED, "dynamic", "dynamic_full", "offloaded", "quantized")
               if version == "4.57.6" else ("static", "offloaded_static", *_DEPRECATED, "dynamic", "offloaded",
                                            "quantized", "paged"))
    assert t.invalid_cache_implementation_message("foo") == (
        f"ValueError: Invalid `cache_implementation` (foo). Choose one of: {choices!r}")
    new = version != "4.57.6"
    assert t.tuple_cache_is_error is new
    for name in REMOVED_CACHE_CLASSES:
        # QuantizedCacheConfig and its base CacheConfig are gone before 4.57 (4.56.0): removed on every checked release.
        assert (t.removed_cache_class(name) is not None) is (new or name in ("QuantizedCacheConfig", "CacheConfig")), \
            name
    for name in REMOVED_CACHE_METHODS:
        assert t.removed_cache_method(name) == ("5.0.0" if new else None)
    assert t.removed_cache_read("subscript") == t.removed_cache_read("unpack") == ("5.0.0" if new else None)
    for name in api_changes.REMOVED_GENERATE_KEYWORDS:
        assert t.removed_keyword(name) == ("5.0.0" if new else None), name
    assert t.removed_keyword("max_new_tokens") is None


def test_reads_removed_before_5_23() -> None:
    # get_max_cache_shape() and StaticCache.max_cache_len: the table names their real release.
    gone = Target.of("5.24.0").removed_cache_read("get_max_cache_shape")
    assert gone is not None and V("5.0.0") < V(gone) <= V("5.23.0")
    assert Target.of("5.0.0").removed_cache_read("get_max_cache_shape") is None
    assert Target.of("5.24.0").removed_cache_read("max_cache_len") is not None


def test_cache_implementation_is_checked_from_4_45() -> None:
    assert not Target.of("4.44.2").cache_implementation_checked
    assert Target.of("4.45.0").cache_implementation_checked and Target.of("5.24.0").cache_implementation_checked
    # 4.41-4.44: the values generate builds a cache for (any other string is kept and ignored).
    assert "static" in Target.of("4.44.2").valid_cache_implementations
    assert "mamba" in Target.of("4.53.3").valid_cache_implementations
    assert "mamba" not in Target.of("4.54.0").valid_cache_implementations


def _eager() -> dict[str, tuple[releases.Run, ...]]:
    """Every fact's runs made at once from the shipped JSON, as the table did before it made them lazily."""
    import json
    from importlib import resources

    raw = json.loads(resources.files("hf_cache_lint").joinpath("data/releases.json").read_text(encoding="utf-8"))
    return {key: tuple(releases.Run(V(a), V(b), v) for a, b, v in runs) for key, runs in raw["facts"].items()}


def test_the_lazy_facts_hold_every_run_the_json_has() -> None:
    eager = _eager()
    facts = releases.Facts({k: [[str(r.first), str(r.last), r.value] for r in runs] for k, runs in eager.items()},
                           {str(v): v for v in releases.known_releases()})
    assert list(facts) == list(eager) and len(facts) == len(eager)
    assert not facts._made  # iterating the keys made no run
    key = next(iter(eager))
    assert facts.get(key) == eager[key] and key in facts._made and facts.get(key) is facts[key]
    assert facts.get("name:no.such.Name") is None and facts.get("name:no.such.Name", ()) == ()  # Mapping.get's
    assert "name:no.such.Name" not in facts
    with pytest.raises(KeyError):
        facts["name:no.such.Name"]
    assert dict(facts.items()) == eager
    assert dict(releases.table().facts.items()) == eager


def test_first_gone_is_the_release_after_the_first_run_that_ends_before_the_newest() -> None:
    eager = _eager()
    known = releases.known_releases()
    for prefix in ("name:transformers.models.", "name:transformers.generation.", "export:", "member:", "init:"):
        keys = [k for k in eager if k.startswith(prefix)]
        want = min((known[known.index(run.last) + 1] for k in keys for run in eager[k] if run.last != known[-1]),
                   default=None)
        assert releases.first_gone(keys) == want, prefix
    assert releases.first_gone(["export:transformers.BeamScorer"]) == V("5.0.0")
    assert releases.first_gone(["export:transformers.DynamicCache"]) is None
