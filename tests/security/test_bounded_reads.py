"""Every read of a file the repository controls is bounded and regular (issue 33, item 2).

One helper, engine/environment/reads.py `read_bounded`, serves the analysis (checkpoint json files, imported modules) and the
result cache (its fingerprints of those same files, its own index). Before, the cache fingerprinted with an
uncapped `open().read()`: a checkpoint's generation_config.json symlinked to /dev/zero grew the process past 24 GB,
a FIFO hung the run (`--no-cache` ended in under a second), and the index itself was read whole (a FIFO in its
place hung the CLI; 300 MB cost 1.26 GB). A test per file kind for the helper, then each of those runs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import check

from hf_cache_lint import __version__
from hf_cache_lint.cli_support.cache import FOLDER, MAX_INDEX_BYTES, fingerprint
from hf_cache_lint.engine.environment.reads import read_bounded

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX file kinds")

T = Callable[[], object]


def within(seconds: float, fn: T) -> object:
    """fn's result, or a failure when it takes longer (a blocked open of a FIFO never returns)."""
    out: list[object] = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert out, f"still blocked after {seconds} s"
    return out[0]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


# -- the helper, one file kind each ---------------------------------------------------------------------
def test_a_regular_file_is_read(ws: Path) -> None:
    (ws / "a.json").write_bytes(b"{}")
    assert read_bounded(ws / "a.json", 2, roots=(ws,)) == b"{}"


def test_an_oversize_file_is_refused(ws: Path) -> None:
    (ws / "a.json").write_bytes(b"x" * 11)
    assert read_bounded(ws / "a.json", 10) is None
    assert read_bounded(ws / "a.json", 11) == b"x" * 11


def test_a_fifo_is_refused_without_blocking(ws: Path) -> None:
    os.mkfifo(ws / "a.json")
    assert within(5, lambda: read_bounded(ws / "a.json", 1 << 20)) is None
    (ws / "b.json").symlink_to("a.json")  # a symlink to one too
    assert within(5, lambda: read_bounded(ws / "b.json", 1 << 20)) is None


def test_a_symlink_to_dev_zero_is_refused(ws: Path) -> None:
    (ws / "a.json").symlink_to("/dev/zero")
    assert read_bounded(ws / "a.json", 1 << 20) is None


def test_a_symlink_out_of_the_roots_is_refused(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_bytes(b"{}")
    (ws / "a.json").symlink_to(tmp_path / "secret.json")
    assert read_bounded(ws / "a.json", 1 << 20, roots=(ws,)) is None
    assert read_bounded(ws / ".." / "secret.json", 1 << 20, roots=(ws,)) is None
    assert read_bounded(ws / "a.json", 1 << 20, roots=(tmp_path,)) == b"{}"  # control


def test_a_directory_is_refused(ws: Path) -> None:
    (ws / "a.json").mkdir()
    assert read_bounded(ws / "a.json", 1 << 20) is None


def test_fingerprints_never_read_a_fifo_a_device_or_outside(ws: Path, tmp_path: Path) -> None:
    os.mkfifo(ws / "fifo")
    (ws / "zero").symlink_to("/dev/zero")
    (tmp_path / "out.py").write_text("x = 1\n")
    (ws / "out.py").symlink_to(tmp_path / "out.py")
    roots = (str(ws),)
    assert str(within(5, lambda: fingerprint(str(ws / "fifo"), roots))).startswith("s:")
    assert str(within(5, lambda: fingerprint(str(ws / "zero"), None))).startswith("s:")  # no roots: its stat
    assert str(within(5, lambda: fingerprint(str(ws / "zero"), roots))).startswith("o:")  # outside: its stat
    before = fingerprint(str(ws / "out.py"), roots)
    assert before.startswith("o:")
    os.utime(tmp_path / "out.py", ns=(1, 1))  # a change outside is still a change of the fingerprint
    assert fingerprint(str(ws / "out.py"), roots) != before


# -- the runs that hung or ate memory ---------------------------------------------------------------------
MAIN_CKPT = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
             "model = AutoModelForCausalLM.from_pretrained('./ckpt')\n"
             "out = model.generate(past_key_values=DynamicCache())\n")
MAIN_IMPORTING = ("from transformers import DynamicCache\nfrom helpers import model\n"
                  "out = model.generate(past_key_values=DynamicCache())\n")


def project(root: Path, main: str) -> Path:
    (root / "pyproject.toml").write_text('[tool.hf-cache-lint]\ntransformers-version = "5.23.0"\n')
    (root / "main.py").write_text(main)
    return root


@pytest.mark.parametrize("name", ["generation_config.json", "config.json"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_checkpoint_file_that_is_no_regular_file(ws: Path, name: str, kind: str) -> None:
    project(ws, MAIN_CKPT)
    (ws / "ckpt").mkdir()
    other = "config.json" if name == "generation_config.json" else "generation_config.json"
    (ws / "ckpt" / other).write_text("{}")
    if kind == "fifo":
        os.mkfifo(ws / "ckpt" / name)
    else:
        (ws / "ckpt" / name).symlink_to("/dev/zero")
    for _ in range(2):  # cold (fingerprints taken), then warm (fingerprints compared)
        r = check(ws, timeout=30)
        assert r.code == 0 and r.codes() == [], r.err
        assert r.maxrss_mb < 400, r.maxrss_mb


def test_an_imported_module_that_is_a_fifo(ws: Path) -> None:
    project(ws, MAIN_IMPORTING)
    os.mkfifo(ws / "helpers.py")
    for _ in range(2):
        r = check(ws, timeout=30)
        assert r.code == 0, r.err


def index(ws: Path) -> Path:
    found = list((ws / FOLDER / __version__).glob("*.json"))
    assert len(found) == 1
    return found[0]


def test_a_fifo_in_place_of_the_cache_index(ws: Path) -> None:
    project(ws, MAIN_CKPT)
    first = check(ws)
    path = index(ws)
    path.unlink()
    os.mkfifo(path)
    again = check(ws, timeout=30)  # a miss, never a wait
    assert (again.code, again.out) == (first.code, first.out)


def test_an_index_over_the_cap_is_not_read(ws: Path) -> None:
    project(ws, MAIN_CKPT)
    first = check(ws)
    path = index(ws)
    with path.open("r+b") as fh:  # 300 MB, sparse: cheap to make, 300 MB to whoever reads it whole
        fh.truncate(300 * 1024 * 1024)
    assert MAX_INDEX_BYTES < 300 * 1024 * 1024
    again = check(ws, timeout=60)
    assert (again.code, again.out) == (first.code, first.out)
    assert again.maxrss_mb < 250, again.maxrss_mb  # before: above 300 (the whole file in memory)
