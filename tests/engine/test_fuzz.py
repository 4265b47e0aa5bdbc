"""Fuzz: mutated corpus, example and rule-example files never make the analysis fail.

Each input is a real file cut, with lines deleted, duplicated or re-indented, and tokens an editor passes
through inserted at random places (`return`, `yield`, a dotted keyword, a form feed, a cell magic, ...).
The seeds are fixed, so a failure names an input that reproduces it.
"""

from __future__ import annotations

import random
import traceback
from pathlib import Path

from hf_cache_lint.checking.notebooks import check_cells
from hf_cache_lint.checking.source import check_source
from hf_cache_lint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[2]
INPUTS = 3000  # ~10 s on one core
NOTEBOOK_INPUTS = 300
TOKENS = ("return", "return x", "yield", "yield from g", "(", ")", ":", "=", ",", "**", "*", "def f(", "class C:",
          "if", "else:", "elif 1:", "lambda", "cfg.cache_implementation=", "\f", "\u2028", "\x1c", "\x0b", "\t",
          "    ", "\\", "'", '"""', "#", "%time ", "!pip install x", "%%writefile a.py\n", "await", "async ", "@",
          "[", "]", "{", "}", ".", "1", "-1.5", "0x1", "1j", "1e", "None", "past_key_values=", "cache=",
          "cache_implementation='statc'", "generate(", "model.generate", ".generate(**", "pipeline(", "with", "for",
          "while True:", "while 0:", "try:", "except", "finally:", "global x", "nonlocal x", "del", "import",
          "from", "not", "and", "or", ":=", "->", "...", ";", "\n", "\r", "\r\n", "match x:", "case _:", "f'{",
          "GenerationConfig(", "DynamicCache()", "**kw", "print(", "super().", "self.", "__init__")


def sources() -> list[str]:
    found = [ex.code for rule in ALL_RULES for ex in (*rule.valid, *rule.invalid)]
    for folder in (ROOT / "examples", ROOT / "tests" / "data" / "corpus"):
        found += [p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.py"))]
    return found


def mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    kind = rng.randrange(6)
    if kind == 0:
        return text[: rng.randrange(len(text) + 1)]
    if kind == 1 and lines:
        del lines[rng.randrange(len(lines))]
    elif kind == 2 and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind in (3, 4):
        pos = rng.randrange(len(text) + 1)
        return text[:pos] + rng.choice(TOKENS) + text[pos:]
    else:
        for _ in range(rng.randrange(1, 4)):
            if lines:
                i = rng.randrange(len(lines))
                lines[i] = lines[i].lstrip() if rng.random() < 0.5 else "  " + lines[i]
    return "\n".join(lines)


def mutated(seed: int, count: int, pool: list[str]) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(pool)
        for _ in range(rng.randrange(1, 4)):
            text = mutate(rng, text)
        out.append(text)
    return out


def failure(text: str, exc: BaseException | None, message: str | None) -> str:
    what = "".join(traceback.format_exception(exc)) if exc else message
    return f"{what}\n--- input ---\n{text}"


def test_mutated_files_never_give_an_internal_error(tmp_path: Path) -> None:
    pool = sources()
    assert len(pool) > 100
    inputs = mutated(0, INPUTS, pool)
    failures = []
    for text in inputs:
        try:
            result = check_source(text, str(tmp_path / "fuzz.py"))
        except Exception as exc:  # counting every kind is the point
            failures.append(failure(text, exc, None))
            continue
        if result.error is not None:
            failures.append(failure(text, None, result.error.message))
    assert len(inputs) == INPUTS
    assert failures == [], f"{len(failures)} of {len(inputs)} inputs failed; first:\n{failures[0]}"


def test_mutated_notebook_cells_never_give_an_internal_error() -> None:
    pool = sources()
    rng = random.Random(1)
    failures = []
    for cells_seed in range(NOTEBOOK_INPUTS):
        cells = mutated(cells_seed, rng.randrange(1, 5), pool)
        cells = [rng.choice(("%%bash\n", "%time ", "!ls\n", "%%capture\n", "", "")) + c for c in cells]
        try:
            check_cells(cells, "fuzz.ipynb")
        except Exception as exc:
            failures.append(failure("\n# %% cell\n".join(cells), exc, None))
    assert failures == [], f"{len(failures)} of {NOTEBOOK_INPUTS} notebooks failed; first:\n{failures[0]}"
