"""The tenth held-out set (tests/realcode/heldout10): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the tenth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout10); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT10

# Measured unseen by the lead (2026-12-06, seventh session) on the session's final code (merge e2fb6f0), before anyone
# built on the set: 4.57.6 3/7, 3 of 3; 5.23.0 7/13, 7 of 8; 5.24.0 and 5.25.0 8/14, 8 of 10. On the code where the
# session began (main 5f2c4a6): 3/7, 3 of 3; 7/13, 7 of 8; 7/14, 7 of 9.
# Eighth session, members29g (seen: built on, from main 736332d): MiniCPM-o's positive crop of the snapshot (a method of
# a cache on every path, said or not) found at 5.23+: 5.23.0 8/13, 9 of 10; 5.24.0 and 5.25.0 9/14, 10 of 12 (the crop
# line holds two findings, its constant and its parameter run); 4.57.6 unchanged.
# Eighth session, hooks29g (the `past=` prepare hook, GenerationMixin's private helpers by the release table's `reads:`,
# SelfExtend's walker patch) and cacheclass29g (the snapshot's false HFC007) too; all merged: 4.57.6 6/7, 6 of 6;
# 5.23.0 10/13, 11 of 11; 5.24.0 and 5.25.0 11/14, 12 of 13.
# Round 2 merged (eleventh session, the truth test of the empty first-step cache in a hook (VCD's `if
# past_key_values:`)): 4.57.6 7 found, precision 7 of 7, 5.23.0 11 found, precision 12 of 12.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 7 found, precision 7 of 7, 5.23.0 12 found, precision 13
# of 13, 5.24.0 12 found, precision 13 of 14, 5.25.0 12 found, precision 13 of 14.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(7, 7 / 7),
    "5.23.0": Floor(12, 13 / 13),
    "5.24.0": Floor(12, 13 / 14),
    "5.25.0": Floor(12, 13 / 14),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout10", HELDOUT10, FLOORS)
