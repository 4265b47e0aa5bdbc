"""The twenty-seventh held-out set (tests/realcode/heldout27): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-seventh "code nobody here has seen" figure of issue 29 (interpretability, steering and decoding
research): build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout27); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT27

# Unseen, measured by the lead on the session's start code (168b286) before anyone worked on this set: 4.57.6 3
# found, precision 3 of 4, 5.23.0 10 found, precision 10 of 14, 5.24.0 12 found, precision 12 of 15, 5.25.0 12
# found, precision 12 of 15.
# open29u (HFC005 DoLa through a wrapper's own **kwargs, dl_dola_layers, on 9dec748 + open29u): 4.57.6 4 found,
# precision 4 of 5, 5.23.0 11 found, precision 11 of 15, 5.24.0 13 found, precision 13 of 16, 5.25.0 13 found,
# precision 13 of 16.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(4, 4 / 5),
    "5.23.0": Floor(11, 11 / 15),
    "5.24.0": Floor(13, 13 / 16),
    "5.25.0": Floor(13, 13 / 16),
}

# 16 breaking sites (7 at 4.57.6, 13 at 5.23.0, 16 at 5.24.0, 16 at 5.25.0) and 28 clean.
(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout27", HELDOUT27, FLOORS)
