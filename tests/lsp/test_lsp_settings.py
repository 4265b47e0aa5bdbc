"""Settings: initializationOptions, workspace/configuration changes, pyproject, run onSave."""

from __future__ import annotations

import time

import pytest
from lsp_sources import CLEAN, CONFLICT
from lsp_support import conflicts, diagnostics, has_conflict, no_conflict, open_doc, pulls, replace_all
from lsprotocol import types


async def test_ignore_in_initialization_options_silences_the_rule(start, uri):
    client = await start({"ignore": ["HFC001"]})
    open_doc(client, uri, CONFLICT)
    assert no_conflict(await diagnostics(client, uri, version=1))


async def test_ignoring_the_rule_in_the_editor_settings_clears_its_diagnostics(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    await diagnostics(client, uri, version=1, where=has_conflict)
    client.set_configuration({"ignore": ["HFC001"]}, section="hfCacheLint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert no_conflict(await diagnostics(client, uri, version=1, where=no_conflict))


async def test_severity_override_from_settings(start, uri):
    client = await start({"severity": {"HFC001": "warning"}})
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    assert diag.severity == types.DiagnosticSeverity.Warning


async def test_target_version_setting_changes_the_completed_values(start, uri):
    client = await start({"transformersVersion": "4.57.6"})
    text = 'model.generate(cache_implementation="")\n'
    open_doc(client, uri, text)
    await diagnostics(client, uri, version=1)
    result = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(0, text.index('"') + 1)))
    labels = {i.label for i in result.items}
    assert "dynamic_full" in labels and "paged" not in labels


async def test_pyproject_of_the_workspace_folder_is_read(start, uri, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.hf-cache-lint]\nignore = ["HFC001"]\n')
    client = await start()
    open_doc(client, uri, CONFLICT)
    assert no_conflict(await diagnostics(client, uri, version=1))


async def test_run_on_save_lints_the_saved_text_only(start, uri):
    client = await start({"run": "onSave"})
    open_doc(client, uri, CLEAN)
    assert no_conflict(await diagnostics(client, uri, version=1))
    replace_all(client, uri, CONFLICT, version=2)
    if pulls(client):
        assert no_conflict(await diagnostics(client, uri))  # typed but not saved
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    (diag,) = conflicts(await diagnostics(client, uri, version=2, where=has_conflict))
    assert diag.code == "HFC001"
    assert all(no_conflict(p.diagnostics) for p in client.published[:-1])  # nothing showed before the save


async def test_changing_the_interpreter_re_resolves_the_target_version(start, uri, tmp_path):
    # A stand-in venv whose site-packages holds transformers 4.57.6: its files are read for the version (its
    # python, a script that answers nothing, could not tell it).
    env = tmp_path / "outside" / "interp"
    (env / "lib" / "python3.11" / "site-packages" / "transformers-4.57.6.dist-info").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    python = env / "bin" / "python"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\nexit 1\n")
    python.chmod(0o755)
    client = await start()
    text = 'model.generate(cache_implementation="")\n'
    open_doc(client, uri, text)
    await diagnostics(client, uri, version=1)
    at = types.Position(0, text.index('"') + 1)

    async def labels() -> set[str]:
        result = await client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri), at))
        return {i.label for i in result.items}

    assert "paged" in await labels()
    client.set_configuration({"interpreter": str(python)}, section="hfCacheLint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert "dynamic_full" in await labels()


async def test_the_target_version_is_reported_to_the_client(start):
    client = await start({"transformersVersion": "5.23.0"})
    status = await client.wait_for_notification("hfCacheLint/status")
    assert (status.transformersVersion, status.versionSource) == ("5.23.0", "setting")


async def test_a_changed_pyproject_is_re_read_when_the_client_reports_it(start, uri, tmp_path):
    client = await start()
    open_doc(client, uri, CONFLICT)
    await diagnostics(client, uri, version=1, where=has_conflict)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.hf-cache-lint]\nignore = ["HFC001"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(pyproject.as_uri(), types.FileChangeType.Created)]))
    assert no_conflict(await diagnostics(client, uri, version=1, where=no_conflict))


async def test_select_in_initialization_options_keeps_only_those_rules(start, uri):
    client = await start({"select": ["HFC002"]})
    open_doc(client, uri, CONFLICT)
    assert no_conflict(await diagnostics(client, uri, version=1))
    client.set_configuration({"select": ["HFC001"]}, section="hfCacheLint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert has_conflict(await diagnostics(client, uri, version=1, where=has_conflict))


SRC_MODELS = ('from transformers import AutoModelForCausalLM\n'
              'model = AutoModelForCausalLM.from_pretrained("x")\n'
              'model.generation_config.cache_implementation = "static"\n')
IMPORTS_MODEL = ("from transformers import DynamicCache\nfrom pkg.models import model\n"
                 "out = model.generate(past_key_values=DynamicCache())\n")


@pytest.mark.parametrize("extra", [[], ["src"]])
async def test_extra_paths_in_initialization_options_are_import_roots(start, uri, tmp_path, extra):
    """A src/ layout: the model configured in src/pkg/models.py is seen only with `extraPaths: ["src"]`."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "models.py").write_text(SRC_MODELS)
    client = await start({"extraPaths": extra})
    open_doc(client, uri, IMPORTS_MODEL)
    found = await diagnostics(client, uri, version=1)
    assert has_conflict(found) == bool(extra)


async def test_debounce_ms_delays_and_coalesces_pushed_diagnostics(start_push_only, uri):
    """Push clients: a result comes `debounceMs` after the last edit, and an edit inside the wait replaces
    the pending one (no publish for the superseded version)."""
    client = await start_push_only({"debounceMs": 1000})
    open_doc(client, uri, CLEAN)  # an open is linted at once
    assert no_conflict(await diagnostics(client, uri, version=1))
    began = time.monotonic()
    replace_all(client, uri, CLEAN + "# typing\n", version=2)
    replace_all(client, uri, CONFLICT, version=3)
    await diagnostics(client, uri, version=3, where=has_conflict)
    assert time.monotonic() - began >= 1.0
    assert 2 not in {p.version for p in client.published}


async def test_an_unknown_code_in_the_editor_settings_is_notified_and_the_rest_kept(start, uri):
    # As the CLI rejects it (exit 2), the server cannot stop: it drops the bad key, tells the user, and keeps
    # the valid ones (the severity override still applies).
    client = await start({"select": ["HFC01"], "severity": {"HFC001": "warning"}})
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    assert diag.severity == types.DiagnosticSeverity.Warning
    [message] = [m for m in client.messages if "HFC01" in m.message]
    assert message.type == types.MessageType.Warning
    assert "did you mean 'HFC001'?" in message.message and "'select'" in message.message


async def test_a_bad_pyproject_key_is_notified_and_the_valid_keys_kept(start, uri, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hf-cache-lint]\nignore = ["HFC001"]\nseverity = { HFC999 = "warning" }\n')
    client = await start()
    open_doc(client, uri, CONFLICT)
    assert no_conflict(await diagnostics(client, uri, version=1))
    await client.until(lambda: any("HFC999" in m.message for m in client.messages))
    [message] = [m for m in client.messages if "HFC999" in m.message]
    assert "pyproject.toml" in message.message and "unknown rule code 'HFC999'" in message.message


async def test_per_file_ignores_of_the_pyproject_apply_to_the_documents_they_name(start, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.hf-cache-lint]\nper-file-ignores = {"legacy/*.py" = ["HFC001"]}\n')
    (tmp_path / "legacy").mkdir()
    named, other = (tmp_path / "legacy" / "old.py").as_uri(), (tmp_path / "new.py").as_uri()
    client = await start()
    open_doc(client, named, CONFLICT)
    open_doc(client, other, CONFLICT)
    await diagnostics(client, other, version=1, where=has_conflict)  # the same text elsewhere is reported
    assert no_conflict(await diagnostics(client, named, version=1))


async def test_a_document_the_excludes_take_gets_no_diagnostics(start, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.hf-cache-lint]\nextend-exclude = ["generated/"]\n')
    (tmp_path / "generated").mkdir()
    (tmp_path / "build").mkdir()  # one of the default excludes (Ruff's)
    excluded = [(tmp_path / "generated" / "g.py").as_uri(), (tmp_path / "build" / "b.py").as_uri()]
    kept = (tmp_path / "kept.py").as_uri()
    client = await start()
    for doc in (*excluded, kept):
        open_doc(client, doc, CONFLICT)
    await diagnostics(client, kept, version=1, where=has_conflict)
    for doc in excluded:
        assert await diagnostics(client, doc, version=1) == []
