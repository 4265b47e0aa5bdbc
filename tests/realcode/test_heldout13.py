"""The thirteenth held-out set (tests/realcode/heldout13): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the thirteenth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout13); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT13

# Measured unseen by the lead (2026-12-07, eighth session) on the session's final code (merge 3a892c9), before anyone
# built on the set: 4.57.6 4/7, 4 of 5; 5.23.0 9/14, 10 of 11; 5.24.0 and 5.25.0 9/16, 10 of 17; the same on the code
# where the session began (main 736332d, the same scorer). Eighth session, round 2, prec29h: HFC010 no longer reports
# reads under `if "past_key_values" in model_kwargs:`, stores, a `model_kwargs` method no generate calls, nor the
# hooks of a head the module drives by hand: 5.24.0 and 5.25.0 10 of 13.
# Ninth session, values29i: a model subclass's `_reorder_cache` walking each layer's tensors, which generate's beam
# search calls (index-tts, 5.x): 5.23.0 10/14, 11 of 12; 5.24.0 and 5.25.0 10/16, 11 of 14.
# Ninth session, hooks29i: a finding on what a hook takes stands on its parameter (HFC010's docs), so VibeVoice's ASR
# hook is reported on its def (vv_asr_hook_past), not at the read at line 136: 5.24.0 and 5.25.0 10/16, 11 of 13.
# Ninth session, hooks29i: HFC007 reports a model subclass's decoding loop bound as `self.greedy_search` (generate
# never calls it; re_greedy_hook): +1 site and +1 true finding at every release.
# Both merged (main after the ninth session's round 1): 4.57.6 5/7, 5 of 6; 5.23.0 11/14, 12 of 13; 5.24.0 and 5.25.0
# 12/16, 13 of 15.
# Twelfth session, round 1 and 1b merged (cfa96c2): 4.57.6 5 found, precision 5 of 6, 5.23.0 12 found, precision 13
# of 14, 5.24.0 12 found, precision 13 of 15, 5.25.0 12 found, precision 13 of 15.
# Thirteenth session, round 1 and 1b merged (8fb68d0): 4.57.6 5 found, precision 5 of 6, 5.23.0 12 found, precision
# 13 of 14, 5.24.0 13 found, precision 14 of 16, 5.25.0 13 found, precision 14 of 16.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(5, 5 / 6),
    "5.23.0": Floor(12, 13 / 14),
    "5.24.0": Floor(13, 14 / 16),
    "5.25.0": Floor(13, 14 / 16),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout13", HELDOUT13, FLOORS)
