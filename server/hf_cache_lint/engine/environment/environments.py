"""Which transformers an environment has installed, found by reading its files: nothing is ever started.

An environment's interpreter is never run to ask it (issue 33: a venv's `.pth` files and `sitecustomize` run
at start-up even under `-I`, so starting a workspace's `.venv/bin/python` would run the workspace's code).
What the interpreter would answer is on disk: a venv's `pyvenv.cfg` (next to `bin/`, or `Scripts\\` on
Windows) names its base installation, and its `lib/python3.X/site-packages` (`Lib\\site-packages` on Windows)
holds one `transformers-<version>.dist-info` folder per installed release.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

# The site folders of an installation prefix, in the order Python searches them (POSIX, Debian, Windows).
_SITE_GLOBS = ("lib/python3*/site-packages", "lib64/python3*/site-packages", "lib/python3*/dist-packages",
               "lib/python3/dist-packages", "local/lib/python3*/dist-packages", "Lib/site-packages")
_DIST = "transformers-*.dist-info"
# A project's own environment folders, as uv, Poetry (in-project), PDM and `python -m venv` name them.
PROJECT_VENVS = (".venv", "venv", "env", ".env")


@dataclass(frozen=True)
class Installed:
    """A transformers found installed: its version and where (said to the user: "installed in .venv")."""

    version: str
    where: str


def _head(path: Path, limit: int = 65536) -> str | None:
    """The first `limit` bytes of a regular file (never a FIFO or a device: a workspace's `pyvenv.cfg` could be
    a link to /dev/zero), decoded; None when it is not one or cannot be read."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None


def pyvenv_cfg(prefix: Path) -> Mapping[str, str]:
    """The `key = value` lines of `prefix/pyvenv.cfg` ({} when it is not a venv or cannot be read)."""
    text = _head(prefix / "pyvenv.cfg")
    if text is None:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            out[key.strip().lower()] = value.strip()
    return out


def _python_dir_first(dirs: list[Path], version: str | None) -> list[Path]:
    """The site folders of the environment's own Python version first (a prefix may hold several)."""
    if not version:
        return dirs
    major_minor = "python" + ".".join(version.split(".")[:2])
    return sorted(dirs, key=lambda d: major_minor not in d.parts)


def site_dirs(prefix: Path) -> list[Path]:
    """The site-packages folders of an installation or venv prefix; a venv that includes the system site
    packages (pyvenv.cfg) adds its base installation's after its own."""
    cfg = pyvenv_cfg(prefix)
    own = _python_dir_first(sorted(dict.fromkeys(d for g in _SITE_GLOBS for d in prefix.glob(g) if d.is_dir())),
                            cfg.get("version_info") or cfg.get("version"))
    if cfg.get("include-system-site-packages", "").lower() == "true" and cfg.get("home"):
        home = Path(cfg["home"])  # the base interpreter's folder: <base>/bin, or <base> itself on Windows
        for base in (home.parent, home):
            if base != prefix:
                own += [d for g in _SITE_GLOBS for d in sorted(base.glob(g)) if d.is_dir() and d not in own]
    return own


def _dist_version(dist: Path) -> str | None:
    """The version a `transformers-*.dist-info` folder records: its METADATA's `Version:`, else its name."""
    head = _head(dist / "METADATA", 16384)  # the header comes first; never read the long README after it
    for line in (head or "").splitlines()[:64]:
        if line.lower().startswith("version:"):
            return line.split(":", 1)[1].strip() or None
        if not line.strip():
            break
    name = dist.name[len("transformers-"):-len(".dist-info")]
    return name or None


def in_site_dirs(dirs: list[Path]) -> str | None:
    for folder in dirs:
        for dist in sorted(folder.glob(_DIST)):
            if dist.is_dir():
                version = _dist_version(dist)
                if version:
                    return version
    return None


def in_prefix(prefix: Path) -> str | None:
    """The transformers version installed in the environment at `prefix` (a venv, conda env or installation)."""
    return in_site_dirs(site_dirs(prefix))


def prefix_of_interpreter(interpreter: Path) -> Path | None:
    """The environment an interpreter belongs to, from where it lies, not by running it: a venv's
    `<prefix>/bin/python` (`<prefix>\\Scripts\\python.exe`) has `<prefix>/pyvenv.cfg`; a base installation's
    `<prefix>/bin/python3.X` (Windows `<prefix>\\python.exe`) has `<prefix>/lib`. The path as given first
    (a venv's python is a symlink to its base interpreter), then the file it links to."""
    for path in dict.fromkeys((interpreter, Path(os.path.realpath(interpreter)))):
        folder = path.parent
        for prefix in (folder.parent, folder):  # bin/ or Scripts/ under the prefix; Windows' python.exe in it
            if (prefix / "pyvenv.cfg").is_file():
                return prefix
        for prefix in (folder.parent, folder):
            if (prefix / "lib").is_dir() or (prefix / "Lib").is_dir() or (prefix / "conda-meta").is_dir():
                return prefix
    return None


def _pyenv_shim(path: Path, environ: Mapping[str, str], cwd: Path) -> Path:
    """The interpreter a pyenv shim (`<root>/shims/python3`, a script) would run, as pyenv picks it: PYENV_VERSION,
    else the nearest `.python-version` at or above `cwd`, else `<root>/version` (the first name of each)."""
    root = path.parent.parent
    if path.parent.name != "shims" or not (root / "versions").is_dir():
        return path
    names = [environ.get("PYENV_VERSION", "")]
    names += [_head(folder / ".python-version", 4096) or "" for folder in (cwd, *cwd.parents)]
    names.append(_head(root / "version", 4096) or "")
    for text in names:
        name = text.split()[0] if text.split() else ""
        if name and name != "system" and "/" not in name and (root / "versions" / name / "bin" / path.name).exists():
            return root / "versions" / name / "bin" / path.name
    return path


def of_interpreter(interpreter: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The transformers version installed for `interpreter` (a path, or a name on PATH), read from files."""
    import shutil

    found = shutil.which(interpreter) or (interpreter if os.path.exists(interpreter) else None)
    if not found:
        return None
    path = _pyenv_shim(Path(found), os.environ if environ is None else environ, Path.cwd())
    prefix = prefix_of_interpreter(path)
    return in_prefix(prefix) if prefix is not None else None


def of_this_process() -> str | None:
    """The transformers installed where hf-cache-lint itself runs: the first `transformers-*.dist-info` on this
    process's own `sys.path`, where `importlib.metadata.version("transformers")` finds it too (read directly:
    importlib.metadata's import, ~50 ms with its email parser, would be most of a warm run's start-up)."""
    return in_site_dirs([Path(p) for p in sys.path if p and os.path.isdir(p)])


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix() or "."
        except ValueError:
            pass
    return str(path)


def project_venvs(root: Path) -> Iterator[Path]:
    for name in PROJECT_VENVS:
        if (root / name / "pyvenv.cfg").is_file():
            yield root / name


def find_installed(*, interpreter: str | None, environ: Mapping[str, str], root: Path | None,
                   own: bool = True) -> Installed | None:
    """The transformers the checked code will run with, from the most specific environment that has one:
    the analysed interpreter (--interpreter, the editor's), the active virtual environment (`VIRTUAL_ENV`),
    the active conda environment (`CONDA_PREFIX`), the project's own venv folder (`.venv`, `venv`, ...),
    then the environment hf-cache-lint itself runs in (`own`)."""
    if interpreter:
        version = of_interpreter(interpreter, environ)
        if version:
            return Installed(version, f"installed for {interpreter}")
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = environ.get(variable)
        if prefix:
            version = in_prefix(Path(prefix))
            if version:
                return Installed(version, f"installed in {variable}={prefix}")
    if root is not None:
        for venv in project_venvs(root):
            version = in_prefix(venv)
            if version:
                return Installed(version, f"installed in {_shown(venv, root)}")
    if own:
        version = of_this_process()
        if version:
            return Installed(version, "installed where hf-cache-lint runs")
    return None
