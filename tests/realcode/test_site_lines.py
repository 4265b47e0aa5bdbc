"""Where a finding counts for a site marked on a `def` (tests/realcode/recall_set.py `statement_lines`): on the
lines of its signature (a patched forward's cache parameter on the def's second line), never in its body."""

from __future__ import annotations

from recall_set import Expect, Site, score, statement_lines

TEXT = ("def patched(self, hidden_states, position_embeddings=None,  # site: x\n"
        "            past_key_values=None, **kwargs):\n"
        "    return past_key_values\n\n\n"
        "def one_line(self, past_key_value=None):  # site: y\n"
        "    return past_key_value\n")


def test_a_def_site_spans_its_signature_not_its_body() -> None:
    assert statement_lines(TEXT, 1) == (2,)
    assert statement_lines(TEXT, 6) == ()
    boom = Expect("raise", "TypeError", "x")
    site = Site("a.py", "x", "probe_x", "patched-forward", 1, (), (("5.24.0", boom),), statement_lines(TEXT, 1))
    on_signature = score([site], [("a.py", 2, "HFC010", "warning")], "5.24.0")
    in_body = score([site], [("a.py", 3, "HFC010", "warning")], "5.24.0")
    assert (on_signature.recall, on_signature.precision) == (1.0, 1.0)
    assert (in_body.recall, in_body.precision) == (0.0, 0.0)
