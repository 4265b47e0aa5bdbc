"""A clone explains itself: nothing cites files outside the repository, cited docs exist, and every claim of
docs/facts.md names oracle cases that exist (and every oracle fact case is cited there)."""

from __future__ import annotations

import re
import sys

from install_support import REPO, tracked_files

OUTSIDE = re.compile(r"\b(FACTS|DESIGN|REAL-CLIENTS|STYLE)\.md\b|\.\./shared\b|/work/shared\b")
DOC_REF = re.compile(r"\bdocs/[\w./-]+\.md\b")


def text_files() -> list[str]:
    return [p for p in tracked_files() if p.endswith((".py", ".md", ".sh", ".ts", ".toml", ".yaml", ".json"))
            and not p.startswith("tests/data/corpus/") and p != "package-lock.json"]


def test_nothing_cites_files_outside_the_repository() -> None:
    cited = [f"{p}:{n}: {line.strip()}" for p in text_files()
             for n, line in enumerate((REPO / p).read_text(encoding="utf-8").splitlines(), start=1)
             if OUTSIDE.search(line) and p != "tests/install/test_repo_docs.py"]
    assert not cited, ("a clone has no FACTS.md, DESIGN.md, REAL-CLIENTS.md or ../shared: cite docs/facts.md, "
                       "docs/architecture.md or docs/editors.md instead:\n" + "\n".join(cited))


def test_cited_docs_exist() -> None:
    missing = sorted({f"{p}: {ref}" for p in text_files()
                      for ref in DOC_REF.findall((REPO / p).read_text(encoding="utf-8"))
                      if not (REPO / ref).is_file() and "CODE" not in ref and "HFC00N" not in ref})
    assert not missing, missing


def test_facts_doc_and_oracle_cases_agree() -> None:
    sys.path.insert(0, str(REPO))
    try:
        from tests.oracle.own_cases import FACTS, RUNNER
    finally:
        sys.path.remove(str(REPO))
    doc = (REPO / "docs" / "facts.md").read_text(encoding="utf-8")
    cited = {kind: set(re.findall(rf"`{kind}:([a-z0-9_]+)`", doc)) for kind in ("facts", "runner")}
    assert not cited["facts"] - set(FACTS), f"docs/facts.md cites unknown fact cases {cited['facts'] - set(FACTS)}"
    assert not cited["runner"] - set(RUNNER), f"unknown runner cases {cited['runner'] - set(RUNNER)}"
    assert not set(FACTS) - cited["facts"], (
        f"add a row citing `facts:NAME` to docs/facts.md for {sorted(set(FACTS) - cited['facts'])}")
