"""The ninth held-out set (tests/realcode/heldout9): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the ninth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout9); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT9

# Measured unseen by the lead (2026-12-06, seventh session) on round 1's merged code (merge c3fafd4), before anyone
# built on the set; identical on main 5f2c4a6, where the session began: 4.57.6 6/12, 6 of 11; 5.23.0 9/16, 9 of 16;
# 5.24.0 and 5.25.0 9/16, 10 of 18.
# round 2, members29f: a legacy read that raises hides what it dominates (HFC009), a flag the caller passes decides
# `if rejected == False:` (HFC002 at the forward the list reaches), the project's cache subclass's inherited
# `from_legacy_cache` (HFC007): 4.57.6 7/12, 7 of 11; 5.23.0 10/16, 11 of 15; 5.24.0 and 5.25.0 10/16, 12 of 17.
# round 2, hooks29f: 4.57.6 8/12, 8 of 10; 5.23.0 11/16, 11 of 15; 5.24.0 and 5.25.0 11/16, 12 of 16 (no false
# HFC010 at Quest's patch block nor MoA's update override; H2O's installed attention and `_get_logits_warper` found).
# Both merged (the session's final code): 4.57.6 9/12, 9 of 10; 5.23.0 12/16, 13 of 14; 5.24.0 and 5.25.0 12/16,
# 14 of 15.
# Eighth session, hooks29g: HFC007 reads the release table's `reads:` (Chinese-LLaMA's `_get_stopping_criteria` on a
# config never prepared, every release): 4.57.6 10/12, 10 of 11; 5.23.0 13/16, 14 of 15; 5.24.0 and 5.25.0 13/16,
# 15 of 16.
# The three engineers' work merged (merge, eighth session): 4.57.6 10/12, 10 of 10; 5.23.0 13/16, 14 of 14;
# 5.24.0 and 5.25.0 13/16, 15 of 15.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 10 found, precision 10 of 10, 5.23.0 15 found,
# precision 16 of 16, 5.24.0 15 found, precision 17 of 17, 5.25.0 15 found, precision 17 of 17.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(10, 10 / 10),
    "5.23.0": Floor(15, 16 / 16),
    "5.24.0": Floor(15, 17 / 17),
    "5.25.0": Floor(15, 17 / 17),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout9", HELDOUT9, FLOORS)
