"""The editor's "what breaks if I upgrade" command (`workspace/executeCommand hf-cache-lint.upgradeCheck`)."""

from __future__ import annotations

import pytest
from lsp_support import diagnostics, open_doc
from lsprotocol import types
from pytest_lsp import client_capabilities

FOUR_X = (
    "from transformers import AutoModelForCausalLM\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    "out = model.generate(max_new_tokens=5, return_dict_in_generate=True, use_model_defaults=False)\n"
    "saved = out.past_key_values.to_legacy_cache()\n"
)


async def test_the_command_lists_what_is_new_at_the_upgrade_with_its_release(start, uri):
    client = await start({"transformersVersion": "4.57.6"})
    open_doc(client, uri, FOUR_X)
    assert await diagnostics(client, uri, version=1) == []  # nothing wrong for 4.57.6 itself
    got = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        "hf-cache-lint.upgradeCheck", [uri, "5.24.0"]))
    assert [(g["code"], g["row"], g["release"]) for g in got] == [("HFC005", 4, "5.0.0"), ("HFC007", 5, "5.0.0")]
    assert all("[new in transformers 5.0.0; not reported for 4.57.6]" in g["message"] for g in got)


async def test_a_bad_version_is_an_invalid_params_error_and_the_server_goes_on(start, uri):
    client = await start({"transformersVersion": "5.24.0"})
    open_doc(client, uri, FOUR_X)
    for version in ("five", "5.23.0"):
        with pytest.raises(Exception, match=r"not a transformers version|not newer than"):
            await client.workspace_execute_command_async(types.ExecuteCommandParams(
                "hf-cache-lint.upgradeCheck", [uri, version]))
    found = await diagnostics(client, uri, version=1, where=lambda ds: bool(ds))
    assert {d.code for d in found} >= {"HFC005", "HFC007"}


async def test_the_command_reports_work_done_progress_when_the_client_takes_it(start, uri):
    client = await start({"transformersVersion": "4.57.6"})
    open_doc(client, uri, FOUR_X)
    await diagnostics(client, uri, version=1)
    client.progress_reports.clear()
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        "hf-cache-lint.upgradeCheck", [uri, "5.24.0"]))
    window = client_capabilities(client.profile).window  # the capabilities the session was started with
    if window is None or not window.work_done_progress:
        assert client.progress_reports == {}  # a client that did not ask gets no create request
        return
    (reports,) = client.progress_reports.values()  # one progress, created by the server (window/workDoneProgress)
    begin, *steps, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.title.endswith("transformers 5.24.0")
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "done"
    assert steps and all(isinstance(s, types.WorkDoneProgressReport) for s in steps)
    assert steps[0].message == "analysing for transformers 4.57.6"
    percentages = [s.percentage for s in steps]
    assert percentages == sorted(percentages) and all(0 <= p < 100 for p in percentages)
