"""Regenerate docs/rules/*.md from the rule modules (tests/rules/test_docs.py fails when stale)."""

from pathlib import Path

from hf_cache_lint.rules.docs_gen import write_all

if __name__ == "__main__":
    for p in write_all(Path(__file__).resolve().parents[1] / "docs" / "rules"):
        print(p)
