"""A C-speed gate between the text prefilter and parso: can this module hold a finding at all?

parso parses at about 0.6 MB/s; CPython's compiler is an order of magnitude faster. A module that
compiles gives every name, attribute and parameter it uses (`co_names`, `co_varnames`, ...) and every
string constant, keyword name of a call and dict key (`co_consts`), docstrings and comments aside.

What a finding is made of (engine/output/analysis.py), and what each needs in the module's code:
- a `cache_implementation` value (a CiValue, or a call's CacheImpl): the word `cache_implementation` where a
  value can be set (engine/screen/value_sources.py `may_set_cache_implementation`: not a module that only reads it, or
  hands it to its own functions without `**`), or a checkpoint load (`from_pretrained`, `pipeline`:
  generation_config.json, the Hub defaults);
- a call reaching generate: the word `generate` or `pipeline`, or a value imported from a workspace module
  (a pipeline, a `partial` of generate, a model, a kwargs dict);
- on such a call, without a `cache_implementation`, a rule still needs a cache argument (`past_key_values`,
  `cache_params` or `cache` as a keyword or a dict key) or a keyword written in the call that a rule reads
  (`keyword_matters`, given by the caller, which knows the rules; by default every keyword counts): first
  by the words (none of them anywhere: none can), then by where they stand (engine/screen/reaching.py
  `reaching_keywords`: the keywords of the calls that can reach generate, when every `**` spread into one is
  followed);
- a removed cache API (HFC007, which needs no generate call), asked only where the text may use one
  (`removed_api`, engine/text/prefilter.py `might_use_removed_api`): a removed class or method among the compiled
  names, or a name a use of a cache or model needs (engine/facts/cache_use.py `PARSE_NAMES`), with a value it can
  be used on (below);
- a fact of another kind (engine/facts): one of its parse names, and what its `source` says its facts need: a
  transformers cache or model the interpreter can know (a name imported from transformers or unsloth that can make
  one, engine/screen/library_values.py; a generate call's output; a value a workspace module lends,
  engine/screen/lent_values.py OBJECT_MAKERS), or transformers imported by name (the hook walk).
So a module that compiles and has none of these cannot hold a finding, and skipping parso for it leaves the
findings unchanged (tests/engine/test_gate.py runs both paths over the corpus, examples/, the recall set's cases
and every rule example on every checked version, and over each exclusion's edge; tests/engine/test_gate_sources.py
runs parso's path over every module of transformers' own tree the gate drops). Anything that does not compile or
parse with `ast` where asked goes to parso, as before, unless the text's words already decide.

The words come from the text first (`_text_words`: the code's identifiers, comments and string literals out, and the
literals whose whole content may be a word; tests/engine/test_gate_text_words.py): a superset of the compiled ones
wherever the text can say (no constant made of pieces, no open quote, no dropped code). Every test below is monotone
in the words, so a module they screen out the compiled words would screen out too; only the rest are compiled (132
of transformers 5.24.0's 1,640 modules that reach the gate, against all 1,640 before: bench/README.md). A text that
would not compile is screened out so only where its code says none of the words: parso's tokens are the same words
in the same places (an open quote, where tokenizers part, leaves the decision to the compile).
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from types import CodeType, MappingProxyType
from typing import TypeVar, cast

from hf_cache_lint.engine.base.collector import gc_paused
from hf_cache_lint.engine.environment import deps, workspace
from hf_cache_lint.engine.environment.api_changes import (
    GENERATION_IMPORT_MODULES,
    REMOVED_CACHE_METHODS,
    REMOVED_NAMES,
)
from hf_cache_lint.engine.environment.confine import run_memo
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.families import PIPELINE_CLASSES
from hf_cache_lint.engine.environment.releases_models import MODEL_SCREEN_NAMES, REMOVED_GENERATION_EXPORTS
from hf_cache_lint.engine.facts import Source
from hf_cache_lint.engine.facts.cache_use import PARSE_NAMES as CACHE_USE_NAMES
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS
from hf_cache_lint.engine.screen import reaching, value_sources
from hf_cache_lint.engine.screen.lent_values import CALLABLE_MAKERS, FACT_MAKERS, OBJECT_MAKERS, Makers, lends
from hf_cache_lint.engine.screen.library_values import (
    HOOK_ROLES,
    TRANSFORMERS,
    from_imports,
    imported_names,
    makes_values,
    word_char,
)
from hf_cache_lint.engine.text.prefilter import _NOT_CODE, MIXIN_PATCH, _in_code, _triple_quotes, matches_from

# Words whose mere presence sends a module to parso: values a check reads (a `cache_implementation`,
# a checkpoint's generation_config.json, a Hub default) and a pipeline (a call that reaches generate), also one
# built from its class (`TextGenerationPipeline(model=...)`: engine/interpreter/known.py).
LOADS = frozenset({"cache_implementation", "from_pretrained", "pipeline", *PIPELINE_CLASSES})
CALLS = frozenset({"generate"})
TRIGGERS = LOADS | CALLS
# LOADS but `cache_implementation`, which only sends a module on as a string (a keyword name, a dict key) or an
# attribute assigned (engine/screen/value_sources.py `may_set_cache_implementation`), not as a name read.
SURE = LOADS - {"cache_implementation"}
# SURE but `from_pretrained`, which may only be `super().from_pretrained(...)` (engine/screen/value_sources.py): as a name in
# code, these send a module on before any compile.
SURE_IN_TEXT = SURE - {"from_pretrained"}
_PIPELINE_CLASSES = frozenset(PIPELINE_CLASSES)

# The compiler drops code it can tell never runs, with the constants (and functions) written there; the
# interpreter still reads it. On 3.10 and 3.11 that is only what follows a loop on a true constant without a
# `break` (`while True:`) or an `assert` of a false one (the other unreachable code it drops, after `return`
# or `raise`, the interpreter skips too: tests/engine/test_gate.py); 3.12+ also drops `if False:` bodies and
# the like. Where that may be, every identifier of the text counts instead (comments and docstrings too:
# only slower).
_CONSTANTS_COMPLETE = sys.version_info < (3, 12)
# After `while` / `assert` (whole at their start: `\b`), tried where the word stands (str.find: the regex
# searched over the text cost ~3 ms on a large module): what may fold to a constant, maybe under `not`s
# (`while not q.empty():` never does; a bare `not` or `(` here sent 12 of transformers' 64 such modules to the
# every-identifier mode below, and with them every word of their comments and docstrings).
_DROPS_AFTER = re.compile(
    r"[\s(]*(?:not\b[\s(]*)*(?:True\b|False\b|None\b|\.\.\.|[-+~]?\.?\d|[bBrRuUfF]{0,2}[\"'\[{]|\(\s*\))")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# `class C(...LlamaForCausalLM...)`: a class whose bases name a model class (the interpreter's shape, model_subclasses.py).
# A line starts after "\n" or a lone "\r" (old Mac line endings, which Python accepts; `^` under re.M knows only "\n").
_MODEL_SUBCLASS = re.compile(r"(?:^|(?<=\r))[ \t]*class\s+\w+\s*\([^)]*?\b(?:\w*PreTrainedModel|\w+(?:Model|For[A-Z]\w*))\b", re.M)

def _drops_code(text: str) -> bool:
    for word in ("while", "assert"):
        i = text.find(word)
        while i >= 0:
            if (i == 0 or not word_char(text[i - 1])) and _DROPS_AFTER.match(text, i + len(word)):
                return True
            i = text.find(word, i + 1)
    return False


def _words(code: CodeType, names: set[str], strings: set[str]) -> None:
    names.update(code.co_names, code.co_varnames, code.co_cellvars, code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, str):
            strings.add(c)
        elif isinstance(c, (tuple, frozenset)):  # keyword names of a call, an import's fromlist, `in {...}`
            strings.update(x for x in c if isinstance(x, str))
        elif isinstance(c, CodeType):
            _words(c, names, strings)


def _compiled_words(text: str) -> tuple[set[str], set[str]] | None:
    """(identifiers, string constants) of the module's code; None when it does not compile."""
    # Python 3.12+ drops `if not __debug__:` bodies at compile time; the interpreter does not.
    if "__debug__" in text:
        return None
    try:
        with warnings.catch_warnings(), gc_paused():  # invalid escapes etc.: parso's path says nothing either
            warnings.simplefilter("ignore")
            code = compile(text, "<gate>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    names: set[str] = set()
    strings: set[str] = set()
    _words(code, names, strings)
    if not _CONSTANTS_COMPLETE or _drops_code(text):
        # What the compiler may have dropped: as names, every identifier of the code (comments and string
        # literals blanked, but f-strings, whose fields are code); as strings, every identifier of the text.
        names |= set(_IDENTIFIER.findall(_code_only(text)))
        strings |= set(_IDENTIFIER.findall(text))
    return names, strings


def _code_only(text: str) -> str:
    """The text without its comments and string literals (engine/text/prefilter.py's exact scan); an f-string (an
    `f` in the letters before its quote) is kept whole."""
    parts: list[str] = []
    last = 0
    for m in _NOT_CODE.finditer(text):
        start = m.start()
        if text[start] != "#":
            j = start
            while j > 0 and text[j - 1] in "rRbBuUfF":
                j -= 1
            if "f" in text[j:start].lower():
                continue
        parts.append(text[last:start])
        last = m.end()
    parts.append(text[last:])
    return " ".join(parts)


_NONE: Mapping[Source, frozenset[str]] = MappingProxyType({})

# A literal's content that may be a word the gate reads, whole (identifier characters and dots: dotted module names;
# not only ASCII: `keyword_matters` is asked of any identifier among the strings).
_WORDISH = re.compile(r"[\w.]*")
# An escape that may make an identifier character (`\x5f`, `\N{LOW LINE}`, `\137`, a line continued).
_WORD_ESCAPE = re.compile(r"\\[xuUN0-7\r\n]")
_BLANKS = " \t\f\r\n\\"
_MANGLED = re.compile(r"_[^_\W]\w*__\w")
# What the compiler adds of its own: a class body's names, `__class__` for `super()`, and the key `"return"` of a
# return annotation (a string constant under `from __future__ import annotations`).
_COMPILER_WORDS = frozenset({"__module__", "__qualname__", "__name__", "__doc__", "__annotations__", "__class__",
                             "__classcell__", "return"})
_PREFIX = "rRbBuUfF"
_AFTER = _BLANKS + ")"  # what may stand between a literal and an operator applied to it
_BEFORE = _BLANKS + "("  # and between an operator and its operand
_BEFORE_PREFIX = _BEFORE + _PREFIX
_CODE_BYTES = bytes(c if (c < 128 and chr(c).isalnum()) or c == ord("_") else 32 for c in range(256))
# The dotted words the gate reads among the names (a module imported by its dotted name is one name to the compiler).
_DOTTED = tuple((w, tuple(w.split("."))) for w in sorted({*GENERATION_IMPORT_MODULES, *MODEL_SCREEN_NAMES}) if "." in w)


def _constant_operand(rest: str) -> bool:
    """Whether the code after a literal, `rest` (blanks and closing brackets stripped), applies `%` or `*` to a
    constant the compiler folds with it: a number or another literal (`"%c" % 95`, `"ab" * 2`, `"%s" % "x"`)."""
    if rest[:1] not in ("%", "*"):
        return False
    operand = rest[1:].lstrip(_BEFORE)
    return operand.rstrip(_PREFIX) == "" or operand[:1].isdigit() or operand[:1] in "-+~.\"'"


@lru_cache(maxsize=64)
def _dotted_words(kind_names: frozenset[str], sourced: tuple[frozenset[str], ...]) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """The dotted words the gate reads, with their parts (a module imported by its dotted name is one name to the
    compiler); None when a word the caller reads may be a mangled private name."""
    asked = {*kind_names, *(w for ws in sourced for w in ws)}
    if any(_MANGLED.match(w) for w in asked):
        return None
    return _DOTTED + tuple((w, tuple(w.split("."))) for w in sorted(asked) if "." in w)


def _text_words(text: str, kind_names: frozenset[str] = frozenset(),
                sourced: Mapping[Source, frozenset[str]] = _NONE) -> tuple[set[str], set[str]] | None:
    """A superset of `_compiled_words(text)` read off the text, without compiling; None where it cannot be sure.

    Names: every identifier of the code (comments and string literals out, f-strings in: their fields are code),
    and each dotted word the gate reads whose parts all are. String constants: the names (keyword names, an import's
    names, annotations made strings) and each literal whose whole content may be such a word. That holds unless a
    constant is made of pieces, which the compiler folds: two literals joined (`"past_key" "_values"`, `+`), one
    repeated (`*` a number) or formatted (`%` a constant), or an escape that makes an identifier character; then,
    as where the compiler drops code or `__debug__` stands, or a quote is left open, None (the compile decides)."""
    if "__debug__" in text or not _CONSTANTS_COMPLETE or _drops_code(text):
        return None
    dotted = _dotted_words(kind_names, tuple(sourced.values()))
    if dotted is None:
        return None  # `self.__x` in `class C` is `_C__x` to the compiler (none of the gate's own words has that shape)
    code: list[str] = []
    strings: set[str] = set()
    append, add, wordlike, starts = code.append, strings.add, _WORDISH.fullmatch, text.startswith  # (hot loop)
    last = 0
    after: str | None = None  # the code since the last literal (comments skipped), while it may still join another
    wordish = False  # that literal's content (an f-string's text after its last field) may be part of a word
    star = False
    for m in _NOT_CODE.finditer(text):  # comments and string literals, in order (an open one runs to its line's end)
        start, end = m.span()
        gap = text[last:start]
        append(gap)
        last = end
        comment = text[start] == "#"
        joins = False
        if after is not None:
            after += gap
            rest = after.lstrip(_AFTER)
            if _constant_operand(rest):
                return None
            if comment and not rest:
                continue  # a comment between two literals: they may still join
            if rest[:1] == "+":
                rest = rest[1:].lstrip(_BEFORE)
            joins = not comment and rest.rstrip(_PREFIX) == ""
            after = None
        # A `*` before, maybe across comments (only blanks, brackets and letters since the last match): a literal
        # it stands before returns below, so `star` is only ever carried over comments.
        star = gap.rstrip(_BEFORE_PREFIX).endswith("*") or (star and not gap.strip(_BEFORE_PREFIX))
        if comment:
            continue
        j = start
        while j > 0 and text[j - 1] in _PREFIX:
            j -= 1
        # The letters are a prefix only as a word of their own (`or"..."` is `or` and a plain literal).
        prefix = "" if j > 0 and word_char(text[j - 1]) else text[j:start].lower()
        quote = text[start] * 3
        quotes = 3 if starts(quote, start) else 1
        content = text[start + quotes:end - quotes]
        if end - start < 2 * quotes or not starts(quote[:quotes], end - quotes) or (
                content[-1:] == "\\" and (len(content) - len(content.rstrip("\\"))) % 2):
            return None  # left open (its closing quote escaped, or none): the tokenizer's view may differ
        if "f" in prefix:
            append(" " + text[start:end] + " ")  # an f-string's fields are code
            # Joined to a literal, its text before its first field (or after its last) becomes part of one constant.
            head = wordlike(content.split("{", 1)[0]) is not None
            tail = wordlike(content.rsplit("}", 1)[-1]) is not None
        else:
            head = tail = wordlike(content) is not None
            if head:
                add(content)
        if "\\" in content and "r" not in prefix and _WORD_ESCAPE.search(content):
            return None
        if (joins and wordish and head) or star:
            return None  # `"past_key" "_values"`, `2 * "ab"`
        after, wordish = "", tail
    append(text[last:])
    if after is not None and _constant_operand((after + text[last:]).lstrip(_AFTER)):
        return None
    joined = " ".join(code)
    if not joined.isascii():
        return None  # identifiers are NFKC-normalised by the compiler
    names = set(map(bytes.decode, set(joined.encode().translate(_CODE_BYTES).split())))
    names.update(word for word, parts in dotted if all(p in names for p in parts))
    names |= _COMPILER_WORDS
    strings |= names
    return names, strings


_T = TypeVar("_T")


def _imports_workspace_value(text: str, path: str, context: Context, *makers: Makers) -> bool:
    """Whether a `from M import n` may bring a value that matters from a workspace file.

    The interpreter (engine/interpreter/imports.py) runs M's top level and copies n's value, and what it reaches,
    into this module; a def, a class, a re-export or a name M does not assign comes over as an opaque symbol.
    `words`: what makes a value matter here (engine/screen/lent_values.py): FACT_MAKERS when this module's code
    says `generate` itself (a model, config, kwargs dict, pipeline or partial from M may carry a fact into one
    of its calls), CALLABLE_MAKERS when it does not (only a value that reaches generate when called here: a
    pipeline, a `partial` or a bound `generate`, maybe inside a container or an object), OBJECT_MAKERS when a
    fact needs a transformers cache or model (any of those, or a cache or model made there). Whether n's value
    can hold such a thing: engine/screen/lent_values.py, over the statements of M that can shape it. With several
    sets of `makers` (the text's words, which cannot choose among them), whether a value matters to any of them."""
    words = makers or (FACT_MAKERS,)
    importer = Path(path) if path and not path.startswith("<") else None
    # The interpreter's roots exactly (engine/importer.py): a module it cannot find lends nothing.
    roots = tuple(p for p in (context.workspace, importer.parent if importer else None) if p is not None)
    roots += context.extra_paths
    seen: list[set[tuple[str, str]]] = [set() for _ in words]
    memo = run_memo()
    if memo is not None:
        # Keyed in two steps: what the file's imports share (hashing its roots and makers once, not per import).
        found_in = cast("dict[Hashable, object]", memo.setdefault(
            ("resolve", importer.parent if importer else None, roots), {}))
        paths = cast("dict[Path, Path]", memo.setdefault("paths", {}))
        lent_by = [cast("dict[Hashable, object]", memo.setdefault(
            ("lends", w, context.workspace, context.extra_paths), {})) for w in words]
    for m in from_imports(text):
        level, module = len(m.group(1)), m.group(2)
        local = level > 0 or (module != "" and module.split(".")[0] not in workspace.SKIP_ROOTS)
        if not local:
            continue
        # `from . import x`: the interpreter looks x up in the package's __init__ (a submodule lends nothing).
        if memo is None:
            found = workspace.resolve(module, level, importer, roots)
            if found is not None and any(lends(found, n, context, w, done) for w, done in zip(words, seen, strict=True)
                                         for n, _ in imported_names(m)):
                return True
            continue
        found = _settled(found_in, (module, level),
                         lambda: _one_path(paths, workspace.resolve(module, level, importer, roots)))  # noqa: B023
        if found is not None and any(
                _settled(lent, (found, n), lambda: lends(found, n, context, w, set()))  # noqa: B023 (called at once)
                for w, lent in zip(words, lent_by, strict=True) for n, _ in imported_names(m)):
            return True
    return False


def _one_path(paths: dict[Path, Path], path: Path | None) -> Path | None:
    """One Path object per file for the run's memo (each lookup makes its own: 9,315 over 5.24.0's tree, ~5 MB)."""
    return None if path is None else paths.setdefault(path, path)


def _settled(memo: dict[Hashable, object], key: Hashable, ask: Callable[[], _T]) -> _T:
    """`ask()`'s answer for a run whose files stand still (engine/environment/confine.py `settled`): asked once per
    `key`, and the paths it noted (engine/environment/deps.py) noted again at each later ask, so a cache entry keys
    on them as before. Exact: an import's file depends only on the roots and the importing folder, and whether
    `from <file> import name` lends a value only on the files it reads (with a fresh `seen` its answer is whether
    any (module, name) the import reaches makes one, what the shared `seen` of one module's imports also answers)."""
    got = cast("tuple[_T, tuple[str, ...]] | None", memo.get(key))
    if got is None:
        with deps.recording() as noted:
            answer = ask()
        memo[key] = (answer, tuple(map(sys.intern, noted)))  # one string per path (17,330 notes, 1,832 paths)
        return answer
    deps.note_all(got[1])
    return got[0]


def _every_keyword(name: str) -> bool:
    return True


def _said_in_code(text: str, words: Iterable[str], quotes: dict[str, list[int]]) -> bool:
    """A quick look (engine/text/prefilter.py's line test) for one of `words`, whole, in code: not in a comment, a
    doctest line, a docstring or a one-line string. Only ever a reason to skip the compile (the module goes to
    parso either way), so a wrong yes costs a parse and a wrong no the compile. str.find per word: one regex
    alternation over the text cost ~5 ms on a large module."""
    for word in words:
        i = text.find(word)
        while i >= 0:
            end = i + len(word)
            if (i == 0 or not word_char(text[i - 1])) and (end == len(text) or not word_char(text[end])):
                before = text[text.rfind("\n", 0, i) + 1:i]
                if before.count('"') % 2 == 0 and before.count("'") % 2 == 0 and _in_code(text, i, quotes):
                    return True
            i = text.find(word, i + 1)
    return False


def _sure_to_pass(text: str) -> bool:
    """What the compiled words would send to parso anyway, seen in the text: a pipeline in code (a name in
    code is in the compiled names). Not `cache_implementation` (it may only be read), `from_pretrained` (it may
    only be `super().from_pretrained`) nor `generate` with a cache keyword (engine/screen/reaching.py looks where
    they stand)."""
    return _said_in_code(text, SURE_IN_TEXT, _triple_quotes(text))


class _Tree:
    """The module's `ast` (engine/screen/reaching.py's Source), parsed the first time a test needs it (most modules
    need none)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parsed = False
        self.source: reaching.Source | None = None

    def get(self) -> reaching.Source | None:
        if not self.parsed:
            self.parsed = True
            try:
                with warnings.catch_warnings(), gc_paused():  # as in _compiled_words
                    warnings.simplefilter("ignore")
                    self.source = reaching.Source(self.text, ast.parse(self.text))
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
                self.source = None
        return self.source


# The fact kinds (engine/facts) this gate decides with tests of its own (their `parse_names` are None); any
# other kind is decided by its `parse_names` (`names` below).
GATED_KINDS = frozenset({"generate_call", "ci_value", "removed_api_use"})


def cannot_hold_finding(text: str, path: str, context: Context,
                        keyword_matters: Callable[[str], bool] = _every_keyword,
                        removed_api: bool = False, kind_names: frozenset[str] = frozenset(),
                        sourced: Mapping[Source, frozenset[str]] = _NONE) -> bool:
    """True only when parsing and interpreting the module cannot record anything a rule reports on.

    `keyword_matters(name)`: whether a rule may report on a call that reaches generate for the keyword
    `name` written in it when the call has no cache argument and no `cache_implementation` (HFC005's
    misspelled and removed keywords); the default, every keyword, is always safe.
    `removed_api`: the text may use a removed cache API (engine/text/prefilter.py `might_use_removed_api`); then
    HFC007 is decided here too, on the compiled names.
    `kind_names`: the parse names of the other fact kinds the enabled rules read (engine/facts): one of them among
    the compiled names or string constants sends the module on. `sourced`: those of the kinds whose facts also
    need a transformers value the interpreter knows, or transformers imported by name (by `Source`, engine/facts):
    one of them sends the module on only where the module holds that too.
    """
    if _sure_to_pass(text):
        return False
    tree = _Tree(text)
    # The text's words first (a superset of the compiled ones, or None where the text cannot say): every test below
    # is monotone in the words, so what they screen out the compiled words would too; the compile only for the rest.
    said = _text_words(text, kind_names, sourced)
    if said is not None and _cannot_hold(text, path, context, keyword_matters, removed_api, kind_names, sourced,
                                         *said, tree, superset=True):
        return True
    words = _compiled_words(text)
    if words is None:
        return False
    return _cannot_hold(text, path, context, keyword_matters, removed_api, kind_names, sourced, *words, tree)


def _cannot_hold(text: str, path: str, context: Context, keyword_matters: Callable[[str], bool], removed_api: bool,
                 kind_names: frozenset[str], sourced: Mapping[Source, frozenset[str]], names: set[str],
                 strings: set[str], tree: _Tree, *, superset: bool = False) -> bool:
    """cannot_hold_finding's tests on the module's identifiers and string constants (`superset`: a superset of them,
    from the text: then its answer True is final, and the workspace test asks every set of makers the exact words
    could choose)."""
    if _said(kind_names, names, strings):
        return False
    imports_transformers = _imports(names, "transformers")
    if _said(sourced.get("import", frozenset()), names, strings) and (_hooks_an_attention(names) or (
            imports_transformers and makes_values(text, TRANSFORMERS, HOOK_ROLES))):
        return False
    # As names only: the interpreter makes no callable or load of a string (`getattr(x, "from_pretrained")`
    # is unknown to it).
    if not SURE_IN_TEXT.isdisjoint(names):
        return False
    if imports_transformers and _MODEL_SUBCLASS.search(text):
        # The project's subclass of a transformers model: its methods run with `self` the model (engine/interpreter/
        # model_subclasses.py), so `self(...).past_key_values` is a model's cache without a load or a generate.
        return False
    if "from_pretrained" in names:
        parsed = tree.get()
        if parsed is None or not value_sources.only_super_loads(parsed):
            return False
    # A fact about a transformers cache or model (and every removed-API use: an import from transformers, an
    # attribute of the module, a method on a known cache) needs a value the interpreter can know: from a name
    # imported from transformers or unsloth, a generate output, or (last, below) a workspace module.
    calls = not (CALLS.isdisjoint(names) and CALLS.isdisjoint(strings))
    wanted = {source for source, words in sourced.items() if source != "import" and _said(words, names, strings)}
    if removed_api and not _no_removed_api(names, strings, tree):
        # An import or attribute of a removed class is itself the finding; a removed method or a cache use
        # needs a cache or model the interpreter knows.
        if imports_transformers and not (names.isdisjoint(REMOVED_NAMES) and names.isdisjoint(GENERATION_IMPORT_MODULES)
                                         and _no_model_name(names)):
            return False
        wanted.add("object")
    if wanted and ((calls and ("cache" in wanted or ("object" in wanted and _said(_SAID_OUTPUT, names, strings))))
                   or ((imports_transformers or _imports(names, "unsloth")) and makes_values(text))):
        return False
    if calls and not _no_keyword_reaches(names, strings, tree, keyword_matters):
        return False
    # Last of the tests on this module's code: it walks the whole tree.
    if "cache_implementation" in names or "cache_implementation" in strings:  # can it be set?
        parsed = tree.get()
        if parsed is None or value_sources.may_set_cache_implementation(parsed.tree, _PIPELINE_CLASSES):
            return False
    # Last, as it costs file lookups: a value from a workspace module may bring any of the above.
    makers = OBJECT_MAKERS if wanted else FACT_MAKERS if calls else CALLABLE_MAKERS
    if superset and wanted:
        # OBJECT_MAKERS needs a source FACT_MAKERS and CALLABLE_MAKERS do not (not a superset of them), and the exact
        # words may want nothing: ask both sets the exact words could choose (FACT_MAKERS covers CALLABLE_MAKERS).
        return not _imports_workspace_value(text, path, context, makers, FACT_MAKERS if calls else CALLABLE_MAKERS)
    return not _imports_workspace_value(text, path, context, makers)


# A generate output whose cache the interpreter says is transformers' (engine/interpreter/output_values.py `output`).
_SAID_OUTPUT = frozenset({"return_dict_in_generate"})


def _said(wanted: frozenset[str], names: set[str], strings: set[str]) -> bool:
    return not (wanted.isdisjoint(names) and wanted.isdisjoint(strings))


def _imports(names: set[str], library: str) -> bool:
    """Whether the compiled names hold `library` imported by name: the interpreter's only way to a transformers
    (or unsloth) symbol (engine/interpreter/statements.py `exec_import`: `import transformers[.x]`,
    `from transformers[.x] import y`, whose module names the compiler keeps among the names; relative imports
    of a package's own modules never are). A superset: an attribute or variable of that name counts too."""
    dotted = library + "."
    return library in names or any(n.startswith(dotted) for n in names)


# engine/interpreter/hooks.py `_forward_hook`: the one hook it finds without a transformers import.
_FORWARD_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook"})


def _hooks_an_attention(names: set[str]) -> bool:
    """`<x>.self_attn.register_forward_hook(f, with_kwargs=True)` (kvpress's presses)."""
    return "self_attn" in names and not _FORWARD_HOOKS.isdisjoint(names)


def _no_removed_api(names: set[str], strings: set[str], tree: _Tree) -> bool:
    """HFC007 (engine/interpreter/removed_api.py) reports an import of a removed class (`from transformers import
    HybridCache`: the name is in the compiled names) or of a generation module's name (the module's dotted name is), an attribute (`transformers.HybridCache`), a call of a
    removed method (`.to_legacy_cache()`: likewise), or a removed use of a cache or model the interpreter says the
    code has (a `cache_use` fact: one of that kind's parse names is among the compiled names), or a function patched
    onto `GenerationMixin` (rules/hfc007_removed_cache_api/patched_helpers.py: the name is)."""
    return names.isdisjoint(REMOVED_NAMES) and names.isdisjoint(REMOVED_CACHE_METHODS) and \
        names.isdisjoint(CACHE_USE_NAMES) and names.isdisjoint(GENERATION_IMPORT_MODULES) and \
        not ("GenerationMixin" in names and matches_from(MIXIN_PATCH, tree.text, ("GenerationMixin",))) and _no_model_name(names)


def _no_model_name(names: set[str]) -> bool:
    """No tabled model module (`transformers.models.llama.modeling_llama`, `modeling_llama`) and no removed
    top-level generation export (`BeamScorer`) among the compiled names (engine/interpreter/removed_model_names.py)."""
    return names.isdisjoint(MODEL_SCREEN_NAMES) and names.isdisjoint(REMOVED_GENERATION_EXPORTS)


def _no_keyword_reaches(names: set[str], strings: set[str], tree: _Tree,
                        keyword_matters: Callable[[str], bool]) -> bool:
    """A call may reach generate: no keyword a rule reads may reach one. By the words first (a cache
    keyword's name or a keyword a rule reads anywhere: else none can), then where they stand
    (engine/screen/reaching.py `reaching_keywords`)."""
    if strings.isdisjoint(CACHE_KEYWORDS) and names.isdisjoint(CACHE_KEYWORDS) \
            and not any(keyword_matters(s) for s in strings if s.isidentifier()):
        return True
    parsed = tree.get()
    found = reaching.reaching_keywords(parsed) if parsed is not None else None
    return found is not None and found.isdisjoint(CACHE_KEYWORDS) and not any(keyword_matters(k) for k in found)
