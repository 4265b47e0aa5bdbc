"""Where the CLI's screen spends its CPU, in one process over a tree (not a test; no cProfile: its per-call overhead
on ~20,000 cheap calls was once read as a quarter of the screen, bench/README.md).

    python bench/screen_stages.py [--tree DIR] [--rounds N]

Runs checking/screening.py `screen` on every file as the CLI asks it (default settings, the tree as the workspace,
the collector paused and the run's memo fresh each round, as cli_support/runner.py has them), with the gate's stages (engine/screen/gate.py) timed by
wrapping them: the text's words (`_text_words`, the superset read before any compile), the compile
(`_compiled_words`, with its walk of the code objects, only where those do not decide), the `ast` parses of the tests
that look where words stand (`_Tree.get`), the workspace-import test (`_imports_workspace_value`); the rest of the
gate and the text stage are the remainders. Then the text-words alternative to the compile measured for issue 31
(bench/README.md): the whole words of each gated text (bytes.translate + split, NFKC'd where not ASCII), how many
texts say none of the words the gate reads before its workspace test, and what compiling just those costs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from hf_cache_lint.checking.screening import screen  # noqa: E402
from hf_cache_lint.engine.base.collector import gc_paused  # noqa: E402
from hf_cache_lint.engine.environment.api_changes import REMOVED_CACHE_METHODS, REMOVED_NAMES  # noqa: E402
from hf_cache_lint.engine.environment.confine import settled  # noqa: E402
from hf_cache_lint.engine.environment.context import Context  # noqa: E402
from hf_cache_lint.engine.facts.cache_use import PARSE_NAMES as CACHE_USE_NAMES  # noqa: E402
from hf_cache_lint.engine.screen import gate  # noqa: E402
from hf_cache_lint.engine.text.text import decode_source  # noqa: E402
from hf_cache_lint.settings import Settings  # noqa: E402

_WORD_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == ord("_")) else 32 for c in range(256))


def _timed(owner: Any, name: str, spent: Counter[str]) -> None:
    """Replace owner.name by a wrapper adding its CPU seconds to spent[name] (outermost calls only)."""
    inner: Callable[..., Any] = getattr(owner, name)
    depth = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            depth[0] -= 1
            if not depth[0]:
                spent[name] += time.process_time() - start

    setattr(owner, name, wrapper)


def text_words(text: str) -> set[bytes]:
    both = text if text.isascii() else text + "\n" + unicodedata.normalize("NFKC", text)
    return set(both.encode().translate(_WORD_BYTES).split())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=str(ROOT / ".cache" / "oracle" / "tf-5.24.0" / "transformers"))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    files = [(str(p), decode_source(p.read_bytes())) for p in sorted(tree.rglob("*.py"))]
    settings, context = Settings(), Context(workspace=tree)

    asked: list[tuple[str, bool, frozenset[str], dict[str, frozenset[str]]]] = []
    cannot_hold = gate.cannot_hold_finding

    def recording(text: str, path: str, ctx: Context, keyword_matters: Callable[[str], bool],
                  removed_api: bool = False, kind_names: frozenset[str] = frozenset(),
                  sourced: Any = gate._NONE) -> bool:
        asked.append((text, removed_api, kind_names, dict(sourced)))
        return cannot_hold(text, path, ctx, keyword_matters, removed_api, kind_names, sourced)

    gate.cannot_hold_finding = recording  # type: ignore[assignment]
    spent: Counter[str] = Counter()
    for name in ("cannot_hold_finding", "_text_words", "_compiled_words", "_imports_workspace_value"):
        _timed(gate, name, spent)
    _timed(gate._Tree, "get", spent)
    totals, passed = [], 0
    for _ in range(args.rounds):
        spent.clear()
        asked.clear()
        start = time.process_time()
        with settled(), gc_paused():  # as the CLI has it (cli_support/runner.py): one run's memo a round
            passed = sum(screen(text, path, settings, context) for path, text in files)
        totals.append((time.process_time() - start, dict(spent)))
    total, stages = min(totals, key=lambda t: t[0])
    print(f"{tree}: {len(files)} files, {len(asked)} reach the gate, {passed} pass; "
          f"min of {args.rounds} rounds (totals {', '.join(f'{t:.2f}' for t, _ in totals)} s CPU)")
    print(f"  screen           {total:6.2f} s")
    print(f"  text stage       {total - stages['cannot_hold_finding']:6.2f} s")
    print(f"  gate             {stages['cannot_hold_finding']:6.2f} s, of which")
    print(f"    text words     {stages.get('_text_words', 0.0):6.2f} s  (the superset read before any compile)")
    print(f"    compile        {stages.get('_compiled_words', 0.0):6.2f} s  (of {sum(len(a[0]) for a in asked) / 1e6:.1f} MB "
          "gated)")
    print(f"    ast.parse      {stages.get('get', 0.0):6.2f} s")
    print(f"    workspace      {stages['_imports_workspace_value']:6.2f} s")

    # The alternative: the text's words instead of the compiled ones, where they already decide.
    start = time.process_time()
    words = [text_words(a[0]) for a in asked]
    words_cpu = time.process_time() - start
    said: Counter[str] = Counter()
    free = []
    for (text, removed_api, kind_names, sourced), found in zip(asked, words, strict=True):
        read = set(kind_names) | {w for ws in sourced.values() for w in ws} | gate.SURE_IN_TEXT | gate.CALLS
        read |= {"from_pretrained", "cache_implementation"}
        if removed_api:
            read |= {*REMOVED_NAMES, *REMOVED_CACHE_METHODS, *CACHE_USE_NAMES}
        hits = {w for w in read if w.encode() in found}
        said.update(hits)
        if not hits:
            free.append(text)
    warnings.simplefilter("ignore")
    start = time.process_time()
    for text in free:
        compile(text, "<gate>", "exec", dont_inherit=True)
    free_cpu = time.process_time() - start
    print(f"  text words of the gated texts: {words_cpu:.2f} s; {len(free)} say none of the words the gate reads "
          f"(compiling them: {free_cpu:.2f} s); most said: "
          + ", ".join(f"{w} {n}" for w, n in said.most_common(6)))
    print(f"  median screen {statistics.median(t for t, _ in totals):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
