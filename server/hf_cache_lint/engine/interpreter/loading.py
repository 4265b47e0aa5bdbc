"""Model and config loading: what transformers builds from a checkpoint — a model with its generation
config, a GenerationConfig, a pipeline — and what a checkpoint's files on disk (the workspace, the Hub
cache, folders this module saved to) say about its `cache_implementation`."""

from __future__ import annotations

from dataclasses import replace

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment import checkpoints
from hf_cache_lint.engine.environment.families import mamba_class_from_id
from hf_cache_lint.engine.facts.loader_keyword import LOADER_KEYWORDS, LoaderKeyword
from hf_cache_lint.engine.interpreter.arguments import const_str, kw, positional, setting_from
from hf_cache_lint.engine.interpreter.generate_calls import GenerateFacts
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.session import EvArg, Session, site_at, site_of
from hf_cache_lint.engine.interpreter.values import (
    ConfigKey,
    ConfigState,
    Const,
    DictState,
    KeyHow,
    ModelState,
    PipelineState,
    Ref,
    Setting,
    Unknown,
    Value,
    falsy,
)
from hf_cache_lint.engine.output.analysis import CiSource, CiValue, Site


class Loading:
    """Builds the heap objects of loaded models, configs and pipelines. Inputs: the session (heap, the
    folders saved so far, the recording of checked values), the workspace imports (to force `**` dicts)
    and the generate facts (whether a pipeline's keywords reach generate). A new loader (another library's
    `from_pretrained`) calls `load_model`; which names are loaders is decided in known.py."""

    def __init__(self, session: Session, imports: WorkspaceImports, facts: GenerateFacts) -> None:
        self.s = session
        self.imports = imports
        self.facts = facts

    def checkpoint_config(self, checkpoint: str) -> checkpoints.CheckpointConfig | None:
        # Relative checkpoints resolve against the workspace and the file's folder, not the process's working
        # directory (the server's is the extension's folder); reads stay inside those and the hub cache.
        if self.s.reads is not None:
            self.s.reads.impure = True  # a file on disk
        context = self.s.context
        roots = tuple(p for p in (context.workspace, self.s.file_dir) if p is not None)
        hub = context.hf_hub_cache
        return checkpoints.lookup(checkpoint, base_dirs=roots, roots=roots + ((hub,) if hub else ()),
                                  hub_cache=hub)

    def _checkpoint_setting(self, checkpoint: str | None,
                            call_span: object = None) -> tuple[Setting | None, str | None]:
        """The json's cache_implementation as a Setting, and the architecture it names."""
        if checkpoint is None:
            return None, None
        found = self.checkpoint_config(checkpoint)
        if found is None:
            return None, None
        if found.cache_implementation is None:
            return None, found.architecture
        via: CiSource = "hub-default" if found.source == "hub-default" else "checkpoint"
        site = None
        if found.path and found.span:
            site = Site(found.span, f"`\"cache_implementation\": \"{found.cache_implementation}\"` in "
                        f"{found.path}", found.path)
            self.s.record(CiValue(found.cache_implementation, found.span, "json", found.path,
                                     call_span if isinstance(call_span, Span) else None))
        elif via == "hub-default":
            site = None
        return Setting(found.cache_implementation, site, via=via), found.architecture

    def load_model(self, class_name: str | None, args: list[EvArg], *, checkpoint: bool = True,
                   wrapper: str | None = None, encoder_decoder: bool = False, site: object = None,
                   call_span: object = None, decoder_only: bool = False, loader: str | None = None) -> Ref:
        """A model loaded by `from_pretrained(checkpoint, ...)` (or built by `from_config`, `checkpoint`
        False): its class (given, from the checkpoint's config.json, or from a Mamba checkpoint id) and its
        generation config as the checkpoint's files, a folder saved earlier or `generation_config=` set it."""
        s = self.s
        ckpt = const_str(positional(args, 0) or kw(args, "pretrained_model_name_or_path")
                         or kw(args, "model_name")) if checkpoint else None
        setting, arch = self._checkpoint_setting(ckpt, call_span or site)
        # saved earlier in this module (resolving the folder costs a realpath: only when something was saved;
        # the checkpoint's lookup above has already marked a recorded run as reading the disk)
        if ckpt is not None and s.saved and s.folder_key(ckpt) in s.saved:
            setting = s.saved[s.folder_key(ckpt)]
        explicit = kw(args, "generation_config")
        if explicit is not None:
            cfg = s.obj(explicit.value)
            setting = cfg.ci if isinstance(cfg, ConfigState) else None
        name = class_name or arch or mamba_class_from_id(ckpt)
        if loader is not None and checkpoint and isinstance(call_span, Span):
            self._loader_keywords(args, call_span, loader, name)
        loaded_at = site_of(site, "the model is loaded here") if site is not None else None
        remote = kw(args, "trust_remote_code")
        remote_code = remote is not None and not (isinstance(remote.value, Const) and remote.value.value is False)
        return s.new(ModelState(class_name=name, checkpoint=ckpt, gen_config=s.new(ConfigState(setting)),
                                wrapper=wrapper, encoder_decoder=encoder_decoder, loaded_at=loaded_at,
                                remote_code=remote_code,
                                decoder_only=decoder_only or (name or "").endswith("ForCausalLM")))

    def _loader_keywords(self, args: list[EvArg], call: Span, loader: str, model_class: str | None) -> None:
        """The generation keywords written into a model's `from_pretrained(...)` (the loader hands them to the
        model's `__init__`, which raises): recorded for HFC004."""
        for a in args:
            if a.arg.name in LOADER_KEYWORDS:
                self.s.record(LoaderKeyword(self.s.span(a.arg.node), a.arg.name, call, loader, model_class,
                                            tuple(self.s.span(b.arg.node) for b in args)))

    def config_from_pretrained(self, args: list[EvArg], keys: tuple[ConfigKey, ...] = (),
                               call_span: object = None) -> Ref:
        """`GenerationConfig.from_pretrained(path, **kw)`: the json's value, unless a keyword (written or a key of
        a `**dict`) overrides it; `keys`: the keywords, which reach the constructor with the json's
        (`from_dict`: `cls(**{**config_dict, **kwargs})` on every checked release)."""
        s = self.s
        path = const_str(positional(args, 0))
        setting, _ = self._checkpoint_setting(path, call_span)
        if path is not None and s.saved and s.folder_key(path) in s.saved:  # as in load_model
            setting = s.saved[s.folder_key(path)]
        given = self.ci_setting(args, "generation_config")
        return s.new(ConfigState(given if given is not None else setting, keys))

    def make_pipeline(self, args: list[EvArg], task_of_class: str | None = None) -> Ref:
        """`pipeline(task, model=...)` (or a pipeline class built directly): what its calls hand to generate
        depends on the task, so an unknown task is kept as None."""
        if task_of_class is not None:
            task: str | None = task_of_class
            model_arg = kw(args, "model") or positional(args, 0)
        else:
            task = const_str(positional(args, 0) or kw(args, "task"))
            model_arg = kw(args, "model") or positional(args, 1)
        if kw(args, "pipeline_class") is not None:
            task = None  # the user's own Pipeline subclass decides what reaches generate
        model: Value | None = model_arg.value if model_arg else None
        if model_arg is not None and isinstance(model_arg.value, Const):
            model = self.load_model(None, [model_arg])
        ci = setting_from(kw(args, "cache_implementation"), "pipeline")
        state = PipelineState(model if isinstance(model, Ref) else None, task, ci)
        if self.facts.pipeline_reaches_generate(state):  # its keywords become generate's defaults
            self.s.note_ci_argument(args)
        return self.s.new(state)

    def ci_setting(self, args: list[EvArg], via: CiSource) -> Setting | None:
        """`cache_implementation` as a call gives it: written, or a key of a `**dict` argument."""
        written = setting_from(kw(args, "cache_implementation"), via)
        if written is not None:
            return written
        for a in args:
            d = self.s.obj(self.imports.force(a.value)) if a.arg.star == "**" else None
            got = d.get("cache_implementation") if isinstance(d, DictState) else None
            if got is not None:
                value, site, cond = got
                if isinstance(value, Const):
                    return Setting(value.value if isinstance(value.value, str) else None, site, cond, via)
                return Setting(None, site, cond, via, unknown=value.reason if isinstance(value, Unknown) else
                               "a value the linter cannot see")
        return None

    def config_keys(self, args: list[EvArg], how: KeyHow = "built") -> tuple[ConfigKey, ...]:
        """The keywords a GenerationConfig is given (`GenerationConfig(...)`, `update(...)`): written ones, and
        the keys of `**dict` arguments (a dict built in steps, in `__init__`, in another function), each with the
        condition of the paths that set it when this path does not decide it (a key this path excludes is left
        out)."""
        keys: list[ConfigKey] = []
        for a in args:
            if a.arg.name and not a.arg.star:
                keys.append(ConfigKey(a.arg.name, self.s.site(a.arg.node), falsy(self.imports.force(a.value)),
                                      None, how))
            elif a.arg.star == "**":
                d = self.s.obj(self.imports.force(a.value))
                if isinstance(d, DictState):
                    for k, v, site, c in d.entries:
                        decided = self.s.state.decides(c) if c is not None else True
                        if site is not None and decided is not False:
                            keys.append(ConfigKey(k, site, falsy(v), None if decided else c, how))
        return tuple(keys)

    def spreads_unknown(self, args: list[EvArg]) -> bool:
        """Whether a `**` argument spreads a dict whose keys the code does not show (not a dict it built, or one
        holding keys the linter cannot see): a GenerationConfig built with it may have any attribute."""
        for a in args:
            if a.arg.star == "**":
                d = self.s.obj(self.imports.force(a.value))
                if not isinstance(d, DictState) or d.opaque:
                    return True
        return False

    def remember_save(self, config: Ref | None, args: list[EvArg]) -> None:
        """`save_pretrained(folder)` writes generation_config.json: a later load of it sees the value."""
        first = positional(args, 0) or kw(args, "save_directory")
        if first is None or not isinstance(first.value, Const) or not isinstance(first.value.value, str):
            return
        cfg = self.s.obj(config) if config is not None else None
        ci = cfg.ci if isinstance(cfg, ConfigState) else None
        if ci is not None and ci.value is not None:
            ci = replace(ci, site=site_at(first.arg.node, f"saved by save_pretrained({first.value.value!r})"),
                         via="checkpoint")
        self.s.saved[self.s.folder_key(first.value.value)] = ci
