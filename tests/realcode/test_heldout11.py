"""The eleventh held-out set (tests/realcode/heldout11): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the eleventh "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout11); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT11

# Measured unseen by the lead (2026-12-06, seventh session) on the session's final code (merge e2fb6f0), before anyone
# built on the set: 4.57.6 7/15, 7 of 7; 5.23.0 12/22, 12 of 13; 5.24.0 and 5.25.0 12/23, 12 of 14. On the code where
# the session began (main 5f2c4a6 + two test commits): 6/15, 6 of 6; 11/22, 11 of 12; 10/23, 10 of 12.
# Eighth session, hooks29g: HFC010 reports a prepare-inputs hook that takes the cache as `past` (cd_hook_past, every
# release), HFC007 the release table's `reads:` of generate's private helpers (InternLM's `_get_stopping_criteria`
# on a config never prepared, and its `_update_model_kwargs_for_generation` without positions at 4.57.6): 4.57.6
# 10/15, 10 of 10; 5.23.0 14/22, 14 of 15; 5.24.0 and 5.25.0 14/23, 14 of 16.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(10, 10 / 10),
    "5.23.0": Floor(14, 14 / 15),
    "5.24.0": Floor(14, 14 / 16),
    "5.25.0": Floor(14, 14 / 16),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout11", HELDOUT11, FLOORS)
