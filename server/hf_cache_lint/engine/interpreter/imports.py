"""Workspace imports: `from mymodule import model` is a `Lazy` value until it matters; then the module is
analysed (engine/interpreter/modules.py) and the exported value copied into this analysis's heap (fresh ids, sites
marked with that module's path, its functions and classes left opaque)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hf_cache_lint.engine.environment import deps, workspace
from hf_cache_lint.engine.interpreter import modules
from hf_cache_lint.engine.interpreter.modules import Exports
from hf_cache_lint.engine.interpreter.session import Session
from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    ClassDef,
    ConfigState,
    Const,
    DictState,
    Function,
    HeapObj,
    Lazy,
    ListVal,
    ModelState,
    Output,
    PipelineState,
    Ref,
    Setting,
    Symbol,
    TupleVal,
    Unknown,
    Value,
    map_children,
)
from hf_cache_lint.engine.output.analysis import Site

# How many workspace modules one check may analyse (cached ones are free): bounds a cold keystroke.
MAX_MODULES_PER_CHECK = 8


class WorkspaceImports:
    """Resolves `Lazy` values (the only part that analyses another module). Inputs: the session (the
    importing file's path and context, its heap for the copies)."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.resolved: dict[tuple[str, int, str], Value] = {}  # lazy workspace imports, once each
        self.modules_analysed = 0

    def force(self, value: Value) -> Value:
        """The value behind a lazy workspace import (a Symbol when the module says nothing useful)."""
        if not isinstance(value, Lazy):
            return value
        key = (value.module, value.level, value.name)
        got = self.resolved.get(key)
        if got is not None:
            # Resolved earlier in this check: a read of this check's state, like a module name's (a replay
            # requires the same value resolved there, engine/interpreter/replay.py).
            reads = self.s.reads
            if reads is not None and key not in reads.resolutions:  # not the run's own resolution
                reads.forced.setdefault(key, got)
            return got
        reads = self.s.reads
        if reads is None:
            got = self.resolved[key] = self._resolve(value)
            return got
        # Resolved here first: another module read from disk (every file consulted is stamped, so a replay
        # can tell it is unchanged) and a value later functions share (the run's effect: replay.py).
        with deps.recording() as consulted:
            got = self.resolved[key] = self._resolve(value)
        reads.resolutions[key] = got
        if deps.VOLATILE in consulted:
            reads.impure = True  # depends on more than files
        for p in consulted:
            reads.stamps.setdefault(p, deps.stamp(p))
        return got

    def _resolve(self, lazy: Lazy) -> Value:
        importer = Path(self.s.path) if self.s.path and not self.s.path.startswith("<") else None
        roots = tuple(p for p in (self.s.context.workspace, importer.parent if importer else None) if p is not None)
        roots += self.s.context.extra_paths
        found = workspace.resolve(lazy.module, lazy.level, importer, roots)
        if found is None or self.modules_analysed >= MAX_MODULES_PER_CHECK or not (
                workspace.assigns(found, lazy.name) or workspace.cache_class(found, lazy.name)):
            return Symbol(lazy.qualname)
        self.modules_analysed += 1
        exp = modules.exports(found, self.s.context)
        value = exp.names.get(lazy.name) if exp is not None else None
        if isinstance(value, ClassDef) and value.cache_base:
            # The project's own subclass of a transformers cache class: what it inherits and what it defines (its
            # methods are not run here: no node of another module enters this one).
            return ClassDef(None, value.name, value.cache_base, value.own, value.skips_init,
                            value.narrow_length)
        if exp is None or value is None or isinstance(value, (Function, ClassDef, Symbol, Lazy)):
            return Symbol(lazy.qualname)
        return _Copier(self.s, exp).value(value, lazy.name)


class _Copier:
    """Copies one exported value (and what it reaches on the exporting module's heap) into the session's heap."""

    def __init__(self, session: Session, exp: Exports) -> None:
        self.s = session
        self.exp = exp
        self.done: dict[int, Ref] = {}

    def site(self, site: Site | None) -> Site | None:
        return replace(site, path=self.exp.path) if site is not None and site.path is None else site

    def setting(self, s: Setting | None) -> Setting | None:
        return replace(s, site=self.site(s.site)) if s is not None else None

    def value(self, v: Value, name: str = "") -> Value:
        if isinstance(v, Ref):
            return self.ref(v)
        if isinstance(v, (Function, ClassDef)):
            return Unknown(f"`{name or v.name if isinstance(v, ClassDef) else v.qualname}` from {self.exp.path}")
        v = map_children(v, self.value)  # what it holds (values.py `children`), refs onto this heap
        if isinstance(v, (Const, CacheVal, Output, TupleVal, ListVal)):
            return replace(v, site=self.site(v.site))
        return v

    def ref(self, r: Ref) -> Ref:
        if r.id in self.done:
            return self.done[r.id]
        obj = self.exp.heap.get(r.id)
        new = self.s.new(ConfigState())  # placeholder keeps cycles finite
        self.done[r.id] = new
        self.s.put(new, self.obj(obj) if obj is not None else ConfigState())
        return new

    def obj(self, o: HeapObj) -> HeapObj:
        o = map_children(o, self.value)  # every value and ref it holds (values.py `children`)
        if isinstance(o, ModelState):
            return replace(o, loaded_at=self.site(o.loaded_at))
        if isinstance(o, (ConfigState, PipelineState)):
            return replace(o, ci=self.setting(o.ci))
        if isinstance(o, DictState):
            return DictState(tuple((k, v, self.site(s), c) for k, v, s, c in o.entries), o.opaque)
        return o
