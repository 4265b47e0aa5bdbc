"""A workspace virtualenv whose code says when it runs: the three ways an environment runs code on its own.

- a `.pth` file with an `import` line (`site` executes it at every start of the interpreter, `-I` or not);
- `sitecustomize.py` (imported by `site` at start);
- a C extension whose `PyInit_` (run when it is imported) writes a marker, built with the system compiler (`cc`;
  without one, the tests that need it are skipped: a fake `.so` would prove nothing).
Each writes a file into `markers`; `fired(markers)` lists them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

EXT = sysconfig.get_config_var("EXT_SUFFIX") or ".so"

C_SOURCE = r"""
#include <Python.h>
#include <stdio.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "fakeext", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_fakeext(void) {
    FILE *f = fopen("%(marker)s", "w");
    if (f) { fputs("PyInit_fakeext ran\n", f); fclose(f); }
    return PyModule_Create(&def);
}
"""

FANCYLIB = "class Engine:\n    def generate(self, **kw):\n        return kw\n"


def compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc")


def make(ws: Path, markers: Path) -> Path:
    """`ws/.venv` (a real venv of this Python) with the three markers and a pure-Python `fancylib`; its python."""
    markers.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    python = ws / ".venv" / "bin" / "python"
    # Asked of the venv's python before any marker exists (with -S it would answer the base install's folder).
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    assert purelib.is_dir() and ws in purelib.parents, purelib  # never write the markers anywhere else
    (purelib / "hfcl_marker.pth").write_text(f"import os; open({str(markers / 'pth')!r}, 'w').close()\n")
    (purelib / "sitecustomize.py").write_text(f"open({str(markers / 'sitecustomize')!r}, 'w').close()\n")
    (purelib / "fancylib.py").write_text(FANCYLIB)
    cc = compiler()
    if cc is not None:
        src = markers.parent / "fakeext.c"
        src.write_text(C_SOURCE % {"marker": str(markers / "extension")})
        include = sysconfig.get_paths()["include"]
        subprocess.run([cc, "-shared", "-fPIC", f"-I{include}", str(src), "-o", str(purelib / f"fakeext{EXT}")],
                       check=True, capture_output=True)
    return python


def fired(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir()) if markers.is_dir() else []
