"""HFC012 pickled-cache: `torch.load(path, weights_only=True)` of a file the code saved a transformers cache to."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Related, Severity, Span
from hf_cache_lint.engine.environment.release_version import V
from hf_cache_lint.engine.facts.pickled_cache import KIND as PICKLED_CACHE
from hf_cache_lint.engine.facts.pickled_cache import PickledCache
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.use_scope import scope_at
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc012_pickled_cache.examples import INVALID, UNPICKLED_TITLE
from hf_cache_lint.rules.hfc012_pickled_cache.valid import VALID

# The first release whose `DynamicCache` holds `DynamicLayer` objects (the release table: `layers` from 4.54.0):
# allow-listing the cache class alone loads it before, not from then (the oracle: 4.52.4 and 4.53.0 load it,
# 4.57.6 and 5.x name `DynamicLayer`).
LAYERS_SINCE = V("4.54.0")
# The first release that requires torch 2.6 (the wheels' dependency table: `torch>=2.5` on 5.19.0, `torch>=2.6` from
# 5.20.0, whose import disables an older torch), whose `torch.load` defaults to `weights_only=True`: a bare
# `torch.load(path)` is a weights-only load there; before, it is one on torch 2.6 or later only (a warning).
TORCH_26_SINCE = V("5.20.0")
# `torch.serialization.add_safe_globals([...])` / `safe_globals([...])`: the classes it names, as written.
_SAFE = re.compile(r"safe_globals\(\s*\[([^\]]*)\]")


class PickledCacheLoad(Rule):
    code = "HFC012"
    name = "pickled-cache"
    summary = ("`torch.load(path, weights_only=True)` of a file the code saved a transformers cache to: torch's "
               "weights-only unpickler refuses the cache's classes (UnpicklingError).")
    default_severity = Severity.ERROR
    reads = frozenset({PICKLED_CACHE})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        facts = analysis.of(PICKLED_CACHE)
        saved = {f.file: f for f in facts if f.what == "save"}
        if not saved:
            return
        allowed = {name.strip().rsplit(".", 1)[-1] for m in _SAFE.finditer(analysis.text)
                   for name in m.group(1).split(",")}
        if any(name.endswith("Layer") for name in allowed):
            return  # the code allow-lists the layers too: the code says it knows what the file holds
        version = analysis.context.target.version
        done = set()
        for load in facts:
            save = saved.get(load.file) if load.what == "load" else None
            if save is None or load.span in done or (load.keyword is None and load.last is None):
                continue
            done.add(load.span)
            if scope_at(analysis.tree, load.span).handles("UnpicklingError"):
                continue  # a `try` that catches it expects the load to fail (and goes on without the file)
            if save.cls in allowed:
                if version < LAYERS_SINCE:
                    continue  # the cache class allow-listed: its 4.4x contents are lists of tensors
                refused, since = "DynamicLayer", f" (since {LAYERS_SINCE}, whose `{save.cls}` holds layer objects)"
            else:
                refused, since = save.cls, ""
            yield self.finding(analysis, load, save, refused, since)

    def finding(self, analysis: Analysis, load: PickledCache, save: PickledCache, refused: str, since: str) -> Finding:
        target = analysis.context.target
        cache = save.cache if " " in save.cache else f"a `{save.cache}`"
        if load.keyword is not None:
            call, torch = "`torch.load(..., weights_only=True)`", ""
            edit = Edit(load.keyword, "weights_only=False")
        else:
            assert load.last is not None
            call = "`torch.load(...)` (torch's default `weights_only=True` from torch 2.6)"
            torch = " (which requires torch 2.6 or later)" if target.version >= TORCH_26_SINCE else \
                " on torch 2.6 or later"
            edit = Edit(Span(load.last.end, load.last.end), ", weights_only=False")
        message = (f"{call} of the file this code saved {cache} to (line {save.span.start.line}): with "
                   f"transformers {target}{torch} this raises UnpicklingError: Weights only load failed ... "
                   f"Unsupported global: GLOBAL transformers.cache_utils.{refused} was not an allowed global by "
                   f"default{since}")
        fix = Fix(UNPICKLED_TITLE, (edit,), preferred=True, applicability=UNSAFE)
        severity = Severity.WARNING if load.keyword is None and target.version < TORCH_26_SINCE else None
        return self.report(
            load.span, message, fixes=(fix, self.ignore_fix(analysis, load.span)), severity=severity,
            related=(Related(save.span, f"the cache is saved here: {cache}"),),
            story="A transformers cache is a Python object of transformers' classes (from 4.54.0 a `DynamicCache` "
                  "holds `DynamicLayer` objects). `torch.load(..., weights_only=True)` (torch's default from 2.6) "
                  "unpickles only tensors, containers and the classes allow-listed with "
                  "`torch.serialization.add_safe_globals`, so a saved cache does not load; allow-listing "
                  "`DynamicCache` alone worked up to 4.53 only. `weights_only=False` loads it on every release, "
                  "for a file you wrote yourself (it may run code the file holds).")
