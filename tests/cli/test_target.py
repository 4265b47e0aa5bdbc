"""`check` against the transformers the user runs (issue 30): each source of the target through the CLI, the
range report, and fixes that run on every admitted release."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import RunFn, write

REPO = Path(__file__).resolve().parents[2]

# A 4.x-style script: `past_key_value=` is a typo (HFC005 on every release); `HybridCache` is gone from 5.0.
TYPO = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("gpt2")\n'
    "out = model.generate(max_new_tokens=3, past_key_value=DynamicCache())\n"
)
HYBRID = "from transformers import HybridCache\n"


def fake_venv(folder: Path, version: str) -> Path:
    dist = folder / "lib" / "python3.11" / "site-packages" / f"transformers-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: transformers\nVersion: {version}\n")
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n")
    return folder


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (the cwd) with no target setting, no venv and no active environment."""
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    return root


def target_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Target: "))


def test_a_pinned_4x_project_with_its_venv_is_checked_at_4x(bare: Path, run: RunFn) -> None:
    """The issue's new user: a project pinning 4.57.6 with it installed in .venv is no longer told about 5.24."""
    write(bare / "pyproject.toml", '[project]\nname = "demo"\ndependencies = ["transformers==4.57.6"]\n')
    fake_venv(bare / ".venv", "4.57.6")
    write(bare / "demo.py", TYPO + HYBRID)
    r = run("check", "--format", "json", "demo.py")
    [finding] = r.json()  # no HFC007: HybridCache exists on 4.57.6
    assert finding["code"] == "HFC005" and "transformers 4.57.6 raises" in finding["message"]
    assert finding["fixes"][0]["title"] == "Rename to `past_key_values=`"
    assert target_line(run("check", "demo.py").out) == "Target: transformers 4.57.6 (installed in .venv)"
    run("check", "--fix", "demo.py")
    assert "past_key_values=DynamicCache()" in (bare / "demo.py").read_text()  # never `cache=` (5.24+ only)


def test_an_active_virtual_env(bare: Path, run: RunFn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    active = fake_venv(tmp_path / "active", "5.0.0")
    monkeypatch.setenv("VIRTUAL_ENV", str(active))
    write(bare / "demo.py", HYBRID)
    r = run("check", "demo.py")
    assert target_line(r.out) == f"Target: transformers 5.0.0 (installed in VIRTUAL_ENV={active})"
    assert "HFC007" in r.out


def test_the_clis_own_environment(bare: Path, tmp_path: Path) -> None:
    """transformers installed where hf-cache-lint runs (its own process's metadata), in a real process."""
    site = tmp_path / "site"
    dist = site / "transformers-4.57.6.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: transformers\nVersion: 4.57.6\n")
    write(bare / "demo.py", HYBRID)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "server"), str(site)])
    proc = subprocess.run([sys.executable, "-m", "hf_cache_lint", "check", "--no-cache", "demo.py"], cwd=bare,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert target_line(proc.stdout) == "Target: transformers 4.57.6 (installed where hf-cache-lint runs)"


def test_a_requirements_file_and_a_lock_file(bare: Path, run: RunFn) -> None:
    write(bare / "demo.py", HYBRID)
    write(bare / "requirements.txt", "transformers==4.57.6\n")
    assert run("check", "demo.py").code == 0
    write(bare / "uv.lock", 'version = 1\n[[package]]\nname = "transformers"\nversion = "5.23.0"\n')
    r = run("check", "demo.py")
    assert r.code == 1 and target_line(r.out) == "Target: transformers 5.23.0 (uv.lock)"


def test_nothing_found_is_the_newest_and_says_so(bare: Path, run: RunFn) -> None:
    write(bare / "demo.py", HYBRID)
    assert target_line(run("check", "demo.py").out) == \
        "Target: transformers 5.25.0 (the newest release hf-cache-lint knows)"


def test_a_declared_range_is_checked_across_it(bare: Path, run: RunFn) -> None:
    write(bare / "pyproject.toml", '[project]\nname = "demo"\ndependencies = ["transformers>=4.45,<6"]\n')
    write(bare / "demo.py", HYBRID)
    r = run("check", "demo.py")
    assert target_line(r.out).startswith(
        "Target: transformers >=4.45,<6 (pyproject.toml [project] dependencies): checked at 4.45.0, ")
    assert target_line(r.out).endswith(", 5.23.0, 5.24.0, 5.25.0")
    [f] = run("check", "--format", "json", "demo.py").json()
    assert f["code"] == "HFC007"
    assert f["message"].endswith("[on transformers 5.0.0 to 5.25.0, which `transformers>=4.45,<6` (pyproject.toml "
                                 "[project] dependencies) admits; not on 4.45.0 to 4.57.6]")


def test_a_finding_on_every_admitted_release_says_so_and_its_fix_runs_on_all(bare: Path, run: RunFn) -> None:
    """The typo fails everywhere; `cache=` (5.24's keyword) would fail before 5.24, so the range's fix is the
    keyword every admitted release takes (issue 30 item 4)."""
    write(bare / "demo.py", TYPO)
    r = run("check", "--transformers-version", ">=4.45,<6", "--format", "json", "demo.py")
    [f] = r.json()
    assert "[on every release `transformers>=4.45,<6` (--transformers-version) admits: checked at 4.45.0 to " \
           "5.25.0]" in f["message"]
    assert f["fixes"][0]["title"].startswith("Rename to `past_key_values=`")
    assert "(a typo of `past_key_values`?)" in f["message"]  # the message agrees with the fix
    assert all("`cache=`" not in fix["title"] for fix in f["fixes"])
    fixed = run("check", "--transformers-version", ">=4.45,<6", "--fix", "demo.py")
    assert fixed.code == 0, fixed.out
    assert "past_key_values=DynamicCache()" in (bare / "demo.py").read_text()


def test_within_4x_the_fix_needs_no_compromise(bare: Path, run: RunFn) -> None:
    write(bare / "demo.py", TYPO)
    [f] = run("check", "--transformers-version", ">=4.45,<5", "--format", "json", "demo.py").json()
    assert f["fixes"][0]["title"] == "Rename to `past_key_values=`"


def test_sarif_run_properties_name_the_target(bare: Path, run: RunFn) -> None:
    write(bare / "demo.py", HYBRID)
    log = json.loads(run("check", "--transformers-version", "4.57.6", "--format", "sarif", "demo.py").out)
    assert log["runs"][0]["properties"] == {"transformersTarget": "transformers 4.57.6 (--transformers-version)"}
    # The JSON format stays one array (docs/architecture.md's contract): the target is not in it.
    assert run("check", "--transformers-version", "4.57.6", "--format", "json", "demo.py").json() == []


def test_a_range_setting_in_pyproject_and_a_bad_one(bare: Path, run: RunFn) -> None:
    write(bare / "pyproject.toml", '[tool.hf-cache-lint]\ntransformers-version = ">=5.0,<5.24"\n')
    write(bare / "demo.py", HYBRID)
    r = run("check", "demo.py")
    assert target_line(r.out) == ("Target: transformers >=5.0,<5.24 (transformers-version in pyproject.toml "
                                  "[tool.hf-cache-lint]): checked at 5.0.0, 5.3.0, 5.4.0, 5.5.0, 5.5.1, 5.14.0, 5.15.0, 5.20.0, 5.23.0")
    bad = run("check", "--transformers-version", "soon", "demo.py")
    assert bad.code == 2 and "not a transformers version or version range" in bad.err


def test_a_fix_for_some_releases_only_is_not_offered_when_others_reject_it(bare: Path, run: RunFn) -> None:
    """`past_key_values=` is deprecated on 5.24 only (HFC006, whose fix is `cache=`); 4.x rejects `cache=`, so
    over a range reaching 4.x the report offers no such fix, and --fix leaves the keyword alone."""
    write(bare / "demo.py", TYPO.replace("past_key_value=", "past_key_values="))
    args = ("check", "--transformers-version", ">=4.45,<6", "--extend-select", "HFC006")
    [f] = run(*args, "--format", "json", "demo.py").json()
    assert f["code"] == "HFC006" and "on transformers 5.24.0 to 5.25.0, which" in f["message"]
    assert [fix["title"] for fix in f["fixes"]] == ["Ignore HFC006 on this line"]
    # Within 5.24 alone, the rename is offered.
    [g] = run("check", "--transformers-version", "5.24.0", "--extend-select", "HFC006", "--format", "json",
              "demo.py").json()
    assert g["fixes"][0]["title"] == "Rename to `cache=`"
    run(*args, "--fix", "demo.py")
    assert "past_key_values=DynamicCache()" in (bare / "demo.py").read_text()
