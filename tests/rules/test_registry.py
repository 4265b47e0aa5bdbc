"""The rule registry and everything a rule must come with (CONTRIBUTING.md "Adding a rule").

Rules are found by listing hf_cache_lint/rules/ (rules/__init__.py `discover`); these checks hold each one
to the recipe: a stable, unique code and name, a package named after both, its generated docs page, its row
in the README's rules table, and runtime outcomes the oracle's classifier can tell. The docs headings and
the VALID/INVALID examples themselves are checked in test_examples.py (test_rule_has_docs_sections_and_...).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hf_cache_lint import rules
from hf_cache_lint.rules import ALL_RULES, BY_CODE, RegistryError, discover
from hf_cache_lint.rules.base import CHECKED_VERSIONS, Rule

REPO = Path(__file__).resolve().parents[2]
RULES_DIR = Path(rules.__file__).parent
CODE = re.compile(r"HFC\d{3}")
NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
# A README table row: | [HFC001](docs/rules/HFC001.md) | cache-conflict | what it finds |
README_ROW = re.compile(r"^\| \[(?P<code>[^]]*)\]\((?P<link>[^)]*)\) \| (?P<name>[^|]*?) \| (?P<what>.*) \|$")


def classifier() -> ModuleType:
    """The oracle's table of runtime error classes (tests/oracle/worker/classifier.py: pure Python)."""
    path = REPO / "tests" / "oracle" / "worker" / "classifier.py"
    spec = importlib.util.spec_from_file_location("oracle_classifier", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building the classes
    spec.loader.exec_module(module)
    return module


def package_of(rule: Rule) -> str:
    return type(rule).__module__.rsplit(".", 1)[-1]


def test_codes_are_well_formed_and_unique() -> None:
    codes = [r.code for r in ALL_RULES]
    assert all(CODE.fullmatch(c) for c in codes), f"codes must be HFC + three digits: {codes}"
    assert len(set(codes)) == len(codes), f"a code is used twice: {codes}"
    assert list(BY_CODE) == codes
    assert codes == sorted(codes), "the registry lists rules in code order"


def test_names_are_kebab_case_and_unique() -> None:
    names = [r.name for r in ALL_RULES]
    assert all(NAME.fullmatch(n) for n in names), f"names must be kebab-case: {names}"
    assert len(set(names)) == len(names), f"a name is used twice: {names}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_package_is_named_after_code_and_name(rule: Rule) -> None:
    expected = f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
    assert package_of(rule) == expected, f"{type(rule).__name__} lives in {package_of(rule)}, expected {expected}/"
    assert (RULES_DIR / expected / "docs.md").is_file(), f"{expected}/docs.md is missing"


def test_every_rule_package_is_registered() -> None:
    packages = sorted(p.name for p in RULES_DIR.iterdir() if (p / "__init__.py").is_file())
    assert packages == [package_of(r) for r in ALL_RULES]


def test_discovery_refuses_a_package_without_exactly_one_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "fake_rules"
    (root / "hfc998_nothing").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "hfc998_nothing" / "__init__.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistryError, match="hfc998_nothing must define exactly one Rule"):
        discover("fake_rules", [str(root)])


def test_generated_docs_pages_are_exactly_the_rules() -> None:
    pages = sorted(p.stem for p in (REPO / "docs" / "rules").glob("*.md"))
    assert pages == [r.code for r in ALL_RULES], "docs/rules/ must hold one page per rule: python3 scripts/gen_docs.py"
    # Their content is checked against the rule modules in test_docs.py.


def readme_rules() -> list[dict[str, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Rules\n", 1)[1].split("\n## ", 1)[0]
    rows = [m.groupdict() for line in section.splitlines() if (m := README_ROW.match(line))]
    assert rows, "README.md has no rules table under '## Rules'"
    return rows


def test_readme_rules_table_is_current() -> None:
    rows = readme_rules()
    assert [(r["code"], r["name"]) for r in rows] == [(r.code, r.name) for r in ALL_RULES], (
        "README.md '## Rules' must have one row per rule, in code order: | [CODE](docs/rules/CODE.md) | name | ... |")
    for row in rows:
        assert row["link"] == f"docs/rules/{row['code']}.md"
        assert row["what"].strip(), f"{row['code']}: say what it finds"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_the_oracle_can_tell_the_rule_apart(rule: Rule) -> None:
    """Every runtime outcome a rule's INVALID examples expect is a kind the oracle's classifier produces.

    A rule whose own code is not a classifier kind (HFC003's errors are HFC005's and HFC001's) must say in
    every INVALID example what the real run raises instead (`runtime=`)."""
    table = classifier()
    known = set(table.KINDS) | set(table.WARNED_KINDS)
    for i, ex in enumerate(rule.invalid):
        expected = {ex.runtime_on(v, rule.code) for v in CHECKED_VERSIONS}
        unknown = expected - known
        assert not unknown, (f"{rule.code} INVALID example {i} ({ex.note or 'no note'}) expects {sorted(unknown)}, "
                             "which the oracle cannot classify: add the error class to "
                             "tests/oracle/worker/classifier.py, or set `runtime=` on the example")


def test_the_classifier_kinds_are_rule_codes() -> None:
    table = classifier()
    codes = set(BY_CODE)
    for kind in (*table.KINDS, *table.WARNED_KINDS):
        assert kind in ("OTHER", "OK") or kind in codes, f"the oracle classifies {kind}, which is no rule"
    assert not set(table.KINDS) & set(table.WARNED_KINDS), "a code predicts either an error or a warning"
