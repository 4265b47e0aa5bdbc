"""The nineteenth held-out set (tests/realcode/heldout19): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the nineteenth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout19); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT19

# Measured unseen by the lead (eleventh session): the same on main at the start (2aa06a4's server/) and on round 1
# merged (7fbef6b's: bind29m, forward29m, prec29m, speed31p): 4.57.6 6/13, 7 of 9; 5.23.0 8/14, 9 of 11;
# 5.24.0 and 5.25.0 11/15, 12 of 15.
# Round 2 merged (eleventh session, hooks29n and seen29n on the now-seen set: a `past=None` hook read on its
# parameter, the empty first-step cache's first read and truth test in hooks): 4.57.6 10 found, precision 10 of 11,
# 5.23.0 11 found, precision 11 of 12, 5.24.0 12 found, precision 12 of 14, 5.25.0 12 found, precision 12 of 14.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 10 found, precision 10 of 11, 5.23.0 12 found, precision
# 12 of 13, 5.24.0 14 found, precision 14 of 15, 5.25.0 14 found, precision 14 of 15.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 11 found, precision 11 of 11, 5.23.0 13 found,
# precision 13 of 13, 5.24.0 15 found, precision 15 of 15, 5.25.0 15 found, precision 15 of 15.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(11, 11 / 11),
    "5.23.0": Floor(13, 13 / 13),
    "5.24.0": Floor(15, 15 / 15),
    "5.25.0": Floor(15, 15 / 15),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout19", HELDOUT19, FLOORS)
