"""Every snippet the oracle runs, gathered in one place so one worker per version runs them all at once.

- the labelled corpus (tests/data/corpus, with its labels.tsv): real-world-style programs;
- the rule examples (`Valid` / `Invalid` of every rule in hf_cache_lint.rules.ALL_RULES);
- the oracle's own cases (own_cases.py): runner self-tests and docs/facts.md checks;
- the rule examples' fixed texts (every fix but the ignore comment), each on the version it was made for;
- the real-code recall set's probes (tests/realcode/recall_set.py, one run per probe), and the held-out set's.
"""

from __future__ import annotations

import csv
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import CHECKED_VERSIONS, Invalid, Rule, Valid

from .own_cases import OWN_CASES
from .runner import Snippet

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
VERSIONS: tuple[str, ...] = CHECKED_VERSIONS


@dataclass(frozen=True)
class CorpusCase:
    name: str  # as in labels.tsv: "004_x.py" or "014_folder/main.py"
    path: Path  # the real file (the engine reads generation_config.json next to it)
    labels: dict[str, str]  # version -> "HFC00N" | "OTHER" | "-"
    line: int | None
    snippet: Snippet


def corpus_cases() -> list[CorpusCase]:
    """The labelled corpus cases (the corpus is part of the repository: a missing labels.tsv is an error)."""
    labels = CORPUS / "labels.tsv"
    cases = []
    with labels.open(newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            path = CORPUS / row["case"]
            by_version = {k.removeprefix("code_at_"): v.strip() for k, v in row.items() if k.startswith("code_at_")}
            line = int(row["line"]) if row.get("line", "-").strip().isdigit() else None
            # A folder case runs main.py with the folder's other files beside it (the cwd is a temp dir,
            # so `os.path.dirname(__file__)` finds them as it would in the real folder).
            files = {p.name: p.read_text() for p in path.parent.iterdir()
                     if p.is_file() and p != path} if path.name == "main.py" else {}
            snippet = Snippet(f"corpus:{row['case']}", path.read_text(), files=files, filename=path.name)
            cases.append(CorpusCase(row["case"], path, by_version, line, snippet))
    return cases


@dataclass(frozen=True)
class Example:
    rule: Rule
    kind: str  # "valid" | "invalid"
    index: int
    example: Valid | Invalid
    snippet: Snippet

    @property
    def id(self) -> str:
        return f"{self.rule.code}-{self.kind}-{self.index}"


def rule_examples() -> list[Example]:
    out = []
    for rule in ALL_RULES:
        for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid)):
            for i, ex in enumerate(examples):
                snippet = Snippet(f"example:{rule.code}:{kind}:{i}", ex.code, files=dict(ex.files))
                out.append(Example(rule, kind, i, ex, snippet))
    return out


@dataclass(frozen=True)
class FixedExample:
    """An Invalid example's expected text after one of its fixes (not the ignore comment, which keeps
    the error on purpose), run on the version the fix was computed for: it must now run clean."""

    rule: Rule
    index: int
    title: str
    version: str
    example: Invalid
    snippet: Snippet

    @property
    def id(self) -> str:
        return f"{self.rule.code}-invalid-{self.index}-fixed-{self.title}@{self.version}"


def fixed_examples() -> list[FixedExample]:
    out = []
    for rule in ALL_RULES:
        for i, ex in enumerate(rule.invalid):
            for title, text in ex.fixed.items():
                if title.startswith("Ignore "):
                    continue
                snippet = Snippet(f"fixed:{rule.code}:{i}:{title}", text, files=dict(ex.files))
                # A portable fix must run clean on every checked release, not only the one it was made for.
                for version in VERSIONS if ex.portable else (ex.versions[0],):
                    out.append(FixedExample(rule, i, title, version, ex, snippet))
    return out


def versions_of(snippet_id: str) -> tuple[str, ...]:
    """The versions a snippet runs on: a fixed text only on the version its fix was made for."""
    versions = tuple(fx.version for fx in _FIXED if fx.snippet.id == snippet_id)
    return versions or VERSIONS


def own_snippets() -> list[Snippet]:
    return [Snippet(f"own:{name}", case["source"], files=case.get("files", {}))
            for name, case in OWN_CASES.items()]


def recall_set() -> ModuleType:
    """tests/realcode/recall_set.py (tests/realcode is not a package: loaded by path, once)."""
    loaded = sys.modules.get("recall_set")
    if loaded is None:
        path = Path(__file__).resolve().parents[1] / "realcode" / "recall_set.py"
        spec = importlib.util.spec_from_file_location("recall_set", path)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules["recall_set"] = loaded
        spec.loader.exec_module(loaded)
    return loaded


def recall_snippets() -> list[Snippet]:
    """The probes of every real-code set (recall_set.SETS: cases/ as `recall:...`, heldout/ as `heldout:...`,
    heldout2/ as `heldout2:...`, heldout3/ as `heldout3:...`, heldout4/ as `heldout4:...`,
    heldout5/ as `heldout5:...`, heldout6/ as `heldout6:...`, heldout7/ as `heldout7:...`, heldout8/ as `heldout8:...`,
    heldout9/ as `heldout9:...`, heldout10/ as `heldout10:...`, heldout11/ as `heldout11:...`,
    heldout12/ as `heldout12:...`, heldout13/ as `heldout13:...`, heldout14/ as `heldout14:...`, heldout15/ as `heldout15:...`,
    heldout16/ as `heldout16:...`, heldout17/ as `heldout17:...`,
    heldout18/ as `heldout18:...`, heldout19/ as `heldout19:...`, heldout20/ as `heldout20:...`, heldout21/ as `heldout21:...`,
    heldout22/ as `heldout22:...`, heldout23/ as `heldout23:...`, heldout24/ as `heldout24:...`,
    heldout25/ as `heldout25:...`, heldout26/ as `heldout26:...`, heldout27/ as `heldout27:...`,
    heldout28/ as `heldout28:...`)."""
    rs = recall_set()
    return [Snippet(f"{name}:{p.id}", p.source, files=dict(p.files), filename=p.case)
            for name, folder in rs.SETS.items()
            for p in rs.probes(rs.load_sites(folder / "sites.tsv"), folder)]


def all_snippets() -> list[Snippet]:
    return ([c.snippet for c in corpus_cases()] + [e.snippet for e in rule_examples()] + own_snippets()
            + list({f.snippet.id: f.snippet for f in _FIXED}.values()) + recall_snippets())  # a portable fix's text: once


_FIXED = fixed_examples()


def own_case(name: str) -> dict[str, Any]:
    return OWN_CASES[name]
