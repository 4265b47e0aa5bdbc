"""The twenty-second held-out set (tests/realcode/heldout22): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-second "code nobody here has seen" figure of issue 29: build for the mechanism, never for these
files.

FLOORS holds what the code measured (scripts/recall.py --set heldout22); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT22

# Measured unseen by the lead (eleventh session): its first five cases were written after round 1's merge and its
# last four after round 2's began; nobody who changed the checker saw it. On 2aa06a4's server/ (the session's start)
# and on round 1 merged (c222f28): 4.57.6 3/8, 3 of 3; 5.23.0 4/8, 4 of 4; 5.24.0 and 5.25.0 10/13, 10 of 11. On
# round 2 merged (512e74f): the same recall; at 4.57.6 and 5.23.0 two more findings, both true (hooks29n's truth test
# of an empty first-step cache, HFC010 on the `if past_key_values:` line of CEPE's and MiniCPM-o's hooks, whose sites
# the writer marked on the `def` with no observe line there), scored as false: 3 of 5 and 4 of 6.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 4 found, precision 4 of 6, 5.23.0 6 found, precision 6 of
# 7, 5.24.0 11 found, precision 11 of 12, 5.25.0 11 found, precision 11 of 12.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 4 found, precision 4 of 6, 5.23.0 6 found, precision 6
# of 7, 5.24.0 12 found, precision 12 of 13, 5.25.0 12 found, precision 12 of 13.
# open29t (fourteenth session): airllm's hook on a model whose forward turns use_cache off is not claimed at 5.24+:
# 5.24.0 12 found, precision 12 of 12, 5.25.0 12 found, precision 12 of 12.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(4, 4 / 6),
    "5.23.0": Floor(6, 6 / 7),
    "5.24.0": Floor(12, 12 / 12),
    "5.25.0": Floor(12, 12 / 12),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout22", HELDOUT22, FLOORS)
