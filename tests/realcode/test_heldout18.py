"""The eighteenth held-out set (tests/realcode/heldout18): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the eighteenth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout18); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT18

# Measured unseen by the lead (tenth session, at the end): the same on main at the start (02175f1's server/), on
# round 1 merged (96571ee's) and on round 2 merged (b278cd6): 4.57.6 5/9, 7 of 8; 5.23.0 13/14, 15 of 16; 5.24.0
# and 5.25.0 12/13, 14 of 16.
# Raised (eleventh session, forward29m: 5.x's three-name unpacking of a cache on 4.x): 4.57.6 6/9, 8 of 9.
# Raised (eleventh session, prec29m: a patch whose value is wrapped in parentheses, DynamicKV's
# `LlamaForCausalLM.prepare_inputs_for_generation = (` / `prepare_inputs_for_generation_llama)`, is read as the hook
# it installs, so 5.24's `cache=` leaves its `past_key_values` None and the guarded `seen_tokens` read is not
# reported there): 5.24.0 and 5.25.0 12/13, 14 of 15.
# Both merged (eleventh session, forward29m and prec29m): 4.57.6 6/9, 8 of 9; 5.23.0 13/14, 15 of 16; 5.24.0 and
# 5.25.0 12/13, 14 of 15.
# Raised to round 1 merged (5dfec1e, fourteenth session; tuple29t, idx29t, open29t): 4.57.6 8 found, precision 10 of
# 11, 5.23.0 13 found, precision 15 of 16, 5.24.0 12 found, precision 14 of 15, 5.25.0 12 found, precision 14 of 15.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(8, 10 / 11),
    "5.23.0": Floor(13, 15 / 16),
    "5.24.0": Floor(12, 14 / 15),
    "5.25.0": Floor(12, 14 / 15),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout18", HELDOUT18, FLOORS)
