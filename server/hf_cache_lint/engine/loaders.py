"""Objects transformers builds: models from checkpoints, GenerationConfigs, pipelines."""

from __future__ import annotations

from hf_cache_lint.engine import checkpoints
from hf_cache_lint.engine.analysis import CiValue, Site
from hf_cache_lint.engine.core import EvArg
from hf_cache_lint.engine.findings import Span
from hf_cache_lint.engine.generate import GenerateFacts
from hf_cache_lint.engine.values import (
    ConfigState,
    Const,
    ModelState,
    PipelineState,
    Ref,
    Setting,
    Value,
)

_MAMBA_IDS = (("falcon-mamba", "FalconMambaForCausalLM"), ("mamba2", "Mamba2ForCausalLM"),
              ("mamba-2", "Mamba2ForCausalLM"), ("mamba", "MambaForCausalLM"))


class Loaders(GenerateFacts):
    def _const_str(self, a: EvArg | None) -> str | None:
        if a is not None and isinstance(a.value, Const) and isinstance(a.value.value, str):
            return a.value.value
        return None

    def checkpoint_config(self, checkpoint: str) -> checkpoints.CheckpointConfig | None:
        # Relative checkpoints resolve against the workspace and the file's folder, not the process's working
        # directory (the server's is the extension's folder); reads stay inside those and the hub cache.
        roots = tuple(p for p in (self.context.workspace, self.file_dir) if p is not None)
        hub = self.context.hf_hub_cache
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
        via = "hub-default" if found.source == "hub-default" else "checkpoint"
        site = None
        if found.path and found.span:
            site = Site(found.span, f"`\"cache_implementation\": \"{found.cache_implementation}\"` in "
                        f"{found.path}", found.path)
            self.record_ci(CiValue(found.cache_implementation, found.span, "json", found.path,
                                   call_span if isinstance(call_span, Span) else None))
        elif via == "hub-default":
            site = None
        return Setting(found.cache_implementation, site, via=via), found.architecture

    def load_model(self, class_name: str | None, args: list[EvArg], *, checkpoint: bool = True,
                   wrapper: str | None = None, encoder_decoder: bool = False, site: object = None,
                   call_span: object = None) -> Ref:
        ckpt = self._const_str(self.positional(args, 0) or self.kw(args, "pretrained_model_name_or_path")
                               or self.kw(args, "model_name")) if checkpoint else None
        setting, arch = self._checkpoint_setting(ckpt, call_span or site)
        if ckpt is not None and self.folder_key(ckpt) in self.saved:  # saved earlier in this module
            setting = self.saved[self.folder_key(ckpt)]
        explicit = self.kw(args, "generation_config")
        if explicit is not None:
            cfg = self.obj(explicit.value)
            setting = cfg.ci if isinstance(cfg, ConfigState) else None
        name = class_name or arch or _class_from_id(ckpt)
        loaded_at = self.site_of(site, "the model is loaded here") if site is not None else None
        return self.new(ModelState(class_name=name, checkpoint=ckpt, gen_config=self.new(ConfigState(setting)),
                                   wrapper=wrapper, encoder_decoder=encoder_decoder, loaded_at=loaded_at))

    def config_from_pretrained(self, args: list[EvArg], call_span: object = None) -> Ref:
        path = self._const_str(self.positional(args, 0))
        setting, _ = self._checkpoint_setting(path, call_span)
        if path is not None and self.folder_key(path) in self.saved:
            setting = self.saved[self.folder_key(path)]
        kw = self.setting_from(self.kw(args, "cache_implementation"), "generation_config")
        return self.new(ConfigState(kw if kw is not None else setting))

    def make_pipeline(self, args: list[EvArg], task_of_class: str | None = None) -> Ref:
        """`pipeline(task, model=...)` (or a pipeline class built directly): what its calls hand to generate
        depends on the task, so an unknown task is kept as None."""
        if task_of_class is not None:
            task: str | None = task_of_class
            model_arg = self.kw(args, "model") or self.positional(args, 0)
        else:
            task = self._const_str(self.positional(args, 0) or self.kw(args, "task"))
            model_arg = self.kw(args, "model") or self.positional(args, 1)
        if self.kw(args, "pipeline_class") is not None:
            task = None  # the user's own Pipeline subclass decides what reaches generate
        model: Value | None = model_arg.value if model_arg else None
        if model_arg is not None and isinstance(model_arg.value, Const):
            model = self.load_model(None, [model_arg])
        ci = self.setting_from(self.kw(args, "cache_implementation"), "pipeline")
        state = PipelineState(model if isinstance(model, Ref) else None, task, ci)
        if self.pipeline_reaches_generate(state):  # its keywords become generate's defaults
            self.note_ci_argument(args)
        return self.new(state)

    # implemented in known.py
    def setting_from(self, a: EvArg | None, via: str) -> Setting | None:
        raise NotImplementedError

    @staticmethod
    def kw(args: list[EvArg], name: str) -> EvArg | None:
        raise NotImplementedError

    @staticmethod
    def positional(args: list[EvArg], i: int) -> EvArg | None:
        raise NotImplementedError


def _class_from_id(checkpoint: str | None) -> str | None:
    if not checkpoint:
        return None
    low = checkpoint.lower()
    for key, cls in _MAMBA_IDS:
        if key in low and "jamba" not in low and "bamba" not in low and "zamba" not in low:
            return cls
    return None
