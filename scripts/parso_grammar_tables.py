"""Write server/hf_cache_lint/data/parso-<version>-grammar<NN>.json: parso's pgen tables for each Python grammar the
package supports (3.10 and later), so a process rebuilds them from the file instead of regenerating them from the
grammar text (engine/syntax/grammar_table.py).

    PYTHONPATH=server python3 scripts/parso_grammar_tables.py           # write the tables of the installed parso
    PYTHONPATH=server python3 scripts/parso_grammar_tables.py --check   # exit 1 when one is missing or stale

Run it with the parso release the package pins (grammar_table.CHECKED_PARSO). parso numbers a rule's states in an
order that changes between generations (it walks sets of NFA states), so a regenerated file differs byte for byte
while holding the same automaton: `--check` compares what a table was made from (parso's version, the grammar
text's sha256), and that it decodes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import parso
import parso.grammar

from hf_cache_lint.engine.syntax import grammar_table

VERSIONS = ("3.10", "3.11", "3.12", "3.13", "3.14")


def grammar_file(version: str) -> str:
    return f"grammar{version.replace('.', '')}.txt"


def grammar_text(version: str) -> str:
    return (Path(parso.grammar.__file__).parent / "python" / grammar_file(version)).read_text(encoding="utf-8")


def write() -> None:
    for version in VERSIONS:
        grammar = parso.load_grammar(version=version)  # type: ignore[attr-defined]
        assert grammar._hashed == hashlib.sha256(grammar_text(version).encode("utf-8")).hexdigest()
        path = grammar_table.table_path(grammar_file(version))
        path.write_text(json.dumps(grammar_table.encode(grammar._pgen_grammar, grammar._hashed),
                                   separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")


def check() -> int:
    bad = 0
    for version in VERSIONS:
        path = grammar_table.table_path(grammar_file(version))
        hashed = hashlib.sha256(grammar_text(version).encode("utf-8")).hexdigest()
        try:
            grammar_table.decode(json.loads(path.read_text(encoding="utf-8")), hashed)
        except Exception as exc:  # missing, stale (another parso or grammar text) or damaged
            print(f"{path.name}: {type(exc).__name__}: {exc}")
            bad += 1
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if parso.__version__ not in grammar_table.CHECKED_PARSO:
        print(f"parso {parso.__version__} is not one grammar_table.py was checked on", file=sys.stderr)
        return 2
    if args.check:
        return check()
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
