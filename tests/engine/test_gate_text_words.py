"""The gate's text words (engine/screen/gate.py `_text_words`): a superset of the compiled module's identifiers and
string constants, read off the text, or None where the text cannot say (the compile decides there); and the screen's
decisions the same with or without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.checking.screening import screen
from hf_cache_lint.engine.base.collector import gc_paused
from hf_cache_lint.engine.environment.api_changes import (
    GENERATION_IMPORT_MODULES,
    REMOVED_CACHE_METHODS,
    REMOVED_NAMES,
)
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.releases_models import MODEL_SCREEN_NAMES, REMOVED_GENERATION_EXPORTS
from hf_cache_lint.engine.facts import KINDS
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS
from hf_cache_lint.engine.screen import gate
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SETS = [ROOT / "examples", ROOT / "tests" / "realcode", ROOT / "tests" / "data" / "corpus"]
TREE = ROOT / ".cache" / "oracle" / "tf-5.24.0" / "transformers"
_DOTTED = {w for w, _ in gate._DOTTED}


def _read(root: Path) -> list[tuple[str, str]]:
    out = []
    for p in sorted(root.rglob("*.py")):
        try:
            out.append((str(p), decode_source(p.read_bytes())))
        except Exception:  # undecodable: the screen never sees it
            continue
    return out


def _covers(text: str) -> bool:
    """Every identifier (or dotted word the gate reads) the compile gives is among the text words."""
    said = gate._text_words(text)
    compiled = gate._compiled_words(text)
    if said is None or compiled is None:
        return True

    def read(w: str) -> bool:
        return w.isidentifier() or w in _DOTTED

    names, strings = compiled
    return {w for w in names if read(w)} <= said[0] and {w for w in strings if read(w)} <= said[1]


# Constants made of pieces, escapes, open quotes: the text cannot say (None), the compile decides.
PIECES = [
    'x = "past_key" "_values"', 'x = ("gen"\n  # c\n  "erate")', 'x = "gen" + "erate"', 'x = ("gen") + ("erate")',
    'x = "ab" * 2', 'y = 2 * "ab"', 'x = "%s" % "generate"', 'x = "%c" % 95', 'x = "past\\x5fkey_values"',
    'x = "past\\137key"', 'x = "\\N{LOW LINE}"', 'x = "past_key\\\nvalues"', 'x = f"{a}gen" "erate"',
    'x = "gen" f"erate{a}"', "x = 'open\n", "x = '''open\n", "x = 'abc\\'\ny = 1\n", "x = '''a\\'''",
    "if not __debug__:\n    pass\n", "while True:\n    pass\nx = 'generate'\n", "ñ = 1\n",
    'x = y or"past\\x5fkey_values"', 'x = (3 *  # c\n  "ab")',
]


@pytest.mark.parametrize("code", PIECES)
def test_constants_made_of_pieces_leave_the_decision_to_the_compile(code: str) -> None:
    assert gate._text_words(code) is None


@pytest.mark.parametrize(("code", "name", "string"), [
    ('model.generate(x, past_key_values=c)\n', "generate", "past_key_values"),
    ('import transformers.generation.utils\n', "transformers.generation.utils", None),
    ('d = {"cache_implementation": "static"}\n', None, "cache_implementation"),
    ('x = f"{a!r:>{w}} past"\ny = "a b" "c"\nz = "%s" % y\nw = r"\\x5f"\n', "w", None),
    ('from __future__ import annotations\ndef f() -> Cache: ...\n', "Cache", "return"),
])
def test_the_text_words_hold_the_compiled_ones(code: str, name: str | None, string: str | None) -> None:
    said = gate._text_words(code)
    assert said is not None
    assert name is None or name in said[0]
    assert string is None or string in said[1]
    assert _covers(code)


def test_a_docstring_or_a_comment_says_no_word() -> None:
    said = gate._text_words('"""Pass past_key_values to generate."""\n# model.generate(past_key_values=c)\nx = 1\n')
    assert said is not None
    assert "generate" not in said[0] | said[1] and "past_key_values" not in said[0] | said[1]


def test_no_word_the_gate_reads_is_a_mangled_private_name() -> None:
    words = {*REMOVED_NAMES, *REMOVED_CACHE_METHODS, *GENERATION_IMPORT_MODULES, *MODEL_SCREEN_NAMES,
             *REMOVED_GENERATION_EXPORTS, *CACHE_KEYWORDS, *gate.TRIGGERS, *gate._SAID_OUTPUT,
             *(w for k in KINDS for w in k.parse_names or ())}
    assert not [w for w in words if gate._MANGLED.match(w)]


@pytest.mark.parametrize("root", SETS, ids=lambda p: p.name)
def test_the_text_words_cover_the_compiled_ones_on_real_code(root: Path) -> None:
    assert [p for p, text in _read(root) if not _covers(text)] == []


@pytest.mark.parametrize("root", [*SETS, TREE], ids=lambda p: p.name)
def test_the_screen_decides_the_same_with_and_without_the_text_words(root: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if not root.is_dir():
        pytest.skip(f"{root} is not there")
    files = _read(root)
    settings, context = Settings(), Context(workspace=root)
    with gc_paused():
        fast = [screen(text, path, settings, context) for path, text in files]
        monkeypatch.setattr(gate, "_text_words", lambda *a, **k: None)
        exact = [screen(text, path, settings, context) for path, text in files]
    assert [p for (p, _), a, b in zip(files, fast, exact, strict=True) if a != b] == []
