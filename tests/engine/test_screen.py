"""The one screen (engine/screen/screen.py, asked through checking/screening.py by check_source and by the CLI's
runner alike) never screens out a text that holds a finding of the enabled rules: every rule example on every
checked version, with that rule alone enabled, and — for a rule reading a fact kind recorded without any
generate call — the example again without its `from_pretrained` and `generate` lines (a manual decode loop,
an import)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.checking import screening
from hf_cache_lint.checking.source import _run_rules
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts import KINDS
from hf_cache_lint.engine.facts.ci_value import KIND as CI_VALUE
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import CHECKED_VERSIONS
from hf_cache_lint.settings import Settings

_AT_GENERATE = {GENERATE_CALL, CI_VALUE}


def _without_generate(code: str) -> str:
    return "".join(line for line in code.splitlines(keepends=True)
                   if "from_pretrained" not in line and "generate(" not in line)


CASES = [
    pytest.param(rule.code, text, ex.files, v, id=f"{rule.code}-{kind}{i}{tag}-{v}")
    for rule in ALL_RULES
    for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid))
    for i, ex in enumerate(examples)
    for tag, text in (("", ex.code), *((("-no-generate", _without_generate(ex.code)),)
                                        if not rule.reads <= _AT_GENERATE else ()))
    for v in CHECKED_VERSIONS
]


@pytest.mark.parametrize(("code", "text", "files", "version"), CASES)
def test_the_screen_never_hides_a_finding_of_the_enabled_rule(code: str, text: str, files: dict[str, str],
                                                               version: str, tmp_path: Path) -> None:
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = str(tmp_path / "example.py")
    settings = Settings(select=(code,))
    ctx = Context(target=Target.of(version), workspace=tmp_path)
    found = _run_rules(text, path, settings, ctx, False, False).findings  # no screen at all
    if found:
        assert screening.screen(text, path, settings, ctx), "screened out with findings"
        assert screening.screen(text, path, settings, ctx, gate=False), "screened out (editor path)"


def test_a_removed_api_use_in_a_manual_decode_loop_is_screened_in_without_generate(tmp_path: Path) -> None:
    text = ("from transformers import DynamicCache\ncache = DynamicCache()\n"
            "for step in range(4):\n    out = model(ids, past_key_values=cache)\n"
            "    legacy = out.past_key_values.to_legacy_cache()\n")
    ctx = Context(target=Target.of("5.24.0"), workspace=tmp_path)
    assert screening.screen(text, "main.py", Settings(select=("HFC007",)), ctx)
    assert not screening.screen(text, "main.py", Settings(select=("HFC001",)), ctx)  # nothing HFC001 reads


def test_each_rule_declares_kinds_the_screen_knows() -> None:
    known = set(KINDS)
    for rule in ALL_RULES:
        assert "reads" in type(rule).__dict__, f"{rule.code} declares no `reads`"
        # A rule reads some fact kinds, or the suppression comments themselves (HFC100), never nothing.
        assert (rule.reads or rule.reads_comments) and rule.reads <= known, rule.code


def test_a_suppression_comment_is_screened_in_only_for_a_rule_that_reads_comments(tmp_path: Path) -> None:
    text = "import os  # noqa: HFC001\n"
    ctx = Context(target=Target.of("5.24.0"), workspace=tmp_path)
    assert screening.screen(text, "main.py", Settings(select=("HFC100",)), ctx)
    assert not screening.screen(text, "main.py", Settings(select=("HFC001",)), ctx)


def test_there_is_one_screen(tmp_path: Path) -> None:
    # Nothing above the engine decides the screen by hand: only engine/screen/screen.py calls the prefilter and the
    # gate (bench/ times their stages apart and tests/ test them).
    root = Path(__file__).resolve().parents[2] / "server" / "hf_cache_lint"
    callers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if any(w in p.read_text() for w in ("cannot_hold_finding(", "code_hits(", "might_matter(")))
    assert callers == ["engine/screen/gate.py", "engine/screen/screen.py", "engine/text/prefilter.py"]


def test_the_screen_asks_the_rules_once_per_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, ...]] = []
    real = screening._needs.__wrapped__

    def needs(codes: tuple[str, ...]) -> screening.Needs:
        calls.append(codes)
        return real(codes)

    monkeypatch.setattr(screening, "_needs", needs)
    monkeypatch.setattr(screening, "_LAST", None)
    every, one = Settings(), Settings(select=("HFC001",))
    assert screening.needs_of(every) is screening.needs_of(every)
    assert len(calls) == 1
    only = screening.needs_of(one)
    assert len(calls) == 2 and calls[1] == ("HFC001",) and only.kinds <= screening.needs_of(every).kinds
    assert only.kinds != screening.needs_of(every).kinds  # a new settings object is asked again
