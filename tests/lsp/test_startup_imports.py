"""What the language server imports before it answers `initialize`, and what its first check imports (issue 31, item
4): the engine, parso and the rules come only after the answer (lsp/startup.py `warm_engine`), TOML only where a
pyproject.toml is found (pyproject.py `_table`, engine/environment/requirements.py `_toml`).

Each case runs in a fresh interpreter: this process's `sys.modules` holds everything the other tests imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hf_cache_lint

SERVER = str(Path(hf_cache_lint.__file__).resolve().parent.parent)  # the sources under test, not an installed copy

# What the first check needs and `initialize` does not: the parser, the interpreter, the screen, the rules; and what
# only a project file needs.
TOML = "tomllib" if sys.version_info >= (3, 11) else "tomli"
HEAVY = ("parso", "jedi", "hf_cache_lint.engine.interpreter", "hf_cache_lint.engine.screen.gate",
         "hf_cache_lint.rules", "hf_cache_lint.checking.source", TOML)

_FIRST_CHECK = """
import json, sys, threading
from pathlib import Path
from hf_cache_lint.lsp import startup
from hf_cache_lint.lsp.settings import build
from hf_cache_lint.checking.source import check_source
startup.warm_engine(threading.Event())
folder = Path(sys.argv[1])
config = build(folder, [])
result = check_source("from transformers import AutoModelForCausalLM, DynamicCache\\n"
                      "model = AutoModelForCausalLM.from_pretrained('gpt2')\\n"
                      "model.generate(x, past_key_values=DynamicCache(), cache_implementation='static')\\n",
                      str(folder / "main.py"), config.settings, config.context, incremental=True)
print(json.dumps({"modules": sorted(m for m in sys.modules if m in {heavy}),
                  "codes": sorted(f.code for f in result.findings)}))
"""


def _run(code: str, *args: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": SERVER}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120, check=True)
    return done.stdout


def test_answering_initialize_imports_no_engine_parser_rules_or_toml(tmp_path: Path) -> None:
    # lsp/__main__.py's path to `start()`: everything `initialize` is answered with.
    out = _run("import sys\nfrom hf_cache_lint.lsp.server import start\n"
               f"print(sorted(m for m in sys.modules if m in {set(HEAVY)!r}))\n", cwd=tmp_path)
    assert out.strip() == "[]"


def test_the_first_check_in_a_folder_without_a_pyproject_imports_no_toml(tmp_path: Path) -> None:
    got = json.loads(_run(_FIRST_CHECK.replace("{heavy}", repr({TOML, "parso"})), str(tmp_path), cwd=tmp_path))
    assert got["modules"] == ["parso"]  # the check ran on parso; no settings file was read
    assert "HFC001" in got["codes"]


def test_a_pyproject_is_still_read_where_there_is_one(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.hf-cache-lint]\nignore = ["HFC001"]\n')
    got = json.loads(_run(_FIRST_CHECK.replace("{heavy}", repr({TOML})), str(tmp_path), cwd=tmp_path))
    assert got["modules"] == [TOML]
    assert "HFC001" not in got["codes"]  # the pyproject's setting applied


def test_the_servers_first_check_imports_no_gate(tmp_path: Path) -> None:
    # The gate (engine/screen/gate.py) screens whole files for the CLI; the server's checks are incremental (a fix's
    # re-check passes use_gate=False), so neither the warm-up nor the first check of a buffer imports it.
    gate = "hf_cache_lint.engine.screen.gate"
    got = json.loads(_run(_FIRST_CHECK.replace("{heavy}", repr({gate, "parso"})), str(tmp_path), cwd=tmp_path))
    assert got["modules"] == ["parso"]
    assert "HFC001" in got["codes"]


def test_a_text_documents_first_check_imports_no_notebook_module(tmp_path: Path) -> None:
    # checking/notebooks.py and engine/text/notebook.py serve notebooks only: the warm-up leaves them to
    # `warm_requests` (after the first results), and the server's check of a text document (lsp/documents.py
    # `analyse_unit`) does not import them, so its first diagnostics do not wait for them.
    out = _run("import json, sys, threading\nfrom pathlib import Path\nfrom hf_cache_lint.lsp import startup\n"
               "from hf_cache_lint.lsp.documents import Part, Unit, analyse_unit\n"
               "from hf_cache_lint.lsp.settings import build\n"
               "startup.warm_engine(threading.Event())\n"
               "folder = Path(sys.argv[1])\nconfig = build(folder, [])\nuri = (folder / 'main.py').as_uri()\n"
               "text = ('from transformers import AutoModelForCausalLM, DynamicCache\\n'\n"
               "        'model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\\n'\n"
               "        'model.generate(x, past_key_values=DynamicCache(), cache_implementation=\"static\")\\n')\n"
               "results = analyse_unit(Unit(uri, (Part(uri, 1, text),)), config.settings, config.context)\n"
               "print(json.dumps({'modules': sorted(m for m in sys.modules if 'notebook' in m or m == 'parso'),\n"
               "                  'codes': sorted(f.code for f in results[uri])}))\n", str(tmp_path), cwd=tmp_path)
    got = json.loads(out)
    assert got["modules"] == ["parso"]
    assert "HFC001" in got["codes"]


def test_the_request_warm_up_imports_the_notebook_check(tmp_path: Path) -> None:
    # ... and a notebook opened after the first results finds it imported.
    out = _run("import sys, threading\nfrom hf_cache_lint.lsp import startup\n"
               "startup.warm_engine(threading.Event())\nstartup.warm_requests(threading.Event())\n"
               "print('hf_cache_lint.checking.notebooks' in sys.modules)\n", cwd=tmp_path)
    assert out.strip() == "True"
