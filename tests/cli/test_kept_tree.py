"""The CLI's first check of a file keeps its parse tree under the key of the fixes' re-checks (fixcheck/rechecks.py
`recheck_key`), so the first re-check re-parses only what its fixes change; verify_result drops it after. A file
with no fix to verify keeps none (check_source drops it while the collector is still off)."""

from __future__ import annotations

from pathlib import Path

import parso.cache
import pytest

from hf_cache_lint.checking.files import check_data
from hf_cache_lint.engine.interpreter.interp import _GRAMMAR
from hf_cache_lint.fixcheck import recheck_key, verify_result

CONFLICT = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
            "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
            "model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n")
CLEAN = CONFLICT.replace("past_key_values=DynamicCache(), ", "")  # screened in, no finding


def _kept(key: str) -> bool:
    return Path(key) in parso.cache.parser_cache.get(_GRAMMAR._hashed, {})


@pytest.mark.parametrize("text", [CONFLICT, CLEAN])
def test_the_tree_is_kept_for_the_rechecks_and_dropped_after(text: str, tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(text)
    key = recheck_key(str(path))
    result = check_data(text.encode(), path, display=str(path), keep_tree=key)
    assert _kept(key) == (text is CONFLICT)
    verified = verify_result(result, path, None, None)
    assert not _kept(key)
    # The same findings and fixes as a check that keeps no tree.
    assert verified == verify_result(check_data(text.encode(), path, display=str(path)), path, None, None)
    assert bool(verified.findings) == (text is CONFLICT)
    assert all(f.fixes for f in verified.findings)


@pytest.mark.parametrize("text", [CONFLICT, CLEAN])
def test_a_tree_nothing_rechecks_is_unlinked_and_one_kept_is_whole(text: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree of a file without a fix to verify is dropped with its cycles broken (engine/syntax/parsing.py
    `unlink_tree`: its inner nodes without children), after the rules read it whole; a kept tree stays whole."""
    from hf_cache_lint.engine.interpreter import interp

    trees: list[object] = []
    parse = interp.parse

    def recording(text: str, key: str | None = None) -> object:
        tree = parse(text, key)
        trees.append(tree)
        return tree

    monkeypatch.setattr(interp, "parse", recording)
    path = tmp_path / "m.py"
    key = recheck_key(str(path))
    result = check_data(text.encode(), path, display=str(path), keep_tree=key)
    assert len(trees) == 1
    assert (trees[0].children == []) == (text is CLEAN)  # type: ignore[attr-defined]
    monkeypatch.setattr(interp, "parse", parse)
    assert result == check_data(text.encode(), path, display=str(path))
    verify_result(result, path, None, None)


def test_a_failing_check_keeps_no_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hf_cache_lint.checking import source

    def broken(*args: object) -> object:
        raise RuntimeError("a bug in a rule")

    monkeypatch.setattr(source, "drop_foreign", broken)  # after the parse: the tree is kept by then
    path = tmp_path / "m.py"
    key = recheck_key(str(path))
    with pytest.raises(RuntimeError):
        check_data(CONFLICT.encode(), path, display=str(path), keep_tree=key)
    assert not _kept(key)
