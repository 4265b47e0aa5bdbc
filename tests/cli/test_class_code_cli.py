"""A CLI process's check takes dataclasses' methods from its file of their code (class_code.py, as the server's
start does): the first run compiles them and writes the file, the next compiles none and writes nothing, with the
same output. Not in-process callers (`main(argv)`): only a process that runs one check."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"

RUN = """
import sys
from pathlib import Path
from hf_cache_lint import class_code
sys.dont_write_bytecode = False
class_code.code_file = lambda package: Path({file!r})
sys.argv = ["hf-cache-lint", "check", "--no-cache", "--format", "json", "--exit-zero", {target!r}]
from hf_cache_lint import cli
code = cli.main()
import dataclasses
assert "exec" not in vars(dataclasses)  # uninstalled at the end of the run
sys.exit(code)
"""


def _run(file: Path, target: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(SERVER)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", RUN.format(file=str(file), target=str(target))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_check_process_reads_dataclasses_code_from_its_file(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
                      "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
                      "model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n")
    file = tmp_path / "code.bin"
    first = _run(file, target)
    data = file.read_bytes()
    assert data[:len(MAGIC_NUMBER)] == MAGIC_NUMBER
    texts = marshal.loads(data[len(MAGIC_NUMBER):])
    assert len(texts) > 100 and all(t.lstrip().startswith("def ") for t in texts)
    written = file.stat().st_mtime_ns
    second = _run(file, target)
    assert file.stat().st_mtime_ns == written  # nothing compiled: nothing written
    assert json.loads(second) == json.loads(first) and json.loads(first)
