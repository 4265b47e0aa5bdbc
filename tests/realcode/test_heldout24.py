"""The twenty-fourth held-out set (tests/realcode/heldout24): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-fourth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these
files.

FLOORS holds what the code measured (scripts/recall.py --set heldout24); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT24

# Measured unseen by the lead (twelfth session): written while round 1 worked (nobody who changed the checker saw
# it). On 1e2ba0d's server/ (the session's start) and on round 1 merged (6e0b755): identical, 4.57.6 7/9, 7 of 7;
# 5.23.0 8/13, 8 of 9; 5.24.0 10/16, 10 of 11; 5.25.0 10/15, 10 of 11.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 9 found, precision 9 of 9, 5.23.0 13 found, precision 13
# of 14, 5.24.0 14 found, precision 14 of 15, 5.25.0 14 found, precision 14 of 15.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 9 found, precision 9 of 9, 5.23.0 13 found, precision
# 13 of 13, 5.24.0 14 found, precision 14 of 14, 5.25.0 14 found, precision 14 of 14.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(9, 9 / 9),
    "5.23.0": Floor(13, 13 / 13),
    "5.24.0": Floor(14, 14 / 14),
    "5.25.0": Floor(14, 14 / 14),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout24", HELDOUT24, FLOORS)
