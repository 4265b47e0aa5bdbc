"""Scaffold a rule package, and optionally the fact kind it reads (CONTRIBUTING.md "Adding a rule").

    python3 scripts/add_rule.py HFC008 my-rule                       # reads the generate_call kind
    python3 scripts/add_rule.py HFC008 my-rule --reads ci_value,generate_call
    python3 scripts/add_rule.py HFC008 my-rule --new-fact cache_crop # also engine/facts/cache_crop.py

Creates server/hf_cache_lint/rules/hfc008_my_rule/ (__init__.py, docs.md, examples.py, valid.py) and, with
--new-fact, the fact kind's module. What it writes is a skeleton: the tests fail until it is filled in (no example
yet, the docs' sections empty, the README row and docs page missing, a new kind recorded nowhere), and each
failure says what is missing. Refuses to overwrite anything.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "server" / "hf_cache_lint" / "rules"
FACTS = ROOT / "server" / "hf_cache_lint" / "engine" / "facts"

_INIT = '''"""{code} {name}: TODO one line on what it finds."""

from __future__ import annotations

from collections.abc import Iterable

from hf_cache_lint.engine.base.findings import Finding, Severity
{kind_imports}
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.{package}.examples import INVALID
from hf_cache_lint.rules.{package}.valid import VALID


class {cls}(Rule):
    code = "{code}"
    name = "{name}"
    summary = "TODO: one sentence, what the rule finds."
    default_severity = Severity.ERROR
    reads = frozenset({{{kinds}}})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target  # the transformers version the code will run on
        for fact in analysis.of({first}):  # the facts of a kind this rule declares in `reads`
            if target is None or fact is None:  # TODO: the condition under which transformers raises
                continue
            yield self.report(fact.span, f"TODO: what transformers {{target}} raises",
                              fixes=(self.ignore_fix(analysis, fact.span),))
'''

_DOCS = """## What it does

TODO

## Why is this bad?

TODO

## Example

TODO

## Use instead

TODO

## Fix safety

TODO

## Versions

TODO
"""

_EXAMPLES = '''"""{code} examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid

INVALID: tuple[Invalid, ...] = ()  # TODO: at least one (CONTRIBUTING.md "Adding a rule", step 2)
'''

_VALID = '''"""{code} examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid

VALID: tuple[Valid, ...] = ()  # TODO: at least one, and the near misses
'''

_FACT = '''"""The fact kind `{kind}`: TODO what it records, and which part of engine/interpreter/ records it (the "Code shape"
table of docs/architecture.md says which part sees a shape)."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class {cls}:
    """TODO: one fact of this kind."""

    span: Span


# triggers: the words without one of which no such fact can be in a text (the screen's first stage);
# parse_names: the compiled names of which one must be in a module for it to hold one (the gate).
KIND: FactKind[{cls}] = FactKind("{kind}", {cls}, triggers=(), parse_names=frozenset())
'''


def _camel(words: str) -> str:
    return "".join(w.capitalize() for w in re.split(r"[-_]", words))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("code", help="HFC008: the next free code")
    parser.add_argument("name", help="kebab-case: what is wrong")
    parser.add_argument("--reads", default="", help="comma-separated fact kinds the rule reads (engine/facts)")
    parser.add_argument("--new-fact", default="", help="also scaffold this new fact kind (snake_case)")
    args = parser.parse_args(argv)
    code, name = args.code.upper(), args.name
    if not re.fullmatch(r"HFC\d{3}", code) or not re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", name):
        parser.error("the code is HFC and three digits, the name kebab-case")
    package = f"{code.lower()}_{name.replace('-', '_')}"
    kinds = [k for k in args.reads.split(",") if k] or ([] if args.new_fact else ["generate_call"])
    if args.new_fact:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", args.new_fact):
            parser.error("a fact kind is snake_case")
        kinds.append(args.new_fact)
    known = {p.stem for p in FACTS.glob("*.py") if p.stem != "__init__"} | {args.new_fact}
    unknown = [k for k in kinds if k not in known]
    if unknown:
        parser.error(f"no fact kind {', '.join(unknown)} in engine/facts (known: {', '.join(sorted(known - {''}))})")
    targets = {RULES / package / "__init__.py": _INIT, RULES / package / "docs.md": _DOCS,
               RULES / package / "examples.py": _EXAMPLES, RULES / package / "valid.py": _VALID}
    if args.new_fact:
        targets[FACTS / f"{args.new_fact}.py"] = _FACT
    existing = [p for p in targets if p.exists()]
    if existing or any(p.name.startswith(code.lower() + "_") for p in RULES.iterdir()):
        print(f"refusing: {existing or code + ' is taken'}", file=sys.stderr)
        return 1
    aliases = {k: k.upper() for k in kinds}
    fields = {"code": code, "name": name, "package": package, "cls": _camel(name),
              "kind_imports": "\n".join(f"from hf_cache_lint.engine.facts.{k} import KIND as {aliases[k]}"
                                        for k in sorted(kinds)),
              "kinds": ", ".join(aliases[k] for k in kinds), "first": aliases[kinds[-1]],
              "kind": args.new_fact, }
    for path, template in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        text = template.format(**{**fields, "cls": _camel(args.new_fact) if path.parent == FACTS else fields["cls"]})
        path.write_text(text)
        print(f"created {path.relative_to(ROOT)}")
    print("next: fill in the TODOs, then CONTRIBUTING.md steps 3-6 (the tests say what is missing)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
