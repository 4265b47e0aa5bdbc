"""The fact-kind registry (engine/facts): every kind module registered, every recorded fact of a registered kind,
and every fact recorded only in a text its kind's trigger test lets through (else the screen would hide it)."""

from __future__ import annotations

import pkgutil
from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.engine import facts
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts import KINDS, FactKind, RegistryError, grouped, kind_of
from hf_cache_lint.engine.interpreter.interp import analyse
from hf_cache_lint.engine.screen import gate
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import CHECKED_VERSIONS

REPO = Path(__file__).resolve().parents[2]


def test_every_module_of_the_package_is_a_registered_kind() -> None:
    modules = {m.name for m in pkgutil.iter_modules(facts.__path__)}
    assert modules == {k.type.__module__.rsplit(".", 1)[-1] for k in KINDS}
    assert len({k.name for k in KINDS}) == len(KINDS)


def test_a_fact_of_an_unregistered_type_is_refused() -> None:
    class NotAKind:
        pass

    with pytest.raises(RegistryError):
        kind_of(NotAKind())
    with pytest.raises(RegistryError):
        grouped([NotAKind()])


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_each_kind_says_how_the_screen_finds_it(kind: FactKind[Any]) -> None:
    assert kind.triggers, f"{kind.name}: no trigger words"
    if kind.parse_names is None:
        assert kind.name in gate.GATED_KINDS, f"{kind.name}: no parse_names, and the gate has no test of its own"
    else:
        assert kind.parse_names, f"{kind.name}: empty parse_names: the gate would screen every module out"
    assert {k.name for k in KINDS if k.parse_names is None} == gate.GATED_KINDS


def _texts() -> list[Any]:
    out = []
    for rule in ALL_RULES:
        for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid)):
            for i, ex in enumerate(examples):
                out.append(pytest.param(ex.code, ex.files, id=f"{rule.code}-{kind}{i}"))
    for d in (REPO / "examples", REPO / "tests" / "data" / "corpus"):
        for p in sorted(d.rglob("*.py")):
            out.append(pytest.param(decode_source(p.read_bytes()), {}, id=f"{d.name}/{p.name}"))
    return out


@pytest.mark.parametrize(("text", "files"), _texts())
def test_every_recorded_fact_is_in_a_text_its_kind_lets_through(text: str, files: dict[str, str],
                                                                 tmp_path: Path) -> None:
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    for version in CHECKED_VERSIONS:
        analysis = analyse(text, str(tmp_path / "example.py"), Context(target=Target.of(version), workspace=tmp_path))
        for name, recorded in analysis.facts.items():
            kind = next(k for k in KINDS if k.name == name)
            assert recorded and all(kind_of(f) is kind for f in recorded)
            assert any(t in text for t in kind.triggers), f"{name} recorded without any of its triggers"
            assert kind.said(text), f"{name} recorded in a text its trigger test screens out"
