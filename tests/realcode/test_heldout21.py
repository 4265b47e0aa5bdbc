"""The twenty-first held-out set (tests/realcode/heldout21): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-first "code nobody here has seen" figure of issue 29: build for the mechanism, never for these
files.

FLOORS holds what the code measured (scripts/recall.py --set heldout21); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT21

# Measured unseen by the lead (eleventh session): the same on main at the start (2aa06a4's server/) and on round 1
# merged (7fbef6b's: bind29m, forward29m, prec29m, speed31p): 4.57.6 6/10, 6 of 8; 5.23.0 12/17, 12 of 14;
# 5.24.0 and 5.25.0 12/18, 12 of 14.
# Round 2 merged (eleventh session, hooks29n and seen29n on the now-seen set: `CacheConfig` removed, paired
# `key_cache`/`value_cache` stores one finding, a decoding loop installed on a loaded model, the empty first-step
# cache's first read in a hook): 4.57.6 9 found, precision 9 of 9, 5.23.0 14 found, precision 14 of 14, 5.24.0 14
# found, precision 14 of 14, 5.25.0 14 found, precision 14 of 14.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 9 found, precision 9 of 9, 5.23.0 15 found, precision 15
# of 15, 5.24.0 15 found, precision 15 of 15, 5.25.0 15 found, precision 15 of 15.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 9 found, precision 9 of 9, 5.23.0 15 found, precision
# 15 of 15, 5.24.0 16 found, precision 16 of 16, 5.25.0 16 found, precision 16 of 16.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(9, 9 / 9),
    "5.23.0": Floor(15, 15 / 15),
    "5.24.0": Floor(16, 16 / 16),
    "5.25.0": Floor(16, 16 / 16),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout21", HELDOUT21, FLOORS)
