"""The eighth held-out set (tests/realcode/heldout8): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the eighth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout8); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT8

# Measured unseen by the lead (2026-12-06, sixth session) on the merge of that session's first round (4.57.6 7/12,
# 9 of 10; 5.23.0 8/17, 10 of 12; 5.24.0 and 5.25.0 8/18, 10 of 11). On main 37237e9, where the session began:
# 7/12, 9 of 10; 8/17, 10 of 12; 9/18, 11 of 13. The floors below are the second round's (built on this set, seen).
# Seventh session, round 1 merged (hooks29e's Ultravox `_reorder_cache`, members29e's DeepSeek-VL2 directly called
# hook): 4.57.6 11/12, 15 of 15; 5.23.0 17/17, 21 of 21; 5.24.0 and 5.25.0 18/18, 22 of 22.
# Raised to round 1 merged (5dfec1e, fourteenth session; tuple29t, idx29t, open29t): 4.57.6 12 found, precision 16
# of 16, 5.23.0 17 found, precision 21 of 21, 5.24.0 18 found, precision 22 of 22, 5.25.0 18 found, precision 22 of
# 22.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(12, 16 / 16),
    "5.23.0": Floor(17, 21 / 21),
    "5.24.0": Floor(18, 22 / 22),
    "5.25.0": Floor(18, 22 / 22),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout8", HELDOUT8, FLOORS)
