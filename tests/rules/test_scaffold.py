"""scripts/add_rule.py writes a rule package (and a fact kind) that compiles, declares what it reads, and refuses to
overwrite."""

from __future__ import annotations

import ast
import importlib.util
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _scaffold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    spec = importlib.util.spec_from_file_location("add_rule", REPO / "scripts" / "add_rule.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rules, facts = tmp_path / "rules", tmp_path / "facts"
    rules.mkdir()
    shutil.copytree(REPO / "server" / "hf_cache_lint" / "engine" / "facts", facts)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "RULES", rules)
    monkeypatch.setattr(module, "FACTS", facts)
    return module


def test_the_scaffold_writes_a_rule_and_a_fact_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_rule = _scaffold(tmp_path, monkeypatch)
    assert add_rule.main(["HFC099", "positive-crop", "--new-fact", "scaffold_probe"]) == 0  # type: ignore[attr-defined]
    package = tmp_path / "rules" / "hfc099_positive_crop"
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "docs.md", "examples.py", "valid.py"]
    init = (package / "__init__.py").read_text()
    ast.parse(init)
    assert 'code = "HFC099"' in init and "reads = frozenset({SCAFFOLD_PROBE})" in init
    fact = (tmp_path / "facts" / "scaffold_probe.py").read_text()
    assert 'FactKind("scaffold_probe", ScaffoldProbe' in fact
    assert add_rule.main(["HFC099", "positive-crop"]) == 1  # type: ignore[attr-defined]  # refuses to overwrite


def test_the_scaffold_refuses_an_unknown_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_rule = _scaffold(tmp_path, monkeypatch)
    with pytest.raises(SystemExit):
        add_rule.main(["HFC099", "x", "--reads", "no_such_kind"])  # type: ignore[attr-defined]
