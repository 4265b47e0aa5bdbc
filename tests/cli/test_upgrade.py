"""`check --upgrade-to X`: only the findings that are new at X, each naming the release that brings it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cli_helpers import CONFLICT, Run, write

from hf_cache_lint.engine import versions
from hf_cache_lint.engine.versions import BEHAVIOUR_CHANGES, Target, releases_between

FOUR_X = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    "out = model.generate(max_new_tokens=5, return_dict_in_generate=True, use_model_defaults=False)\n"
    "saved = out.past_key_values.to_legacy_cache()\n"
)
# An explicit "hybrid" conflicts in 4.57 only (5.x resets it): a finding the upgrade removes.
HYBRID = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    'out = model.generate(past_key_values=DynamicCache(), cache_implementation="hybrid")\n'
)


def test_only_new_findings_with_the_release_that_brings_them(project: Path, run: Callable[..., Run]) -> None:
    write(project / "old.py", FOUR_X)
    write(project / "conflict.py", CONFLICT)  # HFC001 on both versions: not new
    write(project / "hybrid.py", HYBRID)  # HFC001 on 4.57 only: gone, not new
    r = run("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--format", "json", "--select", "HFC001,HFC005,HFC007",
            "--no-cache")
    assert r.code == 1, r.err
    got = sorted((f["filename"], f["code"], f["location"]["row"]) for f in r.json())
    assert got == [("old.py", "HFC005", 4), ("old.py", "HFC007", 5)]
    assert all("[new in transformers 5.0.0; not reported for 4.57.6]" in f["message"] for f in r.json())


def test_the_first_release_that_changes_it_is_named(project: Path, run: Callable[..., Run]) -> None:
    # MambaCache is exported up to 5.4.0 and gone from 5.5.0 (the release table, read from the wheels; the oracle's
    # probe checks it at 5.4.0 and 5.13.1).
    write(project / "mamba.py", "from transformers import MambaCache\nprint(MambaCache)\n")
    r = run("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--format", "json", "--select", "HFC001,HFC005,HFC007",
            "--no-cache")
    [finding] = r.json()
    assert finding["code"] == "HFC007"
    assert "[new in transformers 5.5.0;" in finding["message"]


def test_nothing_new_exits_clean(project: Path, run: Callable[..., Run]) -> None:
    write(project / "conflict.py", CONFLICT)
    r = run("check", ".", "--transformers-version", "5.23.0", "--upgrade-to", "5.24.0", "--no-cache", "--select", "HFC001")
    assert r.code == 0, r.out + r.err
    # The same check without --upgrade-to reports the conflict: the flag filters, it does not hide errors.
    assert run("check", ".", "--transformers-version", "5.23.0", "--no-cache").code == 1


def test_an_upgrade_must_be_newer_and_cannot_fix(project: Path, run: Callable[..., Run]) -> None:
    write(project / "conflict.py", CONFLICT)
    older = run("check", ".", "--transformers-version", "5.24.0", "--upgrade-to", "4.57.6")
    assert older.code == 2 and "not newer than the current target 5.24.0" in older.err
    fixing = run("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--fix")
    assert fixing.code == 2 and "does not combine with --fix" in fixing.err
    bad = run("check", ".", "--upgrade-to", "five")
    assert bad.code == 2


def test_releases_between_are_the_behaviour_changes_in_order() -> None:
    steps = [str(t) for t in releases_between(Target.of("4.57.6"), Target.of("5.24.0"))]
    # 5.5.0: MambaCache; 5.5.1: cache_utils.SlidingWindowCache back; 5.15.0: dynamic_full invalid; 5.20.0:
    # get_max_cache_shape and max_cache_len gone (the release table's answers, engine/releases.py).
    assert steps == ["5.0.0", "5.5.0", "5.5.1", "5.15.0", "5.20.0", "5.23.0", "5.24.0"]
    assert [str(t) for t in releases_between(Target.of("5.23.0"), Target.of("5.24.0"))] == ["5.24.0"]


def test_every_release_the_version_tables_name_is_a_behaviour_change() -> None:
    source = Path(versions.__file__).read_text(encoding="utf-8")
    named = {str(versions.Version.parse(v)) for v in re.findall(r'V\("([\d.]+)"\)', source)}
    named |= {str(versions.Version.parse(v)) for v in re.findall(r'"(\d+\.\d+\.\d+)"', source)
              if v not in ("4.57.6",)}  # 4.57.6 is a checked release, not a change
    named.discard(versions.NEWEST)
    assert named <= set(BEHAVIOUR_CHANGES) | {versions.NEWEST}, named - set(BEHAVIOUR_CHANGES)
