"""The import directions allowed between hf_cache_lint's packages and top-level modules (docs/architecture.md,
"Layers"): lower layers never import higher ones, whether at module level, inside a function (the lazy
imports), under `if TYPE_CHECKING:`, relatively, or through `importlib.import_module("hf_cache_lint...")`.

Inside the engine, the same for its stages (docs/architecture.md, "Stages"; engine/__init__.py): each module
lives in a stage folder whose `__init__` maps it, and a stage imports only the stages `STAGES` allows.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "server" / "hf_cache_lint"

# Layer -> the layers it may import (besides itself), bottom up. A layer is a subpackage (engine, rules,
# checking, cli_support, lsp), a top-level module (settings, pyproject, ...), or the package's own __init__
# ("hf_cache_lint": the version). A new subpackage or top-level module must be added here, with its place.
ALLOWED: dict[str, frozenset[str]] = {
    "hf_cache_lint": frozenset(),
    "class_code": frozenset(),
    "engine": frozenset(),
    "rules": frozenset({"engine"}),
    "settings": frozenset({"engine"}),
    "upgrade_diff": frozenset({"engine"}),
    "pyproject": frozenset({"engine", "settings"}),
    "selection": frozenset({"settings"}),
    "checking": frozenset({"engine", "rules", "settings"}),
    "fixcheck": frozenset({"engine", "settings", "checking"}),
    "cli_support": frozenset({"hf_cache_lint", "engine", "rules", "settings", "upgrade_diff", "pyproject", "checking",
                              "fixcheck", "selection"}),
    "lsp": frozenset({"hf_cache_lint", "class_code", "engine", "settings", "upgrade_diff", "pyproject", "checking",
                      "fixcheck", "selection"}),
    "cli": frozenset({"hf_cache_lint", "class_code", "rules", "pyproject", "cli_support", "lsp"}),
    "__main__": frozenset({"cli"}),
}

# Third-party packages only one layer may import: the protocol stays in the adapter.
ONLY_IN = {"pygls": "lsp", "lsprotocol": "lsp"}


def _module(rel: str) -> tuple[list[str], bool]:
    """`engine/screen/gate.py` -> (["hf_cache_lint", "engine", "screen", "gate"], False); `__init__.py` files are packages."""
    parts = ["hf_cache_lint", *Path(rel).with_suffix("").parts]
    if parts[-1] == "__init__":
        return parts[:-1], True
    return parts, False


def _layer(parts: list[str]) -> str:
    return parts[1] if len(parts) > 1 else "hf_cache_lint"


def _submodule(name: str, sub: str) -> bool:
    """Whether `from <name> import <sub>` imports a subpackage or module (`from hf_cache_lint import lsp`,
    `from hf_cache_lint.engine import screen`), not a name defined in <name>."""
    folder = PKG.joinpath(*name.split(".")[1:])
    return name.split(".")[0] == "hf_cache_lint" and ((folder / sub).is_dir() or (folder / f"{sub}.py").is_file())


def _type_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under `if TYPE_CHECKING:` (imports for the type checker only: they load nothing)."""
    return {id(child) for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for stmt in node.body for child in ast.walk(stmt)}


def _imported(tree: ast.AST, module: list[str], is_package: bool) -> Iterator[tuple[int, str, bool]]:
    """(line, dotted module, only under `if TYPE_CHECKING:`) for every import anywhere in the tree."""
    type_only = _type_only(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, id(node) in type_only
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's own package, one level up per extra dot
                package = module if is_package else module[:-1]
                base = package[:len(package) - (node.level - 1)]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            # `from hf_cache_lint import lsp` imports the subpackage lsp (one line per module imported)
            for imported in dict.fromkeys(f"{name}.{a.name}" if _submodule(name, a.name) else name for a in node.names):
                yield node.lineno, imported, id(node) in type_only
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            yield node.lineno, node.args[0].value, False


def violations(files: Mapping[str, str]) -> list[str]:
    """`path inside hf_cache_lint/ -> source`: one line for each import against ALLOWED or ONLY_IN."""
    out = []
    for rel, source in sorted(files.items()):
        module, is_package = _module(rel)
        layer = _layer(module)
        if layer not in ALLOWED:
            out.append(f"{rel}: layer {layer!r} is not in ALLOWED (add it with the layers it may import)")
            continue
        for line, name, _ in _imported(ast.parse(source, rel), module, is_package):
            top = name.split(".")[0]
            if top in ONLY_IN and layer != ONLY_IN[top]:
                out.append(f"{rel}:{line}: {layer} imports {name} (only {ONLY_IN[top]} may)")
            if top != "hf_cache_lint":
                continue
            target = _layer(name.split("."))
            if target == layer:
                continue
            if target not in ALLOWED:
                out.append(f"{rel}:{line}: imports {name}, whose layer {target!r} is not in ALLOWED")
            elif target not in ALLOWED[layer]:
                allowed = ", ".join(sorted(ALLOWED[layer]))
                out.append(f"{rel}:{line}: {layer} imports {name} (" + (
                    f"{layer} may import only {allowed})" if allowed else f"{layer} imports nothing of hf_cache_lint)"))
    return out


def package_files() -> dict[str, str]:
    return {p.relative_to(PKG).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PKG.rglob("*.py"))}


def test_every_import_follows_the_allowed_directions() -> None:
    assert violations(package_files()) == []


def test_the_table_names_exactly_the_package_s_layers() -> None:
    """A layer removed or renamed leaves no stale row (each row is a real subpackage or top-level module)."""
    real = {"hf_cache_lint"} | {p.name for p in PKG.iterdir() if p.is_dir() and any(p.glob("*.py"))} | {
        p.stem for p in PKG.glob("*.py") if p.name != "__init__.py"}
    assert set(ALLOWED) == real


def test_the_allowed_directions_have_no_cycle() -> None:
    """A layering: every layer can be placed above all it may import (so nothing imports itself back)."""
    placed: list[str] = []
    left = dict(ALLOWED)
    while left:
        ready = [name for name, deps in left.items() if deps <= set(placed)]
        assert ready, f"a cycle among {sorted(left)}"
        placed += ready
        for name in ready:
            del left[name]


@pytest.mark.parametrize(("rel", "source", "expected"), [
    ("engine/x.py", "def f():\n    from hf_cache_lint.rules import ALL_RULES\n",
     "engine/x.py:2: engine imports hf_cache_lint.rules"),
    ("engine/x.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hf_cache_lint.settings import Settings\n",
     "engine/x.py:3: engine imports hf_cache_lint.settings"),
    ("engine/sub/__init__.py", "from ...checking import source\n", "engine/sub/__init__.py:1: engine imports hf_cache_lint.checking"),
    ("engine/x.py", "from . import hover\nfrom .. import lsp\n", "engine/x.py:2: engine imports hf_cache_lint.lsp"),
    ("rules/x.py", "import importlib\nimportlib.import_module('hf_cache_lint.checking.source')\n",
     "rules/x.py:2: rules imports hf_cache_lint.checking.source"),
    ("lsp/x.py", "from hf_cache_lint.cli_support.config import load_config\n", "lsp/x.py:1: lsp imports hf_cache_lint.cli_support"),
    ("lsp/x.py", "import hf_cache_lint.rules\n", "lsp/x.py:1: lsp imports hf_cache_lint.rules"),
    ("cli_support/x.py", "from hf_cache_lint import lsp\n", "cli_support/x.py:1: cli_support imports hf_cache_lint.lsp"),
    ("settings.py", "from hf_cache_lint import rules\n", "settings.py:1: settings imports hf_cache_lint.rules"),
    ("checking/x.py", "def f():\n    import pygls.server\n", "checking/x.py:2: checking imports pygls.server (only lsp may)"),
    ("extras.py", "import os\n", "extras.py: layer 'extras' is not in ALLOWED"),
])
def test_a_violation_is_reported(rel: str, source: str, expected: str) -> None:
    found = violations({rel: source})
    assert len(found) == 1 and found[0].startswith(expected), found


@pytest.mark.parametrize(("rel", "source"), [
    ("engine/x.py", "from hf_cache_lint.engine.base.findings import Finding\nfrom . import hover\n"),
    ("rules/x.py", "def f():\n    from hf_cache_lint.engine import interp\n"),
    ("checking/x.py", "from hf_cache_lint.rules import ALL_RULES\nfrom hf_cache_lint.settings import Settings\n"),
    ("lsp/x.py", "import pygls\nfrom hf_cache_lint import __version__\nfrom hf_cache_lint.checking.rule_docs import rule_docs\n"),
    ("cli.py", "from hf_cache_lint import __version__\nfrom hf_cache_lint.lsp.server import start\n"),
])
def test_imports_the_table_allows_pass(rel: str, source: str) -> None:
    assert violations({rel: source}) == []


# The engine's stages (engine/<stage>/) -> the stages each may import (besides itself), bottom up. The order a check
# runs them (environment, text, screen, syntax, interpreter, facts, output) is not the import order: the screen is
# fed by the fact kinds and the cache keywords, so it sits above facts/ and output/, but it never imports syntax/
# (parso) or interpreter/; syntax/ imports only base/. A new stage must be added here, with its place.
STAGES: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "environment": frozenset({"base"}),
    "text": frozenset({"base", "environment"}),
    "syntax": frozenset({"base"}),
    "facts": frozenset({"base", "environment", "text"}),
    "output": frozenset({"base", "environment", "text", "facts"}),
    "screen": frozenset({"base", "environment", "text", "facts", "output"}),
    "interpreter": frozenset({"base", "environment", "text", "syntax", "facts", "output"}),
}
# Imports under `if TYPE_CHECKING:` load nothing; these name types only: a fact's dataclass annotates the parts it
# holds with their producers' types (engine/output/analysis.py's Site and Branch).
TYPE_ONLY: dict[str, frozenset[str]] = {"facts": frozenset({"output", "syntax"})}
# Stages whose `__init__` need not name each module: facts/ finds its kinds by listing itself (tests/engine/
# test_fact_kinds.py fails on a module without one KIND), and its map lists them as a table.
UNMAPPED = frozenset({"facts"})


def _stage(parts: list[str]) -> str | None:
    """`hf_cache_lint.engine.screen.gate` -> "screen"; None outside the engine or for the engine package itself."""
    return parts[2] if len(parts) > 2 and parts[:2] == ["hf_cache_lint", "engine"] else None


def stage_violations(files: Mapping[str, str]) -> list[str]:
    """`path inside hf_cache_lint/ -> source`: one line for each engine module outside a stage folder, and for each
    import of one stage by another that STAGES (or TYPE_ONLY, for a type-only import) does not allow."""
    out = []
    for rel, source in sorted(files.items()):
        module, is_package = _module(rel)
        if module[:2] != ["hf_cache_lint", "engine"] or module == ["hf_cache_lint", "engine"]:
            continue
        stage = _stage(module)
        if not is_package and len(module) == 3:
            out.append(f"{rel}: a module directly in engine/ (put it in the stage folder of its job)")
            continue
        if stage not in STAGES:
            out.append(f"{rel}: stage {stage!r} is not in STAGES (add it with the stages it may import)")
            continue
        for line, name, type_only in _imported(ast.parse(source, rel), module, is_package):
            target = _stage(name.split("."))
            if target is None or target == stage:
                continue
            if target not in STAGES:
                out.append(f"{rel}:{line}: imports {name}, whose stage {target!r} is not in STAGES")
            elif target not in STAGES[stage] and not (type_only and target in TYPE_ONLY.get(stage, frozenset())):
                allowed = ", ".join(sorted(STAGES[stage])) or "nothing"
                out.append(f"{rel}:{line}: stage {stage} imports {name} ({stage} may import {allowed})")
    return out


def test_every_engine_import_follows_the_stage_table() -> None:
    assert stage_violations(package_files()) == []


def test_the_stage_table_names_exactly_the_engine_s_stages() -> None:
    real = {p.name for p in (PKG / "engine").iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert set(STAGES) == real
    assert {p.name for p in (PKG / "engine").iterdir() if p.suffix == ".py"} == {"__init__.py"}


def test_the_stage_table_has_no_cycle() -> None:
    placed: list[str] = []
    left = dict(STAGES)
    while left:
        ready = [name for name, deps in left.items() if deps <= set(placed)]
        assert ready, f"a cycle among {sorted(left)}"
        placed += ready
        for name in ready:
            del left[name]


def test_the_screen_never_imports_the_parser_or_the_interpreter() -> None:
    """The screen decides before any parse: it must stay cheap to import and run (issue 28)."""
    assert not {"syntax", "interpreter"} & STAGES["screen"]
    assert STAGES["syntax"] == {"base"}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_each_stage_maps_its_modules(stage: str) -> None:
    """A stage's `__init__` docstring says what it does and names each of its modules (its map, in order)."""
    folder = PKG / "engine" / stage
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert doc, f"engine/{stage}/__init__.py has no map"
    if stage not in UNMAPPED:
        # `gate.py: ...`, or a part named with its class (`session.Session: ...`, engine/interpreter/__init__.py)
        missing = [p.name for p in sorted(folder.glob("*.py"))
                   if p.name != "__init__.py" and not re.search(rf"^- {p.stem}\.(py\b|[A-Z])", doc, re.M)]
        assert missing == [], f"engine/{stage}/__init__.py's map does not name {missing}"
    # ...and names no module that is gone (a removed shim's line would mislead the next reader)
    gone = [name for name in re.findall(r"^- (\w+)\.(?:py\b|[A-Z])", doc, re.M) if not (folder / f"{name}.py").is_file()]
    assert gone == [], f"engine/{stage}/__init__.py's map names modules that do not exist: {gone}"


@pytest.mark.parametrize(("rel", "source", "expected"), [
    ("engine/screen/x.py", "from hf_cache_lint.engine.interpreter.values import Ref\n",
     "engine/screen/x.py:1: stage screen imports hf_cache_lint.engine.interpreter.values"),
    ("engine/screen/x.py", "def f():\n    from hf_cache_lint.engine.syntax import nodes\n",
     "engine/screen/x.py:2: stage screen imports hf_cache_lint.engine.syntax.nodes"),
    ("engine/screen/x.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..interpreter import Interpreter\n",
     "engine/screen/x.py:3: stage screen imports hf_cache_lint.engine.interpreter"),
    ("engine/syntax/x.py", "from hf_cache_lint.engine import environment\n",
     "engine/syntax/x.py:1: stage syntax imports hf_cache_lint.engine.environment"),
    ("engine/facts/x.py", "from hf_cache_lint.engine.output.analysis import Site\n",
     "engine/facts/x.py:1: stage facts imports hf_cache_lint.engine.output.analysis"),
    ("engine/base/x.py", "import importlib\nimportlib.import_module('hf_cache_lint.engine.text.text')\n",
     "engine/base/x.py:2: stage base imports hf_cache_lint.engine.text.text"),
    ("engine/stray.py", "import os\n", "engine/stray.py: a module directly in engine/"),
    ("engine/extras/x.py", "import os\n", "engine/extras/x.py: stage 'extras' is not in STAGES"),
])
def test_a_stage_violation_is_reported(rel: str, source: str, expected: str) -> None:
    found = stage_violations({rel: source})
    assert len(found) == 1 and found[0].startswith(expected), found


@pytest.mark.parametrize(("rel", "source"), [
    ("engine/interpreter/x.py", "from hf_cache_lint.engine.syntax.nodes import Node\nfrom ..output import analysis\n"),
    ("engine/facts/x.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..output.analysis import Site\n"),
    ("engine/screen/x.py", "from hf_cache_lint.engine.facts import KINDS\nfrom . import gate\n"),
    ("checking/x.py", "from hf_cache_lint.engine.interpreter.interp import analyse\n"),
])
def test_imports_the_stage_table_allows_pass(rel: str, source: str) -> None:
    assert stage_violations({rel: source}) == []


def test_the_architecture_doc_lists_the_table() -> None:
    """docs/architecture.md's "Layers" block is this table, line for line (so the doc says what is enforced)."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer, deps in ALLOWED.items():
        line = f"    {layer:<14}-> {', '.join(d for d in ALLOWED if d in deps) or '(nothing)'}"
        assert line in doc.splitlines(), line


def test_the_architecture_doc_lists_the_stage_table() -> None:
    """docs/architecture.md's "Stages of the engine" block is the stage table, line for line."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for stage, deps in STAGES.items():
        line = f"    {stage:<14}-> {', '.join(d for d in STAGES if d in deps) or '(nothing)'}"
        assert line in doc.splitlines(), line
