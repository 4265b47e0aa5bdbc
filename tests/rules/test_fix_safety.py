"""Fix applicability (Ruff's safe/unsafe) agrees with each rule's docs: the `Applicability:` line of its "Fix
safety" section names every fix title the rule offers, as safe or unsafe (`*`: unsafe where the generate call is
reached from another call), and every fix the INVALID examples produce declares what the docs say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import SAFE, UNSAFE
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.output.edits import is_ignore_fix
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.settings import Settings

Entry = tuple[re.Pattern[str], str, bool]  # title pattern, applicability, unsafe-when-shared


def declared(rule: Rule) -> list[Entry]:
    section = rule.docs.split("## Fix safety", 1)[1].split("\n## ", 1)[0]
    [line] = [x for x in section.splitlines() if x.startswith("Applicability: ")]
    out: list[Entry] = []
    for part in line.removeprefix("Applicability: ").split(";"):
        kind, _, items = part.strip().partition(": ")
        assert kind in (SAFE, UNSAFE), f"{rule.code}: {part!r}"
        for title, star in re.findall(r'"([^"]+)"(\*?)', items):
            # `...` in a docs title stands for the variable part of the real title (a keyword, a value).
            pattern = re.compile(".+".join(re.escape(p) for p in title.split("...")))
            out.append((pattern, kind, bool(star)))
    # Exact titles before patterns: "Remove `cache_implementation=`" before "Remove `...=`".
    return sorted(out, key=lambda e: "..." in e[0].pattern or ".+" in e[0].pattern)


CASES = [pytest.param(rule, i, id=f"{rule.code}-invalid{i}") for rule in ALL_RULES for i in range(len(rule.invalid))]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_every_rule_declares_its_fixes_applicability_in_its_docs(rule: Rule) -> None:
    assert declared(rule), f"{rule.code}: no fix titles on the Applicability line"


@pytest.mark.parametrize(("rule", "index"), CASES)
def test_each_fix_declares_what_the_docs_say(rule: Rule, index: int, tmp_path: Path) -> None:
    ex = rule.invalid[index]
    for rel, content in ex.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "example.py"
    path.write_text(ex.code)
    settings = None if rule.default_enabled else Settings(extend_select=(rule.code,))
    context = Context(target=Target.of(ex.versions[0]), workspace=tmp_path)
    entries = declared(rule)
    for f in check_source(ex.code, str(path), settings, context).findings:
        if f.code != rule.code:
            continue
        for fix in f.fixes:
            if is_ignore_fix(fix):
                continue
            match = next((e for e in entries if e[0].fullmatch(fix.title)), None)
            assert match is not None, f"{rule.code}: fix {fix.title!r} is not on the docs' Applicability line"
            _, kind, shared = match
            allowed = {kind, UNSAFE} if shared else {kind}
            assert fix.applicability in allowed, f"{rule.code}: {fix.title!r} is {fix.applicability}, docs: {kind}"


def test_a_fix_in_a_helper_shared_by_callers_is_unsafe(tmp_path: Path) -> None:
    """The issue's case: `--fix` rewrote a shared helper's generate call, which changes what another caller
    gets. Reached from another call, HFC001's fixes are unsafe; in the caller's own call, safe."""
    helper = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
              'model = AutoModelForCausalLM.from_pretrained("x")\n\n\n'
              "def run(**kw):\n"
              '    return model.generate(cache_implementation="static", **kw)\n\n\n'
              "run(past_key_values=DynamicCache())\n"
              "run(max_new_tokens=5)\n")
    context = Context(target=Target.of("5.23.0"), workspace=tmp_path)
    [f] = [f for f in check_source(helper, str(tmp_path / "a.py"), None, context).findings if f.code == "HFC001"]
    fixes = [x for x in f.fixes if not is_ignore_fix(x)]
    assert fixes and all(x.applicability == UNSAFE for x in fixes), [(x.title, x.applicability) for x in fixes]
    direct = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
              'model = AutoModelForCausalLM.from_pretrained("x")\n'
              'model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')
    [g] = [f for f in check_source(direct, str(tmp_path / "b.py"), None, context).findings if f.code == "HFC001"]
    by_title = {x.title: x.applicability for x in g.fixes if not is_ignore_fix(x)}
    assert by_title == {"Set `cache_implementation=None` in this call": SAFE, "Remove `past_key_values=`": UNSAFE,
                        "Remove `cache_implementation=`": SAFE}


def test_fix_all_and_fix_take_only_safe_preferred_fixes() -> None:
    """fixcheck.preferred feeds both `--fix` and the editor's fixAll: an unsafe preferred fix only with `unsafe`
    (`--unsafe-fixes`; fixAll never passes it)."""
    from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Severity, Span
    from hf_cache_lint.fixcheck import preferred

    safe = Fix("a", (Edit(Span.of(1, 0, 1, 1), "x"),), preferred=True)
    unsafe = Fix("b", (Edit(Span.of(2, 0, 2, 1), "y"),), preferred=True, applicability=UNSAFE)
    items = [(0, Finding("HFC001", "n", "m", Severity.ERROR, Span.of(1, 0, 1, 1), (safe,))),
             (0, Finding("HFC006", "n", "m", Severity.HINT, Span.of(2, 0, 2, 1), (unsafe,)))]
    assert [fix.title for _, _, fix in preferred(items)] == ["a"]
    assert [fix.title for _, _, fix in preferred(items, unsafe=True)] == ["a", "b"]
