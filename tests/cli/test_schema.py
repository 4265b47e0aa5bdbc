"""schemas/hf-cache-lint.schema.json (the JSON Schema of `[tool.hf-cache-lint]`, for SchemaStore and editors that
validate pyproject.toml) against the loader in pyproject.py: the same keys, the same codes, and every documented
table valid under both."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hf_cache_lint.pyproject import KNOWN_KEYS, ConfigError, settings_from_table
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.settings import KNOWN_CODES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = json.loads((ROOT / "schemas" / "hf-cache-lint.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)


def _documented_tables() -> list[tuple[str, dict[str, Any]]]:
    """Every ```toml block of the docs that holds a [tool.hf-cache-lint] table: (where, the table)."""
    out = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for i, block in enumerate(re.findall(r"```toml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)):
            if "[tool.hf-cache-lint]" in block:
                table = tomllib.loads(block)["tool"]["hf-cache-lint"]
                out.append((f"{doc.relative_to(ROOT)}#{i}", table))
    return out


DOCUMENTED = _documented_tables()


def test_the_schema_is_a_valid_draft_7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_the_docs_show_at_least_one_table() -> None:
    assert DOCUMENTED, "no [tool.hf-cache-lint] example found in README.md or docs/"


@pytest.mark.parametrize(("where", "table"), DOCUMENTED, ids=[w for w, _ in DOCUMENTED])
def test_each_documented_table_is_valid_for_the_schema_and_the_loader(where: str, table: dict[str, Any]) -> None:
    assert list(VALIDATOR.iter_errors(table)) == []
    settings_from_table(table, where)  # raises ConfigError when the loader disagrees


def test_the_schema_and_the_loader_know_the_same_keys() -> None:
    assert sorted(SCHEMA["properties"]) == sorted(KNOWN_KEYS)


def test_the_schema_selectors_are_every_code_and_prefix() -> None:
    prefixes = {code[:i] for code in KNOWN_CODES for i in range(3, len(code) + 1)}
    assert sorted(SCHEMA["definitions"]["RuleSelector"]["enum"]) == sorted(prefixes)
    assert SCHEMA["properties"]["severity"]["propertyNames"]["enum"] == list(KNOWN_CODES)


def test_known_codes_are_the_registry_codes() -> None:
    assert tuple(r.code for r in ALL_RULES) == KNOWN_CODES


# One valid and one invalid value per key: the schema and the loader must give the same verdict.
CASES: list[tuple[str, Any, bool]] = [
    ("select", ["HFC001", "HFC00"], True),
    ("select", ["HFC02"], False),
    ("select", ["HFC999"], False),
    ("extend-select", ["HFC006"], True),
    ("extend-select", ["XYZ"], False),
    ("ignore", ["HFC"], True),
    ("ignore", [1], False),
    ("severity", {"HFC003": "warning"}, True),
    ("severity", {"HFC999": "warning"}, False),
    ("severity", {"HFC00": "warning"}, False),
    ("severity", {"HFC001": "fatal"}, False),
    ("transformers-version", "4.57.6", True),
    ("transformers-version", 4, False),
    ("exclude", ["build/", "*.gen.py"], True),
    ("exclude", "build/", True),
    ("exclude", [3], False),
    ("extra-paths", ["src"], True),
    ("extra-paths", {"a": 1}, False),
    ("cache", False, True),
    ("cache", "no", False),
    ("cache-dir", ".cache/hfcl", True),
    ("cache-dir", 1, False),
    ("extend-exclude", ["gen/"], True),
    ("extend-exclude", 1, False),
    ("per-file-ignores", {"tests/*": ["HFC001"]}, True),
    ("per-file-ignores", {"tests/*": ["HFC02"]}, False),
    ("per-file-ignores", ["tests/*"], False),
    ("force-exclude", True, True),
    ("force-exclude", "yes", False),
    ("respect-gitignore", False, True),
    ("respect-gitignore", 0, False),
    ("selekt", ["HFC001"], False),
]


@pytest.mark.parametrize(("key", "value", "valid"), CASES, ids=[f"{k}={v!r}" for k, v, _ in CASES])
def test_the_schema_and_the_loader_agree_on_each_key(key: str, value: Any, valid: bool) -> None:
    schema_ok = VALIDATOR.is_valid({key: value})
    try:
        settings_from_table({key: value}, "pyproject.toml")
        loader_ok = True
    except ConfigError:
        loader_ok = False
    assert (schema_ok, loader_ok) == (valid, valid)


def test_every_key_has_a_case() -> None:
    assert {k for k, _, ok in CASES if ok} >= set(KNOWN_KEYS) - {"interpreter"}


def test_opt_in_codes_are_the_rules_off_by_default() -> None:
    from hf_cache_lint.settings import OPT_IN

    assert tuple(r.code for r in ALL_RULES if not r.default_enabled) == OPT_IN
