"""The names the hook reader (engine/interpreter/hooks.py) knows a module by: the transformers classes and modules
it imports, each class with its role by name (a cache, a model, an attention, a decoder layer), the module's own
functions, and where `bindings.find_models` puts them, the names bound to a loaded model and to a transformers cache
built here. Read from the parso tree; nothing runs."""

from __future__ import annotations

from dataclasses import dataclass, field

from hf_cache_lint.engine.syntax.nodes import (
    Node,
    call_args,
    import_statements,
    imported_from,
    shared_memo,
    statement_walk,
)

_MODEL_SUFFIXES = ("ForCausalLM", "ForConditionalGeneration", "Model", "PreTrainedModel", "GenerationMixin",
                   "LMHeadModel", "ForSeq2SeqLM", "ForSpeechSeq2Seq", "ForVision2Seq", "ForImageTextToText")


@dataclass
class Names:
    """What one module binds (filled by `bind` over its statements, then `bindings.find_models`)."""

    classes: dict[str, str] = field(default_factory=dict)  # a transformers class name bound here -> its role
    modules: set[str] = field(default_factory=set)  # names bound to a transformers module
    functions: dict[str, Node] = field(default_factory=dict)  # the module's functions (any depth), by name
    models: set[str] = field(default_factory=set)  # names bound to a loaded model (and loop variables over one)
    # where each of those is bound: the ids of the functions (0: the module) whose code binds it so
    scopes: dict[str, set[int]] = field(default_factory=dict)
    caches: set[str] = field(default_factory=set)  # names bound to a transformers cache built here
    # a transformers class imported under another name -> its own (`Cache as HFCache`: "HFCache" -> "Cache")
    originals: dict[str, str] = field(default_factory=dict)

    def add_model(self, name: str, at: Node) -> None:
        self.models.add(name)
        self.scopes.setdefault(name, set()).add(scope_id(at))

    def copy(self) -> Names:
        return Names(dict(self.classes), set(self.modules), dict(self.functions), set(self.models),
                     {k: set(v) for k, v in self.scopes.items()}, set(self.caches), dict(self.originals))

    def model_at(self, name: str, at: Node) -> bool:
        """`name` holds a loaded model where `at` reads it: bound so in the same function, or in the module."""
        scopes = self.scopes.get(name, set())
        return 0 in scopes or scope_id(at) in scopes


def scope_id(node: Node) -> int:
    """The id of the function whose code `node` is in (a `def` itself: its own), 0 at module level."""
    fn: Node | None = node
    while fn is not None and fn.type != "funcdef":
        fn = fn.parent
    return id(fn) if fn is not None else 0


def role_of(name: str) -> str | None:
    """What a transformers class is, by its name: "cache", "model", "attention", "decoder_layer" (None: other)."""
    if name.endswith("Cache"):
        return "cache"
    if "Attention" in name:
        return "attention"
    if name.endswith(("DecoderLayer", "Block")):
        return "decoder_layer"
    if name.endswith(_MODEL_SUFFIXES):
        return "model"
    return None


def module_names(module: Node) -> Names:
    """What the module's statements bind from transformers (imports and defs: the insides of expressions are not
    read). Within one analysis (`statements_shared`) worked out once: the hook reader, the fixed forwards' and the
    backbones' readers each ask (a copy each: the hook reader adds its models; on generation/utils.py each pass
    binds over its 3,500 statements)."""
    memo = shared_memo(module)
    made = memo.get("module_names") if memo is not None else None
    if isinstance(made, Names):
        return made.copy()
    names = Names()
    for node in statement_walk(module):
        bind(node, names)
    if memo is not None:
        memo["module_names"] = names.copy()
    return names


def binds_transformers(module: Node, text: str) -> bool:
    """Whether `module_names(module)` has a transformers class or module (`classes`, `modules`): only its imports
    bind them, so the imports alone answer (`nodes.import_statements`: from the word `import` in the text, no walk
    of the whole tree). The hook readers end there when it has none, as they did after `module_names`: on
    transformers' generation/utils.py (relative imports only) the bind over its 3,500 statements and the
    statement list are no longer made (the hook reader 2.05 -> 0.65 ms a keystroke, speed31l). Within one
    analysis worked out once."""
    memo = shared_memo(module)
    made = memo.get("binds_transformers") if memo is not None else None
    if isinstance(made, bool):
        return made
    names = Names()
    for node in import_statements(module, text):
        bind(node, names)
    found = bool(names.classes or names.modules)
    if memo is not None:
        memo["binds_transformers"] = found
    return found


def bind(node: Node, names: Names) -> None:
    t = node.type
    if t == "import_from" and node.level == 0 and imported_from(node).split(".")[0] == "transformers":
        for name_node, path in zip(node.get_defined_names(), node.get_paths(), strict=False):
            bound = name_node.value
            original = path[-1].value  # the paths go in the names' order (`Cache as HFCache`: "Cache")
            role = role_of(original)
            if role is not None:
                names.classes[bound] = role
                if original != bound:
                    names.originals[bound] = original
            elif bound[:1].islower():
                names.modules.add(bound)  # `from transformers.models.llama import modeling_llama`
    elif t == "import_name":
        for name_node in node.get_defined_names():
            if node.get_path_for_name(name_node)[0].value == "transformers":
                names.modules.add(name_node.value)
    elif t == "funcdef":
        names.functions.setdefault(node.children[1].value, node)


def reference_role(path: str | None, names: Names) -> str | None:
    """The role of a transformers class as written (`LlamaAttention`, `modeling_llama.LlamaAttention`)."""
    if path is None:
        return None
    parts = path.split(".")
    if len(parts) == 1:
        return names.classes.get(parts[0])
    return role_of(parts[-1]) if parts[0] in names.modules else None


def prefix(node: Node, n: int) -> str | None:
    """`a.b.c` for the first `n` children of an atom_expr (a name and `.x` trailers), else None."""
    first = node.children[0]
    if first.type != "name":
        return None
    parts = [first.value]
    for t in node.children[1:n]:
        if not is_trailer(t, "."):
            return None
        parts.append(t.children[1].value)
    return ".".join(parts)


def is_trailer(node: Node, opener: str, name: str | None = None) -> bool:
    if node.type != "trailer" or node.children[0].value != opener:
        return False
    return name is None or (len(node.children) == 2 and node.children[1].value == name)


def holds_cache(name: Node, names: Names, calls: list[Node]) -> bool:
    """A name bound to a transformers cache built in the module, or a parameter of the enclosing function to which
    a caller passes one (`write_slot(cache, ...)`)."""
    if name.value in names.caches:
        return True
    enclosing = name.parent
    while enclosing is not None and enclosing.type != "funcdef":
        enclosing = enclosing.parent
    if enclosing is None:
        return False
    params = [p.name.value for p in enclosing.get_params() if p.star_count == 0]
    if name.value not in params:
        return False
    index, caller = params.index(name.value), enclosing.children[1].value
    for node in calls:  # the module's calls (`power`/`atom_expr` nodes)
        if node.type in ("power", "atom_expr") and len(node.children) >= 2 and node.children[0].type == "name" and \
                node.children[0].value == caller and is_trailer(node.children[1], "("):
            args = [a for a in call_args(node.children[1]) if a.name is None and not a.star]
            if index < len(args) and args[index].value.type == "name" and args[index].value.value in names.caches:
                return True
    return False
