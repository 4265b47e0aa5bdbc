"""The workspace's own modules, found and glanced at without analysing them: the file an import names (`resolve`),
and whether it can export a value worth analysing (`might_export_facts`, `assigns`). The screen's gate asks these
before any parse; the interpreter's imports (engine/interpreter/modules.py: a module's exports) ask them too.

Only files inside the workspace (or the importing file's folder, or an extraPaths root) are read, symlinks
resolved (engine/environment/confine.py), and read as engine/environment/reads.py reads (regular files up to MAX_MODULE_BYTES, never a
FIFO or a device); nothing is executed.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path

from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.environment.confine import inside
from hf_cache_lint.engine.environment.reads import read_bounded

MAX_MODULE_BYTES = 2 * 1024 * 1024
# A module whose text has none of these cannot export a model, config, cache or kwargs fact worth a parse.
# Words, not calls: `pipeline (` and `DynamicCache (` are calls too (what the tokenizer skips never hides one).
FACT_WORDS = ("from_pretrained", "generation_config", "cache_implementation", "GenerationConfig", "pipeline",
              "Cache", "_key_values")
SKIP_ROOTS = frozenset(sys.stdlib_module_names) | {
    "transformers", "torch", "unsloth", "peft", "vllm", "mamba_ssm", "numpy", "fastapi", "flask",
    "accelerate", "datasets", "tokenizers", "huggingface_hub", "optimum", "trl",
}


_TOP_ASSIGN = re.compile(r"^\f*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=\n]*)?=(?!=)", re.M)


def resolve(module: str, level: int, importer: Path | None, roots: tuple[Path, ...]) -> Path | None:
    """The workspace file for `from <level dots><module> import ...`, if there is one."""
    parts = [p for p in module.split(".") if p]
    if level == 0 and (not parts or parts[0] in SKIP_ROOTS):
        return None
    if level > 0:
        if importer is None:
            return None
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        bases: tuple[Path, ...] = (base,)
    else:
        bases = roots
    for base in bases:
        candidate = base.joinpath(*parts) if parts else base
        for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            deps.note(path)
            # Only a file inside the roots: not a symlink out of the workspace, not `from ... import`
            # climbing above it.
            if path.is_file() and inside(path, roots):
                return path
    return None


@lru_cache(maxsize=4096)
def _top_level_names(path: str, mtime_ns: int) -> frozenset[str]:
    """Names a module assigns at its top level (`name = ...`, `name: T = ...`, `a, b = ...`)."""
    data = read_bounded(path, MAX_MODULE_BYTES)
    if data is None:
        return frozenset()
    text = data.decode("utf-8", errors="replace")
    names: set[str] = set()
    for m in _TOP_ASSIGN.finditer(text):
        names.update(n.strip() for n in m.group(1).split(","))
    return frozenset(names)


@lru_cache(maxsize=4096)
def _has_fact_words(path: str, mtime_ns: int, size: int) -> bool:
    data = read_bounded(path, MAX_MODULE_BYTES)
    if data is None:
        return False
    text = data.decode("utf-8", errors="replace")
    return any(w in text for w in FACT_WORDS)


def might_export_facts(path: Path) -> bool:
    """False when `exports(path)` would be empty for sure (no FACT_WORDS, or too large to analyse)."""
    deps.note(path)
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_size <= MAX_MODULE_BYTES and _has_fact_words(str(path), st.st_mtime_ns, st.st_size)


# `class Name(... SomethingCache ...):` at the top level: maybe the project's own subclass of a transformers cache
# class (whose inherited members are transformers'), worth analysing (engine/interpreter/imports.py).
_TOP_CACHE_CLASS = re.compile(r"^class[ \t]+(\w+)[ \t]*\(([^)]*\w*Cache\b[^)]*)\)", re.MULTILINE)


@lru_cache(maxsize=256)
def _cache_classes(path: str, mtime_ns: int) -> frozenset[str]:
    data = read_bounded(path, MAX_MODULE_BYTES)
    if data is None:
        return frozenset()
    return frozenset(m.group(1) for m in _TOP_CACHE_CLASS.finditer(data.decode("utf-8", errors="replace")))


def cache_class(path: Path, name: str) -> bool:
    """Whether `name` is a top-level class of the module with a base named like a cache class (`...Cache`)."""
    deps.note(path)
    try:
        return name in _cache_classes(str(path), path.stat().st_mtime_ns)
    except OSError:
        return False


def assigns(path: Path, name: str) -> bool:
    """Whether `name` can hold a value worth importing: classes, functions and re-exports cannot."""
    deps.note(path)
    try:
        return name in _top_level_names(str(path), path.stat().st_mtime_ns)
    except OSError:
        return False
