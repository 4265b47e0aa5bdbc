"""Other documents never wait on a big one's edits or a slow code action (issue 33, item 4).

At abca28d, with the server started as VS Code starts it:
- an incremental edit of a document over the 2 Mi-character cap ran on the event loop for seconds (pygls converted
  its position with a Python step per character of a long non-ASCII line, and rebuilt the text line by line): a
  hover on another file waited behind 10 such edits for ~30 s; a code action on it split its lines on the loop;
- a code action's verification ran on the engine thread, so another document's diagnostics queued behind it.
"""

from __future__ import annotations

import time
from pathlib import Path

from rawlsp import RawClient

SMALL = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
         'model = AutoModelForCausalLM.from_pretrained("x")\n'
         'out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')



def test_edits_of_an_over_cap_document_do_not_hold_another_file(client: RawClient, tmp_path: Path) -> None:
    small = client.open(tmp_path / "small.py", SMALL)
    client.diagnostics(small)
    line = 'x = "é' + "a" * (3 * 1024 * 1024) + '"\n'  # one long non-ASCII line, over the cap
    big = client.open(tmp_path / "big.py", line)
    assert "not analysed" in client.diagnostics(big)["params"]["diagnostics"][0]["message"]
    began = time.monotonic()
    for version in range(2, 12):
        at = {"line": 0, "character": 2_000_000 + version}
        client.notify("textDocument/didChange", {"textDocument": {"uri": big, "version": version},
                                                 "contentChanges": [{"range": {"start": at, "end": at}, "text": "y"}]})
    hover = client.call("textDocument/hover", {"textDocument": {"uri": small},
                                               "position": {"line": 3, "character": 30}}, timeout=120)
    waited = time.monotonic() - began
    began = time.monotonic()
    actions = client.call("textDocument/codeAction", {"textDocument": {"uri": big}, "range": {
        "start": {"line": 0, "character": 5}, "end": {"line": 0, "character": 6}}, "context": {"diagnostics": []}})
    action_s = time.monotonic() - began
    print(f"\nhover on a small file after 10 edits of a 3 Mi-character line: {waited:.2f}s; code action on it "
          f"{action_s:.2f}s")
    assert hover["result"] is not None and actions["result"] == []
    assert waited < 10 and action_s < 2
    # The edits landed where they were meant to: the server's copy and ours agree (a fix would be computed on it).
    client.notify("textDocument/didChange", {"textDocument": {"uri": big, "version": 12}, "contentChanges": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": SMALL}]})
    found = client.diagnostics(big, version=12)["params"]["diagnostics"]
    assert [d["code"] for d in found] == ["HFC001"]


def test_a_slow_code_action_does_not_hold_another_documents_diagnostics(client: RawClient, tmp_path: Path) -> None:
    slow_text = SMALL + "".join(f'out{i} = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
                                for i in range(3000))  # a fix-all verified over 3,001 findings: seconds, even batched
    small = client.open(tmp_path / "small.py", SMALL)
    client.diagnostics(small)
    slow = client.open(tmp_path / "slow.py", slow_text)
    assert len(client.diagnostics(slow, timeout=300)["params"]["diagnostics"]) == 3001
    rid = client.request("textDocument/codeAction", {"textDocument": {"uri": slow}, "range": {
        "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll"]}})
    # No wait: the server reads the edit after the request, and the fix-all over 3,001 findings runs for seconds.
    mark = len(client.messages)
    client.notify("textDocument/didChange", {"textDocument": {"uri": small, "version": 2},
                                             "contentChanges": [{"text": SMALL + "\n"}]})
    published = client.diagnostics(small, start=mark, version=2, timeout=600)
    answer = client.response(rid, timeout=600)
    small_at = client.arrived[client.messages.index(published)]
    action_at = client.arrived[client.messages.index(answer)]
    print(f"\nsmall file's diagnostics {action_at - small_at:.2f}s before the slow code action's answer")
    assert answer["result"] and small_at < action_at
