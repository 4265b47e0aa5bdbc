"""The wheel and the sdist carry every file the package reads at run time.

Two checks: statically, every non-Python file of the package in the tree (rule docs.md, data/*.json, py.typed)
is in the sdist and in the wheel built from it; dynamically, every file the INSTALLED package opens under its
own folder while it checks the examples, prints a rule and loads the language server is one its wheel
installed (an audit hook records the opens, so a file read by new code is caught without a list to update).
"""

from __future__ import annotations

import json
import subprocess
import tarfile
import zipfile
from pathlib import Path

from install_support import REPO, Built, Installed, tracked_files, user_env

PACKAGE = "hf_cache_lint"


def package_data_in_tree() -> set[str]:
    """Non-Python files of the package, as paths inside it ("rules/hfc001_cache_conflict/docs.md")."""
    prefix = f"server/{PACKAGE}/"
    return {p[len(prefix):] for p in tracked_files() if p.startswith(prefix) and not p.endswith(".py")}


def test_tree_has_the_files_the_rules_and_engine_read() -> None:
    data = package_data_in_tree()
    rules = sorted(p.name for p in (REPO / "server" / PACKAGE / "rules").iterdir()
                   if (p / "__init__.py").is_file() and p.name.startswith("hfc"))
    assert rules, "no rule packages found"
    assert {f"rules/{r}/docs.md" for r in rules} <= data
    assert "data/hub_defaults.json" in data
    assert "data/releases.json" in data  # engine/environment/releases.py: the release table Target answers from
    # engine/syntax/grammar_table.py: parso's grammar tables, one per Python grammar (scripts/parso_grammar_tables.py)
    assert {f"data/parso-0.8.7-grammar3{minor}.json" for minor in range(10, 15)} <= data


def test_sdist_and_wheel_carry_every_package_file(built: Built) -> None:
    data = package_data_in_tree()
    with zipfile.ZipFile(built.wheel) as whl:
        in_wheel = {n[len(PACKAGE) + 1:] for n in whl.namelist() if n.startswith(f"{PACKAGE}/")}
    assert not data - in_wheel, f"the wheel misses {sorted(data - in_wheel)}"
    with tarfile.open(built.sdist) as sdist:
        root = sdist.getnames()[0].split("/")[0]
        prefix = f"{root}/server/{PACKAGE}/"
        in_sdist = {n[len(prefix):] for n in sdist.getnames() if n.startswith(prefix)}
    assert not data - in_sdist, f"the sdist misses {sorted(data - in_sdist)}"
    modules = {p[len(f"server/{PACKAGE}/"):] for p in tracked_files()
               if p.startswith(f"server/{PACKAGE}/") and p.endswith(".py")}
    assert not modules - in_wheel, f"the wheel misses modules {sorted(modules - in_wheel)}"


AUDIT = r'''
import json, os, sys
from pathlib import Path

import hf_cache_lint

root = os.path.dirname(os.path.realpath(hf_cache_lint.__file__))
opened = set()

def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.realpath(os.fsdecode(args[0]))
        if path.startswith(root + os.sep) and not path.endswith((".py", ".pyc")):
            opened.add(os.path.relpath(path, root))

sys.addaudithook(hook)
from hf_cache_lint.cli import main

# --no-cache: a result-cache hit would skip the engine, and with it the reads this records.
codes = [main(["check", "examples/", "--format", "json", "--no-cache"]), main(["rule", "HFC001"])]
import hf_cache_lint.lsp.server  # the language server's modules and whatever they read on import
json.dump({"root": root, "opened": sorted(opened), "codes": codes}, open(sys.argv[1], "w"))
'''


def test_installed_package_opens_only_what_its_wheel_installed(installed: Installed, tmp_path: Path) -> None:
    result = tmp_path / "opened.json"
    env = user_env(bin_dir=installed.venv.bin)
    proc = subprocess.run([str(installed.venv.python), "-c", AUDIT, str(result)], cwd=installed.tree, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(result.read_text())
    assert report["codes"] == [1, 0], proc.stderr
    assert "site-packages" in report["root"], f"not the installed copy: {report['root']}"
    record = subprocess.run([str(installed.venv.python), "-c",
                             "import importlib.metadata as m; print('\\n'.join(str(f) for f in "
                             "m.distribution('hf-cache-lint').files))"],
                            env=env, capture_output=True, text=True, check=True).stdout.split()
    installed_files = {f[len(PACKAGE) + 1:] for f in record if f.startswith(f"{PACKAGE}/")}
    opened = set(report["opened"])
    assert "rules/hfc001_cache_conflict/docs.md" in opened  # the hook sees the reads at all
    assert "data/hub_defaults.json" in opened
    assert not opened - installed_files, f"opened but not installed by the wheel: {sorted(opened - installed_files)}"


def test_the_language_server_dependencies_are_required_and_lsp_stays_an_extra(built: Built) -> None:
    """A plain `pip install hf-cache-lint` runs `serve`; `hf-cache-lint[lsp]` (older docs, scripts) still resolves."""
    with zipfile.ZipFile(built.wheel) as whl:
        (name,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = whl.read(name).decode("utf-8").splitlines()
    required = {line.split(":", 1)[1].strip().split("<")[0].split(">")[0].split("=")[0].split(";")[0].strip()
                for line in metadata if line.startswith("Requires-Dist:") and "extra ==" not in line}
    assert {"pygls", "lsprotocol", "jedi", "parso"} <= required, required
    assert "Provides-Extra: lsp" in metadata
