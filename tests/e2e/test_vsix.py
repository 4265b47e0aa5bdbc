"""The .vsix users install: what it carries, what it leaves out, and that its server runs on its own."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

MAX_BYTES = 8 * 1024 * 1024


def test_vsix_carries_client_server_and_libraries_only(vsix: Path) -> None:
    names = zipfile.ZipFile(vsix).namelist()
    assert "extension/client/out/extension.js" in names
    assert "extension/bundled/tool/hf_cache_lint/lsp/server.py" in names
    assert "extension/bundled/serve.py" in names  # the -I bootstrap (client/launch.json)
    for lib in ("pygls", "lsprotocol", "jedi", "parso", "cattrs", "attrs"):
        assert any(n.startswith(f"extension/bundled/libs/{lib}/") for n in names), lib
    for unwanted in ("node_modules/", "/tests/", "client/src/", ".ts", "__pycache__", ".pyc", ".map"):
        assert not [n for n in names if unwanted in n], unwanted
    assert vsix.stat().st_size < MAX_BYTES


def test_vsix_manifest_needs_no_marketplace(vsix: Path) -> None:
    manifest = json.loads(zipfile.ZipFile(vsix).read("extension/package.json"))
    assert "extensionDependencies" not in manifest  # code-server installs offline
    assert manifest["main"] == "./client/out/extension.js"
    trust = manifest["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited" and trust["restrictedConfigurations"] == [
        "hfCacheLint.interpreter"
    ]
    assert {"onLanguage:python", "onNotebook:jupyter-notebook"} <= set(manifest["activationEvents"])


def test_bundled_server_starts_without_site_packages(vsix: Path, tmp_path: Path) -> None:
    """The bundled libraries are enough: `python -S -s` sees no site-packages at all."""
    zipfile.ZipFile(vsix).extractall(tmp_path)
    bundled = tmp_path / "extension" / "bundled"
    code = "import sys; sys.path[:0] = sys.argv[1:]; import hf_cache_lint.lsp.server as s; s.build_server()"
    subprocess.run(
        [sys.executable, "-S", "-s", "-c", code, str(bundled / "tool"), str(bundled / "libs")],
        check=True,
        timeout=120,
    )
