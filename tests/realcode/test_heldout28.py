"""The twenty-eighth held-out set (tests/realcode/heldout28): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twenty-eighth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these
files.

FLOORS holds what the code measured (scripts/recall.py --set heldout28); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT28

# Unseen, measured by the lead on the session's start code (168b286) before anyone worked on this set: 4.57.6 4
# found, precision 4 of 4, 5.23.0 4 found, precision 4 of 5, 5.24.0 4 found, precision 4 of 5, 5.25.0 4 found,
# precision 4 of 5.
# open29u (HFC001: `cache_implementation=None` set exactly when the passed cache is not None clears the model's
# "static"): 4.57.6 3 found, precision 3 of 3, 5.23.0 4 of 4, 5.24.0 4 of 4, 5.25.0 4 of 4. The 4.57.6 figure is one
# lower: the start code's 4th was that same false HFC001 (a ValueError the oracle never raises: device "cpu" never
# sets "static", and the call's None clears it anyway) landing on lg_session_reset's line, whose real 4.57.6 error is
# DynamicCache.reset() zeroing but keeping the cached length (get_seq_length 7 after reset on 4.57.6 and 5.0.0, 0 on
# 5.24.0): a mechanism nobody checks yet.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(3, 3 / 3),
    "5.23.0": Floor(4, 4 / 4),
    "5.24.0": Floor(4, 4 / 4),
    "5.25.0": Floor(4, 4 / 4),
}

# Nine breaking sites, not fifteen (eight at 4.57.6 and 5.23.0, seven at 5.24.0 and 5.25.0): the serving and
# everyday inference code its writer read (nine cases, seven repositories) mostly ran unchanged on every release
# (25 clean sites); kept as written rather than padded.
(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout28", HELDOUT28, FLOORS, min_breaking=9,
                                                     min_per_release=7)
