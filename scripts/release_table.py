"""Write server/hf_cache_lint/data/releases.json: the cache API of every transformers release, read from the wheels.

    python3 scripts/release_table.py --download     # fetch the missing wheels (pip download --no-deps) first
    python3 scripts/release_table.py                # regenerate from .cache/wheels/ (deterministic)
    python3 scripts/release_table.py --check        # exit 1 when the shipped file differs from a regeneration

Nothing is imported from a release: each wheel is opened with `zipfile` and its sources read with `ast`. Read per
release (every release from 4.41.0 to the newest on PyPI, patches included):

- `name:` what a module defines or re-exports under a name (`transformers.cache_utils`; the names ending in `Cache`
  of the modeling modules of the families in MODEL_FAMILIES): a class with its bases, an alias, an import;
- `export:` the names `import transformers` serves lazily (`_import_structure`, and the models' `__all__` where the
  top-level init builds its structure from them) that are cache classes or live in `cache_utils`;
- `init:` / `member:` constructors and public members (methods with their parameters, properties, attributes set
  on `self` in any of their methods, class attributes) of those classes, of `GenerationMixin` (private helpers and hooks too), and the
  cache hooks (`forward`, `prepare_inputs_for_generation`) of the reference models (Llama, Mamba, T5);
- `genconfig:` the fields `GenerationConfig.__init__` takes, with their defaults; `member:` of `GenerationConfig`
  (its methods, properties and what any of its methods sets on `self`);
- `cache_implementation:` the values `GenerationConfig.validate()` accepts ("valid"/"deprecated"), and whether it
  checks at all (`cache_implementation:*`);
- `model_attr:` the class attributes of `PreTrainedModel` / `GenerationMixin` about caches and generation;
- `name:` of the generation modules code imports helpers and output classes from (GENERATION_MODULES: every name
  bound at their top level, private ones too: `_crop_past_key_values`, `GreedySearchOutput`), and what the
  `transformers.generation` package serves lazily (its `_import_structure`); `export:` the top-level names
  `import transformers` serves from `generation` (GreedySearchOutput was never one; the logits processors are).
- `reads:` what some of `GenerationMixin`'s private helpers read, on every call, off the arguments project code
  hands them when it runs generate's steps itself (HELPER_READS): a private attribute of the generation config
  (`generation_config._eos_token_tensor`, set only by `_prepare_special_tokens`) or a key of the model kwargs
  (`model_kwargs['cache_position']`, read by subscript or a `pop` without a default);
- `name:` of the modeling modules of MODEL_NAME_FAMILIES (the architectures real cache code imports from and
  patches: every name bound at their top level, `optional:` where only under an `if`/`try`), and `init:` of their
  `*RotaryEmbedding` classes.

A fact's value is a short string; the table stores, per fact, the runs of consecutive releases that share a value
(`[first, last, value]`): a release outside every run lacks the fact. The hand-written behaviours
(release_behaviours.py: what a signature does not show) are copied in after their `evidence` string is checked: the
first release whose source contains it must be the entry's `first`.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
WHEELS = ROOT / ".cache" / "wheels"
OUT = ROOT / "server" / "hf_cache_lint" / "data" / "releases.json"
OLDEST = Version("4.41.0")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_behaviours import BEHAVIOURS  # noqa: E402

# The reference models whose cache hooks are tabled (the classes rules and oracle cases use).
HOOK_CLASSES = {
    "transformers.models.llama.modeling_llama": ("LlamaForCausalLM", "LlamaModel", "LlamaDecoderLayer",
                                                 "LlamaAttention"),
    "transformers.models.mamba.modeling_mamba": ("MambaForCausalLM", "MambaModel", "MambaMixer"),
    "transformers.models.t5.modeling_t5": ("T5ForConditionalGeneration",),
}
# The model packages read (their modeling modules' `*Cache` classes and exports): the state-space and hybrid
# families whose caches code imports from the model module (docs/facts.md §1), and the hook reference models.
# Reading every model of a 5.x wheel (~400 modules) would cost ~20x the time for caches nobody imports.
MODEL_FAMILIES = frozenset({"mamba", "mamba2", "falcon_mamba", "jamba", "bamba", "zamba", "zamba2", "falcon_h1",
                            "qwen3_next", "granitemoehybrid", "nemotron_h", "lfm2", "llama", "t5", "gemma2"})
HOOKS = ("forward", "prepare_inputs_for_generation", "_update_model_kwargs_for_generation", "_reorder_cache")
# Class attributes of the model classes that say something about caches or generation.
MODEL_ATTR = re.compile(r"_supports_\w*|_is_stateful|_cache\w*|\w*_cache\w*|main_input_name")
# Dunders that decide how a cache is used (iteration, indexing, len, truthiness).
DUNDERS = frozenset({"__init__", "__getitem__", "__iter__", "__len__", "__contains__", "__bool__", "__setitem__",
                     "__repr__"})


class Release:
    """One release's sources, read from its wheel (or from an installed tree: the oracle's environments)."""

    def __init__(self, version: str, path: Path) -> None:
        self.version = version
        self.path = path
        self._trees: dict[str, ast.Module | None] = {}
        self._zip = zipfile.ZipFile(path) if path.is_file() else None
        self._root = None if self._zip else path
        names = self._zip.namelist() if self._zip else [
            str(p.relative_to(path)) for p in path.glob("transformers/**/*.py")]
        self.names = sorted(n for n in names if n.startswith("transformers/") and n.endswith(".py"))

    def text(self, name: str) -> str | None:
        try:
            if self._zip is not None:
                return self._zip.read(name).decode("utf-8")
            assert self._root is not None
            return (self._root / name).read_text(encoding="utf-8")
        except (KeyError, FileNotFoundError):
            return None

    def tree(self, name: str) -> ast.Module | None:
        if name not in self._trees:
            self._trees[name] = parse(name, self.text(name))
        return self._trees[name]


_PARSED: dict[str, tuple[str, ast.Module]] = {}


def parse(name: str, text: str | None) -> ast.Module | None:
    """`ast.parse`, reusing the tree of the last release read when the file is the same (parsing is most of the
    time, and consecutive releases share most files; the trees are never modified)."""
    if text is None:
        return None
    digest = hashlib.sha256(text.encode()).hexdigest()
    last = _PARSED.get(name)
    if last is not None and last[0] == digest:
        return last[1]
    tree = ast.parse(text)
    _PARSED[name] = (digest, tree)
    return tree


def module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The parameters with their defaults, without annotations (those change without changing what a call may
    pass), and the keyword-deprecation decorators (they rename what a call may pass)."""
    a = fn.args
    out: list[str] = []
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        out.append(arg.arg if default is None else f"{arg.arg}={ast.unparse(default)}")
        if a.posonlyargs and i == len(a.posonlyargs) - 1:
            out.append("/")
    if a.vararg:
        out.append(f"*{a.vararg.arg}")
    elif a.kwonlyargs:
        out.append("*")
    for arg, kw_default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(arg.arg if kw_default is None else f"{arg.arg}={ast.unparse(kw_default)}")
    if a.kwarg:
        out.append(f"**{a.kwarg.arg}")
    kinds = [d for d in fn.decorator_list if "deprecate" in ast.unparse(d)]
    prefix = "".join(f"@{ast.unparse(d)} " for d in kinds)
    return f"{prefix}({', '.join(out)})"


def decorator_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] for d in fn.decorator_list}


def class_members(cls: ast.ClassDef, private: bool) -> Iterator[tuple[str, str]]:
    """(name, description) of the members a class defines itself (inherited ones are resolved by the reader)."""
    seen: dict[str, str] = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name
            if not (private or not name.startswith("_") or name in DUNDERS):
                continue
            marks = decorator_names(node)
            if "property" in marks:
                seen[name] = "property"
            elif name in seen and seen[name] == "property":
                continue  # the setter of a property
            elif "classmethod" in marks:
                seen[name] = "classmethod" + signature(node)
            elif "staticmethod" in marks:
                seen[name] = "staticmethod" + signature(node)
            else:
                seen[name] = "def" + signature(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            bound = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in bound:
                if isinstance(t, ast.Name) and (private or not t.id.startswith("_")):
                    seen[t.id] = "classattr"
    # The attributes its methods set on the instance: `__init__`'s, and those another method sets
    # (`StaticLayer.lazy_initialization`'s `self.max_batch_size = ...`, 4.56-4.57; the first update runs it), so a
    # member a release sets late is not taken for one it lacks. A class-level name or method keeps its description.
    for method in (n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        for sub in ast.walk(method):
            targets: list[ast.expr] = []
            if isinstance(sub, ast.Assign):
                targets = list(sub.targets)
            elif isinstance(sub, ast.AnnAssign | ast.AugAssign):
                targets = [sub.target]
            for t in targets:
                for leaf in ast.walk(t):
                    if (isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name)
                            and leaf.value.id == "self" and not leaf.attr.startswith("_")):
                        seen.setdefault(leaf.attr, "attr")
    yield from sorted(seen.items())


def bases(cls: ast.ClassDef) -> str:
    return "class(" + ", ".join(ast.unparse(b) for b in cls.bases) + ")"


def module_names(mod: str, tree: ast.Module, wanted: re.Pattern[str] | None, facts: dict[str, str],
                 skip_imports: Iterable[str] = ()) -> dict[str, ast.ClassDef]:
    """Record what the module binds at its top level (filtered by `wanted`); return its classes."""
    skip_imports = set(skip_imports)
    classes: dict[str, ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if wanted is None or wanted.search(node.name):
                classes[node.name] = node
                facts[f"name:{mod}.{node.name}"] = bases(node)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for t in node.targets:
                if isinstance(t, ast.Name) and (wanted is None or wanted.search(t.id)):
                    facts[f"name:{mod}.{t.id}"] = f"alias({node.value.id})"
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                name = alias.asname or alias.name
                # A model module's imports of cache_utils' own classes are not tabled (every model has them).
                if wanted is not None and wanted.search(name) and name not in skip_imports:
                    facts[f"name:{mod}.{name}"] = f"import({'.' * node.level}{node.module}.{alias.name})"
    return classes


def record_class(mod: str, cls: ast.ClassDef, facts: dict[str, str], private: bool = False,
                 only: Iterable[str] | None = None) -> None:
    keep = set(only) if only is not None else None
    for name, what in class_members(cls, private):
        if keep is not None and name not in keep:
            continue
        if name == "__init__":
            facts[f"init:{mod}.{cls.name}"] = what.removeprefix("def")
        else:
            facts[f"member:{mod}.{cls.name}.{name}"] = what


# ---- the lazy top-level exports ---------------------------------------------------------------------------------

def _str_list(node: ast.expr) -> list[str]:
    if isinstance(node, ast.List | ast.Tuple):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def lazy_exports(tree: ast.Module) -> dict[str, str]:
    """name -> the submodule a package's `_import_structure` serves it from (a `_LazyModule` init)."""
    exports: dict[str, str] = {}

    def key_of(node: ast.expr) -> str | None:
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "_import_structure"
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            return node.slice.value
        return None

    def add(key: str, names: list[str]) -> None:
        if key.startswith("utils.dummy_") or key.endswith("dummy_objects"):
            return  # what a missing optional dependency serves instead
        for n in names:
            exports[n] = key

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id == "_import_structure" and isinstance(node.value, ast.Dict):
                    for dk, dv in zip(node.value.keys, node.value.values, strict=True):
                        if isinstance(dk, ast.Constant) and isinstance(dk.value, str):
                            add(dk.value, _str_list(dv))
                elif (key := key_of(t)) is not None:
                    add(key, _str_list(node.value))
        elif isinstance(node, ast.AugAssign) and (key := key_of(node.target)) is not None:
            add(key, _str_list(node.value))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("extend", "append") and (key := key_of(node.func.value)) is not None
              and node.args):
            arg = node.args[0]
            add(key, _str_list(arg) if node.func.attr == "extend" else _str_list(ast.List(elts=[arg])))
    return exports


def top_level_exports(release: Release, model_all: dict[str, list[str]]) -> dict[str, str]:
    """name -> the module `import transformers` serves it from (when torch is installed)."""
    tree = release.tree("transformers/__init__.py")
    assert tree is not None, release.version
    exports = lazy_exports(tree)
    # Newer inits build the models' part of the structure from each module's `__all__` (read with the modules).
    if 'define_import_structure(Path(__file__).parent / "models"' in (release.text("transformers/__init__.py") or ""):
        for mod, names in model_all.items():
            for n in names:
                exports.setdefault(n, mod.removeprefix("transformers."))
    return exports


# ---- the generation modules' names ------------------------------------------------------------------------------

# The generation modules real code imports private helpers and output classes from (`_crop_past_key_values`,
# `GreedySearchOutput`): every name they bind at the top level is tabled, as the import of one the target lacks
# raises ImportError.
GENERATION_MODULES = ("transformers/generation/utils.py", "transformers/generation/candidate_generator.py")


def _bound(body: list[ast.stmt]) -> Iterator[tuple[str, str]]:
    """(name, description) of what a module's top level binds, its `if`/`try` blocks included (a name bound only
    when torch is available is bound: the linter's users have torch); of its imports, transformers' own names."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield node.name, bases(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, "def"
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            what = f"alias({node.value.id})" if isinstance(node.value, ast.Name) else "value"
            for t in targets:
                names = [t] if isinstance(t, ast.Name) else \
                    [e for e in t.elts if isinstance(e, ast.Name)] if isinstance(t, ast.Tuple | ast.List) else []
                for leaf in names:
                    yield leaf.id, what
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("transformers")):
            # transformers' own names only: another library's (`roc_curve` when sklearn is installed, accelerate's
            # hooks) is bound only where that library is, and is not transformers' API
            for alias in node.names:
                if alias.name != "*":
                    yield alias.asname or alias.name, f"import({'.' * node.level}{node.module or ''}.{alias.name})"
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):  # imports for annotations only: never bound
                yield from _bound(node.body)
            yield from _bound(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _bound(node.body)
            for handler in node.handlers:
                yield from _bound(handler.body)
            yield from _bound(node.orelse)


def generation_names(release: Release, facts: dict[str, str]) -> None:
    for path in GENERATION_MODULES:
        tree = release.tree(path)
        if tree is None:
            continue
        mod = module_name(path)
        for name, what in _bound(tree.body):
            facts.setdefault(f"name:{mod}.{name}", what)  # the first binding (a later fallback rebinds the same name)
    package = release.tree("transformers/generation/__init__.py")
    if package is not None:
        for name, where in lazy_exports(package).items():
            if torch_side(name, where):
                facts.setdefault(f"name:transformers.generation.{name}", f"import(.{where}.{name})")


# ---- the model modules' names ------------------------------------------------------------------------------------

# The modeling modules of the architectures real cache code imports classes and helpers from and patches
# (`from transformers.models.llama.modeling_llama import LlamaFlashAttention2`, `modeling_mistral.
# MistralSdpaAttention.forward = ...`, `_prepare_4d_causal_attention_mask_with_cache_position`, `repeat_kv`): KV
# compression, long-context and speculative-decoding projects patch these (read from public repositories:
# PyramidKV, StreamingLLM ports, SnapKV, cake, KVzip, unsloth, axolotl, LLaVA-style VLMs). Every name their top
# level binds is tabled, as importing or reading one the target lacks raises. Each module adds ~60 names (~30 KB
# of table for all of them); reading every model (~400 modules per 5.x wheel) would cost 20x for names nobody
# patches.
MODEL_NAME_FAMILIES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen3",
                       "gemma", "gemma2", "phi3", "gpt2", "gpt_neox", "opt", "falcon", "t5", "whisper")


def _model_bound(body: list[ast.stmt]) -> Iterator[tuple[str, str]]:
    """`_bound` of a model module's top level, a name bound under an `if` or `try` marked `optional:` (bound only
    where an optional library is: `if is_flash_attn_2_available(): from ...modeling_flash_attention_utils import
    _flash_attention_forward`): present, so never reported as removed, but not claimed importable everywhere."""
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            for name, what in _bound([node]):
                yield name, f"optional:{what}"
        elif not (isinstance(node, ast.Assign | ast.AnnAssign) and all(
                isinstance(t, ast.Name) and t.id.startswith("__")
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))):
            yield from _bound([node])  # not `__all__`: no import names it


def model_module_names(release: Release, facts: dict[str, str]) -> None:
    for family in MODEL_NAME_FAMILIES:
        path = f"transformers/models/{family}/modeling_{family}.py"
        tree = release.tree(path)
        if tree is None:
            continue
        mod = module_name(path)
        for name, what in _model_bound(tree.body):
            # The first binding; a name already tabled (a family's cache class, a hook class) keeps its fact.
            facts.setdefault(f"name:{mod}.{name}", what)
        # The constructors of the rotary embeddings attention code copied from a release builds itself
        # (`LlamaRotaryEmbedding(self.head_dim, max_position_embeddings=...)`, 4.4x; `(config, device=None)` from
        # 4.48): HFC007 judges calls of them as it judges a cache class's (engine/interpreter/constructor_calls.py).
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name.endswith("RotaryEmbedding"):
                record_class(mod, node, facts, only=("__init__",))


def torch_side(name: str, where: str) -> bool:
    """Not a TensorFlow or Flax class (`TFGreedySearchDecoderOnlyOutput`, `.flax_utils`): those import only with
    that framework installed, which the linter's users (PyTorch code) do not need."""
    return not name.startswith(("TF", "Flax")) and not where.startswith(("tf_", "flax_"))


# ---- what generate hands a model's forward, and what a decoder layer unpacks ------------------------------------

def _input_keys(body: list[ast.stmt], gated: bool, into: dict[str, str]) -> None:
    """The constant keys a `prepare_inputs_for_generation` body puts in `model_inputs` (`model_inputs["k"] = ...`,
    `model_inputs = {"k": ...}`, `model_inputs.update({"k": ...})`): "always", or "if-forward-takes" where an
    enclosing `if` tests the forward's signature (5.23's `cache_position` for remote code whose forward takes it:
    never a TypeError). A key set anywhere unconditionally is "always" (the other paths are the usual step)."""
    def add(key: object) -> None:
        if isinstance(key, str) and (not gated or into.get(key) != "always"):
            into[key] = "if-forward-takes" if gated else "always"

    def dict_keys(node: ast.expr) -> None:
        if isinstance(node, ast.Dict):
            for k in node.keys:
                if isinstance(k, ast.Constant):
                    add(k.value)

    for node in body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "model_inputs"
                        and isinstance(t.slice, ast.Constant)):
                    add(t.slice.value)
                elif isinstance(t, ast.Name) and t.id == "model_inputs":
                    dict_keys(node.value)
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "update"
              and ast.unparse(node.value.func.value) == "model_inputs" and node.value.args):
            dict_keys(node.value.args[0])
        elif isinstance(node, ast.If):
            inner = gated or "signature(" in ast.unparse(node.test)
            _input_keys(node.body, inner, into)
            _input_keys(node.orelse, inner, into)
        elif isinstance(node, ast.For | ast.While | ast.With | ast.Try):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                _input_keys(block, gated, into)
            for handler in getattr(node, "handlers", []):
                _input_keys(handler.body, gated, into)


def generate_inputs(release: Release, facts: dict[str, str]) -> None:
    """`generate_input:<key>`: the keywords `generate` hands the reference decoder's forward each step (from
    `LlamaForCausalLM.prepare_inputs_for_generation` where it defines one, 4.41-4.45, else `GenerationMixin`'s):
    a subclass's `forward` with a fixed keyword list that lacks one raises TypeError (`cache_position` up to 5.22,
    `cache` from 5.24)."""
    hook: ast.FunctionDef | None = None
    for path, cls_name in (("transformers/models/llama/modeling_llama.py", "LlamaForCausalLM"),
                           ("transformers/generation/utils.py", "GenerationMixin")):
        tree = release.tree(path)
        cls = next((n for n in (tree.body if tree else []) if isinstance(n, ast.ClassDef) and n.name == cls_name),
                   None)
        hook = next((n for n in (cls.body if cls else []) if isinstance(n, ast.FunctionDef)
                     and n.name == "prepare_inputs_for_generation"), None)
        if hook is not None and not (hook.args.vararg and len(hook.args.args) == 1):  # 4.4x's `(self, *args)` stub
            break
    if hook is None:
        return
    keys: dict[str, str] = {}
    _input_keys(hook.body, False, keys)
    # The cache's keywords only: the other keys (`attention_mask`, `inputs_embeds`) are set under other names
    # (`model_inputs[attention_mask_key]`) or on the encoder-decoder path, so their constant keys say no more.
    for key in ("past_key_values", "cache", "cache_position"):
        if key in keys:
            facts[f"generate_input:{key}"] = keys[key]


def decoder_unpacks(release: Release, facts: dict[str, str]) -> None:
    """`unpack:<module>.<DecoderLayer>.self_attn`: how many values a decoder layer's forward unpacks from its
    `self.self_attn(...)` call (`hidden_states, self_attn_weights, present_key_value = ...`: 3 up to 4.47,
    `hidden_states, _ = ...`: 2): a patched attention forward returning another count raises ValueError there."""
    for family in MODEL_NAME_FAMILIES:
        path = f"transformers/models/{family}/modeling_{family}.py"
        tree = release.tree(path)
        if tree is None:
            continue
        mod = module_name(path)
        for cls in tree.body:
            if not (isinstance(cls, ast.ClassDef) and cls.name.endswith("DecoderLayer")):
                continue
            forward = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
            counts = {len(node.targets[0].elts) for node in ast.walk(forward) if forward is not None
                      and isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple)
                      and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "self.self_attn"}
            if len(counts) == 1:  # one unpack (several differing ones would be no single fact)
                facts[f"unpack:{mod}.{cls.name}.self_attn"] = str(counts.pop())


# The attention and decoder-layer classes whose instances code patched in as their `forward` reads `self.<name>` off:
# a class of a MODEL_NAME_FAMILIES module whose name ends so, built on `nn.Module` through bases the module (or
# another of those modules it imports from) defines.
_LAYER_CLASS = re.compile(r"\w+(Attention\w*|DecoderLayer|Block)")
_MODULE_BASES = frozenset({"nn.Module", "torch.nn.Module", "Module"})


def _layer_names(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset[str] = frozenset()) \
        -> dict[str, str] | None:
    """name -> kind of what an instance of `cls` has from its class chain below `nn.Module` ("init": set on `self`
    in an `__init__`, "attr": set in another method, "def", "property", "classattr", ...); None where a base is
    neither `nn.Module` nor a class found (its members unknown)."""
    out: dict[str, str] = {}
    for base in cls.bases:
        text = ast.unparse(base)
        if text in _MODULE_BASES:
            continue
        found = classes.get(text)
        if found is None or text in seen:
            return None
        inherited = _layer_names(found, classes, seen | {text})
        if inherited is None:
            return None
        out.update(inherited)
    inits = {leaf.attr for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"
             for leaf in ast.walk(n) if isinstance(leaf, ast.Attribute) and isinstance(leaf.ctx, ast.Store)
             and isinstance(leaf.value, ast.Name) and leaf.value.id == "self"}
    for name, what in class_members(cls, private=True):
        if not name.startswith("__"):
            kind = re.match(r"[a-z]+", what)
            out[name] = "init" if what == "attr" and name in inits else kind[0] if kind else what
    return out


def instance_attrs(release: Release, facts: dict[str, str]) -> None:
    """`attr:<module>.<Class>.<name>`: what an instance of an attention or decoder-layer class of MODEL_NAME_FAMILIES
    has under `name` from its own class chain (`_layer_names`: "init" for what `__init__` sets on `self`; the
    methods, properties and class attributes too, so a name read off `self` that is a method is not taken for a
    missing one). `nn.Module`'s own (`training`, `forward`'s machinery) are not tabled. A forward written for 4.4x and
    patched onto `LlamaAttention` reads `self.num_heads`, which `__init__` set up to 4.47.1 and no release since has
    (AttributeError in every layer)."""
    trees: dict[str, ast.Module] = {}
    for family in MODEL_NAME_FAMILIES:
        tree = release.tree(f"transformers/models/{family}/modeling_{family}.py")
        if tree is not None:
            trees[family] = tree
    for family, tree in trees.items():
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        # Bases imported from another tabled model module (`from ..llama.modeling_llama import LlamaAttention`).
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 2 and \
                    (m := re.fullmatch(r"(\w+)\.modeling_\1", node.module)) and m[1] in trees:
                other = {n.name: n for n in trees[m[1]].body if isinstance(n, ast.ClassDef)}
                for alias in node.names:
                    if alias.name in other:
                        classes.setdefault(alias.asname or alias.name, other[alias.name])
            # `GradientCheckpointingLayer` (4.52+: the decoder layers' base, an `nn.Module` of its own).
            if isinstance(node, ast.ImportFrom) and node.module == "modeling_layers" and node.level == 3 and \
                    (layers := release.tree("transformers/modeling_layers.py")) is not None:
                other = {n.name: n for n in layers.body if isinstance(n, ast.ClassDef)}
                for alias in node.names:
                    if alias.name in other:
                        classes.setdefault(alias.asname or alias.name, other[alias.name])
        mod = f"transformers.models.{family}.modeling_{family}"
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or not _LAYER_CLASS.fullmatch(node.name) or not node.bases:
                continue
            names = _layer_names(node, classes)
            if names is None:
                continue
            for name, kind in names.items():
                facts[f"attr:{mod}.{node.name}.{name}"] = kind


# ---- what a model's forward does with a legacy tuple as its cache ---------------------------------------------------

# A modeling module's verdict, read from its text (every modeling module of a 4.x wheel; from 5.0.0 the behaviour
# `tuple_cache_to_forward` says every forward raises). "converts": the module turns a legacy tuple into a cache
# somewhere (`from_legacy_cache`, an `isinstance(past_key_values, tuple)` or `not isinstance(..., Cache)` test), so
# its classes may run on one; "delegates": it builds or imports another model (`AutoModel*.from_config`, a class
# imported from another modeling module), whose forward decides; "rejects": neither, and its forward raises its own
# ValueError for anything but a `Cache` or None (4.5x: "The `past_key_values` should be either a `Cache` object or
# `None`."); "raises": neither, and its forward asks the cache for its length (`past_key_values.get_seq_length(`),
# which a tuple lacks (AttributeError). A module that does none of these (a model without a cache, or one that
# indexes legacy tuples itself) gets no verdict.
_CONVERTS = re.compile(r"from_legacy_cache\(|isinstance\(\s*past_key_values\s*,\s*\(?\s*(tuple|list)\b|"
                       r"not isinstance\(\s*past_key_values\s*,\s*\(?\s*Cache\b")
_DELEGATES = re.compile(r"\bAutoModel\w*\.from_(config|pretrained)\(|^\s*from \.\.\w+\.modeling_\w+ import", re.M)
_REJECTS = "should be either a `Cache` object or `None`"
_ASKS_LENGTH = re.compile(r"\bpast_key_values\.get_seq_length\(")
_CLASS = re.compile(r"^class (\w+)\(([^)]*)\):", re.M)
AUTO_HEADS = ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration")


def tuple_forward_verdict(text: str) -> str | None:
    if "past_key_values" not in text:
        return None
    if _CONVERTS.search(text):
        return "converts"
    if _DELEGATES.search(text):
        return "delegates"
    if _REJECTS in text:
        return "rejects"
    return "raises" if _ASKS_LENGTH.search(text) else None


def tuple_forwards(release: Release, facts: dict[str, str]) -> None:
    """`tuple_forward:<ModelClass>`: the verdict of the modeling module defining a model class (a subclass of a
    `*PreTrainedModel`, directly or through the module's other model classes), on every 4.x release. A class name
    two modules define with different verdicts gets none (the name does not say which model it is). The table keeps
    the classes some release says "raises" or "rejects" for and the Auto heads (`build`)."""
    if Version(release.version).major >= 5:
        return
    verdicts: dict[str, str | None] = {}
    for path in release.names:
        if not re.fullmatch(r"transformers/models/\w+/modeling_(?!tf_|flax_)\w+\.py", path):
            continue
        text = release.text(path) or ""
        verdict = tuple_forward_verdict(text)
        if verdict is None:
            continue
        models: set[str] = set()
        for name, base_text in _CLASS.findall(text):
            bases_ = {b.strip().split("[")[0] for b in base_text.split(",")}
            if any(b.endswith("PreTrainedModel") or b in models for b in bases_):
                models.add(name)
        for name in models:
            if name.endswith(("PreTrainedModel", "PretrainedModel")):
                continue  # an abstract base: no code runs its forward
            verdicts[name] = verdict if verdicts.get(name, verdict) == verdict else None
    for name, verdict in verdicts.items():
        if verdict is not None:
            facts[f"tuple_forward:{name}"] = verdict


# ---- what generate's private helpers read off their arguments -----------------------------------------------------

# The helpers project code calls to run generate's steps itself (InternLM's streaming chat, RL4LMs' rollouts,
# Chinese-LLaMA's speculative sampling), whose reads tests/oracle/test_releases.py probes at run time.
HELPER_READS = ("_get_stopping_criteria", "_update_model_kwargs_for_generation")


def _always_read(node: ast.AST, params: frozenset[str]) -> set[str]:
    """What `node` reads on every run of it off the parameters `params`: `p._attr` (private attribute) and
    `p['key']` / `p.pop('key')` (no default). An `if`'s test always runs and its branches only where both read it;
    a loop's body, a nested function, an `and`/`or` operand after the first, a ternary's arms may not run."""
    if isinstance(node, ast.If):
        return _always_read(node.test, params) | (_block(node.body, params) & _block(node.orelse, params))
    if isinstance(node, ast.For | ast.AsyncFor):
        return _always_read(node.iter, params)
    if isinstance(node, ast.While):
        return _always_read(node.test, params)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
        return set()
    if isinstance(node, ast.BoolOp):
        return _always_read(node.values[0], params)
    if isinstance(node, ast.IfExp):
        return _always_read(node.test, params) | (_always_read(node.body, params) &
                                                  _always_read(node.orelse, params))
    if isinstance(node, ast.Try):
        return _block(node.body, params)
    out: set[str] = set()
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params and \
            node.attr.startswith("_") and not node.attr.startswith("__") and isinstance(node.ctx, ast.Load):
        out.add(f"{node.value.id}.{node.attr}")
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params and \
            isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) and \
            isinstance(node.ctx, ast.Load):
        out.add(f"{node.value.id}[{node.slice.value!r}]")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" and \
            isinstance(node.func.value, ast.Name) and node.func.value.id in params and len(node.args) == 1 and \
            not node.keywords and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        out.add(f"{node.func.value.id}[{node.args[0].value!r}]")
    for child in ast.iter_child_nodes(node):
        out |= _always_read(child, params)
    return out


def _block(body: list[ast.stmt], params: frozenset[str]) -> set[str]:
    """What a block reads on every run up to its first `return`/`raise` (the statements after it never run)."""
    out: set[str] = set()
    for stmt in body:
        out |= _always_read(stmt, params)
        if isinstance(stmt, ast.Return | ast.Raise):
            break
    return out


def helper_reads(release: Release, facts: dict[str, str]) -> None:
    """`reads:transformers.generation.utils.GenerationMixin.<helper>`: what each of HELPER_READS reads on every
    call off its parameters (`generation_config._eos_token_tensor`, `model_kwargs['cache_position']`), comma-joined;
    absent where it reads none."""
    tree = release.tree("transformers/generation/utils.py")
    cls = next((n for n in (tree.body if tree else []) if isinstance(n, ast.ClassDef) and n.name == "GenerationMixin"),
               None)
    for fn in (cls.body if cls else []):
        if isinstance(fn, ast.FunctionDef) and fn.name in HELPER_READS:
            params = frozenset(a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
                               if a.arg != "self")
            read = _block(fn.body, params)
            if read:
                facts[f"reads:transformers.generation.utils.GenerationMixin.{fn.name}"] = ", ".join(sorted(read))


# ---- calls: how transformers calls the methods projects override ---------------------------------------------------

# (module file, class, method, callee): the calls whose callee a project defines in place of transformers' own (a
# subclass's `_sample` or `prepare_inputs_for_generation`, `update` of a Cache subclass, an attention's `forward`
# installed or patched into the layer): generate calling the decoding method, the decoding loop calling the
# prepare hook, Llama's model calling its layers, its layers calling their attention, its attention calling the
# cache's `update`. A callee is `self.<name>(...)` / `<receiver>.<name>(...)`, or a name bound to a method picked
# from a module-level mapping (`decoding_method = getattr(type(self), GENERATION_MODES_MAPPING[mode])`: every
# method name the mapping holds).
CALLERS = (
    ("transformers/generation/utils.py", "GenerationMixin", "generate", "*decoding"),
    ("transformers/generation/utils.py", "GenerationMixin", "_sample", "prepare_inputs_for_generation"),
    ("transformers/models/llama/modeling_llama.py", "LlamaModel", "forward", "decoder_layer"),
    ("transformers/models/llama/modeling_llama.py", "LlamaDecoderLayer", "forward", "self_attn"),
    ("transformers/models/llama/modeling_llama.py", "LlamaAttention", "forward", "update"),
)
DECODING_METHODS = re.compile(r"_(sample|greedy_search|beam_search|beam_sample|group_beam_search|"
                              r"constrained_beam_search|contrastive_search|assisted_decoding|dola_decoding)")


def _maybe_none(value: ast.expr, params: dict[str, ast.expr | None]) -> bool:
    """`value` may be None: `None`, `d.pop(k, None)` / `d.get(k)`, or a parameter defaulting to None (generate's
    own `streamer=None` handed to the helper)."""
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("pop", "get"):
        return len(value.args) == 1 or (len(value.args) == 2 and isinstance(value.args[1], ast.Constant)
                                        and value.args[1].value is None)
    return isinstance(value, ast.Name) and value.id in params


def _spread_keys(helper: ast.FunctionDef) -> tuple[list[str], list[str]] | None:
    """(always, when given) of the dict a helper returns (`_extract_generation_mode_kwargs`: a dict display, keys
    stored into it, and `{k: v for k, v in d.items() if v is not None}`, which drops a key whose value may be
    None). None where the helper's dict is not built that way."""
    params = {a.arg: None for a in helper.args.args if a.arg != "self"}
    values: dict[str, ast.expr] = {}
    var = None
    filtered = False
    for node in helper.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        t = node.targets[0]
        if isinstance(t, ast.Name) and isinstance(node.value, ast.Dict) and var is None:
            var = t.id
            for k, v in zip(node.value.keys, node.value.values, strict=True):
                if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                    return None
                values[k.value] = v
        elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == var and \
                isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
            values[t.slice.value] = node.value
        elif isinstance(t, ast.Name) and t.id == var and isinstance(node.value, ast.DictComp) and \
                "is not None" in ast.unparse(node.value):
            filtered = True
    if var is None:
        return None
    given = [k for k, v in values.items() if filtered and _maybe_none(v, params)]
    return [k for k in values if k not in given], given


def _stored_keys(helper: ast.FunctionDef, var: str) -> list[str]:
    """The keys a helper always stores into its parameter `var` before returning it (`_get_initial_cache_position`:
    `model_kwargs["cache_position"] = cache_position` in its own block, then `return model_kwargs`; its one early
    return only where the key is there already: `if "cache_position" in model_kwargs and ...: return model_kwargs`).
    A key stored under an `if`, or with a return before it that does not test for it, is not always there."""
    if var not in [a.arg for a in helper.args.args]:
        return []
    keys: list[str] = []
    for i, node in enumerate(helper.body):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(t := node.targets[0], ast.Subscript)
                and isinstance(t.value, ast.Name) and t.value.id == var and isinstance(t.slice, ast.Constant)
                and isinstance(key := t.slice.value, str)):
            continue
        before = helper.body[:i]
        returns = [r for b in before for r in ast.walk(b) if isinstance(r, ast.Return)]
        guarded = all(isinstance(b, ast.If) and repr(key) in ast.unparse(b.test).replace('"', "'") and not b.orelse
                      for b in before if any(isinstance(r, ast.Return) for r in ast.walk(b)))
        ends = [b for b in helper.body[i + 1:] if isinstance(b, ast.Return)]
        if (not returns or guarded) and ends and ast.unparse(ends[0].value or ast.Constant(None)) == var and \
                not any(isinstance(r, ast.Return) for b in helper.body[i + 1:helper.body.index(ends[0])]
                        for r in ast.walk(b)):
            keys.append(key)
    return keys


def _call_shape(call: ast.Call, skip_self: bool, spreads: dict[str, tuple[list[str], list[str]]],
                stored: dict[str, list[str]] | None = None) -> str:
    """`args=N kw=a,b opt=c spread`: the positional count (a `*` spread: `args=N+`), the keywords always passed, in
    the call's order (CPython names the first one a signature cannot take), those passed only when given (a `**` of
    a helper's filtered dict), and `spread` where a `**` of other keys (generate's `model_kwargs`, the layer's
    `kwargs`) may carry more."""
    args = call.args[1:] if skip_self else call.args
    star = any(isinstance(a, ast.Starred) for a in args)
    kw: list[str] = []
    opt: list[str] = []
    carried: list[str] = []
    spread = False
    for k in call.keywords:
        if k.arg is not None:
            kw.append(k.arg)
        elif isinstance(k.value, ast.Name) and k.value.id in spreads:
            always, given = spreads[k.value.id]
            kw += always
            opt += given
        else:
            # `**model_kwargs` after `model_kwargs = self._get_initial_cache_position(...)` in the caller's own
            # block: the keys that helper always stores come with every call (4.57.6's `cache_position`).
            carried += [key for key in (stored or {}).get(ast.unparse(k.value), []) if key not in kw]
            spread = True
    n = sum(not isinstance(a, ast.Starred) for a in args)
    return _shape_text(f"{n}{'+' if star else ''}", kw, [k for k in opt if k not in kw], spread, carried)


def _shape_text(args: str, kw: list[str], opt: list[str], spread: bool, carried: list[str] | None = None) -> str:
    """`spread=a,b`: the `**` spread always carries those keys (after the model's other generation inputs, which
    the table does not know: the first one a signature cannot take may be another)."""
    tail = f"spread={','.join(carried)}" if spread and carried else "spread" if spread else ""
    return " ".join(x for x in (f"args={args}", f"kw={','.join(kw)}" if kw else "",
                                f"opt={','.join(opt)}" if opt else "", tail) if x)


def _merge(shapes: list[str]) -> str | None:
    """One shape for several calls of a callee: the keywords every call passes (in the first call's order), the
    others as `opt`; None where their positional counts differ (no single fact)."""
    parsed = [dict(p.split("=", 1) if "=" in p else (p, "") for p in s.split()) for s in shapes]
    if len({p["args"] for p in parsed}) != 1:
        return None
    lists = [[k for k in p.get("kw", "").split(",") if k] for p in parsed]
    always = [k for k in lists[0] if all(k in other for other in lists[1:])]
    opt = list(dict.fromkeys(k for p, kw in zip(parsed, lists, strict=True)
                             for k in [*kw, *filter(None, p.get("opt", "").split(","))] if k not in always))
    carried = [k for k in parsed[0].get("spread", "").split(",") if k and all(
        k in p.get("spread", "").split(",") for p in parsed[1:])]
    return _shape_text(parsed[0]["args"], always, opt, any("spread" in p for p in parsed), carried)


def override_calls(release: Release, facts: dict[str, str]) -> None:
    """`call:<module>.<Class>.<method>-><callee>`: how `method` calls `callee` (CALLERS), as `_call_shape` writes
    it, one fact per callee (`*decoding`: each decoding method generate calls, `..generate->_sample`)."""
    for path, cls_name, method, callee in CALLERS:
        tree = release.tree(path)
        cls = next((n for n in (tree.body if tree else []) if isinstance(n, ast.ClassDef) and n.name == cls_name),
                   None)
        fn = next((n for n in (cls.body if cls else []) if isinstance(n, ast.FunctionDef) and n.name == method), None)
        if tree is None or cls is None or fn is None:
            continue
        helpers = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
        mappings = {t.id: [v.value for v in n.value.values if isinstance(v, ast.Constant) and
                           isinstance(v.value, str) and "/" not in v.value]
                    for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
                    for t in n.targets if isinstance(t, ast.Name)}
        picked: dict[str, list[str]] = {}  # `decoding_method = getattr(type(self), MAPPING[...])`
        spreads: dict[str, tuple[list[str], list[str]]] = {}  # `d = self._helper(...)` whose dict is read
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            v = node.value
            if isinstance(v, ast.Call) and ast.unparse(v.func) == "getattr" and len(v.args) == 2 and \
                    isinstance(v.args[1], ast.Subscript) and isinstance(v.args[1].value, ast.Name) and \
                    v.args[1].value.id in mappings:
                picked[node.targets[0].id] = mappings[v.args[1].value.id]
            elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and \
                    ast.unparse(v.func.value) == "self" and v.func.attr in helpers and \
                    (keys := _spread_keys(helpers[v.func.attr])) is not None:
                spreads[node.targets[0].id] = keys
        stored: dict[str, list[str]] = {}  # `model_kwargs = self._helper(..., model_kwargs)` in fn's own block
        for node in fn.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(t := node.targets[0], ast.Name) \
                    and isinstance(v := node.value, ast.Call) and isinstance(v.func, ast.Attribute) and \
                    ast.unparse(v.func.value) == "self" and v.func.attr in helpers and \
                    any(ast.unparse(a) == t.id for a in v.args):
                stored[t.id] = _stored_keys(helpers[v.func.attr], t.id)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in stored for t in node.targets):
                stored.pop(next(t.id for t in node.targets if isinstance(t, ast.Name) and t.id in stored))
        shapes: dict[str, list[str]] = {}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Name) and f.id in picked and node.args and ast.unparse(node.args[0]) == "self":
                for name in picked[f.id]:
                    shapes.setdefault(name, []).append(_call_shape(node, True, spreads))
            elif isinstance(f, ast.Attribute) and callee == "*decoding" and ast.unparse(f.value) == "self" and \
                    DECODING_METHODS.fullmatch(f.attr):
                shapes.setdefault(f.attr, []).append(_call_shape(node, False, spreads))
            elif callee != "*decoding" and (
                    (isinstance(f, ast.Attribute) and f.attr == callee and
                     (ast.unparse(f.value) == "self" or callee == "update")) or
                    (isinstance(f, ast.Name) and f.id == callee)):
                if callee == "update" and not any(w in ast.unparse(f.value) for w in ("past_key_value", "cache")):
                    continue  # the cache's `update`, not a dict's
                shapes.setdefault(callee, []).append(_call_shape(node, False, spreads, stored))
        mod = module_name(path)
        for name, found in shapes.items():
            merged = _merge(found)
            if merged is not None:
                facts[f"call:{mod}.{cls_name}.{method}->{name}"] = merged


# ---- cache_implementation ---------------------------------------------------------------------------------------

def _constants(body: list[ast.stmt], into: dict[str, object]) -> None:
    """Module-level tuple/list/dict-of-strings constants, in order, evaluated as far as names and `+` reach; the
    torch-available branch of an `if` (its body) counts, as `import transformers` runs with torch installed."""
    for node in body:
        if isinstance(node, ast.If):
            _constants(node.body, into)
        elif isinstance(node, ast.Try):
            _constants(node.body, into)
            for handler in node.handlers:
                _constants(handler.body, into)
            _constants(node.orelse, into)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            with contextlib.suppress(ValueError):  # not a constant the evaluator follows
                into[node.targets[0].id] = _evaluate(node.value, into)
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(t := node.targets[0], ast.Subscript)
              and isinstance(t.value, ast.Name) and isinstance(into.get(t.value.id), dict)
              and isinstance(t.slice, ast.Constant)):
            mapping = into[t.value.id]
            assert isinstance(mapping, dict)
            mapping[t.slice.value] = None  # `NEEDS_CACHE_CONFIG["quantized"] = QuantizedCacheConfig`


def _evaluate(node: ast.expr, env: dict[str, object]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_evaluate(e, env) for e in node.elts)
    if isinstance(node, ast.List):
        return [_evaluate(e, env) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_evaluate(k, env): None for k in node.keys if k is not None}  # the values are classes
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _evaluate(node.left, env), _evaluate(node.right, env)
        if isinstance(left, tuple) and isinstance(right, tuple):
            return left + right
        if isinstance(left, list) and isinstance(right, list):
            return left + right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1:
        arg = node.args[0]
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "keys":
            arg = arg.func.value
        got = _evaluate(arg, env)
        if isinstance(got, tuple | list | dict):
            return list(got) if node.func.id == "list" else tuple(got)
    raise ValueError(ast.unparse(node))


def cache_implementations(release: Release) -> dict[str, str]:
    """value -> "valid" | "deprecated", from the check `GenerationConfig.validate()` makes (and `*` -> "checked"),
    or, where it makes none, the values generate acts on -> "unchecked"."""
    env: dict[str, object] = {}
    for name in ("transformers/cache_utils.py", "transformers/generation/utils.py",
                 "transformers/generation/configuration_utils.py"):
        tree = release.tree(name)
        if tree is not None:
            _constants(tree.body, env)
    config = release.tree("transformers/generation/configuration_utils.py")
    assert config is not None
    deprecated = env.get("DEPRECATED_STATIC_CACHE_IMPLEMENTATIONS", ())
    assert isinstance(deprecated, tuple | list)
    for fn in ast.walk(config):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "validate"):
            continue
        local = dict(env)
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                with contextlib.suppress(ValueError):
                    local[node.targets[0].id] = _evaluate(node.value, local)
        for node in ast.walk(fn):
            if isinstance(node, ast.If) and any("Invalid `cache_implementation`" in ast.unparse(b) for b in node.body):
                for cmp in ast.walk(node.test):
                    if isinstance(cmp, ast.Compare) and isinstance(cmp.ops[0], ast.NotIn):
                        values = _evaluate(cmp.comparators[0], local)
                        assert isinstance(values, tuple | list), values
                        out = {str(v): ("deprecated" if v in deprecated else "valid") for v in values}
                        out["*"] = "checked"
                        out["(choices)"] = str(values)  # as the ValueError prints them, in their order
                        return out
    # No check: GenerationConfig keeps any string; generate builds a cache for the values it knows (its
    # mapping's keys and the values it compares `cache_implementation` with).
    got = env.get("NEED_SETUP_CACHE_CLASSES_MAPPING", {})
    assert isinstance(got, dict)
    known = {str(v) for v in got}
    gen = release.tree("transformers/generation/utils.py")
    assert gen is not None
    for node in ast.walk(gen):
        if (isinstance(node, ast.Compare) and ast.unparse(node.left).endswith("cache_implementation")
                and isinstance(node.ops[0], ast.Eq) and isinstance(c := node.comparators[0], ast.Constant)):
            known.add(str(c.value))
    return {**{v: "unchecked" for v in sorted(known)}, "*": "unchecked"}


def genconfig_fields(release: Release) -> dict[str, str]:
    tree = release.tree("transformers/generation/configuration_utils.py")
    assert tree is not None
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GenerationConfig")
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    out: dict[str, str] = {}
    for node in ast.walk(init):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"
                and ast.unparse(node.func.value) == "kwargs" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            default = ast.unparse(node.args[1]) if len(node.args) > 1 else "None"
            out[node.args[0].value] = default
    for a in init.args.args[1:] + init.args.kwonlyargs:  # newer configs may name fields as parameters
        out.setdefault(a.arg, "param")
    return out


# ---- one release --------------------------------------------------------------------------------------------------

MODEL_CACHE = re.compile(r"Cache(Config)?$")


def release_facts(release: Release) -> dict[str, str]:
    facts: dict[str, str] = {}
    cu = release.tree("transformers/cache_utils.py")
    assert cu is not None, release.version
    for cls in module_names("transformers.cache_utils", cu, None, facts).values():
        record_class("transformers.cache_utils", cls, facts)
    defined = {k.rsplit(".", 1)[1] for k in facts}
    model_all: dict[str, list[str]] = {}
    for path in release.names:
        if not (m := re.fullmatch(r"transformers/models/(\w+)/modeling_\w+\.py", path)) or m[1] not in MODEL_FAMILIES:
            continue
        mod = module_name(path)
        text = release.text(path) or ""
        if m := re.search(r"^__all__ = (\[.*?\])", text, re.M | re.S):
            model_all[mod] = [n for n in ast.literal_eval(m[1]) if "Cache" in n]
        if not re.search(r"^class \w+Cache\b|^\w+Cache = |import.*\bMambaCache\b", text, re.M) \
                and mod not in HOOK_CLASSES:
            continue
        tree = parse(path, text)
        assert tree is not None
        # A model module's imports of cache_utils' generic classes are not tabled (every model has them); its own
        # family's cache is, wherever it lives: 4.43-4.53 define MambaCache in cache_utils and modeling_mamba
        # imports it, so `from ...modeling_mamba import MambaCache` works there too.
        family = mod.rsplit(".", 2)[1].replace("_", "")
        classes = module_names(mod, tree, MODEL_CACHE, facts,
                               skip_imports={n for n in defined if family not in n.lower()})
        for cls in classes.values():
            record_class(mod, cls, facts)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name in HOOK_CLASSES.get(mod, ()):
                facts[f"name:{mod}.{node.name}"] = bases(node)
                record_class(mod, node, facts, private=True, only=HOOKS)
    for name, where in top_level_exports(release, model_all).items():
        if "Cache" in name or where == "cache_utils" or (where.startswith("generation") and torch_side(name, "")):
            facts[f"export:transformers.{name}"] = where
    generation_names(release, facts)
    model_module_names(release, facts)
    generate_inputs(release, facts)
    decoder_unpacks(release, facts)
    instance_attrs(release, facts)
    tuple_forwards(release, facts)
    helper_reads(release, facts)
    override_calls(release, facts)
    gen = release.tree("transformers/generation/utils.py")
    assert gen is not None
    for node in gen.body:
        if isinstance(node, ast.ClassDef) and node.name == "GenerationMixin":
            record_class("transformers.generation.utils", node, facts, private=True)
            for name, what in class_members(node, private=True):
                if what == "classattr" and MODEL_ATTR.fullmatch(name):
                    facts[f"model_attr:GenerationMixin.{name}"] = _class_value(node, name)
    mu = release.tree("transformers/modeling_utils.py")
    assert mu is not None
    for node in mu.body:
        if isinstance(node, ast.ClassDef) and node.name == "PreTrainedModel":
            # Its bases: `GenerationMixin` is one up to 4.49, so a model class built on PreTrainedModel (not a
            # generation head) has `generate` there and none from 4.50 (AttributeError).
            facts["name:transformers.modeling_utils.PreTrainedModel"] = bases(node)
            for member in node.body:
                target = (member.targets[0] if isinstance(member, ast.Assign) else
                          member.target if isinstance(member, ast.AnnAssign) else None)
                if isinstance(target, ast.Name) and MODEL_ATTR.fullmatch(target.id):
                    facts[f"model_attr:PreTrainedModel.{target.id}"] = _class_value(node, target.id)
    for field, default in genconfig_fields(release).items():
        facts[f"genconfig:{field}"] = default
    # Its members as a class's (methods, properties, what any method sets on `self`: every field `__init__` pops
    # from its kwargs is one), for reads and calls on a config the code holds (`generation_config.
    # return_legacy_cache`, set on 4.42-4.57, an AttributeError from 5.0).
    configs = release.tree("transformers/generation/configuration_utils.py")
    assert configs is not None
    for node in configs.body:
        if isinstance(node, ast.ClassDef) and node.name == "GenerationConfig":
            record_class("transformers.generation.configuration_utils", node, facts)
    for value, status in cache_implementations(release).items():
        facts[f"cache_implementation:{value}"] = status
    return facts


def _class_value(cls: ast.ClassDef, name: str) -> str:
    for node in cls.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.unparse(node.value)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return ast.unparse(node.value) if node.value is not None else "annotated"
    return "classattr"


# ---- the table ------------------------------------------------------------------------------------------------------

def runs(values: list[str | None], releases: list[str]) -> list[list[str]]:
    """[first, last, value] for each run of consecutive releases holding the same value (None: absent)."""
    out: list[list[str]] = []
    for i, value in enumerate(values):
        if value is None:
            continue
        if out and out[-1][2] == value and values[i - 1] == value:
            out[-1][1] = releases[i]
        else:
            out.append([releases[i], releases[i], value])
    return out


def evidence_range(sources: dict[str, Release], evidence: dict[str, str]) -> tuple[str | None, str | None]:
    """(first, gone) of a behaviour by its evidence: `contains` -> the first release whose file has the string, and
    the first release after that which no longer has it (None: still there); `lacks` -> the first release without
    the string after one that had it, and the next release that has it again."""
    versions = list(sources)
    has = [evidence.get("contains", evidence.get("lacks", "")) in (sources[v].text(evidence["file"]) or "")
           for v in versions]
    holds = has if "contains" in evidence else [
        not h and any(has[:i]) for i, h in enumerate(has)]
    first = next((i for i, h in enumerate(holds) if h), None)
    if first is None:
        return None, None
    gone = next((i for i in range(first, len(holds)) if not holds[i]), None)
    return versions[first], versions[gone] if gone is not None else None


MEMO = ROOT / ".cache" / "release-facts"


def _facts_of(release: Release) -> dict[str, str]:
    """release_facts, memoised on disk by release and by the text of this script's reading part (everything above
    the table section: an edit there reads every wheel afresh)."""
    text = Path(__file__).read_text(encoding="utf-8")
    digest = hashlib.sha256(text[:text.index("# ---- the table")].encode()).hexdigest()[:16]
    memo = MEMO / f"{release.version}-{digest}.json"
    if memo.exists():
        return dict(json.loads(memo.read_text()))
    facts = release_facts(Release(release.version, release.path))
    MEMO.mkdir(parents=True, exist_ok=True)
    memo.write_text(json.dumps(facts, sort_keys=True))
    return facts


def build(sources: dict[str, Release], check_evidence: bool = True) -> dict[str, object]:
    """The table. `check_evidence=False` skips the behaviours' first-release check (for a subset of releases)."""
    releases = list(sources)
    # In order, in one process: consecutive releases share most files, whose trees `parse` reuses.
    per_release = {v: _facts_of(r) for v, r in sources.items()}
    keys = sorted({k for f in per_release.values() for k in f})
    facts = {k: runs([per_release[v].get(k) for v in releases], releases) for k in keys}
    # A class whose forward converts a tuple (or defers to another model) at every release is never reported: only
    # the classes that raise somewhere are kept, and the heads an Auto class loads (`...ForCausalLM`,
    # `...LMHeadModel`, `...ForConditionalGeneration`), whose names HFC002 matches a checkpoint's name against (so
    # `gemma-3-1b` is Gemma 3's, which defers, not Gemma's). The rest would be ~50 KB nobody reads.
    facts = {k: r for k, r in facts.items()
             if not k.startswith("tuple_forward:") or k.endswith(AUTO_HEADS)
             or any(v in ("raises", "rejects") for _, _, v in r)}
    behaviours = []
    for entry in BEHAVIOURS:
        if check_evidence:
            first, gone = evidence_range(sources, entry["evidence"])
            if (first, gone) != (entry["first"], entry.get("gone")):
                raise SystemExit(f"behaviour {entry['id']}: the wheels say {first} until {gone or 'now'}, "
                                 f"the entry says {entry['first']} until {entry.get('gone') or 'now'}")
        behaviours.append({k: v for k, v in entry.items() if k != "evidence"} | {
            "evidence": f"{entry['evidence']['file']} " + (f"contains {entry['evidence']['contains']!r}"
                                                           if "contains" in entry["evidence"]
                                                           else f"lacks {entry['evidence']['lacks']!r}")})
    return {
        "about": "transformers' cache API per release, read from the wheels by scripts/release_table.py "
                 "(do not edit: regenerate). facts: key -> [[first, last, value], ...] over `releases`; "
                 "behaviours: hand-written in scripts/release_behaviours.py, each checked by tests/oracle.",
        "releases": releases,
        "facts": facts,
        "behaviours": behaviours,
    }


def dump(table: dict[str, object]) -> str:
    """One fact per line, so a regenerated table diffs by fact."""
    lines = ["{"]
    items = list(table.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key == "facts":
            assert isinstance(value, dict)
            lines.append('  "facts": {')
            facts = list(value.items())
            for j, (fk, fv) in enumerate(facts):
                sep = "," if j < len(facts) - 1 else ""
                lines.append(f"    {json.dumps(fk)}: {json.dumps(fv, ensure_ascii=False)}{sep}")
            lines.append("  }" + comma)
        elif key == "behaviours":
            assert isinstance(value, list)
            lines.append('  "behaviours": [')
            for j, entry in enumerate(value):
                sep = "," if j < len(value) - 1 else ""
                lines.append(f"    {json.dumps(entry, ensure_ascii=False, sort_keys=True)}{sep}")
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def published_versions() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "transformers"],
                         capture_output=True, text=True, check=True).stdout
    listed = re.search(r"Available versions: (.*)", out)
    assert listed, out
    return sorted((v for v in listed[1].split(", ") if Version(v) >= OLDEST and not Version(v).is_prerelease),
                  key=Version)


def wheel(version: str) -> Path:
    return WHEELS / f"transformers-{version}-py3-none-any.whl"


def local_sources(wheels: Path = WHEELS) -> dict[str, Release]:
    found = {m[1]: p for p in wheels.glob("transformers-*-py3-none-any.whl")
             if (m := re.fullmatch(r"transformers-(.+)-py3-none-any\.whl", p.name))}
    return {v: Release(v, found[v]) for v in sorted(found, key=Version) if Version(v) >= OLDEST}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--download", action="store_true", help="pip download the missing wheels first")
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.download:
        WHEELS.mkdir(parents=True, exist_ok=True)
        for v in published_versions():
            if not wheel(v).exists():
                subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                                f"transformers=={v}", "-d", str(WHEELS)], check=True)
    sources = local_sources()
    if not sources:
        raise SystemExit(f"no wheels in {WHEELS}: run with --download")
    text = dump(build(sources))
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("up to date" if same else f"{args.out} differs from a regeneration")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out}: {len(sources)} releases, {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
