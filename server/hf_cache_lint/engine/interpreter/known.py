"""The table of known callables: qualified name -> handler, for the functions and classes of other
libraries whose call the interpreter understands (copy, dict, functools.partial, types.MethodType,
Thread/Process, os.environ, os.path, setattr, torch.compile, transformers' loaders, caches and pipelines,
Unsloth, PEFT/accelerate unwrappers).

To teach the interpreter a new callable, add one handler here: a method decorated with
`@known("package.module.name", ...)` for exact qualified names (as imports resolve them:
`from functools import partial` calls `functools.partial`), or a branch of `_transformers` for a
transformers/unsloth name matched by its shape (`*Cache`, `AutoModel*.from_pretrained`). A handler gets
the qualified name, the evaluated arguments, the call's trailer node and the call's span, and returns the
call's value. Names not in the table: builtins are unknown, other libraries' calls return an opaque
`Symbol("q()")` whose methods are not transformers'.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.families import PIPELINE_CLASSES, windowed_family
from hf_cache_lint.engine.facts.pickled_cache import KIND as PICKLED_CACHE
from hf_cache_lint.engine.facts.pickled_cache import PickledCache
from hf_cache_lint.engine.interpreter.arguments import const_str, kw, positional, setting_from
from hf_cache_lint.engine.interpreter.comprehension_scope import comprehended_cache
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.loading import Loading
from hf_cache_lint.engine.interpreter.session import EvArg, Session, site_of
from hf_cache_lint.engine.interpreter.values import (
    NONE,
    UNKNOWN,
    CacheVal,
    ConfigKey,
    ConfigState,
    Const,
    DictState,
    Function,
    ListVal,
    Method,
    ModelState,
    Partial,
    Ref,
    Symbol,
    TupleVal,
    Unknown,
    Value,
    falsy,
)
from hf_cache_lint.engine.syntax.nodes import Node, code

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.calls import CallDispatch

Handler = Callable[["KnownCallables", str, list[EvArg], Node, object], Value]
# Qualified name -> handler (filled by @known below).
BY_NAME: dict[str, Handler] = {}

_MODEL_CLASS = re.compile(r"^(AutoModel\w*|\w+(?:Model|For[A-Z]\w*|LMHeadModel))$")
_NOT_MODEL = re.compile(r"(Tokenizer|Processor|Config|FeatureExtractor|ImageProcessor)\w*$")
# Calls of other libraries that hand back the model they were given.
_RETURNS_MODEL = {"unwrap_model", "prepare_model", "get_peft_model", "from_pretrained"}
_SEQ2SEQ_AUTO = ("AutoModelForSeq2SeqLM", "AutoModelForSpeechSeq2Seq")
_PATH_FUNCS = ("os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.join", "os.path.expanduser",
               "os.path.normpath", "pathlib.Path", "os.fspath", "builtins.str")


def path_key(value: Value) -> str | None:
    """A file path's value as a key two calls compare (pickled_cache): a constant string, or what an unknown value is
    named after (a parameter, the path call as written); None for a value nothing names."""
    if type(value) is Const and isinstance(value.value, str):
        return repr(value.value)
    if type(value) is Unknown and value.reason:
        return value.reason
    return None


def _call_text(trailer: Node) -> str:
    """The call a `(...)` trailer ends, as written (its head and the trailers up to it)."""
    parent = trailer.parent
    kids = parent.children[:parent.children.index(trailer) + 1] if parent is not None else [trailer]
    return "".join(code(k) for k in kids).strip()


def known(*names: str) -> Callable[[Handler], Handler]:
    """Register the decorated handler for these qualified names."""
    def register(handler: Handler) -> Handler:
        for name in names:
            assert name not in BY_NAME, name
            BY_NAME[name] = handler
        return handler
    return register


class KnownCallables:
    """Calls of other libraries' functions and classes, by qualified name. Inputs: the session, the
    expressions (to merge `**` dicts), the workspace imports, the loading (models, configs, pipelines) and,
    wired by the Interpreter, the call dispatch (`dispatch`: a Thread's target is called with its kwargs)."""

    dispatch: CallDispatch

    def __init__(self, session: Session, ex: Expressions, imports: WorkspaceImports, loading: Loading) -> None:
        self.s = session
        self.ex = ex
        self.imports = imports
        self.loading = loading
        # `torch.save`/`torch.load` are read for pickled caches only in a text that can hold one (its screen words).
        self.pickles = PICKLED_CACHE.said(session.text)

    def call_symbol(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        """The value of calling the name `q` with `args` (the table, then the transformers/unsloth and
        PEFT/accelerate families by shape, then the defaults)."""
        handler = BY_NAME.get(q)
        if handler is not None:
            return handler(self, q, args, trailer, whole)
        root = q.split(".", 1)[0]
        if root in ("transformers", "unsloth"):
            return self._transformers(q, args, trailer, whole)
        if root in ("peft", "accelerate") and q.rsplit(".", 1)[-1] in _RETURNS_MODEL:
            # A PEFT model generates with its base model; accelerate unwraps to the model it wrapped.
            first = positional(args, 0)
            if first is not None and isinstance(self.s.obj(first.value), ModelState):
                return first.value
        if q.startswith("builtins.") or q.startswith("."):
            return UNKNOWN
        return Symbol(q + "()")  # an object of another library: its methods are not transformers

    # -- the standard library ---------------------------------------------------
    @known("copy.deepcopy", "copy.copy")
    def _copy(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        return self.clone(first.value) if first else UNKNOWN

    @known("builtins.dict", "collections.OrderedDict")
    def _dict(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        d = DictState()
        if len(args) == 1 and args[0].arg.value.type == "argument" and not args[0].arg.star \
                and args[0].arg.value.children[-1].type in ("sync_comp_for", "comp_for"):
            # `dict((n, StaticCache(...)) for n in lengths)`: pairs from a generator, each value a cache of one class
            pair = args[0].arg.value.children[0]
            items = pair.children[1].children if pair.type == "atom" and len(pair.children) == 3 \
                and pair.children[1].type == "testlist_comp" else []
            every = comprehended_cache(self.ex, items[2]) if len(items) == 3 else None
            return self.s.new(DictState(opaque=True, every=every))
        for a in args:
            if a.arg.star == "**" or (a.arg.name is None and not a.arg.star):
                d = self.ex.merge_into(d, a.value)
            elif a.arg.name:
                d = d.set(a.arg.name, a.value, self.s.site(a.arg.node))
        return self.s.new(d)

    @known("builtins.tuple")
    def _tuple(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        return TupleVal(site_of(whole, "tuple(...)"))

    @known("builtins.list")
    def _list(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        # `list(cache)` of a transformers cache: a list of the items the cache iterates as (values.py `items_of`)
        who = self.ex.uses.subject(first.value) if first is not None and len(args) == 1 else None
        of = first.value if first is not None and who is not None and who.what == "cache" else None
        return ListVal(site_of(whole, "list(...)"), items_of=of)

    @known("functools.partial")
    def _partial(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        kws = DictState()
        for a in args:
            if a.arg.name:
                kws = kws.set(a.arg.name, a.value, self.s.site(a.arg.node))
            elif a.arg.star == "**":
                kws = self.ex.merge_into(kws, a.value)
        return Partial(first.value if first else UNKNOWN, self.s.new(kws))

    @known("types.MethodType")
    def _method_type(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        fn, obj = positional(args, 0), positional(args, 1)
        if fn is not None and isinstance(fn.value, Function) and obj is not None and isinstance(obj.value, Ref):
            return replace(fn.value, owner=obj.value)  # a function bound to the object as `self`
        return UNKNOWN

    @known("threading.Thread", "multiprocessing.Process")
    def _thread(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        target = kw(args, "target")
        kwargs = kw(args, "kwargs")
        if target is not None:
            return self.dispatch.call_with_kwargs(target.value, kwargs.value if kwargs else None, trailer, whole,
                                                  holder=kwargs.arg.value if kwargs else None,
                                                  through=f"`{q.rsplit('.', 1)[-1]}(kwargs=...)`")
        return UNKNOWN

    @known("os.environ.setdefault")
    def _env_setdefault(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        if first is not None and isinstance(first.value, Const) and isinstance(first.value.value, str):
            self.s.env_set.add(first.value.value)
        return UNKNOWN

    @known("os.environ.get", "os.getenv")
    def _env_get(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        key = first.value.value if first and isinstance(first.value, Const) else "?"
        return Unknown(f"the environment variable `{key}`")

    @known(*_PATH_FUNCS)
    def _path(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        """A path built from constants (a checkpoint folder next to the file) stays a constant; any other is unknown,
        named by the call as written (`os.path.join(folder, "chunk0.pt")`: where one such value reaches both a
        `torch.save` and a `torch.load`, the two name one file; pickled_cache)."""
        vals = [a.value for a in args if a.arg.name is None and not a.arg.star]
        if not vals or not all(isinstance(v, Const) and isinstance(v.value, str) for v in vals):
            return Unknown(f"`{_call_text(trailer)}`") if self.ex.uses.on and self.pickles else UNKNOWN
        strs = [str(v.value) for v in vals if isinstance(v, Const)]
        if q == "os.path.dirname":
            return Const(str(Path(strs[0]).parent))
        if q == "os.path.join":
            return Const(str(Path(*strs)))
        if q == "os.path.expanduser":
            return Const(str(Path(strs[0]).expanduser()))
        return Const(strs[0])

    @known("builtins.setattr")
    def _setattr(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        """`setattr(config, "cache_implementation", value)` is the attribute assignment."""
        target, attr, value = (positional(args, i) for i in range(3))
        if target is None or attr is None or value is None or not isinstance(attr.value, Const):
            return NONE
        cfg = self.s.obj(self.imports.force(target.value))
        if attr.value.value == "cache_implementation" and isinstance(cfg, ConfigState) and isinstance(target.value, Ref):
            s = setting_from(value, "model")
            self.s.put(target.value, replace(cfg, ci=s))
        elif isinstance(cfg, ModelState) and attr.value.value == "forward" and isinstance(target.value, Ref) and \
                value.value != Method(target.value, "forward"):
            # `setattr(model, "forward", patched_forward)` (Olive's export wrapper): as `model.forward = ...`
            self.s.put(target.value, replace(cfg, forward=value.value))
        elif isinstance(cfg, ConfigState) and isinstance(target.value, Ref) and isinstance(attr.value.value, str):
            # any other attribute: as `config.<attr> = value` (a plain attribute when the config has no such field)
            self.s.put(target.value, cfg.with_keys((ConfigKey(attr.value.value, self.s.site(attr.arg.node),
                                                              falsy(value.value), None, "attribute"),)))
        return NONE

    @known("builtins.getattr")
    def _getattr(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        """`getattr(cache, "key_cache", [])` reads the member by name: recorded as a use of the cache, as
        `cache.key_cache` is (removed_api.py judges the default)."""
        target, attr = positional(args, 0), positional(args, 1)
        if target is not None and attr is not None and self.ex.uses.on and isinstance(attr.value, Const) \
                and isinstance(attr.value.value, str):
            self.ex.uses.named(target.value, attr.value.value, attr.arg.value, target.arg.value)
        return UNKNOWN

    @known("builtins.len")
    def _len(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        if first is not None and self.ex.uses.on:
            self.ex.uses.whole(first.value, "len", first.arg.value)
        return UNKNOWN

    @known("torch.save")
    def _torch_save(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        """`torch.save(cache, path)` of a value the code says is a transformers cache: the file holds that cache."""
        first, second = positional(args, 0), positional(args, 1) or kw(args, "f")
        if first is None or second is None or not self.pickles or not isinstance(whole, Span):
            return NONE
        who, held = self.ex.uses.subject(first.value), None
        obj = self.s.obj(first.value) if type(first.value) is Ref else None
        if (who is None or who.what != "cache") and isinstance(obj, DictState):
            # `torch.save({"memory": cache, "ids": ids}, path)` (MemoRAG's memory): the pickle holds the cache's
            # classes all the same, whatever else the dict holds.
            for entry in obj.entries:
                who = self.ex.uses.subject(entry[1])
                if who is not None and who.what == "cache":
                    held = entry[0]
                    break
        key = path_key(second.value)
        if who is not None and who.what == "cache" and key is not None:
            cache = who.description if " " in who.description else f"a `{who.description}`"
            what = cache if held is None else f"a dict whose `{held}` is {cache}"
            self.s.record(PickledCache("save", whole, key, what, who.cls or "DynamicCache"))
        return NONE

    @known("torch.load")
    def _torch_load(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        """`torch.load(path, weights_only=True)`, or `torch.load(path)` without the keyword (torch's default):
        recorded with its path (pickled_cache). A `*`/`**` spread may carry the keyword: not recorded."""
        first, flag = positional(args, 0) or kw(args, "f"), kw(args, "weights_only")
        if first is None or not self.pickles or not isinstance(whole, Span):
            return UNKNOWN
        if flag is None and any(a.arg.star for a in args):
            return UNKNOWN
        if flag is not None and not (type(flag.value) is Const and flag.value.value is True):
            return UNKNOWN
        key = path_key(first.value)
        if key is None:
            return UNKNOWN
        if flag is not None:
            self.s.record(PickledCache("load", whole, key, keyword=self.s.span(flag.arg.node)))
        else:
            self.s.record(PickledCache("load", whole, key, last=self.s.span(args[-1].arg.node)))
        return UNKNOWN

    @known("torch.compile")
    def _torch_compile(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        first = positional(args, 0)
        return first.value if first else UNKNOWN

    # -- transformers and unsloth, by the shape of the name -----------------------
    def _transformers(self, q: str, args: list[EvArg], trailer: Node, whole: object) -> Value:
        parts = q.split(".")
        name = parts[-1]
        owner = parts[-2] if len(parts) >= 2 else ""
        loading = self.loading
        if name == "from_legacy_cache":
            cls = owner or "DynamicCache"
            return CacheVal(cls, site_of(whole, "from_legacy_cache(...)"), cls, _cache_module(parts[:-1]),
                            layered=cls != "EncoderDecoderCache")
        if name.endswith("Cache") and name[:1].isupper():
            cache = CacheVal(name, site_of(whole, f"{name}(...)"), name, _cache_module(parts),
                             layered=name != "EncoderDecoderCache", window=self._config_window(args))
            if cache.window is not None and cache.site is not None:
                self.ex.uses.constructed(cache, cache.site.span)
            return cache
        if name == "GenerationConfig":  # the constructor validates what it is given
            self.s.note_ci_argument(args, "GenerationConfig")
            return self.s.new(ConfigState(loading.ci_setting(args, "generation_config"), loading.config_keys(args),
                                          open=loading.spreads_unknown(args)))
        if name == "from_pretrained" and owner == "GenerationConfig":
            self.s.note_ci_argument(args)
            return loading.config_from_pretrained(args, loading.config_keys(args[1:]), call_span=whole)
        if name == "from_dict" and owner == "GenerationConfig":
            # `from_dict(d, **kw)` builds `GenerationConfig(**{**d, **kw})` (every checked release)
            self.s.note_ci_argument(args, "GenerationConfig")
            spread = [*(replace(a, arg=replace(a.arg, star="**")) for a in args[:1] if not a.arg.name), *args[1:]]
            return self.s.new(ConfigState(loading.ci_setting(spread, "generation_config"), loading.config_keys(spread),
                                          open=loading.spreads_unknown(spread)))
        if name == "pipeline":
            return loading.make_pipeline(args)
        if name in PIPELINE_CLASSES:  # `TextGenerationPipeline(model=..., tokenizer=...)`
            return loading.make_pipeline(args, PIPELINE_CLASSES[name])
        if name == "register_pipeline":  # a custom task: its own Pipeline subclass takes its own parameters
            task = const_str(positional(args, 0) or kw(args, "task"))
            if task is not None:
                self.s.custom_tasks.add(task)
            return NONE
        if owner in ("FastLanguageModel", "FastModel", "FastVisionModel") and name == "from_pretrained":
            # Unsloth reads the flag when it is imported; a later assignment changes nothing.
            disabled = self.s.unsloth_fast_disabled
            fast = not (disabled if disabled is not None else "UNSLOTH_DISABLE_FAST_GENERATION" in self.s.env_set)
            model = loading.load_model(None, args, wrapper="unsloth" if fast else None, site=whole)
            return TupleVal(None, (model, UNKNOWN))
        if name in ("from_pretrained", "from_config") and _MODEL_CLASS.match(owner) and not _NOT_MODEL.search(owner):
            return loading.load_model(None if owner.startswith("AutoModel") else owner, args,
                                      checkpoint=name == "from_pretrained", encoder_decoder=owner in _SEQ2SEQ_AUTO,
                                      call_span=whole, decoder_only=owner.endswith("ForCausalLM"),
                                      loader=f"{owner}.{name}")
        if _MODEL_CLASS.match(name) and not _NOT_MODEL.search(name) and not name.startswith("Auto"):
            return self.s.new(ModelState(class_name=name, gen_config=self.s.new(ConfigState())))
        return UNKNOWN

    def _config_window(self, args: list[EvArg]) -> str | None:
        """The family of the model whose config a cache is built with (`config=model.config`), when the code says
        it has sliding-window layers: the cache then gets sliding-window layers too (4.56+)."""
        given = kw(args, "config")
        value = given.value if given is not None else None
        if not isinstance(value, Method) or value.name != "config":
            return None
        model = self.s.obj(value.owner)
        if not isinstance(model, ModelState) or not model.is_transformers or model.remote_code:
            return None
        return windowed_family(model.class_name, model.checkpoint)

    def clone(self, value: Value) -> Value:
        """`copy.copy`/`deepcopy`: a new heap object with the same state (a model is returned as it is)."""
        obj = self.s.obj(value)
        if obj is None or isinstance(obj, ModelState):
            return value
        return self.s.new(replace(obj))


def _cache_module(parts: list[str]) -> str:
    """The module defining the cache class `parts` names (`transformers.X`: cache_utils, where the top level
    serves the cache classes from; `transformers.models.mamba.modeling_mamba.MambaCache`: that module)."""
    return ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
