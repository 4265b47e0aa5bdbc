"""Reading a call's evaluated arguments: by keyword, by position, as a constant string, as a Setting."""

from __future__ import annotations

from hf_cache_lint.engine.interpreter.session import EvArg, site_at
from hf_cache_lint.engine.interpreter.values import Const, Setting, Unknown
from hf_cache_lint.engine.output.analysis import CiSource
from hf_cache_lint.engine.output.keywords import find_keyword


def kw(args: list[EvArg], name: str) -> EvArg | None:
    """The argument written as `name=...`."""
    return find_keyword(args, name)


def positional(args: list[EvArg], i: int) -> EvArg | None:
    """The `i`-th positional argument (`*`/`**` ones and keywords do not count)."""
    pos = [a for a in args if a.arg.name is None and not a.arg.star]
    return pos[i] if i < len(pos) else None


def const_str(a: EvArg | None) -> str | None:
    """The argument's value when it is a string constant."""
    if a is not None and isinstance(a.value, Const) and isinstance(a.value.value, str):
        return a.value.value
    return None


def setting_from(a: EvArg | None, via: CiSource) -> Setting | None:
    """A `cache_implementation=` argument as the Setting a config gets from it (unknown when not a constant)."""
    if a is None:
        return None
    v = a.value
    where = site_at(a.arg.node)
    if isinstance(v, Const):
        return Setting(v.value if isinstance(v.value, str) else None, where, via=via)
    reason = v.reason if isinstance(v, Unknown) else None
    return Setting(None, where, via=via, unknown=reason or f"`{a.arg.value.get_code(include_prefix=False)}`")
