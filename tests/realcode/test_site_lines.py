"""Where a finding counts for a site marked on a `def` (tests/realcode/recall_set.py `statement_lines`): on the
lines of its signature (a patched forward's cache parameter on the def's second line, or on its first where the marker
stands after the signature closes), never in its body."""

from __future__ import annotations

from recall_set import Expect, Site, observed_lines, score, statement_lines

TEXT = ("def patched(self, hidden_states, position_embeddings=None,  # site: x\n"
        "            past_key_values=None, **kwargs):\n"
        "    return past_key_values\n\n\n"
        "def one_line(self, past_key_value=None):  # site: y\n"
        "    return past_key_value\n\n\n"
        "def marked_last(self, hidden_states, past_key_value=None,\n"
        "                use_cache=False):  # site: z\n"
        "    out = call(hidden_states,\n"
        "               past_key_value)  # site: w\n"
        "    return out\n")


def test_a_def_site_spans_its_signature_not_its_body() -> None:
    assert statement_lines(TEXT, 1) == (2,)
    assert statement_lines(TEXT, 6) == ()
    boom = Expect("raise", "TypeError", "x")
    site = Site("a.py", "x", "probe_x", "patched-forward", 1, (), (("5.24.0", boom),), statement_lines(TEXT, 1))
    on_signature = score([site], [("a.py", 2, "HFC010", "warning")], "5.24.0")
    in_body = score([site], [("a.py", 3, "HFC010", "warning")], "5.24.0")
    assert (on_signature.recall, on_signature.precision) == (1.0, 1.0)
    assert (in_body.recall, in_body.precision) == (0.0, 0.0)


def test_a_mark_after_the_signature_closes_spans_the_whole_signature() -> None:
    # `# site:` after a two-line signature's `):` (line 11): the cache parameter on the def's first line (10) is the
    # site's; the body (12-14) is not. The same for a simple statement marked on its last line.
    assert statement_lines(TEXT, 11) == (10,)
    assert statement_lines(TEXT, 13) == (12,)
    boom = Expect("raise", "TypeError", "z")
    site = Site("a.py", "z", "probe_z", "patched-forward", 11, (), (("5.24.0", boom),), statement_lines(TEXT, 11))
    on_first_line = score([site], [("a.py", 10, "HFC010", "warning")], "5.24.0")
    in_body = score([site], [("a.py", 12, "HFC010", "warning")], "5.24.0")
    assert (on_first_line.recall, on_first_line.precision) == (1.0, 1.0)
    assert (in_body.recall, in_body.precision) == (0.0, 0.0)


def test_an_observed_call_spans_its_statement() -> None:
    # `# observe:` on a call's first line (8): a finding on its keyword two lines down (the cache argument) is where
    # the effect surfaces; the statement after it is not.
    text = ("def f():\n    return 1\n\n\n\n\n\n"
            "out = model(  # observe: v\n"
            "    input_ids=ids,\n"
            "    past_key_values=legacy,\n"
            ").logits\n"
            "other = 1\n")
    assert observed_lines(text, (8,)) == (8, 9, 10, 11)
    boom = Expect("raise", "AttributeError", "v")
    site = Site("a.py", "v", "probe_v", "tuple-into-forward", 1, observed_lines(text, (8,)), (("5.24.0", boom),))
    on_keyword = score([site], [("a.py", 10, "HFC002", "error")], "5.24.0")
    after = score([site], [("a.py", 12, "HFC002", "error")], "5.24.0")
    assert (on_keyword.recall, on_keyword.precision) == (1.0, 1.0)
    assert (after.recall, after.precision) == (0.0, 0.0)
