"""Fuzz at the byte level: real-code cases (tests/realcode/cases) mutated as files arrive from disk, never an
exception out of check_data nor a logged error, for modules and for the notebooks built from them.

test_fuzz.py edits text an editor could type; here the bytes are damaged: truncations at a line or anywhere, byte
flips, a non-UTF-8 byte, a BOM, CRLF/CR mixes, tabs for spaces, a very long line, deep nesting, two files spliced,
a span deleted, and numbers past int()'s 4,300 digits (in a literal, a version string, a notebook's JSON), which
were internal errors. The seed is fixed, so a failure names an input that reproduces it.
"""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest

from hf_cache_lint.checking.files import check_data

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests" / "realcode" / "cases").glob("*.py"), key=lambda p: p.stat().st_size)[:24]
INPUTS = 250  # ~5 s on one core
HUGE = "9" * 5000
LINES = (f"x = {HUGE}\n", f'if version.parse(transformers.__version__) >= version.parse("4.{HUGE}"):\n    pass\n',
         f'if is_transformers_version(">=", "4.{HUGE}"):\n    pass\n', 'if int("\u00b2") > 4:\n    pass\n',
         f'if int("{HUGE}") > 4:\n    pass\n', "y = " + "(" * 3000 + "1" + ")" * 3000 + "\n",
         "z = " + " + ".join(["a"] * 5000) + "\n")


def mutate(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    kind = rng.randrange(12)
    if kind == 0:
        return b"\n".join(lines[:rng.randrange(len(lines) + 1)])
    if kind == 1:
        return data[:rng.randrange(len(data) + 1)]
    if kind == 2:
        flipped = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return bytes(flipped)
    if kind == 3:
        return b"\xef\xbb\xbf" + data
    if kind == 4:
        return b"".join(line + rng.choice((b"\n", b"\r\n", b"\r")) for line in lines)
    if kind == 5:
        return data.replace(b"    ", b"\t", rng.randrange(1, 50))
    if kind == 6:
        pos = rng.randrange(len(data) + 1)
        return data[:pos] + bytes([rng.randrange(128, 256)]) + data[pos:]
    if kind == 7:
        other = rng.choice(CASES).read_bytes()
        return data[:rng.randrange(len(data) + 1)] + other[rng.randrange(len(other) + 1):]
    if kind == 8:
        start = rng.randrange(len(data) + 1)
        return data[:start] + data[start + rng.randrange(200):]
    at = rng.randrange(len(lines) + 1)  # a statement of its own at a line start (indented or not: both happen)
    return b"\n".join([*lines[:at], rng.choice(LINES).encode(), *lines[at:]])


def notebook(rng: random.Random, text: str) -> bytes:
    chunks = [c for c in text.split("\n\n\n") if c.strip()]
    cells = []
    for chunk in chunks:
        kind = rng.choice(("code", "code", "code", "markdown", "raw"))
        source: object = chunk if rng.random() < 0.3 else chunk.splitlines(keepends=True)
        cells.append({"cell_type": kind, "metadata": {}, "source": source,
                      **({"execution_count": 0, "outputs": []} if kind == "code" else {})})
    doc = json.dumps({"cells": cells, "metadata": {"n": 0}, "nbformat": 4, "nbformat_minor": 5},
                     indent=rng.choice((None, 1)))
    if rng.random() < 0.3:
        doc = doc.replace('"n": 0', f'"n": {HUGE}').replace('"execution_count": 0', f'"execution_count": -{HUGE}')
    if rng.random() < 0.1:
        doc = doc[:rng.randrange(len(doc))]
    return doc.encode()


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


@pytest.mark.parametrize("suffix", [".py", ".ipynb"])
def test_damaged_bytes_never_raise_nor_log_an_error(suffix: str) -> None:
    rng = random.Random(20261206 + len(suffix))
    errors = _Errors()
    logger = logging.getLogger("hf_cache_lint")
    logger.addHandler(errors)
    try:
        for i in range(INPUTS):
            case = rng.choice(CASES)
            data = case.read_bytes()
            for _ in range(rng.randrange(1, 3)):
                data = mutate(rng, data)
            if suffix == ".ipynb":
                data = notebook(rng, data.decode("utf-8", "replace"))
            result = check_data(data, Path(case.stem + suffix))
            assert not errors.seen, (i, case.name, errors.seen)
            assert result.error is None or "internal" not in result.error.message, (i, case.name, result.error)
    finally:
        logger.removeHandler(errors)
