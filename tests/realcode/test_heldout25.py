"""The twenty-fifth held-out set (tests/realcode/heldout25): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-fifth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these
files.

FLOORS holds what the code measured (scripts/recall.py --set heldout25); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT25

# Measured unseen by the lead (thirteenth session): written while round 1 worked (nobody who changed the checker saw
# it). On 524d6d0's server/ (the session's start): 4.57.6 8/12, 8 of 8; 5.23.0 10/14, 10 of 11; 5.24.0 10/14, 10 of
# 11; 5.25.0 10/14, 10 of 11.
# open29s (round 1b, after seeing the set): GenerationMixin's other members on a backbone-only class
# (mc_private_helpers), a holder's model through a chat helper (bm_chat_generate), _get_stopping_criteria on a config
# a model's own method makes (cg_stopping_criteria): 4.57.6 11/12, 11 of 11; 5.23.0, 5.24.0, 5.25.0 13/14, 13 of 14.
# open29t (fourteenth session): time_moe's get_max_length() after its DynamicCache branch raised is not claimed (no
# DynamicCache reaches it): 5.23.0, 5.24.0, 5.25.0 13/14, 13 of 13.
# Raised to round 1 merged (5dfec1e, fourteenth session; tuple29t, idx29t, open29t): 4.57.6 12 found, precision 12
# of 12, 5.23.0 14 found, precision 14 of 14, 5.24.0 13 found, precision 13 of 13, 5.25.0 13 found, precision 13 of
# 13.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(12, 12 / 12),
    "5.23.0": Floor(14, 14 / 14),
    "5.24.0": Floor(13, 13 / 13),
    "5.25.0": Floor(13, 13 / 13),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout25", HELDOUT25, FLOORS)
