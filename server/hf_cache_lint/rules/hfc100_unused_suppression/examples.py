"""HFC100 examples; each runs unchanged under the oracle against real transformers (a comment changes nothing
at run time: every INVALID example runs clean, `runtime="OK"`)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, Valid, invalid
from hf_cache_lint.rules.snippets import prelude

_LOAD = prelude()
_LOAD_CACHE = prelude("DynamicCache")
_CALL = "out = model.generate(**inputs, max_new_tokens=5)"

INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + _CALL + "  # noqa: HFC001\n",
        flagged="# noqa: HFC001",
        fixes={"Remove unused suppression": (_CALL + "  # noqa: HFC001\n", _CALL + "\n")},
        message_contains="unused: `HFC001`",
        runtime="OK",
        note="a `# noqa` left behind after the conflict was fixed",
    ),
    invalid(
        _LOAD + _CALL + "  # noqa: HFC004, E501\n",
        flagged="# noqa: HFC004, E501",
        fixes={"Remove unused suppression": ("# noqa: HFC004, E501", "# noqa: E501")},
        message_contains="unused: `HFC004`",
        runtime="OK",
        note="another linter's code in the same comment stays",
    ),
    invalid(
        _LOAD + _CALL + "  # hf-cache-lint: ignore[HFC09]\n",
        flagged="# hf-cache-lint: ignore[HFC09]",
        fixes={"Remove unused suppression": ("  # hf-cache-lint: ignore[HFC09]", "")},
        message_contains="unknown: `HFC09`",
        runtime="OK",
        note="a mistyped code silences nothing",
    ),
    invalid(
        "# hf-cache-lint: noqa\n" + _LOAD + _CALL + "\n",
        flagged="# hf-cache-lint: noqa",
        fixes={"Remove unused suppression": ("# hf-cache-lint: noqa\n", "")},
        message_contains="silences nothing",
        runtime="OK",
        note="a file-level suppression in a file with nothing to silence",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(_LOAD + _CALL + "\n", note="no suppression at all"),
    Valid(_LOAD + _CALL + "  # noqa\n", note="a bare `# noqa` may be there for another linter: never reported"),
    Valid(_LOAD + _CALL + "  # noqa: E501\n", note="another linter's codes are its business"),
    Valid(_LOAD_CACHE + "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)"
          "  # noqa: HFC006\n", versions=("5.24.0", "5.25.0"),
          note="the comment silences HFC006's deprecation of `past_key_values=` (on 5.24, where it warns)"),
)
