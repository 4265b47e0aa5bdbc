"""A function patched onto `GenerationMixin` under a name the target's `GenerationMixin` does not have: generate
only calls its own methods, so at the target nothing runs the patch (VCD's `GenerationMixin.sample = sample`, the
sampling loop of 4.3x; from 4.41.0, the release table's oldest, generate samples in `_sample` and no release has
`sample`). The code runs, generating without the project's change (silent).

Precision: the assignment's target is `GenerationMixin.<name>` written through `transformers` (`transformers.
generation.utils.GenerationMixin.sample`) or through a `GenerationMixin` imported from it; its value is a function of
the module (or a `types.MethodType`/`functools.partial` of one would be a bound hook, not read here); the release
table has no member `<name>` of `GenerationMixin` at the target; and the module never calls `.<name>(...)` itself
(a helper it adds and calls from its own patch runs)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, code, span
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
        dotted = _SPACES.sub("", code(left))
        parts = dotted.split(".")
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
        message = (f"`{dotted} = {right.value}`: transformers {target}'s `GenerationMixin` has no "
                   f"`{name}` ({gone}), so generate, which calls only its own methods, never runs `{right.value}`: "
                   "the code generates without the patch (silently). Instead, patch the method the target's "
                   "generate calls (`_sample` for sampling, with its own signature there), or call yours yourself")
        yield rule.report(span(left), message, severity=Severity.WARNING,
                          story="Generate's decoding loops were renamed and merged across releases (`sample` and "
                                "`greedy_search` became `_sample`); a patch assigned under an old name adds a method "
                                "nobody calls.")


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
