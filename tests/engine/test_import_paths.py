"""nodes.import_paths: what an import statement binds and each name's path in one pass, the same as parso's
`get_defined_names()` with `get_path_for_name()` for each (the interpreter, the version guards and the cache
classes read imports through it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.syntax.nodes import Node, import_paths

ROOT = Path(__file__).resolve().parents[2]

WRITTEN = '''import a
import a.b.c
import a.b as ab, c, d.e as de
from m import x
from m import x as y, z
from m.n import (p, q as r,
                 s,)
from . import t
from .. import u as v
from .pkg.mod import w
from m import *
try:
    import torch.nn.functional as F
except ImportError:
    from m import (broken
def f():
    from transformers import __version__ as v, AutoModel
    import transformers as tf
from m import a as
import
from m import (a, b
'''


def imports(tree: Node) -> list[Node]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if node.type in ("import_name", "import_from"):
            out.append(node)
        stack.extend(getattr(node, "children", ()))
    return out


def parsos(node: Node) -> list[tuple[Node, list[Node]]]:
    return [(name, node.get_path_for_name(name)) for name in node.get_defined_names()]


def texts() -> list[str]:
    files = sorted((ROOT / "tests" / "data" / "corpus").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py")) \
        + sorted((ROOT / "server" / "hf_cache_lint" / "engine").rglob("*.py"))
    return [WRITTEN, *(f.read_text(encoding="utf-8") for f in files)]


@pytest.mark.parametrize("cut", [None, 0.5])
def test_import_paths_are_parsos_defined_names_and_their_paths(cut: float | None) -> None:
    seen = 0
    for text in texts():
        if cut is not None:
            text = text[: int(len(text) * cut)] + "\nfrom m import (a,\n"
        for node in imports(interp.parse(text)):
            try:
                expected = parsos(node)
            except Exception as exc:  # a broken import parso cannot read: import_paths fails alike
                with pytest.raises(type(exc)):
                    import_paths(node)
                continue
            got = import_paths(node)
            # The same leaves (parso's Name leaves compare by identity), in the same order.
            assert [(a, list(p)) for a, p in got] == [(a, list(p)) for a, p in expected], node.get_code()
            seen += 1
    assert seen > 250
