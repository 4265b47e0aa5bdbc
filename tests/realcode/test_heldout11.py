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
# Eighth session, members29g (seen: built on, from main 736332d): TurboRAG's chunk caches through a list of forward
# outputs (get_usable_length, seen_tokens; and the helper a generator expression calls with that list, indexing each),
# and the two pickled caches (HFC012: CAG, TurboRAG): 4.57.6 11/15, 11 of 11; 5.23.0 17/22, 17 of 18; 5.24.0 and
# 5.25.0 17/23, 17 of 19.
# Eighth session, hooks29g and cacheclass29g (the Huginn cache's overrides, FLACache.update left alone) too; all
# merged: 4.57.6 14/15, 14 of 14; 5.23.0 20/22, 20 of 20; 5.24.0 and 5.25.0 21/23, 21 of 21.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 14 found, precision 14 of 14, 5.23.0 21 found, precision
# 21 of 21, 5.24.0 22 found, precision 22 of 22, 5.25.0 22 found, precision 22 of 22.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(14, 14 / 14),
    "5.23.0": Floor(21, 21 / 21),
    "5.24.0": Floor(22, 22 / 22),
    "5.25.0": Floor(22, 22 / 22),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout11", HELDOUT11, FLOORS)
