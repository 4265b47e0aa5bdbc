"""What a hook function takes and reads (engine/interpreter/hooks.py found it): its parameters, the cache keys it
reads from its `**kwargs` / `model_kwargs` / `cache_kwargs` containers, a `cache_position` parameter it uses
unguarded, a `super()` call with positional arguments, where a fix's new first line goes: one `HookOverride` fact
per hook (engine/facts/hook_override.py). Read from the parso tree; nothing runs."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.hook_override import (
    CACHE_NAMES,
    KEYS,
    HookKind,
    HookOverride,
    HookRead,
    PositionalSuper,
    ReadHow,
)
from hf_cache_lint.engine.interpreter.decoding_overrides import qualname, signature_of
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.interpreter.hook_none_reads import none_read
from hf_cache_lint.engine.interpreter.hook_returns import _returned_reads
from hf_cache_lint.engine.interpreter.hook_trees import _key_read, cache_key_names, suite, walk
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    call_args,
    code,
    param_span,
    span,
    span_between,
    string_value,
)


def params_of(fn: Node) -> tuple[list[str], str | None]:
    """The parameter names but `self`/`cls` (and `*args`), and the `**` parameter's name."""
    out, var_keyword = [], None
    for p in fn.get_params():
        if p.star_count == 2:
            var_keyword = p.name.value
        elif p.star_count == 0:
            out.append(p.name.value)
    if out and out[0] in ("self", "cls"):
        out = out[1:]
    return out, var_keyword


def hook_fact(fn: Node, kind: HookKind, target: str, reference: str, container: str | None = None,
          base: str = "", stores: bool = False) -> HookOverride:
    """`stores`: what the body stores into `container` is what transformers then passes on (a forward pre-hook's
    `kwargs`): a store of the cache under one of its names is a use of that name (`how="write"`)."""
    params, var_keyword = params_of(fn)
    body = fn.children[-1]
    reads: list[HookRead] = []
    used = {n.value for n in walk(body) if n.type == "name"}
    for p in fn.get_params():
        if p.star_count == 0 and p.name.value in CACHE_NAMES and p.name.value in used and \
                not (kind == "prepare_inputs" and handed_to_base(body, p.name.value, var_keyword)):
            reads.append(HookRead(p.name.value, "parameter", param_span(p),
                                  code(p).rstrip(",").rstrip()))
    if kind in ("forward", "prepare_inputs"):
        reads.extend(_position_parameter(fn, body))
    containers = {c for c in (var_keyword, container) if c}
    if kind == "model_kwargs":
        containers.add("model_kwargs")
    # The fourth argument of a `Cache.update` override, `cache_kwargs`: every key read from it counts (the
    # rotary tables `sin`/`cos` as much as `cache_position`), since 5.4 passes no dict at all.
    update_kwargs = params[3] if kind == "cache_update" and len(params) > 3 else None
    if update_kwargs is not None:
        containers.add(update_kwargs)
    compat = passes_on = guarded = False
    # Where the body makes `cache_kwargs` a dict when it is None (`cache_kwargs = cache_kwargs or {}`, `if
    # cache_kwargs is None: cache_kwargs = {}`): the first such statement's start, and the None tests it makes.
    emptied: tuple[int, int] | None = None
    emptying_tests: set[Node] = set()
    members = _members_read(fn, {r.key for r in reads if r.how == "parameter" and r.key in CACHE_NAMES})
    # A pre-hook storing the cache under a key it picks at run time among the old names (llm-compressor's
    # `kwargs[module._past_kv_name] = kv_cache`): on a release that takes neither, whichever it picked is lost.
    named = cache_key_names(body) if stores else None
    for node in walk(body):
        if update_kwargs is not None and emptied is None and (test := _none_to_a_dict(node, update_kwargs)) is not None:
            emptied = node.start_pos
            emptying_tests.update(test)
        if node.type == "argument" and len(node.children) == 3 and node.children[0].type == "name" and \
                node.children[0].value in CACHE_NAMES and code(node.children[2]) == node.children[0].value:
            passes_on = True
        if node.type in ("power", "atom_expr") and node.children[0].type == "name" and \
                node.children[0].value in containers:
            got = _key_read(node, named)
            if got is None:
                continue
            key, how, end = got
            if key == "cache":
                compat = True
            elif stores and how == "subscript" and key in CACHE_NAMES and _stored_into(node) and \
                    node.children[0].value == container:
                reads.append(HookRead(key, "write", span_between(node.children[0], end),
                                      "".join(code(k) for k in node.children[:node.children.index(end) + 1]),
                                      node.children[0].value))
            elif node.children[0].value != update_kwargs and how == "subscript" and \
                    (_stored_into(node) or _membership_guarded(node, key, node.children[0].value)):
                continue  # a store never raises KeyError; a read under `if "key" in d:` runs only where it is there
            elif key in KEYS or node.children[0].value == update_kwargs:
                reads.append(HookRead(key, how, span_between(node.children[0], end),
                                      "".join(code(k) for k in node.children[:node.children.index(end) + 1]),
                                      node.children[0].value))
        elif node.type == "comparison" and node not in emptying_tests and \
                _tests_none(node, update_kwargs or "cache_kwargs"):
            guarded = True  # `if cache_kwargs is not None:` guards the read
        elif node.type == "string" and string_value(node) == "cache" and not _attribute_name(node):
            compat = True  # `"cache" in kwargs`, a dict built with the new name
    # After `cache_kwargs = cache_kwargs or {}` the reads see a dict on every release: the empty one where 5.4+ pass
    # none, so `.get` answers None and a subscript raises KeyError (the oracle: 5.4.0-5.25.0). A read before it
    # still sees None: there the statement is taken for a guard, as before (nothing claimed).
    dict_default = update_kwargs is not None and any(
        p.name.value == update_kwargs and p.default is not None and
        code(p.default).strip() in ("{}", "dict()") for p in fn.get_params())
    if emptied is not None:
        if all((r.span.start.line, r.span.start.column) > emptied for r in reads if r.container == update_kwargs):
            dict_default = True
        else:
            guarded = True
    if kind == "prepare_inputs":
        reads.extend(_returned_reads(body))
    if any(r.key == "past_key_values" for r in reads):
        # `kwargs.get("past_key_values") or kwargs.get("past_key_value")`: the singular is an older release's
        # fallback, the plural the read that counts.
        reads = [r for r in reads if r.key != "past_key_value"]
    positional = _positional_super(body, "prepare_inputs_for_generation") if kind == "prepare_inputs" else \
        _positional_super(body, "forward") if kind == "forward" else None
    insert_at, indent = _first_line(body)
    last_param = [p for p in fn.get_params()]
    signature_end = None
    if last_param:
        lp = last_param[-1]
        e = param_span(lp).end
        signature_end = Span(e, e)
    required: list[str] = []
    default_at: list[tuple[str, Span]] = []
    for p in fn.children[2].children:
        if p.type == "operator" and p.value in ("*", "/"):
            if p.value == "*":
                break  # keyword-only from here
            continue
        if p.type != "param":
            continue
        if p.star_count:
            break
        if p.default is None and p.name.value not in ("self", "cls"):
            required.append(p.name.value)
            # The default goes after the name, or after its annotation (`cache_kwargs: dict` -> `... = None`).
            end = span(p.annotation).end if p.annotation is not None else span(p.name).end
            default_at.append((p.name.value, Span(end, end)))
    handed = _handed_entry(fn, var_keyword) if kind == "prepare_inputs" else None
    return HookOverride(kind, fn.children[1].value, target, span(fn.children[1]), tuple(params), var_keyword,
                        tuple(reads), compat, reference, positional, insert_at, indent, signature_end, guarded, passes_on, base,
                        members=tuple(members), dict_default=dict_default,
                        guarded_read=_guarded_read(body, "past_key_values") if kind == "prepare_inputs" else None,
                        none_read=_none_read(body, reads) if kind in ("prepare_inputs", "forward") else None,
                        handed=handed,
                        handed_parameter=_read_besides(fn, handed) if handed is not None else None,
                        truthy_cuts=_truthy_cuts(body) if kind == "prepare_inputs" and "past_key_values" in params
                        else (),
                        required=tuple(required), default_at=tuple(default_at), signature=signature_of(fn),
                        qualname=qualname(fn))


def _handed_entry(fn: Node, var_keyword: str | None) -> tuple[Span, str, str] | None:
    """The body's first dict-display entry `"past_key_values": name` whose value is a parameter of `fn` with a
    default, never rebound in the body (`past = kwargs.get(...)` makes it another value), where the body uses its
    `**` parameter only to read keys out of it (`kwargs.get("use_cache")`): its span, text and the parameter's
    name. A body that hands `**kwargs` on (`{..., **kwargs}`, `inputs.update(kwargs)`) may pass the cache that
    rides in it as well."""
    body = fn.children[-1]
    defaults = {p.name.value for p in fn.get_params() if p.star_count == 0 and p.default is not None}
    bound = {n.children[0].value for n in walk(body) if n.type == "expr_stmt" and n.children[0].type == "name"}
    if var_keyword is not None and not all(_key_lookup(n) for n in walk(body)
                                           if n.type == "name" and n.value == var_keyword):
        return None
    for node in walk(body):
        if node.type != "dictorsetmaker":
            continue
        kids = node.children
        for i in range(0, len(kids) - 2):
            key, colon, value = kids[i], kids[i + 1], kids[i + 2]
            if key.type == "string" and string_value(key) == "past_key_values" and colon.type == "operator" and \
                    colon.value == ":" and value.type == "name" and value.value in defaults and \
                    value.value not in bound:
                return span_between(key, value), f"{code(key).strip()}: {value.value}", value.value
    return None


def _read_besides(fn: Node, handed: tuple[Span, str, str]) -> Span | None:
    """The span of the parameter the entry `handed` hands on (with its default), where the body reads that parameter
    on another line too (`if past is not None: input_ids = input_ids[:, -1:]`, LAVIS's Flan-T5 hook): the hook then
    uses what it takes, so a finding on it is about what the hook takes and stands on the parameter (HFC010's docs,
    "Where a hook finding stands"); None where the entry is the only line reading it."""
    entry, _, name = handed
    others = [n for n in walk(fn.children[-1]) if n.type == "name" and n.value == name and
              n.start_pos[0] != entry.start.line]
    if not others:
        return None
    for p in fn.get_params():
        if p.star_count == 0 and p.name.value == name:
            return param_span(p)
    return None


def _truthy_cuts(body: Node) -> tuple[tuple[Span, str], ...]:
    """The `if past_key_values:` tests (the bare name, or the first operand of an `and`) and the `if past_key_values is
    not None:` tests (alone) of an override's body whose
    own branch rebinds `input_ids` to a slice of itself (`input_ids = input_ids[:, -1:]`): a test by truth value, not
    by what the cache holds. A test that only cuts `position_ids` (`position_ids[:, -input_ids.shape[1]:]`, which
    keeps them all where the input is whole) is not one."""
    found: list[tuple[Span, str]] = []
    if any(n.type == "expr_stmt" and n.children[0].type == "name" and n.children[0].value == "past_key_values" and
           code(n.children[-1]).strip() == "None" for n in walk(body)):
        return ()  # set to None by the body under a flag of its own (IndexTTS's `if not self.kv_cache:`): not claimed
    for node in walk(body):
        if node.type != "if_stmt":
            continue
        kids = node.children
        for i, kid in enumerate(kids[:-2]):
            if not (kid.type == "keyword" and kid.value in ("if", "elif")):
                continue
            test, branch = kids[i + 1], kids[i + 3]
            tested = test.children[0] if test.type == "and_test" else test
            if tested.type == "name" and tested.value == "past_key_values" and _cuts_input(branch):
                found.append((span(tested), code(test).strip()))
            elif test.type == "comparison" and " ".join(code(test).split()) == "past_key_values is not None" and \
                    _cuts_input(branch):
                # the whole test (a further operand of an `and` may test what the cache holds): the empty cache
                # generate builds before the first step is not None either
                found.append((span(test), "past_key_values is not None"))
    return tuple(found)


def _cuts_input(branch: Node) -> bool:
    """`branch` rebinds `input_ids` to a subscript of itself by constants alone (`input_ids = input_ids[:, -1:]`,
    the last token whatever the cache holds); a cut by a length it reads (`input_ids[:, n:]` with `n` the cache's
    length, 0 on the first step) keeps the prompt whole there."""
    for node in walk(branch):
        if node.type == "expr_stmt" and len(node.children) == 3 and node.children[0].type == "name" and \
                node.children[0].value == "input_ids" and code(node.children[1]).strip() == "=":
            value = node.children[2]
            if value.type in ("power", "atom_expr") and value.children[0].type == "name" and \
                    value.children[0].value == "input_ids" and is_trailer(value.children[1], "[") and \
                    not any(n.type == "name" for n in walk(value.children[1])):
                return True
    return False


def _key_lookup(name: Node) -> bool:
    """`name` is read by one constant key: `name["k"]`, `name.get("k", ...)`, `name.pop("k", ...)`."""
    after = name.get_next_sibling()
    if after is None or after.type != "trailer" or name.parent.children[0] is not name:
        return False
    if is_trailer(after, "["):
        return str(after.children[1].type) == "string"
    following = after.get_next_sibling()
    if not is_trailer(after, ".") or after.children[1].value not in ("get", "pop") or following is None or \
            not is_trailer(following, "("):
        return False
    args = call_args(following)
    return bool(args) and args[0].name is None and not args[0].star and args[0].value.type == "string"



def handed_to_base(body: Node, name: str, var_keyword: str | None) -> bool:
    """Every use of the parameter `name` in a `prepare_inputs_for_generation` override's `body` hands it on by its
    own name to the base's hook together with the override's whole `**kwargs` (`super().prepare_inputs_for_generation(
    input_ids, past_key_values=past_key_values, **kwargs)`, `LlamaForCausalLM.prepare_inputs_for_generation(self, ...)`):
    where generate passes the cache as `cache=` (5.24), that keyword rides in `**kwargs` to transformers' own hook,
    which takes it and ignores the None beside it (FutureWarning: Both `past_key_values` and `cache` are set ...
    ignoring deprecated `past_key_values=None`). The oracle: the same tokens and the same one-token steps as the
    model without the override on 4.57.6, 5.23.0, 5.24.0 and 5.25.0 (HFC010's VALID examples)."""
    if var_keyword is None:
        return False
    uses = [n for n in walk(body) if n.type == "name" and n.value == name]
    handed = 0
    for node in uses:
        argument = node.parent
        if argument.type == "argument" and argument.children[0] is node:
            continue  # the keyword's own name
        if argument.type != "argument" or len(argument.children) != 3 or argument.children[-1] is not node or \
                getattr(argument.children[0], "value", None) != name:
            return False  # read, tested or handed on under another name or by position: the override's own use
        trailer = argument.parent.parent if argument.parent.type == "arglist" else argument.parent
        call = trailer.parent if trailer is not None and trailer.type == "trailer" else None
        if call is None or not _base_hook_call(call, trailer, var_keyword):
            return False
        handed += 1
    return handed > 0


def _base_hook_call(call: Node, trailer: Node, var_keyword: str) -> bool:
    """`call` is `super().prepare_inputs_for_generation(...)` (or `super(Cls, self)....`, `Base.prepare_inputs_for_
    generation(self, ...)`) whose argument trailer `trailer` spreads `**var_keyword`."""
    kids = call.children
    at = kids.index(trailer)
    if at < 2 or not is_trailer(kids[at - 1], ".", "prepare_inputs_for_generation"):
        return False
    args = call_args(trailer)
    if not any(a.star == "**" and code(a.value).strip() == var_keyword for a in args):
        return False
    if code(kids[0]).strip() == "super" and at == 3 and is_trailer(kids[1], "("):
        return True
    # `Base.prepare_inputs_for_generation(self, ...)`: a class's function called with the instance first
    positional = [a for a in args if a.name is None and not a.star]
    return kids[0].type == "name" and kids[0].value != "self" and all(is_trailer(k, ".") for k in kids[1:at]) and \
        bool(positional) and code(positional[0].value).strip() == "self"


def _none_read(body: Node, reads: list[HookRead]) -> tuple[str, Span, str, str] | None:
    """The first cache parameter's first use where it raises on None (hook_none_reads.py), with its name."""
    name = next((r.key for r in reads if r.how == "parameter" and r.key in CACHE_NAMES), None)
    found = none_read(body, name) if name is not None else None
    return (name, *found) if name is not None and found is not None else None


def _guarded_read(body: Node, name: str) -> tuple[Span, str, str] | None:
    """The body's first read of `name`'s content (`name[...]`, `name.attr`), where an `if`/`elif` around it tests
    `name` itself (`if name is not None:`, `if name:`, `if name is not None and ...:`): the read's span through its
    first trailer, its text, and the outermost such test (VibeVoice's ASR hook reads `past_key_values[0][0]` under
    `isinstance(past_key_values, tuple)`, itself under `past_key_values is not None`: the branch that stops running
    where the parameter is None is the outer one). None where the first such read is not under such a test."""
    for node in walk(body):
        if node.type in ("power", "atom_expr") and (helper := _helper_read(node, name, body)) is not None:
            # AirLLM's `past_length = self.get_past_key_values_cache_seq_len(past_key_values)` under `if
            # past_key_values is not None:`, the helper's one statement `return past_key_values[0][0].shape[2]`:
            # the read that runs is the helper's, under the hook's test of the call (heldout22).
            tests = [t for t in _enclosing_tests(node) if any(n.type == "name" and n.value == name for n in walk(t))]
            return (helper[0], helper[1], code(tests[-1]).strip()) if tests else None
        if node.type not in ("power", "atom_expr") or node.children[0].type != "name" or \
                node.children[0].value != name or not (is_trailer(node.children[1], "[") or
                                                       is_trailer(node.children[1], ".")):
            continue
        tests = [t for t in _enclosing_tests(node) if any(n.type == "name" and n.value == name for n in walk(t))]
        if not tests:
            return None
        return span_between(node.children[0], node.children[1]), "".join(code(k) for k in node.children[:2]).strip(), \
            code(tests[-1]).strip()
    return None


def _helper_read(node: Node, name: str, body: Node) -> tuple[Span, str] | None:
    """`node` is a call `self.<method>(..., name, ...)` of a method of the hook's class (or `<function>(...)` of the
    module's), handing `name` on by position, whose body's first statement subscripts that parameter
    unconditionally (`return past_key_values[0][0].shape[2]`): that subscript's span through its first trailer and
    its text; else None."""
    kids = node.children
    if kids[0].type != "name":
        return None
    at = 1
    if kids[0].value == "self" and len(kids) == 3 and is_trailer(kids[1], "."):
        callee, at, skip = kids[1].children[1].value, 2, 1
        scope = body.parent.parent if body.parent is not None else None  # the class's suite
    elif len(kids) == 2:
        callee, skip, scope = kids[0].value, 0, None
    else:
        return None
    if not is_trailer(kids[at], "("):
        return None
    args = call_args(kids[at])
    index = next((i for i, a in enumerate(args) if a.name is None and not a.star and
                  a.value.type == "name" and a.value.value == name), None)
    if index is None or any(a.star or a.name is not None for a in args[:index]):
        return None
    if scope is None:
        scope = body
        while scope.parent is not None:
            scope = scope.parent
    helper = next((c for c in getattr(scope, "children", ()) if c.type == "funcdef" and c.children[1].value == callee),
                  None)
    if helper is None:
        return None
    params = [p for p in helper.get_params() if not p.star_count]
    if index + skip >= len(params):
        return None
    param = params[index + skip].name.value
    block = helper.children[-1]
    stmts = [block] if block.type == "simple_stmt" else suite(block)
    if not stmts or stmts[0].type != "simple_stmt":
        return None  # the first statement a plain one (no branch, loop or `try` before the read)
    for n in walk(stmts[0]):
        if n.type in ("power", "atom_expr") and n.children[0].type == "name" and n.children[0].value == param and \
                is_trailer(n.children[1], "["):
            return span_between(n.children[0], n.children[1]), "".join(code(k) for k in n.children[:2]).strip()
    return None


def _enclosing_tests(node: Node) -> list[Node]:
    """The tests of the `if`/`elif`s whose bodies hold `node` (not their tests), innermost first, up to the first
    `else` branch holding it (or the function); other statements around it (loops, `with`, `try`) are looked through."""
    tests: list[Node] = []
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "if_stmt":
            kids = parent.children
            i = kids.index(child)
            if kids[i - 1].type == "operator" and kids[i - 1].value == ":" and i >= 3 and \
                    kids[i - 3].type == "keyword" and kids[i - 3].value in ("if", "elif"):
                tests.append(kids[i - 2])
            else:
                return tests
        child, parent = parent, parent.parent
    return tests


def _members_read(fn: Node, names: set[str], follow: bool = True) -> list[str]:
    """The attributes `fn`'s body reads off the parameters `names` (`past_key_values.seen_tokens`), also inside the
    module's functions it hands one of them to by position (`_cached_lengths(past_key_values)`), one call deep."""
    found: list[str] = []
    if not names:
        return found
    module = fn
    while module.parent is not None:
        module = module.parent
    for node in walk(fn.children[-1]):
        if node.type not in ("power", "atom_expr") or node.children[0].type != "name":
            continue
        first, second = node.children[0], node.children[1]
        if first.value in names and is_trailer(second, "."):
            found.append(second.children[1].value)
        elif follow and is_trailer(second, "("):
            args = [a for a in call_args(second) if a.name is None and not a.star]
            callee = next((d for d in module.iter_funcdefs() if d.name.value == first.value), None)
            if callee is None:
                continue
            params = [p.name.value for p in callee.get_params() if p.star_count == 0]
            passed = {params[i] for i, a in enumerate(args[:len(params)]) if code(a.value).strip() in names}
            found.extend(_members_read(callee, passed, follow=False))
    return list(dict.fromkeys(found))


def _attribute_name(string: Node) -> bool:
    """The string names an attribute (`hasattr(f, "cache")`, racc's function attribute), not a cache key."""
    trailer = string.parent.parent if string.parent is not None and string.parent.type == "arglist" else string.parent
    call = trailer.parent if trailer is not None and trailer.type == "trailer" else None
    return call is not None and call.type in ("power", "atom_expr") and call.children[0].type == "name" and \
        call.children[0].value in ("hasattr", "getattr", "setattr", "delattr")


def _defaults_to_a_dict(node: Node, name: str) -> bool:
    """`name = name or {}` / `name = name or dict()`: None becomes an empty dict."""
    if node.type != "expr_stmt":
        return False
    kids = node.children
    if len(kids) != 3 or kids[0].type != "name" or kids[0].value != name or \
            code(kids[1]) != "=" or kids[2].type != "or_test":
        return False
    first, last = kids[2].children[0], kids[2].children[-1]
    return first.type == "name" and first.value == name and code(last).strip() in ("{}", "dict()")


def _none_to_a_dict(node: Node, name: str) -> tuple[Node, ...] | None:
    """A statement making `name` an empty dict where it is None: `name = name or {}` (no test: `()`), or `if name is
    None: name = {}` (`dict()`; the body that one assignment, no `else`): its None test. None for anything else."""
    if _defaults_to_a_dict(node, name):
        return ()
    kids = node.children if node.type == "if_stmt" else []
    if len(kids) != 4 or kids[1].type != "comparison" or code(kids[1]).split() != [name, "is", "None"]:
        return None
    suite = kids[3]
    stmts = [c for c in getattr(suite, "children", [suite]) if c.type == "simple_stmt"] if suite.type == "suite" \
        else [suite]
    if len(stmts) != 1 or len(stmts[0].children) != 2:
        return None
    assign = stmts[0].children[0]
    if assign.type != "expr_stmt" or len(assign.children) != 3 or code(assign.children[0]).strip() != name or \
            code(assign.children[1]).strip() != "=" or code(assign.children[2]).strip() not in ("{}", "dict()"):
        return None
    return (kids[1],)


def _tests_none(node: Node, name: str) -> bool:
    """`name is None`, `name is not None`, `name == None`, `name != None` (either way round): a guard on the dict
    itself, not on a value read from it (`cache_kwargs.get("sin") is not None` reads it unguarded)."""
    kids = node.children
    return len(kids) == 3 and {code(kids[0]).strip(), code(kids[2]).strip()} == {name, "None"}


def _position_parameter(fn: Node, body: Node) -> Iterator[HookRead]:
    """A `cache_position` parameter the body uses for something other than handing it on as it is
    (`f(..., cache_position=cache_position)`, `f(x, cache_position)`) and never tests against None (`if cache_position is None`,
    `cache_position or ...`, `if cache_position:`): the use the body makes of it first, `how` "subscript"
    for `cache_position[...]`, "get" for an attribute (`cache_position.shape`), else "parameter" (the span the
    parameter with its default)."""
    param = next((p for p in fn.get_params() if p.star_count == 0 and p.name.value == "cache_position"), None)
    if param is None:
        return
    uses = []
    for node in walk(body):
        if node.type != "name" or node.value != "cache_position":
            continue
        parent = node.parent
        if parent.type == "argument" and parent.children[0] is node and len(parent.children) == 3:
            continue  # a keyword's name (`f(cache_position=...)`), not a use
        if parent.type == "argument" and parent.children[-1] is node and len(parent.children) == 3 and \
                getattr(parent.children[0], "value", None) == "cache_position":
            continue  # handed on by name: None is what the callee gets on that release too
        if parent.type == "arglist" or (parent.type == "trailer" and parent.children[0].value == "("):
            continue  # handed on by position, as it is (the callee's own use is the callee's)
        if _dict_entry_of_its_own_name(node):
            # `{"sin": sin, "cos": cos, "cache_position": cache_position}`, the `cache_kwargs` a patched attention
            # hands `Cache.update`: handed on under its own name like a keyword; from the release that stops passing
            # it (5.4) transformers' caches no longer read it either (`static_cache_ignores_cache_position`).
            continue
        if parent.type in ("comparison", "or_test", "and_test", "not_test") or \
                (parent.type in ("if_stmt", "while_stmt") and node is not parent.children[0]) or \
                (parent.type == "test" and parent.children.index(node) == 2):
            return  # the body tests it: a None is handled
        uses.append(node)
    if not uses:
        return
    # The use every call reaches, where there is one: a use under `if inputs_embeds is not None:` raises only on
    # that path, while `cache_position[0]` in the body's own statements raises on every call that gets there.
    first = next((n for n in uses if _unconditional(n, body)), uses[0])
    after = first.get_next_sibling()
    if after is not None and after.type == "trailer" and after.children[0].value in ("[", "."):
        how: ReadHow = "subscript" if after.children[0].value == "[" else "get"
        yield HookRead("cache_position", how, span_between(first, after), code(first) + code(after).strip())
        return
    yield HookRead("cache_position", "parameter", param_span(param), code(param).rstrip(",").strip())


def _dict_entry_of_its_own_name(node: Node) -> bool:
    """`node` is the value of a `"cache_position": node` entry of a dict display."""
    parent = node.parent
    if parent is None or parent.type != "dictorsetmaker":
        return False
    at = parent.children.index(node)
    return at >= 2 and parent.children[at - 1].type == "operator" and parent.children[at - 1].value == ":" and \
        string_value(parent.children[at - 2]) == str(node.value)


# Where a compound statement's part runs on every pass through it: an `if`/`while` test, a `for`'s iterable, a
# `with`'s items and body, a `try`'s body. Any other part (a branch, a loop body, a handler) may not run.
_ALWAYS_RUN = {"if_stmt": (1,), "while_stmt": (1,), "for_stmt": (3,), "try_stmt": (2,)}


def _unconditional(node: Node, body: Node) -> bool:
    """`node` runs whenever the statement of `body` it is in runs: no enclosing branch, loop body, handler,
    ternary arm, `and`/`or` operand after the first, comprehension or nested function between them."""
    child, parent = node, node.parent
    while parent is not None and parent is not body:
        t = parent.type
        if t in _ALWAYS_RUN:
            if parent.children.index(child) not in _ALWAYS_RUN[t]:
                return False
        elif t in ("funcdef", "lambdef", "classdef", "sync_comp_for", "comp_for"):
            return False
        elif t == "test" and parent.children.index(child) != 2:
            return False  # `a if c else b`: only the condition always runs
        elif t in ("and_test", "or_test") and parent.children.index(child) != 0:
            return False
        child, parent = parent, parent.parent
    return parent is body


def updates_a_cache_itself(fn: Node) -> bool:
    """The body calls `<x>.update(a, b, c[, d])` with three or four positional arguments and no `kwargs=` (a
    dict's `update` takes one): the function updates a cache itself, the way 4.x attention layers did."""
    for node in walk(fn.children[-1]):
        if node.type not in ("power", "atom_expr"):
            continue
        kids = node.children
        for i in range(1, len(kids) - 1):
            if is_trailer(kids[i], ".", "update") and is_trailer(kids[i + 1], "("):
                args = call_args(kids[i + 1])
                positional = [a for a in args if a.name is None and not a.star]
                if len(positional) in (3, 4) and not any(a.name == "kwargs" or a.star for a in args):
                    return True
    return False


def _positional_super(body: Node, method: str) -> PositionalSuper | None:
    for node in walk(body):
        if node.type in ("power", "atom_expr") and len(node.children) >= 4 and code(node.children[0]) == "super" \
                and is_trailer(node.children[2], ".", method) and \
                is_trailer(node.children[3], "("):
            args = call_args(node.children[3])
            positional = tuple(code(a.value) for a in args if a.name is None and not a.star)
            if len(positional) >= 2:
                return PositionalSuper(span_between(node.children[0], node.children[3]), positional,
                                       any(a.star == "**" for a in args))
    return None


def _first_line(body: Node) -> tuple[Span | None, str]:
    """Where a new first statement of the body goes (after a docstring), and its indentation."""
    if body.type != "suite":
        return None, ""
    statements = suite(body)
    if not statements:
        return None, ""
    first = statements[0]
    if len(statements) > 1 and first.type == "simple_stmt" and first.children[0].type == "string":
        first = statements[1]
    start = span(first).start
    return Span(start, start), " " * start.column


def _stored_into(node: Node) -> bool:
    """`d["key"] = value`: the subscript is the target of a plain assignment, which stores whether or not the key
    is there."""
    parent = node.parent
    return parent is not None and parent.type == "expr_stmt" and len(parent.children) >= 3 and \
        parent.children[0] is node and parent.children[1].type == "operator" and parent.children[1].value == "="


def _membership_guarded(node: Node, key: str, container: str) -> bool:
    """The read sits in the branch of an `if` whose test is (or `and`s in) `"key" in container`: where the release
    hands the cache under another name the test is false and the read never runs (the oracle: `recall:heldout13/
    vibevoice_windowed_cfg.py`'s `_update_model_kwargs_for_generation` override, 4.57.6-5.25.0). The same guard
    inside one expression short-circuits the same way: an operand of an `and` chain after `"key" in container`
    (`"k" in kwargs and kwargs["k"] is None`, AutoAWQ's fused attention: no KeyError on 4.57.6-5.25.0, the oracle:
    `recall:heldout14/autoawq_fused_attention.py`), of an `or` chain after `"key" not in container`, or the value
    of a conditional expression whose test is that guard (`kwargs["k"] if "k" in kwargs else None`)."""
    child, parent = node, node.parent
    while parent is not None and parent.type != "funcdef":
        kids = parent.children
        if parent.type in ("and_test", "or_test"):
            before = kids[:next((i for i, k in enumerate(kids) if k is child), 0)]
            negated = parent.type == "or_test"
            if any(_tests_membership(k, key, container, negated) for k in before if k.type != "keyword"):
                return True
        elif parent.type == "test" and len(kids) == 5 and (
                (kids[0] is child and _tests_membership(kids[2], key, container)) or
                (kids[4] is child and _tests_membership(kids[2], key, container, negated=True))):
            return True
        if parent.type == "if_stmt":
            kids = parent.children
            at = next((i for i, k in enumerate(kids) if k is child), -1)
            if at >= 3 and kids[at - 1].type == "operator" and kids[at - 1].value == ":" and \
                    kids[at - 3].type == "keyword" and kids[at - 3].value in ("if", "elif") and \
                    _tests_membership(kids[at - 2], key, container):
                return True
        child, parent = parent, parent.parent
    return False


def _tests_membership(test: Node, key: str, container: str, negated: bool = False) -> bool:
    """`"key" in container` (`negated`: `"key" not in container`), or an `and` (`negated`: `or`) chain holding it:
    where the test is true (false), the key is there."""
    while test.type == "atom" and len(test.children) == 3 and test.children[0].type == "operator" and \
            test.children[0].value == "(":
        test = test.children[1]
    if test.type == ("or_test" if negated else "and_test"):
        return any(_tests_membership(t, key, container, negated) for t in test.children if t.type != "keyword")
    if test.type != "comparison":
        return False
    kids = test.children
    operator = code(kids[1]).split() if len(kids) == 3 else []
    return operator == (["not", "in"] if negated else ["in"]) and \
        string_value(kids[0]) == key and kids[2].type == "name" and kids[2].value == container
