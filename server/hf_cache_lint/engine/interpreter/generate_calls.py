"""The generate-call fact recording: what meets at one generate (or pipeline) call — the cache arguments and
the effective `cache_implementation`, resolved in transformers' own order (docs/facts.md §2) — becomes one
`GenerateCall` in the analysis, the record every generate rule reads."""

from __future__ import annotations

import re
from dataclasses import replace

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.own_caches import lacking
from hf_cache_lint.engine.interpreter.session import EvArg, Session
from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    Cond,
    ConfigState,
    Const,
    DictState,
    InstanceState,
    ListVal,
    Maybe,
    ModelState,
    PipelineState,
    Ref,
    Setting,
    TupleVal,
    Unknown,
    Value,
)
from hf_cache_lint.engine.output.analysis import (
    Branch,
    CacheArg,
    CacheImpl,
    CacheKind,
    CiSource,
    ConfigKeyword,
    GenerateCall,
    Keyword,
    ModelInfo,
    Site,
    SpreadKeyword,
)
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS, find_keyword
from hf_cache_lint.engine.syntax.nodes import Node, code, span, span_between

# Which keywords of a pipeline call reach `generate`, by task (each pipeline class's `_sanitize_parameters`,
# T/pipelines/*.py). Tasks whose call keywords go to generate as they are (`**generate_kwargs`):
DIRECT_TASKS = frozenset({"text-generation", "automatic-speech-recognition"})
DIRECT_TASKS_4X = frozenset({"text2text-generation", "summarization", "translation"})  # 5.0 removed them (KeyError)
# Tasks that hand only a `generate_kwargs={...}` dict to generate; their other keywords go to the processor.
FORWARDING_TASKS = frozenset({"automatic-speech-recognition", "image-text-to-text", "any-to-any", "text-to-audio",
                              "text-to-speech"})


class GenerateFacts:
    """Records the calls that reach generate (`model.generate(...)`, a pipeline's call, a partial or Thread
    over generate) as `GenerateCall`s on the session. Inputs: the session (heap, path conditions, the
    recording), the expressions (to merge `**` dicts) and the workspace imports (to force values). What a
    new fact about a generate call needs is computed here and added to `GenerateCall` (engine/output/analysis.py).
    """

    def __init__(self, session: Session, ex: Expressions, imports: WorkspaceImports) -> None:
        self.s = session
        self.ex = ex
        self.imports = imports

    def pipeline_reaches_generate(self, pstate: PipelineState) -> bool:
        """Whether this pipeline's call keywords (or its `generate_kwargs`) reach generate: the task decides.
        An unknown task (a variable, none given, a custom one) proves nothing, so no generate rule applies."""
        task = pstate.task
        if task is None or task in self.s.custom_tasks:
            return False
        if task.startswith("translation_"):
            task = "translation"
        return task in DIRECT_TASKS or task in FORWARDING_TASKS or (
            task in DIRECT_TASKS_4X and not self.s.target.hybrid_is_reset)

    def generate_facts(self, model: Ref | None, pipe: Ref | None, args: list[EvArg], trailer: Node,
                       head: Node | None, trailers: list[Node], whole: object,
                       extra_kwargs: Value | None = None, spread: Node | None = None,
                       keywords_reach: bool = True, through: str | None = None) -> None:
        """Record one call reaching generate. `extra_kwargs`: a dict that also feeds its keywords (a
        partial's, a Thread's `kwargs=`), written at `spread` when that is an expression a fix can edit;
        `keywords_reach`: whether a keyword written in this call goes to generate (not for Thread(...));
        `through`: what carried `extra_kwargs` in, in words for messages ("`functools.partial`")."""
        assert isinstance(whole, Span)
        pstate = self.s.obj(pipe) if pipe is not None else None
        if isinstance(pstate, PipelineState) and pstate.model is not None:
            model = pstate.model
        mstate = self.s.obj(model) if model is not None else None
        mstate = mstate if isinstance(mstate, ModelState) else None
        if mstate is not None and not mstate.is_transformers:
            return
        # Effective keywords: written ones, then ** dicts, in call order (later wins like Python's
        # duplicate check would refuse; good enough for facts).
        given: dict[str, tuple[Value, Site, Cond | None, bool, Node | None]] = {}
        # Each dict with the expression that holds it (a fix sets a key on top of that expression) and,
        # when it is not a `**dict` written in the call, what carried it in (for messages).
        dicts: list[tuple[Value, Node | None, str | None]] = \
            [(extra_kwargs, spread, through)] if extra_kwargs is not None else []
        for a in args:
            if a.arg.star == "**":
                dicts.append((self.imports.force(a.value), a.arg.value, None))
            elif a.arg.name:
                given[a.arg.name] = (self.imports.force(a.value), self.s.site(a.arg.node), None, False, a.arg.node)
        if isinstance(pstate, PipelineState) and pstate.task in FORWARDING_TASKS:
            gk = find_keyword(args, "generate_kwargs")
            if pstate.task not in DIRECT_TASKS:  # only generate_kwargs: the call's own keywords go to the processor
                given, dicts, args, keywords_reach = {}, [], [], False
            if gk is not None:  # these pipelines pass generate_kwargs to generate
                dicts.append((self.imports.force(gk.value), gk.arg.value, "`generate_kwargs=`"))
        ci_spread: Span | None = None
        carried: dict[str, str] = {}  # keyword -> what carried it in, when not a written ** dict
        spread_kws: list[SpreadKeyword] = []
        open_spread = False  # some dict spread in may hold keys the linter cannot see
        for d, holder, by in dicts:
            # A dict rebound on some paths: its keys, each under the condition of the paths that hold it.
            obj = self.ex.merge_into(DictState(), d) if isinstance(d, Maybe) else self.s.obj(d)
            open_spread = open_spread or not isinstance(obj, DictState) or obj.opaque or any(
                c is not None and self.s.state.decides(c) is not True for _, _, _, c in obj.entries)
            if isinstance(obj, DictState):
                for k, v, s, c in obj.entries:
                    if k not in given:
                        given[k] = (v, s or Site(whole, "**kwargs"), c, True, None)
                        if c is None or self.s.state.decides(c) is True:
                            spread_kws.append(SpreadKeyword(k, s or Site(whole, "**kwargs"),
                                                        span(holder) if holder is not None else whole,
                                                        isinstance(v, Const) and v.value is None))
                        if k == "cache_implementation" and holder is not None:
                            ci_spread = span(holder)
                        if by is not None:
                            carried[k] = by
        self._note_checked(given, args, mstate, pipe is not None)
        keywords = tuple(
            Keyword(a.arg.name, span(a.arg.node), span(a.arg.name_node), span(a.arg.value),
                    code(a.arg.value)) for a in args if a.arg.name and a.arg.name_node is not None
        )
        cache_args = tuple(self._cache_arg(k, given[k], whole) if k not in carried else
                           replace(self._cache_arg(k, given[k], whole), through=carried[k])
                           for k in CACHE_KEYWORDS if k in given)
        ci = self._effective(given, args, mstate, pstate, pipe is not None)
        if ci is not None and ci.via == "kwargs" and "cache_implementation" in carried:
            ci = replace(ci, through=carried["cache_implementation"])
        ci_kw = find_keyword(keywords, "cache_implementation")
        callee = span_between(head, trailers[-2]) if head is not None and len(trailers) >= 2 else \
            (span(head) if head is not None else whole)
        self.s.record(GenerateCall(
            span=whole, callee_span=callee, kind="pipeline" if pipe is not None else "generate",
            model=ModelInfo(mstate.class_name if mstate else None, mstate.checkpoint if mstate else None,
                            True, mstate.wrapper if mstate else None, receiver_known=model is not None,
                            encoder_decoder=mstate.encoder_decoder if mstate else False,
                            remote_code=mstate.remote_code if mstate else False),
            keywords=keywords, cache_args=cache_args, cache_implementation=ci, ci_keyword=ci_kw,
            via=self.s.via, close_paren=span(trailer.children[-1]) if trailer.children[-1].type == "operator" else None,
            arguments=tuple(span(a.arg.node) for a in args) if trailer.children[0].value == "(" and keywords_reach
            else (),
            keywords_reach=keywords_reach, ci_spread=ci_spread,
            has_star_kwargs=any(a.arg.star == "**" for a in args), open_spread=open_spread,
            task=pstate.task if isinstance(pstate, PipelineState) else None,
            spread_keywords=tuple(spread_kws),
            config_keywords=self._config_keywords(given, args, pipe is not None, mstate, callee),
        ))

    def _config_keywords(self, given: dict[str, tuple[Value, Site, Cond | None, bool, Node | None]],
                         args: list[EvArg], is_pipeline: bool, model: ModelState | None,
                         callee: Span) -> tuple[ConfigKeyword, ...]:
        """The keywords the `GenerationConfig` generate reads at this call was given, on every path that reaches
        the call: the one passed (`generation_config=`, or generate's second positional argument); when none is
        passed (a `generate` call, not a pipeline's), the model's own (`model.generation_config`), its holder the
        call's callee."""
        passed = given.get("generation_config")
        value, node = (passed[0], passed[4]) if passed is not None and passed[2] is None else (None, None)
        pos = [a for a in args if a.arg.name is None and not a.arg.star]
        if passed is None and not is_pipeline and len(pos) >= 2:
            value, node = self.imports.force(pos[1].value), pos[1].arg.node
        on_model = passed is None and value is None and not is_pipeline and model is not None
        if on_model and model is not None:
            value = model.gen_config
        cfg = self.s.obj(value) if value is not None else None
        if not isinstance(cfg, ConfigState) or (node is None and not on_model):
            return ()
        holder = span(node) if node is not None else callee
        out = []
        for k in cfg.keys:
            decided = self.s.state.decides(k.cond) if k.cond is not None else True
            if decided is not False:
                out.append(ConfigKeyword(k.name, k.site, holder, k.falsy,
                                         _cond_text(k.cond) if k.cond is not None and decided is None else None,
                                         k.how, on_model))
        return tuple(out)

    def _note_checked(self, given: dict[str, tuple[Value, Site, Cond | None, bool, Node | None]],
                      args: list[EvArg], model: ModelState | None, is_pipeline: bool) -> None:
        """What generate validates at this call: the `cache_implementation` it is given, and the generation
        configs it reads. 5.x validates the passed config and the model's whatever the keywords say; 4.x only
        reads them when no `cache_implementation` keyword is given (checked on the oracle)."""
        if "cache_implementation" in given:
            self.s.note_ci_value(given["cache_implementation"][0])
            if not self.s.target.hybrid_is_reset:
                return
        passed = given.get("generation_config")
        config: Value | None = passed[0] if passed is not None else None
        pos = [a for a in args if a.arg.name is None and not a.arg.star]
        if config is None and not is_pipeline and len(pos) >= 2:
            config = self.imports.force(pos[1].value)
        self.s.note_validated(config)
        if model is not None:
            self.s.note_validated(model.gen_config)

    def _cache_arg(self, keyword: str, entry: tuple[Value, Site, Cond | None, bool, Node | None],
                   whole: Span) -> CacheArg:
        value, site, cond, via_kwargs, node = entry
        kind, cls, condition, when = self.kind_of(value)
        if cond is not None and condition is None:
            decided = self.s.state.decides(cond)
            if decided is False:
                kind = "none"
            elif decided is None:
                condition, when = _cond_text(cond), Branch(cond.text, cond.holds)
        origin = value.site if isinstance(value, TupleVal) else None
        own = lacking(self.s, forced := self.imports.force(value)) if kind == "other" else None
        obj = self.s.obj(forced) if kind == "other" else None
        instance_of = obj.class_name if isinstance(obj, InstanceState) and obj.cache_base else ""
        return CacheArg(keyword, kind, span(node) if node is not None else whole, via_kwargs, cls, condition, site,
                        when, origin, own=own, instance_of=instance_of)

    def kind_of(self, value: Value) -> tuple[CacheKind, str | None, str | None, Branch | None]:
        """(kind: "none" | "cache" | "tuple" | "unknown" | "other", cache class, what it depends on,
        that dependency as a branch condition (text, holds) when it is one)."""
        if isinstance(value, Const):
            return ("none", None, None, None) if value.value is None else ("other", None, None, None)
        if isinstance(value, CacheVal):
            return "cache", value.class_name, None, None
        if isinstance(value, TupleVal):
            return "tuple", None, None, None
        if isinstance(value, Unknown):
            return "unknown", None, value.reason, None
        if isinstance(value, ListVal):  # to generate: as before lists were tracked (no claim is made about them)
            return "unknown", None, None, None
        if isinstance(value, Maybe):
            live = []
            for v, c in value.options:
                if c is not None and self.s.state.decides(c) is False:
                    continue
                k, cls, dep, when = self.kind_of(v)
                live.append((k, cls, dep, when, c))
            real = [x for x in live if x[0] != "none"]
            if not real:
                return "none", None, None, None
            k, cls, dep, when, c = real[0]
            if len(real) < len(live):  # None on some path
                undecided = c is not None and self.s.state.decides(c) is None
                if dep is None and undecided and c is not None:
                    dep, when = _cond_text(c), Branch(c.text, c.holds)
                dep = dep or "a condition"
            return k, cls, dep, when
        return "other", None, None, None

    def _effective(self, given: dict[str, tuple[Value, Site, Cond | None, bool, Node | None]],
                   args: list[EvArg], model: ModelState | None, pipe: object, is_pipeline: bool) -> CacheImpl | None:
        if model is not None and model.wrapper == "unsloth":
            # Unsloth's fast generate sets kwargs["cache_implementation"] = "static" itself, over any
            # keyword the caller passed (unsloth/models/vision.py, unsloth_base_fast_generate).
            return CacheImpl("static", "wrapper", model.loaded_at)
        if "cache_implementation" in given:
            value, site, cond, via_kwargs, _ = given["cache_implementation"]
            got = self._from_value(value, site, "kwargs" if via_kwargs else "keyword", cond)
            if got is not None or self._definitely_none(value, cond) or _none_beside_cache(value, cond, given):
                return got
        cfg_arg = given.get("generation_config")
        if cfg_arg is None and not is_pipeline:
            pos = [a for a in args if a.arg.name is None and not a.arg.star]
            if len(pos) >= 2:
                cfg_arg = (self.imports.force(pos[1].value), self.s.site(pos[1].arg.node), None, False, pos[1].arg.node)
        if cfg_arg is not None:
            cfg = self.s.obj(cfg_arg[0])
            if isinstance(cfg, ConfigState) and cfg.ci is not None:
                got = self._from_setting(cfg.ci, "generation_config")
                if got is not None:
                    return got
        if isinstance(pipe, PipelineState) and pipe.ci is not None:
            got = self._from_setting(pipe.ci, "pipeline")
            if got is not None:
                return got
        if model is not None and model.gen_config is not None:
            cfg = self.s.obj(model.gen_config)
            if isinstance(cfg, ConfigState) and cfg.ci is not None:
                via = cfg.ci.via if cfg.ci.via in ("checkpoint", "hub-default", "wrapper") else "model"
                return self._from_setting(cfg.ci, via)
        return None

    def _definitely_none(self, value: Value, cond: Cond | None) -> bool:
        if cond is not None and self.s.state.decides(cond) is not True:
            return False
        return isinstance(value, Const) and value.value is None

    def _from_value(self, value: Value, site: Site, via: CiSource, cond: Cond | None) -> CacheImpl | None:
        if isinstance(value, Const):
            s = Setting(value.value if isinstance(value.value, str) else None, site, cond, via)
        elif isinstance(value, Unknown):
            s = Setting(None, site, cond, via, unknown=value.reason or "a value the linter cannot see")
        elif isinstance(value, Maybe):
            strs = [(v, c) for v, c in value.options if isinstance(v, Const) and isinstance(v.value, str)
                    and (c is None or self.s.state.decides(c) is not False)]
            if not strs:
                return None
            v, c = strs[0]
            assert isinstance(v, Const)
            partial = len(strs) < len(value.options)
            s = Setting(str(v.value), v.site or site, c or (cond if not partial else Cond("a condition", True)), via)
        else:
            return None
        return self._from_setting(s, via)

    def _from_setting(self, s: Setting, via: CiSource) -> CacheImpl | None:
        condition = None
        if s.cond is not None:
            decided = self.s.state.decides(s.cond)
            if decided is False:
                return None
            condition = _cond_text(s.cond) if decided is None else None
        when = Branch(s.cond.text, s.cond.holds) if condition is not None and s.cond is not None else None
        if s.unknown is not None:
            return CacheImpl("", via, s.site, s.unknown)
        if s.value is None:
            return None
        return CacheImpl(s.value, via, s.site, condition, when)


def _cond_text(c: Cond) -> str:
    return f"`{c.text}`" if c.holds else f"`not {c.text}`"


# The value of a `key: value` dict entry, a `d["key"] = value` store or a `key=value` argument, as written.
_ENTRY_VALUE = re.compile(r"""^\s*(?:['"]\w+['"]\s*:|\w+\s*=(?!=)|.*\]\s*=(?!=))\s*(.+?)\s*$""", re.S)
_NOT_NONE = re.compile(r"^\s*(.+?)\s+is\s+(not\s+)?None\s*$", re.S)


def _none_beside_cache(value: Value, cond: Cond | None,
                       given: dict[str, tuple[Value, Site, Cond | None, bool, Node | None]]) -> bool:
    """`cache_implementation=None` set exactly when the cache generate is given is not None (Local Gemma's chat:
    `if cache is not None: kwargs["cache_implementation"] = None` beside `"past_key_values": cache`): on every path
    either no cache reaches generate or the keyword clears the configured implementation, so none is effective
    (the oracle: 5.24.0 raises on the configured "static" beside a cache, not once the call passes None)."""
    if cond is None or not isinstance(value, Const) or value.value is not None:
        return False
    m = _NOT_NONE.match(cond.text)
    if m is None or cond.holds != bool(m.group(2)):
        return False
    for k in CACHE_KEYWORDS:
        entry = given.get(k)
        if entry is None or entry[2] is not None:
            continue
        written = code(entry[4]) if entry[4] is not None else (entry[1].description or "").strip("`")
        got = _ENTRY_VALUE.match(written)
        if got is not None and got.group(1) == m.group(1).strip():
            return True
    return False
