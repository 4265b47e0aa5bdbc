"""Conditions that compare the installed transformers version with a constant, decided for the target.

Real projects guard version-specific code: `if is_transformers_version("<", "5"):`,
`if version.parse(transformers.__version__) >= version.parse("5.0.0"):`,
`if importlib.metadata.version("transformers").startswith("4."):`, or a module-level
`TRANSFORMERS_5 = Version(transformers.__version__) >= Version("5")` read later. The code under such a
guard runs only on the versions the guard admits, so a finding there holds only for those. `decide`
answers True/False when the guard can be evaluated for the target, None when it cannot (then the
branch is an ordinary unknown condition: a finding under it is at most a Warning).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.syntax.nodes import Node, import_paths, imported_from, string_value
from hf_cache_lint.engine.text.text import contains


@dataclass(frozen=True, order=True)
class Release:
    """A version as `packaging` orders it, for the releases this needs: X.Y.Z, with pre-releases
    (`5.0.0.dev0`, `5.0.0rc1`) sorting before their release."""

    numbers: tuple[int, ...]
    final: bool = True

    @staticmethod
    def parse(text: str) -> Release | None:
        m = re.fullmatch(r"\s*v?(\d+(?:\.\d+)*)((?:\.?(?:dev|a|b|rc|alpha|beta|pre|post)\d*)*)(\+\S*)?\s*", text)
        if not m or any(len(n) > 64 for n in m[1].split(".")):
            # No release number has 64 digits; past 4,300 int() raises ValueError: a version nobody can read.
            return None
        numbers = tuple(int(n) for n in m[1].split("."))
        while len(numbers) > 1 and numbers[-1] == 0:  # packaging: 5 == 5.0 == 5.0.0
            numbers = numbers[:-1]
        suffix = m[2] or ""
        return Release(numbers, final=not suffix or "post" in suffix)


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}
_MISSING = object()
# What a function-local version flag must read (`transformers.__version__`, `importlib.metadata.version(
# "transformers")`, `is_transformers_version(...)`): a module naming none of them has no such flag.
_READS_VERSION = ("__version__", "is_transformers_version", 'version("transformers"', "version('transformers'")
# Callables that turn a version string into a comparable version (packaging.version.parse/Version,
# pkg_resources.parse_version, distutils' LooseVersion/StrictVersion).
_PARSERS = frozenset({"parse", "Version", "parse_version", "LooseVersion", "StrictVersion"})
# Helpers of accelerate/peft/trl-style libraries: f(operation, version) compares the installed transformers.
_COMPARERS = frozenset({"is_transformers_version"})


class VersionGuards:
    """Evaluates version guards of one module for one target version."""

    def __init__(self, module: Node, target: Target, text: str | None = None) -> None:
        self.target = target
        self.version_text = str(target)
        self.modules: set[str] = {"transformers"}  # names bound to the transformers module
        self.version_names: set[str] = set()  # `from transformers import __version__ as v`
        self.names: dict[str, object] = {}
        # Per test node, once the names above are learnt (they do not change after): the interpreter asks
        # again at every run of a body (each call inlined, each loop pass) and removed_api once more.
        self._decided: dict[int, bool | None] = {}  # by id(): parso's keyword leaves hash by their text
        self._mentions: dict[int, bool] = {}
        # A module whose text never says "version" reads no version: every test `mentions_version` makes
        # needs the word, and so does a `__version__` import; nor does one that never says "transformers"
        # import the module. The interpreter builds this at every keystroke: such statements are not read.
        self._versionless = text is not None and not contains(text, "version")
        self._no_transformers = text is not None and not contains(text, "transformers")
        for stmt in _top_level(module):
            try:
                self._learn(stmt)
            except RecursionError:  # too deeply nested to read: it binds no version name worth knowing
                continue
        # The scan for function-local flags walks every node of the module, and the interpreter builds this on
        # every keystroke: only a module that reads the version at all can hold such a flag.
        if text is None or any(contains(text, word) for word in _READS_VERSION):
            self._learn_locals(module)

    def decide(self, test: Node) -> bool | None:
        """The guard's truth for the target, or None when it does not compare the version decidably."""
        try:
            return self._decided[id(test)]
        except KeyError:
            pass
        value = self._eval(test)
        decided = value if isinstance(value, bool) else None
        self._decided[id(test)] = decided
        return decided

    def mentions_version(self, test: Node) -> bool:
        """Does the condition read the transformers version at all (so an undecided guard is about it)?"""
        if self._versionless:
            return False
        got = self._mentions.get(id(test))
        if got is None:
            text = test.get_code(include_prefix=False)
            got = self._mentions[id(test)] = "__version__" in text or "is_transformers_version" in text or (
                "transformers" in text and "version" in text)
        return got

    # -- what the module binds ------------------------------------------------------------------------------

    def _learn(self, stmt: Node) -> None:
        t = stmt.type
        # parso's own import API, as the interpreter's exec_import reads it (engine/statements.py).
        if t == "import_name":
            if self._no_transformers:
                return
            for name, path in import_paths(stmt):
                if [n.value for n in path] == ["transformers"]:
                    self.modules.add(name.value)  # `import transformers` / `import transformers as tf`
        elif self._versionless:
            return  # no `__version__` to import, no value computed from a version (nor one learnt to forget)
        elif t == "import_from" and stmt.level == 0 and imported_from(stmt) == "transformers":
            for name, path in import_paths(stmt):
                if path[-1].value == "__version__":
                    self.version_names.add(name.value)
        elif t == "expr_stmt" and len(stmt.children) == 3 and stmt.children[1].type == "operator" \
                and stmt.children[1].value == "=" and stmt.children[0].type == "name":
            # Only names computed from the version: a name bound to a plain literal stays a flag (a CLI option
            # or a test may rebind it), as for any other condition.
            value = self._eval(stmt.children[2]) if self.mentions_version(stmt.children[2]) else _MISSING
            name = stmt.children[0].value
            if value is _MISSING:
                self.names.pop(name, None)
            else:
                self.names[name] = value

    def _learn_locals(self, module: Node) -> None:
        """Flags a function computes from the version (peft: `transformers_lt_4_56 = packaging.version.parse(
        transformers.__version__) < packaging.version.parse("4.56.0.dev0")`, then `if transformers_lt_4_56:`).

        A name counts only when every binding of it in the module (assignments, parameters, loop targets,
        imports: parso's `is_definition`) is such an assignment and they all agree: one name, one value.
        """
        values: dict[str, set[object]] = {}
        flags: set[int] = set()  # id() of the name leaves those assignments bind
        bindings: dict[str, list[Node]] = {}
        top = {id(s) for s in _top_level(module)}
        stack: list[Node] = [module]
        while stack:
            node = stack.pop()
            kids = getattr(node, "children", None)
            if kids is None:
                if node.type == "name" and node.is_definition():
                    bindings.setdefault(node.value, []).append(node)
                continue
            if node.type == "expr_stmt" and id(node) not in top and len(kids) == 3 and kids[0].type == "name" \
                    and kids[1].type == "operator" and kids[1].value == "=":
                try:
                    value = self._eval(kids[2]) if self.mentions_version(kids[2]) else _MISSING
                except RecursionError:  # too deeply nested to read, as above
                    value = _MISSING
                if value is not _MISSING:
                    values.setdefault(kids[0].value, set()).add(value)
                    flags.add(id(kids[0]))
            stack.extend(kids)
        for name, found in values.items():
            if name in self.names or name in self.version_names or len(found) != 1:
                continue
            if all(id(leaf) in flags for leaf in bindings.get(name, ())):
                self.names[name] = next(iter(found))

    # -- evaluation -----------------------------------------------------------------------------------------

    def _eval(self, node: Node) -> object:
        t = node.type
        if t == "name":
            if node.value in self.version_names:
                return self.version_text
            if node.value in ("TYPE_CHECKING",):
                return False  # typing.TYPE_CHECKING is False whenever the code runs
            return self.names.get(node.value, _MISSING)
        if t in ("string", "strings"):
            s = string_value(node)
            return _MISSING if s is None else s
        if t == "number":
            try:
                return int(node.value)
            except ValueError:
                return _MISSING
        if t == "keyword" and node.value in ("True", "False"):
            return node.value == "True"
        if t == "atom" and len(node.children) == 3 and node.children[0].value == "(":
            return self._eval(node.children[1])
        if t == "not_test":
            inner = self._eval(node.children[1])
            return _MISSING if not isinstance(inner, bool) else not inner
        if t in ("and_test", "or_test"):
            return self._logic(node, t == "and_test")
        if t == "comparison":
            return self._comparison(node)
        if t in ("power", "atom_expr"):
            return self._chain(node)
        return _MISSING

    def _logic(self, node: Node, is_and: bool) -> object:
        # Three-valued: `unknown and False` is False, `unknown or True` is True.
        unknown = False
        for operand in (c for c in node.children if c.type != "keyword"):
            v = self._eval(operand)
            if not isinstance(v, bool):
                unknown = True
            elif v != is_and:
                return v
        return _MISSING if unknown else is_and

    def _comparison(self, node: Node) -> object:
        kids = node.children
        if len(kids) != 3 or kids[1].type != "operator" or kids[1].value not in _COMPARE:
            return _MISSING
        left, right = self._eval(kids[0]), self._eval(kids[2])
        return _compare(left, kids[1].value, right)

    def _chain(self, node: Node) -> object:
        kids = node.children
        if kids[0].type == "keyword" and kids[0].value == "await":
            return _MISSING
        value: object = _MISSING
        dotted: str | None = None
        head = kids[0]
        if head.type == "name" and head.value not in self.version_names and head.value not in self.names:
            dotted = head.value
        else:
            value = self._eval(head)
        for i in range(1, len(kids)):
            trailer = kids[i]
            if trailer.type != "trailer":  # `a ** b` is a `power` node too: not a chain this decides
                return _MISSING
            first = trailer.children[0].value if trailer.children else ""
            if first == ".":
                attr = trailer.children[1].value
                if dotted is not None:
                    dotted = f"{dotted}.{attr}"
                    if attr == "__version__" and dotted.rsplit(".", 1)[0] in self.modules:
                        value, dotted = self.version_text, None
                    continue
                value = _attribute(value, attr)
            elif first == "(":
                args = _call_arguments(trailer)
                if dotted is not None:
                    value, dotted = self._call(dotted, args), None
                else:
                    value = _method(value, args)
            elif first == "[":
                value = _subscript(value, trailer, self)
            else:
                return _MISSING
            if value is _MISSING:
                return _MISSING
        if dotted is not None:
            return self.names.get(dotted, _MISSING)
        return value

    def _call(self, dotted: str, args: list[Node]) -> object:
        last = dotted.rsplit(".", 1)[-1]
        values = [self._eval(a) for a in args]
        if last in _PARSERS and len(values) == 1 and isinstance(values[0], str):
            return Release.parse(values[0]) or _MISSING
        if last == "version" and values == ["transformers"]:
            return self.version_text  # importlib.metadata.version("transformers")
        if last in _COMPARERS and len(values) == 2 and all(isinstance(v, str) for v in values):
            op, wanted = values
            installed, other = Release.parse(self.version_text), Release.parse(str(wanted))
            if op in _COMPARE and installed is not None and other is not None:
                return _COMPARE[str(op)](installed, other)
            return _MISSING
        if last == "int" and len(values) == 1 and isinstance(values[0], str) and values[0].isdigit():
            try:
                return int(values[0])
            except ValueError:  # `int("²")` (a digit, not a decimal one) or past int()'s 4,300 digits raises
                return _MISSING
        return _MISSING


def _compare(left: object, op: str, right: object) -> object:
    if isinstance(left, str) and isinstance(right, Release):
        left = Release.parse(left) or _MISSING
    if isinstance(right, str) and isinstance(left, Release):
        right = Release.parse(right) or _MISSING
    if isinstance(left, Release) and isinstance(right, Release):
        return _COMPARE[op](left, right)
    if isinstance(left, str) and isinstance(right, str):
        return _COMPARE[op](left, right)  # as Python compares strings: lexicographically
    if isinstance(left, int) and isinstance(right, int) and not isinstance(left, bool):
        return _COMPARE[op](left, right)
    if isinstance(left, tuple) and isinstance(right, tuple):
        return _COMPARE[op](left, right)
    return _MISSING


def _attribute(value: object, attr: str) -> object:
    if isinstance(value, Release):
        nums = (*value.numbers, 0, 0)
        return {"major": nums[0], "minor": nums[1], "micro": nums[2]}.get(attr, _MISSING)
    if isinstance(value, str) and attr in ("startswith", "split"):
        return (value, attr)  # a bound method, applied by the call that follows
    return _MISSING


def _method(bound: object, args: list[Node]) -> object:
    if not (isinstance(bound, tuple) and len(bound) == 2 and isinstance(bound[0], str)):
        return _MISSING
    text, name = bound
    literals = [string_value(a) if a.type in ("string", "strings") else None for a in args]
    if name == "startswith" and len(literals) == 1 and literals[0] is not None:
        return text.startswith(literals[0])
    if name == "split" and len(literals) == 1 and literals[0] is not None:
        return tuple(text.split(literals[0]))
    return _MISSING


def _subscript(value: object, trailer: Node, guards: VersionGuards) -> object:
    index = guards._eval(trailer.children[1])
    if isinstance(value, tuple) and isinstance(index, int) and not isinstance(index, bool):
        try:
            return value[index]
        except IndexError:
            return _MISSING
    return _MISSING


def _call_arguments(trailer: Node) -> list[Node]:
    if len(trailer.children) < 3:
        return []
    inner = trailer.children[1]
    if inner.type == "arglist":
        return [c for c in inner.children if not (c.type == "operator" and c.value == ",")]
    if inner.type == "argument":
        return [_MISSING_NODE]  # a keyword or star argument: not a shape decided here
    return [inner]


class _Unknown:
    type = "unknown"


_MISSING_NODE = _Unknown()


def _top_level(module: Node) -> Iterator[Node]:
    """The module's top-level simple statements, also inside top-level `try` bodies (guarded imports)."""
    for stmt in module.children:
        if stmt.type == "simple_stmt":
            yield from (s for s in stmt.children if s.type not in ("newline", "operator"))
        elif stmt.type in ("import_name", "import_from", "expr_stmt"):
            yield stmt
        elif stmt.type == "try_stmt":
            for part in stmt.children:
                if part.type == "suite":
                    for s in part.children:
                        if s.type == "simple_stmt":
                            yield from (x for x in s.children if x.type not in ("newline", "operator"))
                    break
