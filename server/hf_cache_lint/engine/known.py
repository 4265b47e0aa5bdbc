"""Calls the interpreter understands: transformers constructors and loaders, stdlib helpers,
the module's own functions and classes (inlined), and method calls on tracked objects."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from hf_cache_lint.engine.calls import Inliner
from hf_cache_lint.engine.core import EvArg
from hf_cache_lint.engine.generate import PIPELINE_CLASSES
from hf_cache_lint.engine.nodes import Node, call_args, span_between
from hf_cache_lint.engine.values import (
    NONE,
    UNKNOWN,
    CacheVal,
    ClassDef,
    ConfigState,
    Const,
    DictState,
    Function,
    InstanceState,
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

_MODEL_CLASS = re.compile(r"^(AutoModel\w*|\w+(?:Model|For[A-Z]\w*|LMHeadModel))$")
_NOT_MODEL = re.compile(r"(Tokenizer|Processor|Config|FeatureExtractor|ImageProcessor)\w*$")
_PASS_THROUGH = {"to", "cuda", "cpu", "eval", "train", "half", "float", "bfloat16", "requires_grad_", "compile",
                 "get_base_model", "merge_and_unload"}
# Calls of other libraries that hand back the model they were given.
_RETURNS_MODEL = {"unwrap_model", "prepare_model", "get_peft_model", "from_pretrained"}
_SEQ2SEQ_AUTO = ("AutoModelForSeq2SeqLM", "AutoModelForSpeechSeq2Seq")
_PATH_FUNCS = {"os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.join", "os.path.expanduser",
               "os.path.normpath", "pathlib.Path", "os.fspath", "builtins.str"}


class Known(Inliner):
    def call(self, callee: Value, trailer: Node, head: Node, trailers: list[Node]) -> Value:
        args = self.eval_args(trailer)
        whole = span_between(head, trailer)
        callee = self.force(callee)
        if isinstance(callee, Maybe):
            known = [v for v, _ in callee.options if not isinstance(v, Unknown)]
            callee = known[0] if known else UNKNOWN
        if isinstance(callee, Symbol):
            return self.call_symbol(callee.qualname, args, trailer, whole)
        if isinstance(callee, Method):
            return self.call_method(callee, args, trailer, head, trailers, whole)
        if isinstance(callee, Function):
            return self.inline(callee, args, callee.owner, whole)  # owner: bound by types.MethodType
        if isinstance(callee, ClassDef):
            return self.instantiate(callee, args, whole)
        if isinstance(callee, Partial):
            return self.call_with_kwargs(callee.func, callee.kwargs, trailer, whole, extra=args,
                                         through="`functools.partial`")
        obj = self.obj(callee)
        if isinstance(obj, ModelState):
            return Output("forward", self.site_of(whole, "the forward pass"))
        if isinstance(obj, PipelineState):
            assert isinstance(callee, Ref)
            if self.pipeline_reaches_generate(obj):
                self.generate_facts(None, callee, args, trailer, head, trailers, whole)
            return UNKNOWN
        return Unknown(None)

    # -- arguments ----------------------------------------------------------
    def eval_args(self, trailer: Node) -> list[EvArg]:
        out = []
        # A `cache_implementation=` keyword is checked only where transformers receives it (generate, a
        # GenerationConfig, a pipeline that reaches generate): another callee (a user's own `generate`, another
        # library) takes its own parameters.
        for a in call_args(trailer):
            out.append(EvArg(a, self.eval(a.value)))
        return out

    @staticmethod
    def kw(args: list[EvArg], name: str) -> EvArg | None:
        for a in args:
            if a.arg.name == name:
                return a
        return None

    @staticmethod
    def positional(args: list[EvArg], i: int) -> EvArg | None:
        pos = [a for a in args if a.arg.name is None and not a.arg.star]
        return pos[i] if i < len(pos) else None

    def setting_from(self, a: EvArg | None, via: str) -> Setting | None:
        if a is None:
            return None
        v = a.value
        site = self.site(a.arg.node)
        if isinstance(v, Const):
            return Setting(v.value if isinstance(v.value, str) else None, site, via=via)
        reason = v.reason if isinstance(v, Unknown) else None
        return Setting(None, site, via=via, unknown=reason or f"`{a.arg.value.get_code(include_prefix=False)}`")

    def ci_setting(self, args: list[EvArg], via: str) -> Setting | None:
        """`cache_implementation` as a call gives it: written, or a key of a `**dict` argument."""
        written = self.setting_from(self.kw(args, "cache_implementation"), via)
        if written is not None:
            return written
        for a in args:
            d = self.obj(self.force(a.value)) if a.arg.star == "**" else None
            got = d.get("cache_implementation") if isinstance(d, DictState) else None
            if got is not None:
                value, site, cond = got
                if isinstance(value, Const):
                    return Setting(value.value if isinstance(value.value, str) else None, site, cond, via)
                return Setting(None, site, cond, via, unknown=value.reason if isinstance(value, Unknown) else
                               "a value the linter cannot see")
        return None

    # -- functions of modules ------------------------------------------------
    def call_symbol(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        parts = q.split(".")
        root = parts[0]
        if q in ("copy.deepcopy", "copy.copy"):
            first = self.positional(args, 0)
            return self.clone(first.value) if first else UNKNOWN
        if q == "builtins.dict":
            d = DictState()
            for a in args:
                if a.arg.star == "**" or (a.arg.name is None and not a.arg.star):
                    d = self.merge_into(d, a.value)
                elif a.arg.name:
                    d = d.set(a.arg.name, a.value, self.site(a.arg.node))
            return self.new(d)
        if q in ("builtins.tuple",):
            return TupleVal(self.site_of(whole, "tuple(...)"))
        if q == "functools.partial":
            first = self.positional(args, 0)
            kws = DictState()
            for a in args:
                if a.arg.name:
                    kws = kws.set(a.arg.name, a.value, self.site(a.arg.node))
                elif a.arg.star == "**":
                    kws = self.merge_into(kws, a.value)
            return Partial(first.value if first else UNKNOWN, self.new(kws))
        if q == "types.MethodType":
            fn, obj = self.positional(args, 0), self.positional(args, 1)
            if fn is not None and isinstance(fn.value, Function) and obj is not None and isinstance(obj.value, Ref):
                return replace(fn.value, owner=obj.value)  # a function bound to the object as `self`
            return UNKNOWN
        if q in ("threading.Thread", "multiprocessing.Process"):
            target = self.kw(args, "target")
            kwargs = self.kw(args, "kwargs")
            if target is not None:
                return self.call_with_kwargs(target.value, kwargs.value if kwargs else None, trailer, whole,
                                             holder=kwargs.arg.value if kwargs else None,
                                             through=f"`{q.rsplit('.', 1)[-1]}(kwargs=...)`")
            return UNKNOWN
        if q == "os.environ.setdefault":
            first = self.positional(args, 0)
            if first is not None and isinstance(first.value, Const) and isinstance(first.value.value, str):
                self.env_set.add(first.value.value)
            return UNKNOWN
        if q in ("os.environ.get", "os.getenv"):
            first = self.positional(args, 0)
            key = first.value.value if first and isinstance(first.value, Const) else "?"
            return Unknown(f"the environment variable `{key}`")
        if q in _PATH_FUNCS:
            return self.path_value(q, args)
        if q == "builtins.setattr":
            return self.call_setattr(args, whole)
        if q == "torch.compile":
            first = self.positional(args, 0)
            return first.value if first else UNKNOWN
        if root in ("transformers", "unsloth"):
            return self.call_transformers(parts, args, whole)
        if root in ("peft", "accelerate") and parts[-1] in _RETURNS_MODEL:
            # A PEFT model generates with its base model; accelerate unwraps to the model it wrapped.
            first = self.positional(args, 0)
            if first is not None and isinstance(self.obj(first.value), ModelState):
                return first.value
        if q.startswith("builtins.") or q.startswith("."):
            return Unknown(None)
        return Symbol(q + "()")  # an object of another library: its methods are not transformers

    def path_value(self, q: str, args: list[EvArg]) -> Value:
        vals = [a.value for a in args if a.arg.name is None and not a.arg.star]
        if not vals or not all(isinstance(v, Const) and isinstance(v.value, str) for v in vals):
            return UNKNOWN
        strs = [str(v.value) for v in vals if isinstance(v, Const)]
        if q == "os.path.dirname":
            return Const(str(Path(strs[0]).parent))
        if q == "os.path.join":
            return Const(str(Path(*strs)))
        if q == "os.path.expanduser":
            return Const(str(Path(strs[0]).expanduser()))
        return Const(strs[0])

    def call_transformers(self, parts: list[str], args: list[EvArg], whole: object) -> Value:
        name = parts[-1]
        owner = parts[-2] if len(parts) >= 2 else ""
        if name == "from_legacy_cache":
            return CacheVal(owner or "DynamicCache", self.site_of(whole, "from_legacy_cache(...)"))
        if name.endswith("Cache") and name[:1].isupper():
            return CacheVal(name, self.site_of(whole, f"{name}(...)"))
        if name == "GenerationConfig":  # the constructor validates what it is given
            self.note_ci_argument(args, "GenerationConfig")
            return self.new(ConfigState(self.ci_setting(args, "generation_config")))
        if name == "from_pretrained" and owner == "GenerationConfig":
            self.note_ci_argument(args)
            return self.config_from_pretrained(args, call_span=whole)
        if name == "pipeline":
            return self.make_pipeline(args)
        if name in PIPELINE_CLASSES:  # `TextGenerationPipeline(model=..., tokenizer=...)`
            return self.make_pipeline(args, PIPELINE_CLASSES[name])
        if name == "register_pipeline":  # a custom task: its own Pipeline subclass takes its own parameters
            task = self._const_str(self.positional(args, 0) or self.kw(args, "task"))
            if task is not None:
                self.custom_tasks.add(task)
            return NONE
        if owner in ("FastLanguageModel", "FastModel", "FastVisionModel") and name == "from_pretrained":
            # Unsloth reads the flag when it is imported; a later assignment changes nothing.
            disabled = self.unsloth_fast_disabled
            fast = not (disabled if disabled is not None else "UNSLOTH_DISABLE_FAST_GENERATION" in self.env_set)
            model = self.load_model(None, args, wrapper="unsloth" if fast else None, site=whole)
            return TupleVal(None, (model, UNKNOWN))
        if name in ("from_pretrained", "from_config") and _MODEL_CLASS.match(owner) and not _NOT_MODEL.search(owner):
            return self.load_model(None if owner.startswith("AutoModel") else owner, args,
                                   checkpoint=name == "from_pretrained", encoder_decoder=owner in _SEQ2SEQ_AUTO,
                                   call_span=whole)
        if _MODEL_CLASS.match(name) and not _NOT_MODEL.search(name) and not name.startswith("Auto"):
            return self.new(ModelState(class_name=name, gen_config=self.new(ConfigState())))
        return Unknown(None)

    # -- methods on tracked objects --------------------------------------------
    def call_method(self, m: Method, args: list[EvArg], trailer: Node, head: Node, trailers: list[Node],
                    whole: object) -> Value:
        obj = self.obj(m.owner)
        if isinstance(obj, ModelState):
            assert isinstance(m.owner, Ref)
            if m.name == "generate":
                self.generate_facts(m.owner, None, args, trailer, head, trailers, whole)
                return Output("generate", self.site_of(whole, "generate(...)"))
            if m.name in _PASS_THROUGH:
                return m.owner
            if m.name == "save_pretrained":  # saving the model saves (and validates) its generation config
                self.note_validated(obj.gen_config)
                self.remember_save(obj.gen_config, args)
                return NONE
            if m.name in ("forward", "__call__"):
                return Output("forward", self.site_of(whole, "the forward pass"))
            return UNKNOWN
        if isinstance(obj, ConfigState) and isinstance(m.owner, Ref):
            if m.name in ("validate", "save_pretrained", "update"):  # each runs validate()
                self.note_validated(m.owner)
            if m.name == "save_pretrained":
                self.remember_save(m.owner, args)
                return NONE
            if m.name == "update":
                self.note_ci_argument(args)
                s = self.ci_setting(args, "model")
                if s is not None:
                    self.put(m.owner, ConfigState(s))
            return UNKNOWN
        if isinstance(obj, DictState) and isinstance(m.owner, Ref):
            return self.dict_method(m.owner, obj, m.name, args)
        if isinstance(obj, InstanceState) and isinstance(m.owner, Ref):
            fn = self.method_of(obj.class_name, m.name)
            return self.inline(fn, args, m.owner, whole) if fn else Unknown(None)
        if isinstance(obj, PipelineState) and isinstance(m.owner, Ref):
            if m.name == "__call__" and self.pipeline_reaches_generate(obj):
                self.generate_facts(None, m.owner, args, trailer, head, trailers, whole)
            return UNKNOWN
        # A bare unseen name (`lm.generate(...)`, a parameter) may be an instance of this module's own class
        # with a `generate`; an attribute (`self.model.generate(...)`) is what such a wrapper delegates to.
        if isinstance(m.owner, Unknown) and m.name == "generate" and not (self.own_generate and len(trailers) == 2):
            self.generate_facts(None, None, args, trailer, head, trailers, whole)
            return Output("generate", self.site_of(whole, "generate(...)"))
        if isinstance(m.owner, CacheVal) and m.name == "to_legacy_cache":
            return TupleVal(self.site_of(whole, "to_legacy_cache()"))
        return Unknown(None)

    def call_setattr(self, args: list[EvArg], whole: object) -> Value:
        """`setattr(config, "cache_implementation", value)` is the attribute assignment."""
        target, attr, value = (self.positional(args, i) for i in range(3))
        if target is None or attr is None or value is None or not isinstance(attr.value, Const):
            return NONE
        cfg = self.obj(self.force(target.value))
        if attr.value.value == "cache_implementation" and isinstance(cfg, ConfigState) and isinstance(target.value, Ref):
            s = self.setting_from(value, "model")
            self.put(target.value, ConfigState(s))
        return NONE

    def remember_save(self, config: Ref | None, args: list[EvArg]) -> None:
        """`save_pretrained(folder)` writes generation_config.json: a later load of it sees the value."""
        first = self.positional(args, 0) or self.kw(args, "save_directory")
        if first is None or not isinstance(first.value, Const) or not isinstance(first.value.value, str):
            return
        cfg = self.obj(config) if config is not None else None
        ci = cfg.ci if isinstance(cfg, ConfigState) else None
        if ci is not None and ci.value is not None:
            ci = replace(ci, site=self.site(first.arg.node, f"saved by save_pretrained({first.value.value!r})"),
                         via="checkpoint")
        self.saved[self.folder_key(first.value.value)] = ci

    def dict_method(self, ref: Ref, d: DictState, name: str, args: list[EvArg]) -> Value:
        if name == "update":
            for a in args:
                if a.arg.name:
                    d = d.set(a.arg.name, a.value, self.site(a.arg.node))
                else:
                    d = self.merge_into(d, a.value)
            self.put(ref, d)
            return NONE
        if name in ("pop", "get", "setdefault"):
            first = self.positional(args, 0)
            key = first.value.value if first and isinstance(first.value, Const) else None
            if not isinstance(key, str):
                return UNKNOWN
            got = d.get(key)
            if name == "pop":
                self.put(ref, d.delete(key))
            elif name == "setdefault" and got is None:
                second = self.positional(args, 1)
                self.put(ref, d.set(key, second.value if second else NONE, self.site(first.arg.node)))  # type: ignore[union-attr]
            return got[0] if got else UNKNOWN
        if name == "copy":
            return self.new(replace(d))
        return UNKNOWN

    def clone(self, value: Value) -> Value:
        obj = self.obj(value)
        if obj is None or isinstance(obj, ModelState):
            return value
        return self.new(replace(obj))

    def call_with_kwargs(self, func: Value, kwargs: Value | None, trailer: Node, whole: object,
                         extra: list[EvArg] | None = None, holder: Node | None = None,
                         through: str | None = None) -> Value:
        """Call `func` with a kwargs dict value (partial, Thread(kwargs=...)), the findings on `whole`.

        `extra`: the arguments written in this call (a partial's call), None when they are not for
        `func` (Thread(...)); `holder`: the expression of the dict, when written in this call; `through`:
        what carried the dict in, for messages."""
        if isinstance(func, Method) and func.name == "generate" and isinstance(self.obj(func.owner), ModelState):
            assert isinstance(func.owner, Ref)
            self.generate_facts(func.owner, None, extra or [], trailer, None, [], whole, extra_kwargs=kwargs,
                                spread=holder, keywords_reach=extra is not None, through=through)
            return Output("generate", self.site_of(whole, "generate(...)"))
        if isinstance(func, Function):
            d = self.obj(kwargs) if kwargs is not None else None
            return self.inline(func, extra or [], None, whole, extra_kwargs=d if isinstance(d, DictState) else None)
        return UNKNOWN
