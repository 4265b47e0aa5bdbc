"""The transformers release(s) a project declares, read statically from its files (never run, never imported).

In order: a lock file's exact pin (uv.lock, poetry.lock, pylock.toml: what an install of the project gets), then
the declared requirement of pyproject.toml (`[project]` dependencies, then its optional groups and PEP 735
dependency groups; Poetry, PDM and uv tables), setup.cfg, setup.py (its `ast`, read for literal lists) and
requirements*.txt. Requirements are parsed with `packaging` (PEP 508); Poetry's `^`/`~` constraints are
translated to PEP 440 first.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ast

    from packaging.specifiers import SpecifierSet

# packaging, ast, configparser and tomllib are imported where a project file is read: most runs read none (a setting or
# an installed transformers decides first), and their imports would be a fifth of a warm run's start-up.

log = logging.getLogger("hf_cache_lint")

NAME = "transformers"
MAX_BYTES = 4 * 1024 * 1024  # a project file bigger than this is not read (lock files of big projects are ~1 MB)
LOCKS = ("uv.lock", "poetry.lock", "pylock.toml")
MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "requirements.txt", *LOCKS)


@dataclass(frozen=True)
class Declared:
    """A project's requirement on transformers: the PEP 440 specifier and the file (and table) it is in."""

    specifier: SpecifierSet
    where: str

    @property
    def text(self) -> str:
        """`transformers>=4.45,<6` as the user would write it (specifiers sorted by packaging)."""
        return f"{NAME}{self.specifier}"


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _toml(path: Path) -> Mapping[str, Any] | None:
    text = _read(path)
    if text is None:
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        log.debug("%s: not read for the transformers requirement: %s", path, exc)
        return None


def _is_ours(name: object) -> bool:
    """`Transformers`, `transformers` ...: names compared normalised (PEP 503, packaging's canonicalize_name)."""
    return isinstance(name, str) and re.sub(r"[-_.]+", "-", name).lower() == NAME


def _absurd(text: str) -> bool:
    """A version number of more than 64 digits: no release has one, and past 4,300 digits packaging's int() raises a
    ValueError that is no InvalidVersion (the run stopped with an internal error): the requirement is unreadable."""
    return re.search(r"\d{65}", text) is not None


def specifier_of(requirement: str) -> SpecifierSet | None:
    """The specifier of a PEP 508 requirement on transformers (None for other packages and unreadable lines);
    an environment marker that is false here (`python_version < '3.9'`) drops it."""
    if NAME not in requirement.lower():  # most lines name other packages: no parse (nor packaging's import)
        return None
    if _absurd(requirement):
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(requirement)
    except InvalidRequirement:
        return None
    if not _is_ours(req.name) or req.url:
        return None
    if req.marker is not None:
        try:
            if not req.marker.evaluate({"extra": ""}):
                return None
        except Exception:  # an unknown marker variable: keep the requirement
            pass
    return req.specifier


def _first(requirements: Iterable[object]) -> SpecifierSet | None:
    for item in requirements:
        if isinstance(item, str):
            spec = specifier_of(item)
            if spec is not None:
                return spec
    return None


# --- Poetry: `^`, `~`, bare versions and space-separated constraints, to PEP 440 -----------------------------

def _bump(parts: list[int], at: int) -> str:
    upper = [*parts[:at], parts[at] + 1]
    return ".".join(map(str, upper))


def poetry_specifier(constraint: str) -> SpecifierSet | None:
    """Poetry's constraint syntax as a PEP 440 specifier (`^4.45` -> `>=4.45,<5`; `~4.45` -> `>=4.45,<4.46`;
    `4.45.0` -> `==4.45.0`; `*` -> any). `||` alternatives are not representable: None."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    if _absurd(constraint):
        return None
    text = constraint.strip()
    if not text or "||" in text or "|" in text:
        return None if text else SpecifierSet()
    out: list[str] = []
    for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", text):
        part = part.strip()
        if part in ("*", ""):
            continue
        m = re.fullmatch(r"([\^~])\s*(\d+(?:\.\d+)*)(?:\.\*)?", part)
        if m and not part.startswith("~="):
            parts = [int(p) for p in m[2].split(".")]
            if m[1] == "^":
                first = next((i for i, p in enumerate(parts) if p != 0), len(parts) - 1)
                out += [f">={m[2]}", f"<{_bump(parts, first)}"]
            else:
                out += [f">={m[2]}", f"<{_bump(parts, 1 if len(parts) > 1 else 0)}"]
        elif re.fullmatch(r"\d+(?:\.\d+)*(?:\.\*)?", part):
            out.append(f"=={part}")
        else:
            out.append(part)
    try:
        return SpecifierSet(",".join(out))
    except InvalidSpecifier:
        return None


def _poetry_entry(value: object) -> SpecifierSet | None:
    if isinstance(value, str):
        return poetry_specifier(value)
    if isinstance(value, dict) and isinstance(value.get("version"), str):
        return poetry_specifier(value["version"])
    if isinstance(value, list):  # multiple-constraint form: the first that applies here
        for item in value:
            spec = _poetry_entry(item)
            if spec is not None:
                return spec
    return None


def _poetry_table(table: object) -> SpecifierSet | None:
    if not isinstance(table, dict):
        return None
    for name, value in table.items():
        if _is_ours(name):
            return _poetry_entry(value)
    return None


# --- the files ------------------------------------------------------------------------------------------------

def _groups(table: object) -> Iterator[tuple[str, list[object]]]:
    if isinstance(table, dict):
        for name, items in table.items():
            if isinstance(items, list):
                yield str(name), items


def from_pyproject(doc: Mapping[str, Any]) -> tuple[SpecifierSet, str] | None:
    """(specifier, table) of the first table of pyproject.toml that requires transformers."""
    def get(*keys: str) -> object:
        node: object = doc
        for k in keys:
            node = node.get(k) if isinstance(node, dict) else None
        return node

    project = get("project", "dependencies")
    if isinstance(project, list) and (spec := _first(project)) is not None:
        return spec, "[project] dependencies"
    for group, items in _groups(get("project", "optional-dependencies")):
        if (spec := _first(items)) is not None:
            return spec, f"[project.optional-dependencies] {group}"
    poetry = get("tool", "poetry")
    if (spec := _poetry_table(get("tool", "poetry", "dependencies"))) is not None:
        return spec, "[tool.poetry.dependencies]"
    groups = poetry.get("group") if isinstance(poetry, dict) else None
    for group, table in (groups.items() if isinstance(groups, dict) else ()):
        if isinstance(table, dict) and (spec := _poetry_table(table.get("dependencies"))) is not None:
            return spec, f"[tool.poetry.group.{group}.dependencies]"
    if (spec := _poetry_table(get("tool", "poetry", "dev-dependencies"))) is not None:
        return spec, "[tool.poetry.dev-dependencies]"
    for where, table in (("[dependency-groups]", get("dependency-groups")),
                         ("[tool.pdm.dev-dependencies]", get("tool", "pdm", "dev-dependencies"))):
        for group, items in _groups(table):
            if (spec := _first(items)) is not None:
                return spec, f"{where} {group}"
    for key in ("dev-dependencies", "constraint-dependencies", "override-dependencies"):
        uv = get("tool", "uv", key)
        if isinstance(uv, list) and (spec := _first(uv)) is not None:
            return spec, f"[tool.uv] {key}"
    return None


def _lines(text: str) -> list[str]:
    """A requirements-style list: comments and options dropped, `\\` continuations joined."""
    out: list[str] = []
    for raw in text.replace("\\\n", " ").splitlines():
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        if line and not line.startswith("-"):
            out.append(line)
    return out


def from_requirements_txt(text: str) -> SpecifierSet | None:
    return _first(_lines(text))


def from_setup_cfg(text: str) -> tuple[SpecifierSet, str] | None:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if parser.has_option("options", "install_requires"):
        spec = _first(_lines(parser.get("options", "install_requires")))
        if spec is not None:
            return spec, "[options] install_requires"
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            spec = _first(_lines(value))
            if spec is not None:
                return spec, f"[options.extras_require] {extra}"
    return None


def _literal_strings(node: ast.AST | None, names: Mapping[str, ast.AST]) -> list[str]:
    """A list/tuple of string literals, through a module-level name (`install_requires=REQUIRED`) and `+`."""
    import ast

    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_strings(node.left, names) + _literal_strings(node.right, names)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def from_setup_py(text: str) -> tuple[SpecifierSet, str] | None:
    """`setup(install_requires=[...], extras_require={...})` read from the syntax tree, never run."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            names[stmt.targets[0].id] = stmt.value
    extras: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "install_requires":
                spec = _first(_literal_strings(kw.value, names))
                if spec is not None:
                    return spec, "install_requires"
            elif kw.arg == "extras_require":
                value = names.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
                if isinstance(value, ast.Dict):
                    extras += [(k.value, v) for k, v in zip(value.keys, value.values, strict=True)
                               if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    for extra, value in extras:
        spec = _first(_literal_strings(value, names))
        if spec is not None:
            return spec, f"extras_require {extra}"
    return None


def locked_version(name: str, doc: Mapping[str, Any]) -> str | None:
    """The version a uv.lock / poetry.lock (`[[package]]`) or pylock.toml (`[[packages]]`) pins transformers to."""
    for key in ("package", "packages"):
        items = doc.get(key)
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and _is_ours(item.get("name")) and isinstance(item.get("version"), str):
                return str(item["version"])
    return None


def _pinned(version: str) -> SpecifierSet | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(f"=={version}")
    except InvalidSpecifier:
        return None


def _locks(root: Path) -> Iterator[Path]:
    yield from (root / name for name in LOCKS)
    yield from sorted(root.glob("pylock.*.toml"))


def _requirement_files(root: Path) -> list[Path]:
    files = sorted(root.glob("requirements*.txt")) + sorted(root.glob("requirements/*.txt"))
    return sorted(files, key=lambda p: p.name != "requirements.txt")  # the main one first


def declared(root: Path) -> Declared | None:
    """The project's requirement on transformers, from the first of its files that states one."""
    for lock in _locks(root):
        doc = _toml(lock)
        version = locked_version(NAME, doc) if doc is not None else None
        spec = _pinned(version) if version else None
        if spec is not None:
            return Declared(spec, lock.name)
    doc = _toml(root / "pyproject.toml")
    if doc is not None and (found := from_pyproject(doc)) is not None:
        return Declared(found[0], f"pyproject.toml {found[1]}")
    readers: tuple[tuple[str, Callable[[str], tuple[SpecifierSet, str] | None]], ...] = (
        ("setup.cfg", from_setup_cfg), ("setup.py", from_setup_py))
    for name, reader in readers:
        text = _read(root / name)
        if text is not None and (found := reader(text)) is not None:
            return Declared(found[0], f"{name} {found[1]}")
    for path in _requirement_files(root):
        text = _read(path)
        if text is not None and (spec := from_requirements_txt(text)) is not None:
            return Declared(spec, path.relative_to(root).as_posix())
    return None


def project_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds a project file (pyproject.toml, setup.py, a lock, a
    requirements.txt, a venv); the search stops at a repository's top (`.git`)."""
    here = start if start.is_dir() else start.parent
    here = Path(here).absolute()
    for folder in (here, *here.parents):
        if any((folder / m).is_file() for m in MARKERS) or any(
                (folder / v / "pyvenv.cfg").is_file() for v in (".venv", "venv")):
            return folder
        if (folder / ".git").exists():
            return None
    return None
