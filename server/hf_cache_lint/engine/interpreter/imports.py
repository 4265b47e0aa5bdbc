"""Workspace imports: `from mymodule import model` is a `Lazy` value until it matters; then the module is
analysed (engine/modules.py) and the exported value copied into this analysis's heap (fresh ids, sites
marked with that module's path, its functions and classes left opaque)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hf_cache_lint.engine import modules
from hf_cache_lint.engine.analysis import Site
from hf_cache_lint.engine.interpreter.session import Session
from hf_cache_lint.engine.modules import Exports
from hf_cache_lint.engine.values import (
    CacheVal,
    ClassDef,
    ConfigState,
    Const,
    DictState,
    Function,
    HeapObj,
    InstanceState,
    Lazy,
    Maybe,
    Method,
    ModelState,
    Output,
    Partial,
    PipelineState,
    Ref,
    Setting,
    Symbol,
    TupleVal,
    Unknown,
    Value,
)

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
        if self.s.reads is not None:
            self.s.reads.impure = True  # another module, read from disk
        key = (value.module, value.level, value.name)
        if key not in self.resolved:
            self.resolved[key] = self._resolve(value)
        return self.resolved[key]

    def _resolve(self, lazy: Lazy) -> Value:
        importer = Path(self.s.path) if self.s.path and not self.s.path.startswith("<") else None
        roots = tuple(p for p in (self.s.context.workspace, importer.parent if importer else None) if p is not None)
        roots += self.s.context.extra_paths
        found = modules.resolve(lazy.module, lazy.level, importer, roots)
        if found is None or self.modules_analysed >= MAX_MODULES_PER_CHECK or not modules.assigns(found, lazy.name):
            return Symbol(lazy.qualname)
        self.modules_analysed += 1
        exp = modules.exports(found, self.s.context)
        value = exp.names.get(lazy.name) if exp is not None else None
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
        if isinstance(v, (Const, CacheVal, Output)):
            return replace(v, site=self.site(v.site))
        if isinstance(v, TupleVal):
            return TupleVal(self.site(v.site), tuple(self.value(i) for i in v.items))
        if isinstance(v, Maybe):
            return Maybe(tuple((self.value(o), c) for o, c in v.options))
        if isinstance(v, Method):
            return Method(self.value(v.owner), v.name)
        if isinstance(v, Partial):
            kw = self.ref(v.kwargs) if v.kwargs is not None else None
            return Partial(self.value(v.func), kw)
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
        if isinstance(o, ModelState):
            return replace(o, gen_config=self.ref(o.gen_config) if o.gen_config else None,
                           loaded_at=self.site(o.loaded_at))
        if isinstance(o, ConfigState):
            return ConfigState(self.setting(o.ci))
        if isinstance(o, PipelineState):
            return replace(o, model=self.ref(o.model) if o.model else None, ci=self.setting(o.ci))
        if isinstance(o, DictState):
            return DictState(tuple((k, self.value(v), self.site(s), c) for k, v, s, c in o.entries), o.opaque)
        if isinstance(o, InstanceState):
            return InstanceState(o.class_name, tuple((k, self.value(v)) for k, v in o.attrs))
        return o
