"""The twenty-third held-out set (tests/realcode/heldout23): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-third "code nobody here has seen" figure of issue 29: build for the mechanism, never for these
files (research code that drives generation step by step: steering and interpretability, model editing,
watermarking, guided and contrastive decoding, long-context memory).

FLOORS holds what the code measured (scripts/recall.py --set heldout23); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT23

# Measured unseen by the lead (twelfth session): written while round 1 worked (nobody who changed the checker saw
# it). On 1e2ba0d's server/ (the session's start) and on round 1 merged (6e0b755): identical, 4.57.6 10/16, 10 of
# 11; 5.23.0, 5.24.0 and 5.25.0 12/18, 12 of 13.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 15 found, precision 15 of 15, 5.23.0 17 found, precision
# 17 of 17, 5.24.0 17 found, precision 17 of 17, 5.25.0 17 found, precision 17 of 17.
# Fourteenth session, idx29t (a list display's items evaluated, an attention subclass's old-named cache parameter
# None from 4.56): 4.57.6 16 found, precision 16 of 16, 5.23.0, 5.24.0 and 5.25.0 18 found, precision 18 of 18.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(16, 16 / 16),
    "5.23.0": Floor(18, 18 / 18),
    "5.24.0": Floor(18, 18 / 18),
    "5.25.0": Floor(18, 18 / 18),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout23", HELDOUT23, FLOORS)
