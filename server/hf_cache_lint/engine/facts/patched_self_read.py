"""The fact kind `patched_self_read`: a module function patched in as the `forward` of a transformers attention or
decoder-layer class (`modeling_llama.LlamaAttention.forward = f`, `setattr(LlamaAttention, "forward", f)`, or a
walker that patches the modules of a class by its name, EasyKV's `modify_method_of_instance(model,
"LlamaAttention", "forward", f)`) reading `self.<name>` off the module it now serves. A forward written for 4.4x
reads what that release's `__init__` set (`self.num_heads`), and the release table's `attr:` facts say which
release's class no longer has it (HFC010: AttributeError in every layer). Found by
engine/interpreter/patched_self_reads.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class PatchedSelfRead:
    """`span`: the statement (or walker call) patching the class; `cls` the patched class (`LlamaAttention`),
    `module` the transformers model module the release table says defines it, `function` the patched-in function,
    `reads` each name it reads off `self` that neither it nor the module sets anywhere (nor names in a string, as
    `hasattr(self, "num_heads")` does), with its first read as written, in the order of those reads."""

    span: Span
    function: str
    cls: str
    module: str
    reads: tuple[tuple[str, Span], ...]


def might_patch(text: str) -> bool:
    """A patched forward's fact needs the transformers import, a `forward` patched, and a layer class named. Every
    patch engine/interpreter/patched_self_reads.py reads either assigns `<x>.forward = ...` or names the method as
    the string "forward" (`setattr`, a walker's argument): without either, transformers' own modeling files (which
    say all the other words) would reach the parser for nothing (9 of them over 5.24.0's tree)."""
    return "transformers" in text and "forward" in text and "self" in text and \
        ("Attention" in text or "DecoderLayer" in text) and \
        ("forward\"" in text or "forward'" in text or _ASSIGNED.search(text) is not None)


# `.forward =` with spaces or line continuations around the dot and the `=`, not `==`.
_ASSIGNED = re.compile(r"\.[\s\\]*forward[\s\\]*=(?!=)")


KIND: FactKind[PatchedSelfRead] = FactKind(
    "patched_self_read", PatchedSelfRead, triggers=("forward",), parse_names=frozenset({"forward"}), source="import",
    might_occur=might_patch)
