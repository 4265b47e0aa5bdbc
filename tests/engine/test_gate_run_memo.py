"""The gate's workspace-import test inside a CLI run (engine/environment/confine.py `settled()`): each import's file
and each lent value is answered once for the run (engine/screen/gate.py `_settled`); the decisions and the files a
check notes (engine/environment/deps.py, what a result cache keys on) are the same as outside a run, for the first
module that asks and for every later one."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.checking.screening import screen
from hf_cache_lint.engine.environment import confine, deps
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.settings import Settings

SETTINGS = Settings()
# A workspace module lending a model (a fact maker), one lending nothing (its fact word only in a comment), one
# lending the first's model again.
FILES = {
    "models.py": "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('x')\n",
    "plain.py": "import os\n# from_pretrained\nsize = 3\n",
    "again.py": "from models import model\n# from_pretrained\nother = model\n",
}
MODULES = {  # a generate call on an imported value: only the workspace test decides
    "uses_model.py": "from models import model\nout = model.generate(x)\n",
    "uses_plain.py": "from plain import size\nout = f.generate(x)\n",
    "uses_again.py": "from again import other\nout = other.generate(x)\n",
    "pkg/uses_rel.py": "from ..plain import size\nfrom ..again import other\nout = other.generate(x)\n",
    "pkg/uses_missing.py": "from .nowhere import model\nout = model.generate(x)\n",
}


def _decide(root: Path) -> list[tuple[bool, frozenset[str]]]:
    out = []
    for rel in sorted(MODULES) * 2:  # twice: the second asks answer from the run's memo
        with deps.recording() as noted:
            said = screen(MODULES[rel], str(root / rel), SETTINGS, Context(workspace=root))
        out.append((said, frozenset(noted)))
    return out


def test_a_run_decides_and_notes_as_each_check_alone(tmp_path: Path) -> None:
    for rel, text in {**FILES, **MODULES}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    alone = _decide(tmp_path)
    with confine.settled():
        assert confine.run_memo() is not None
        in_run = _decide(tmp_path)
    assert confine.run_memo() is None
    assert in_run == alone
    # The test can fail: the decisions differ among the modules, and the notes name the imported files.
    assert {said for said, _ in alone} == {True, False}
    assert any(str(tmp_path / "models.py") in noted for _, noted in alone)
