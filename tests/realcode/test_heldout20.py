"""The twentieth held-out set (tests/realcode/heldout20): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twentieth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout20); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT20

# Measured unseen by the lead (eleventh session): the same on main at the start (2aa06a4's server/) and on round 1
# merged (7fbef6b's: bind29m, forward29m, prec29m, speed31p): 4.57.6 3/8, 3 of 3; 5.23.0 7/13, 7 of 8;
# 5.24.0 and 5.25.0 8/14, 8 of 9.
# Round 2 merged (eleventh session, seen29n on the now-seen set: a bare reference to a removed method, a function
# patched onto a transformers class's prepare hook getting generate's cache): 4.57.6 5 found, precision 5 of 5, 5.23.0
# 9 found, precision 9 of 10, 5.24.0 9 found, precision 9 of 10, 5.25.0 9 found, precision 9 of 10.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 6 found, precision 6 of 6, 5.23.0 12 found, precision 12
# of 13, 5.24.0 12 found, precision 12 of 13, 5.25.0 12 found, precision 12 of 13.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 6 found, precision 6 of 6, 5.23.0 12 found, precision
# 12 of 12, 5.24.0 13 found, precision 13 of 13, 5.25.0 13 found, precision 13 of 13.
# Fourteenth session, idx29t (a function set on the model with types.MethodType under a GenerationMixin method's name
# runs as the model's method): 4.57.6 7 found, precision 7 of 7, 5.23.0 13 found, precision 13 of 13, 5.24.0 and
# 5.25.0 14 found, precision 14 of 14.
# Raised to round 1 merged (5dfec1e, fourteenth session; tuple29t, idx29t, open29t): 4.57.6 8 found, precision 8 of
# 8, 5.23.0 13 found, precision 13 of 13, 5.24.0 14 found, precision 14 of 14, 5.25.0 14 found, precision 14 of 14.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(8, 8 / 8),
    "5.23.0": Floor(13, 13 / 13),
    "5.24.0": Floor(14, 14 / 14),
    "5.25.0": Floor(14, 14 / 14),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout20", HELDOUT20, FLOORS)
