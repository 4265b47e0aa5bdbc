"""A function patched onto `GenerationMixin` under a name the target's `GenerationMixin` does not have: generate
only calls its own methods, so at the target nothing runs the patch (VCD's `GenerationMixin.sample = sample`, the
sampling loop of 4.3x; from 4.41.0, the release table's oldest, generate samples in `_sample` and no release has
`sample`). The code runs, generating without the project's change (silent).

Precision: the assignment's target is `GenerationMixin.<name>` written through `transformers` (`transformers.
generation.utils.GenerationMixin.sample`) or through a `GenerationMixin` imported from it; its value is a function of
the module (or a `types.MethodType`/`functools.partial` of one would be a bound hook, not read here); the release
table has no member `<name>` of `GenerationMixin` at the target; and the module never calls `.<name>(...)` itself
(a helper it adds and calls from its own patch runs).

The same holds for a decoding loop a model subclass gives its instances under such a name (`class
ContrastVecLlamaForCausalLM(LlamaForCausalLM)` with `self.greedy_search = partial(contrast_greedy_search, self)` in
its `__init__`, representation-engineering's; or its own `def greedy_search(self, input_ids, logits_processor=...,
...)`): generate calls `self._sample(...)`, never `self.greedy_search`. Precision: the class derives from a
transformers model class imported from transformers; the name is no `GenerationMixin` member at the target, but it
or its private form (`_greedy_search`, 4.41.0-4.42.4; `_sample`) is one at some release the table reads, so it is
the name of one of generate's loops; the function takes `input_ids` and a `logits_processor` or
`stopping_criteria` (a decoding loop's parameters); and the module never calls `.<name>(...)` itself. Likewise a
module function bound to a model the module loads (`m = AutoModelForCausalLM.from_pretrained(...)` at its top level)
and installed on that instance under such a name (`setattr(m, "greedy_search", f.__get__(m, m.__class__))`,
ipex-llm's; `m.greedy_search = types.MethodType(f, m)`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.interpreter.model_subclasses import transformers_model
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, dotted, span
from hf_cache_lint.rules.base import Rule

_MODULE = "transformers.generation.utils"
_SPACES = re.compile(r"[\s\\]+")  # what may stand around a dotted name's dots: spaces, `\` continuations
# Where a reported target's `GenerationMixin` stands: the name, then only `_SPACES` around the dot of the target's
# last part, a name (no space, no ASCII punctuation but `_`) and, after `_SPACES`, the `=` or the bracket of a
# subscript or call ending the target (a docstring's `GenerationMixin.generate` in backquotes is none).
_MIXIN_DOT = re.compile(r"GenerationMixin[\s\\]*\.(?=[\s\\]*[^\s!-/:-@\[-^`{-~]+[\s\\]*[=(\[])")


def findings(rule: Rule, analysis: Analysis) -> Iterator[Finding]:
    tree = analysis.tree
    text = analysis.text
    if tree is None or "GenerationMixin" not in text or "transformers" not in text:
        return
    stmts = _assignments(tree) if "\r" in text or text.startswith("\ufeff") else _mixin_assignments(tree, text)
    if not stmts:
        return
    imported = _imports_mixin(tree)
    target = analysis.context.target
    functions = {f.name.value for f in tree.iter_funcdefs()}
    for stmt in stmts:
        left, right = stmt.children[0], stmt.children[2]
        if left.type not in ("power", "atom_expr") or right.type != "name" or right.value not in functions:
            continue
        # The dotted target as written, without the spaces or line continuations allowed around its dots.
        written = _SPACES.sub("", code(left))
        parts = written.split(".")
        if len(parts) < 2 or parts[-2] != "GenerationMixin":
            continue
        head = ".".join(parts[:-1])
        through_module = head == f"{_MODULE}.GenerationMixin" and "import transformers" in text
        if not (through_module or (head == "GenerationMixin" and imported)):
            continue
        name = parts[-1]
        if releases.member(_MODULE, "GenerationMixin", name, target.version) is not None or \
                re.search(rf"\.\s*{name}\s*\(", text) is not None:
            continue
        had = [r for r in releases.known_releases()
               if releases.member(_MODULE, "GenerationMixin", name, r) is not None]
        earlier = [r for r in had if r < target.version]
        after = next((r for r in releases.known_releases() if earlier and r > earlier[-1]), None)
        gone = f"gone since {after}" if after is not None else f"first in {had[0]}" if had else \
            "no release from 4.41.0, the oldest the table reads, has it"
        message = (f"`{written} = {right.value}`: transformers {target}'s `GenerationMixin` has no "
                   f"`{name}` ({gone}), so generate, which calls only its own methods, never runs `{right.value}`: "
                   "the code generates without the patch (silently). Instead, patch the method the target's "
                   "generate calls (`_sample` for sampling, with its own signature there), or call yours yourself")
        yield rule.report(span(left), message, severity=Severity.WARNING,
                          story="Generate's decoding loops were renamed and merged across releases (`sample` and "
                                "`greedy_search` became `_sample`); a patch assigned under an old name adds a method "
                                "nobody calls.")


_LOOP_PARAMETERS = ("logits_processor", "stopping_criteria")
_PARTIALS = frozenset({"partial", "functools.partial", "MethodType", "types.MethodType"})


def instance_loops(rule: Rule, analysis: Analysis) -> Iterator[Finding]:
    """A model subclass's decoding loop under a name the target's generate does not call (the module docstring)."""
    tree = analysis.tree
    text = analysis.text
    if tree is None or "transformers" not in text or not any(p in text for p in _LOOP_PARAMETERS):
        return
    target = analysis.context.target
    models = _imported_models(tree)
    loops = {f.name.value: f for f in tree.iter_funcdefs() if _loop_signature(f)}
    for cls in tree.iter_classdefs():
        if not _derives_from_model(cls, models):
            continue
        for fn in cls.iter_funcdefs():
            name = fn.name.value
            if _loop_signature(fn) and _uncalled_loop(name, text, target.version):
                yield _report(rule, target, fn.name, f"`def {name}` in `{cls.name.value}`", name, name)
            for stmt in _assignments(fn):
                left, right = stmt.children[0], stmt.children[2]
                name_written = dotted(left)
                if name_written is None or not name_written.startswith("self.") or name_written.count(".") != 1:
                    continue
                attr = name_written[len("self."):]
                function = _bound_function(right)
                if function is None or function not in loops or not _uncalled_loop(attr, text, target.version):
                    continue
                yield _report(rule, target, left, f"`{name_written} = {_SPACES.sub(' ', code(right)).strip()}`", attr,
                              function)
    yield from _installed_on_loaded(rule, analysis, tree, models, loops)


def _installed_on_loaded(rule: Rule, analysis: Analysis, tree: Node, models: set[str],
                         loops: dict[str, Node]) -> Iterator[Finding]:
    """A module loop function bound to a model the module loads (`m = AutoModelForCausalLM.from_pretrained(...)` at
    its top level) and installed on it under a loop's name: `setattr(m, "greedy_search", f.__get__(m,
    m.__class__))` (ipex-llm's prompt-sharing hook, heldout21), `m.greedy_search = types.MethodType(f, m)`, the
    bound value written there or in a name bound to it just before in the same function. Generate calls its own
    loops only (as for a subclass's: the module docstring)."""
    target = analysis.context.target
    text = analysis.text
    loaders = models | _imported_auto_models(tree)
    loaded = {s.children[0].value for s in _top_statements(tree) if _assignment(s) and s.children[0].type == "name"
              and any(_SPACES.sub("", code(s.children[2])).startswith(f"{m}.from_pretrained(") for m in loaders)}
    if not loaded:
        return
    for node, receiver, attr, value in _installs(tree):
        if receiver not in loaded or not _uncalled_loop(attr, text, target.version):
            continue
        function = _bound_to(_through_name(node, value), receiver)
        if function is None or function not in loops:
            continue
        shown = _SPACES.sub(" ", code(node)).strip()
        yield _report(rule, target, node, f"`{shown}`", attr, function)


def _top_statements(tree: Node) -> list[Node]:
    """The module's top-level simple statements' expressions (`x = ...`)."""
    out: list[Node] = []
    for child in tree.children:
        if child.type == "simple_stmt":
            out.extend(c for c in child.children if c.type != "newline")
    return out


def _installs(tree: Node) -> Iterator[tuple[Node, str, str, Node]]:
    """`setattr(r, "name", v)` calls and `r.name = v` assignments outside classes: (the node, `r`, `name`, `v`)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.type == "classdef":
            continue
        stack.extend(reversed(getattr(node, "children", [])))
        kids = getattr(node, "children", [])
        if node.type in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name" and \
                kids[0].value == "setattr" and is_trailer(kids[1], "("):
            args = call_args(kids[1])
            if len(args) == 3 and not any(a.name or a.star for a in args) and args[0].value.type == "name" and \
                    args[1].value.type == "string":
                attr = code(args[1].value).strip().strip("\"'")
                yield node, args[0].value.value, attr, args[2].value
        elif _assignment(node):
            written = dotted(node.children[0])
            if written is not None and written.count(".") == 1:
                receiver, attr = written.split(".")
                yield node.children[0], receiver, attr, node.children[2]


def _through_name(at: Node, value: Node) -> Node:
    """`value`, or, for a name, what the last assignment to it before `at` in the same function (or the module)
    binds."""
    if value.type != "name":
        return value
    scope = at.search_ancestor("funcdef") or at.get_root_node()
    bound = None
    for stmt in _assignments(scope):
        if stmt.children[0].type == "name" and stmt.children[0].value == value.value and \
                stmt.start_pos < at.start_pos:
            bound = stmt.children[2]
    return bound if bound is not None else value


def _bound_to(value: Node, receiver: str) -> str | None:
    """`f.__get__(r, ...)`, `types.MethodType(f, r)`, `partial(f, r)` with `r` the receiver: the function `f`."""
    kids = value.children if value.type in ("power", "atom_expr") else []
    if len(kids) == 3 and kids[0].type == "name" and is_trailer(kids[1], ".", "__get__") and is_trailer(kids[2], "("):
        args = call_args(kids[2])
        if args and not args[0].name and code(args[0].value).strip() == receiver:
            return str(kids[0].value)
        return None
    if len(kids) < 2 or not is_trailer(kids[-1], "("):
        return None
    head = _SPACES.sub("", "".join(code(k) for k in kids[:-1]))
    args = call_args(kids[-1])
    if head in _PARTIALS and len(args) == 2 and not any(a.name or a.star for a in args) and \
            args[0].value.type == "name" and code(args[1].value).strip() == receiver:
        return str(args[0].value.value)
    return None


def _report(rule: Rule, target: Target, node: Node, what: str, name: str, function: str) -> Finding:
    private = f"_{name.lstrip('_')}"
    if releases.member(_MODULE, "GenerationMixin", private, target.version) is not None:
        instead = f"`{private}`"
    else:
        instead = "`_sample` (greedy decoding and sampling, from 4.43.0), with its own signature there"
    message = (f"{what}: transformers {target}'s `GenerationMixin` has no `{name}` ({_gone(name, target)}), so "
               f"generate, which calls only its own methods, never runs `{function}`: the model generates without "
               f"it (silently). Instead, override the method the target's generate calls ({instead}), or call "
               "yours yourself")
    return rule.report(span(node), message, severity=Severity.WARNING,
                       story="Generate's decoding loops were renamed and merged across releases (`greedy_search` and "
                             "`sample` became `_greedy_search` and `_sample` in 4.41, then greedy decoding moved "
                             "into `_sample` in 4.43); a model that keeps its loop under an old name adds a method "
                             "generate never calls.")


def _gone(name: str, target: Target) -> str:
    had = [r for r in releases.known_releases() if releases.member(_MODULE, "GenerationMixin", name, r) is not None]
    earlier = [r for r in had if r < target.version]
    after = next((r for r in releases.known_releases() if earlier and r > earlier[-1]), None)
    return f"gone since {after}" if after is not None else f"first in {had[0]}" if had else \
        "no release from 4.41.0, the oldest the table reads, has it"


def _uncalled_loop(name: str, text: str, version: Version) -> bool:
    """`name` is one of generate's loops at some tabled release (itself or its private form) but no member of the
    target's `GenerationMixin`, and the module never calls `.<name>(` itself."""
    if name.startswith("__") or releases.member(_MODULE, "GenerationMixin", name, version) is not None:
        return False
    private = f"_{name.lstrip('_')}"
    if not any(releases.member(_MODULE, "GenerationMixin", n, r) is not None
               for n in {name, private} for r in releases.known_releases()):
        return False
    return re.search(rf"\.\s*{re.escape(name)}\s*\(", text) is None


def _loop_signature(fn: Node) -> bool:
    """A decoding loop's parameters: `input_ids` and a `logits_processor` or `stopping_criteria`."""
    names = {p.name.value for p in fn.get_params()}
    return "input_ids" in names and any(p in names for p in _LOOP_PARAMETERS)


def _bound_function(value: Node) -> str | None:
    """`f`, `partial(f, self)`, `functools.partial(f, self)`, `types.MethodType(f, self)`: the module function `f`."""
    if value.type == "name":
        return str(value.value)
    if value.type not in ("power", "atom_expr") or len(value.children) < 2:
        return None
    trailer = value.children[-1]
    head = _SPACES.sub("", "".join(code(k) for k in value.children[:-1]))
    if head not in _PARTIALS or not is_trailer(trailer, "("):
        return None
    args = call_args(trailer)
    if len(args) != 2 or args[0].name or args[0].star or args[0].value.type != "name" or \
            code(args[1].value).strip() != "self":
        return None
    return str(args[0].value.value)


def _imported_models(tree: Node) -> set[str]:
    """The names the module imports from transformers (or its submodules) that are transformers model classes."""
    found: set[str] = set()
    for imp in tree.iter_imports():
        if imp.type != "import_from":
            continue
        module = [n.value for n in imp.get_from_names()]
        if not module or module[0] != "transformers":
            continue
        for path in imp.get_paths():
            name = path[-1].value
            if transformers_model(f"transformers.{name}"):
                found.update(n.value for n in imp.get_defined_names() if n.value == name)
    return found


def _imported_auto_models(tree: Node) -> set[str]:
    """The `AutoModel*` factories the module imports from transformers: their `from_pretrained` loads a model."""
    found: set[str] = set()
    for imp in tree.iter_imports():
        if imp.type == "import_from" and [n.value for n in imp.get_from_names()][:1] == ["transformers"]:
            found.update(n.value for n in imp.get_defined_names() if n.value.startswith("AutoModel"))
    return found


def _derives_from_model(cls: Node, models: set[str]) -> bool:
    """A base of `cls` is a transformers model class: an imported one, or `transformers.<Model>`."""
    arglist = cls.get_super_arglist()
    if arglist is None:
        return False
    items = [c for c in arglist.children if c.type != "operator"] if arglist.type == "arglist" else [arglist]
    for base in items:
        if base.type == "argument":
            continue  # `metaclass=...`, `*bases`
        written = dotted(base)
        if written is None:
            continue  # a subscripted or called base (`Generic[T]`, `make_base()`) names no model class
        if written in models or (written.startswith("transformers.") and transformers_model(written)):
            return True
    return False


def _assignment(node: Node) -> bool:
    return node.type == "expr_stmt" and len(node.children) == 3 and code(node.children[1]).strip() == "="


def _assignments(tree: Node) -> list[Node]:
    """The tree's one-target assignments, in source order (a walk of the whole tree)."""
    found: list[Node] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if _assignment(node):
            found.append(node)
        stack.extend(reversed(getattr(node, "children", [])))
    return found


def _mixin_assignments(tree: Node, text: str) -> list[Node]:
    """The assignments of `_assignments` whose target can be `...GenerationMixin.<name>`, in source order, found from
    the text: the target's part before its last dot is the name `GenerationMixin` (only `_SPACES` removed around the
    dots, so one name token), followed by `_SPACES`, the dot and the last part (`_MIXIN_DOT`); it stands in the target,
    under the statement (no statement is nested in another's target). The name's leaf by position (lines split at
    `\n` only: the caller walks a text with `\r` or a BOM). transformers' generation/utils.py has one such place, a
    call: the walk of its whole tree cost ~6.7 ms of a ~30 ms keystroke typed into it."""
    found: dict[int, Node] = {}
    line, line_start, at = 1, 0, 0
    for match in _MIXIN_DOT.finditer(text):
        start = match.start()
        newlines = text.count("\n", at, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", at, start) + 1
        at = start
        place = (line, start - line_start)
        try:
            leaf = tree.get_leaf_for_position(place)
        except ValueError:  # past the tree's end
            continue
        while leaf is not None and leaf.end_pos <= place:  # parso's answer may be the leaf ending there
            leaf = leaf.get_next_leaf()
        if leaf is None or leaf.type != "name" or leaf.value != "GenerationMixin" or leaf.start_pos != place:
            continue
        node = leaf.parent
        while node is not None and node.type != "expr_stmt":
            node = node.parent
        if node is not None and _assignment(node):
            found[id(node)] = node
    return sorted(found.values(), key=lambda n: n.start_pos)


def _imports_mixin(tree: Node) -> bool:
    """`from transformers[.generation[.utils]] import GenerationMixin` (not under another name)."""
    for imp in tree.iter_imports():
        if imp.type != "import_from":
            continue
        module = [n.value for n in imp.get_from_names()]
        if module and module[0] == "transformers" and \
                any(n.value == "GenerationMixin" for n in imp.get_defined_names()):
            return True
    return False
