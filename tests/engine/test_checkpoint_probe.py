"""engine/environment/checkpoints.py `_local_folder`: one stat before resolving the path, the same answer as
`inside(folder, roots) and folder.is_dir()` for every kind of path a checkpoint names."""

from __future__ import annotations

import os
from pathlib import Path

from hf_cache_lint.engine.environment import checkpoints
from hf_cache_lint.engine.environment.confine import inside


def test_the_probe_answers_as_inside_and_is_dir(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "ckpt").mkdir(parents=True)
    (work / "ckpt" / "generation_config.json").write_text("{}")
    (work / "a_file").write_text("x")
    outside.mkdir()
    (work / "link_out").symlink_to(outside, target_is_directory=True)
    (work / "link_in").symlink_to(work / "ckpt", target_is_directory=True)
    (work / "loop").symlink_to(work / "loop")
    (work / "dangling").symlink_to(tmp_path / "nowhere")
    roots = (work,)
    names = ["ckpt", "a_file", "link_out", "link_in", "loop", "dangling", "missing", "a_file/below", "ckpt/..",
             "../outside", "../work/ckpt", "org/some-model", str(outside), str(work / "ckpt"), "ckpt\0x", "."]
    for name in names:
        folder = Path(name) if os.path.isabs(name) else work / name
        assert checkpoints._local_folder(folder, roots) == (inside(folder, roots) and folder.is_dir()), name
    assert checkpoints._local_folder(work / "ckpt", roots) and not checkpoints._local_folder(work / "link_out", roots)
