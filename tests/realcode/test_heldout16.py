"""The sixteenth held-out set (tests/realcode/heldout16): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the sixteenth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout16); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT16

# Measured unseen by the lead (tenth session): the same at the start of the session (main 02175f1 with only the sets
# merged) and on round 1 merged (cbac2fd: save33, speed31n, overrides29k, members29k): 4.57.6 6/10, 6 of 7;
# 5.23.0, 5.24.0 and 5.25.0 11/18, 11 of 13. Raised (tenth session, values29l: an `__init__` that raises stops where
# its class is built, HFC009 stopped by HFC007's raises): 4.57.6 6/10, 6 of 6; 5.23+ 11/18, 11 of 11.
# Raised (tenth session, hooks29l: a raising __init__ stops its class's
# constructions, a decoder-layer class's own self_attn install): 4.57.6 7/10, 7 of 7; 5.23.0-5.25.0 12/18, 12 of 12.
# Both merged (tenth session, round 2, d475b6d): 4.57.6 7/10, 7 of 7; 5.23.0, 5.24.0 and 5.25.0 12/18, 12 of 12.
# Raised (eleventh session, bind29m: engine/interpreter/bindings.py, a model bound to `from_pretrained(...).eval()`
# and handed to a function installs TransMLA's PartialRope): 4.57.6 8/10, 8 of 8; 5.23.0-5.25.0 13/18, 13 of 13.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 9 found, precision 9 of 9, 5.23.0 14 found, precision
# 14 of 14, 5.24.0 14 found, precision 14 of 14, 5.25.0 14 found, precision 14 of 14.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(9, 9 / 9),
    "5.23.0": Floor(14, 14 / 14),
    "5.24.0": Floor(14, 14 / 14),
    "5.25.0": Floor(14, 14 / 14),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout16", HELDOUT16, FLOORS)
