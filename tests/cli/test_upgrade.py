"""`check --upgrade-to X`: only the findings that are new at X, each naming the release that brings it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cli_helpers import CONFLICT, Run, write

from hf_cache_lint.engine.environment import api_changes, release_steps, release_version, target
from hf_cache_lint.engine.environment.api_changes import BEHAVIOUR_CHANGES
from hf_cache_lint.engine.environment.release_steps import releases_between
from hf_cache_lint.engine.environment.target import Target

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


def test_an_upgrade_must_be_newer(project: Path, run: Callable[..., Run]) -> None:
    write(project / "conflict.py", CONFLICT)
    older = run("check", ".", "--transformers-version", "5.24.0", "--upgrade-to", "4.57.6")
    assert older.code == 2 and "not newer than the current target 5.24.0" in older.err
    bad = run("check", ".", "--upgrade-to", "five")
    assert bad.code == 2


def test_releases_between_are_the_behaviour_changes_in_order() -> None:
    steps = [str(t) for t in releases_between(Target.of("4.57.6"), Target.of("5.24.0"))]
    # 5.5.0: MambaCache; 5.5.1: cache_utils.SlidingWindowCache back; 5.15.0: dynamic_full invalid; 5.20.0:
    # get_max_cache_shape and max_cache_len gone (the release table's answers, engine/environment/releases.py); 5.3.0:
    # `next_sequence_length` in prepare_inputs_for_generation, 5.4.0: `cache_position` gone from the hooks and
    # `Cache.update` (HFC010/HFC011); 5.14.0: a quantized cache refused on a sliding-window model (HFC004), 5.15.0
    # also the sliding-window crop's RuntimeError (HFC008).
    assert steps == ["5.0.0", "5.3.0", "5.4.0", "5.5.0", "5.5.1", "5.14.0", "5.15.0", "5.20.0", "5.23.0", "5.24.0"]
    assert [str(t) for t in releases_between(Target.of("5.23.0"), Target.of("5.24.0"))] == ["5.24.0"]


def test_every_release_the_version_tables_name_is_a_behaviour_change() -> None:
    # Every module that owns a part of the version answers is read
    parts = (release_version, api_changes, target, release_steps)
    source = "".join(Path(str(m.__file__)).read_text(encoding="utf-8") for m in parts)
    named = {str(release_version.Version.parse(v)) for v in re.findall(r'V\("([\d.]+)"\)', source)}
    named |= {str(release_version.Version.parse(v)) for v in re.findall(r'"(\d+\.\d+\.\d+)"', source)
              if v not in ("4.57.6",)}  # 4.57.6 is a checked release, not a change
    named.discard(release_version.NEWEST)
    assert named <= set(BEHAVIOUR_CHANGES) | {release_version.NEWEST}, named - set(BEHAVIOUR_CHANGES)



def test_every_release_named_as_checked_is_one_the_release_table_holds() -> None:
    # A range is said to be checked at these: a release the table lacks (4.57.0, 4.52.0: not on the package index)
    # would be answered by the one below it while the output names it.
    from packaging.specifiers import SpecifierSet

    from hf_cache_lint.engine.environment import releases
    from hf_cache_lint.engine.environment.target_plan import releases_to_check

    held = set(releases.known_releases())
    assert {release_version.Version.parse(v) for v in BEHAVIOUR_CHANGES} <= held
    for spec in (">=4.52,<4.58", ">=4.57,<6", ">=4.45,<6", "~=4.57"):
        checked = releases_to_check(SpecifierSet(spec))
        assert checked and set(checked) <= held | {release_version.NEWEST}, (spec, set(checked) - held)
    assert str(releases_to_check(SpecifierSet(">=4.57,<6"))[0]) == "4.57.1"


TUPLE = (
    "from transformers import AutoModelForCausalLM\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    "out = model.generate(max_new_tokens=3, past_key_values=((1, 2),))\n"
)
EXPLICIT_HYBRID = (
    "from transformers import AutoModelForCausalLM\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    'out = model.generate(max_new_tokens=3, cache_implementation="hybrid")\n'
)
TYPO = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    "out = model.generate(max_new_tokens=3, past_key_value=DynamicCache(), use_model_defaults=False)\n"
)


def test_what_gets_worse_a_rising_severity_and_a_silent_meaning_change(project: Path, run: Callable[..., Run]) -> None:
    """Issue 30 item 5: a tuple cache warns on 4.57.6 and raises from 5.0.0; an explicit "hybrid" builds a
    StaticCache on 4.57.6 and is reset to None from 5.0.0, with no error or warning."""
    write(project / "tup.py", TUPLE)
    write(project / "hyb.py", EXPLICIT_HYBRID)
    r = run("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--format", "json",
            "--no-cache")
    got = {f["filename"]: f for f in r.json()}
    assert (got["tup.py"]["code"], got["tup.py"]["severity"]) == ("HFC002", "error")
    assert "[severity rises from info on 4.57.6 to error in transformers 5.0.0]" in got["tup.py"]["message"]
    assert (got["hyb.py"]["code"], got["hyb.py"]["severity"]) == ("HFC006", "warning")
    assert "changes meaning silently" in got["hyb.py"]["message"]
    assert got["hyb.py"]["message"].endswith("[new in transformers 5.0.0; not reported for 4.57.6]")
    # Neither is news within 5.x.
    assert run("check", ".", "--transformers-version", "5.0.0", "--upgrade-to", "5.24.0", "--format", "json",
               "--select", "HFC002,HFC006", "--no-cache").json() == []


def test_upgrade_from_a_range(project: Path, run: Callable[..., Run]) -> None:
    write(project / "mamba.py", "from transformers import MambaCache\nprint(MambaCache)\n")
    r = run("check", ".", "--transformers-version", ">=4.45,<5", "--upgrade-to", "5.24.0", "--format", "json",
            "--no-cache")
    [f] = r.json()
    assert f["code"] == "HFC007" and f["message"].endswith(
        "[new in transformers 5.5.0; not reported for any release `transformers>=4.45,<5` (--transformers-version) "
        "admits]")


def test_upgrade_fix_is_a_migration_that_runs_on_both(project: Path, run: Callable[..., Run]) -> None:
    """The typo's fix on 4.57.6 alone is `past_key_values=`, on 5.24.0 alone `cache=`: the migration keeps the
    name both take. `use_model_defaults=` is a parameter on 4.57.6 and rejected from 5.0.0: removing it is the
    fix that runs on both."""
    write(project / "typo.py", TYPO)
    r = run("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--fix", "--no-cache")
    text = (project / "typo.py").read_text()
    assert "past_key_values=DynamicCache()" in text and "cache=DynamicCache()" not in text.replace("past_key_values=", "")
    assert "use_model_defaults" not in text
    assert r.code == 0, r.out
    # What it could not fix is listed: a removed class has no fix that runs on both.
    write(project / "mamba.py", "from transformers import MambaCache\nprint(MambaCache)\n")
    left = run("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--fix", "--no-cache")
    assert left.code == 1 and "mamba.py:1:26: HFC007" in left.out and "0 fixed, 1 remaining" in left.out
