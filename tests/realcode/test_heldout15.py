"""The fifteenth held-out set (tests/realcode/heldout15): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the fifteenth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout15); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT15

# Measured by the lead on main after the ninth session's round 1 (7372304), before anyone who changed the checker saw
# the set (the unseen measure; the start of the session, cd5caa8, gave the same): 4.57.6 7/12, 8 of 8; 5.23.0 11/17,
# 11 of 11; 5.24.0 and 5.25.0 11/16, 11 of 14.
# Ninth session, values29j: SpQR's 4.51-4.53 positional `StaticCache(config, 1, n)` bound as `offloading=n` from 4.56
# (sq_positional_cache): 4.57.6 8/12, 9 of 9; 5.23.0 12/17, 12 of 12; 5.24.0 and 5.25.0 12/16, 12 of 15.
# Tenth session, overrides29k: a decoding method bound to generate's call (the release table's `call:`; MOSS-TTSD's
# `_sample` requiring `streamer`, mt_sample_signature): 4.57.6 9/12, 10 of 10; 5.23.0 13/17, 13 of 13; 5.24.0 and
# 5.25.0 13/16, 13 of 16.
# Round 2 merged (eleventh session, the truth test of the empty first-step cache in a hook (OmniLMM's and mPLUG-Owl2's
# `if past_key_values:`)): 4.57.6 11 found, precision 12 of 12, 5.23.0 15 found, precision 15 of 15.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 12 found, precision 13 of 13, 5.23.0 17 found, precision
# 17 of 17, 5.24.0 14 found, precision 14 of 17, 5.25.0 14 found, precision 14 of 17.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(12, 13 / 13),
    "5.23.0": Floor(17, 17 / 17),
    "5.24.0": Floor(14, 14 / 17),
    "5.25.0": Floor(14, 14 / 17),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout15", HELDOUT15, FLOORS)
