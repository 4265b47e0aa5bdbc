"""The seventh held-out set (tests/realcode/heldout7): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the seventh "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout7); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT7

# Measured unseen by the lead (scripts/recall.py --set heldout7). On the first round's merged code (lead da95726 +
# module splits, before the second round's engineers' work): 4.57.6 4/11 found, 4 true findings of 5; 5.23.0 9/14,
# 9 of 9; 5.24.0 and 5.25.0 7/14, 7 of 14. On main f309728 (the start of the session): 4/11, 4 of 5; 7/14, 7 of 7;
# 6/14, 6 of 13. On the second round's merged code, which nobody changed for this set: 4.57.6 4/11, 4 of 5; 5.23.0
# 9/14, 9 of 10; 5.24.0 and 5.25.0 7/14, 7 of 14 (most false findings: HFC010 on prepare-inputs overrides that
# hand `**kwargs`, and with them `cache`, on to the model's own).
# table29f: HFC007 reports `generate` on XTTS's backbone-built class (xt_no_generation_mixin), +1 at each release;
# HFC010 LLaVA's fixed-keyword forward under generate (lv_forward_keywords), +1 at 4.57.6, 5.24.0, 5.25.0;
# HFC010 DuoAttention's patched attention returning 3 values (du_patched_forward), +1 at each release.
# Ninth session, hooks29i: lowered at 5.24.0 and 5.25.0 (14/14, 14 of 14 -> 13/14, 13 of 14) by one rule for where a
# hook finding stands (HFC010's docs, "Where a hook finding stands"): a finding on what a hook takes stands on its
# parameter, so InternLM2's override is reported on `past_key_values=None` (line 26), naming the branch at line 29
# that this set marks (iv_past_length), which af91a2f had reported at that read. The same move finds heldout13's
# vv_asr_hook_past, marked on its def.
# Round 2 merged (eleventh session, hooks29n's first read `past_key_values[0][0].shape` of the empty cache 4.56-4.57
# hands a hook (InternVL's)): 4.57.6 11 found, precision 11 of 11.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(11, 11 / 11),
    "5.23.0": Floor(14, 1.0),
    "5.24.0": Floor(13, 13 / 14),
    "5.25.0": Floor(13, 13 / 14),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout7", HELDOUT7, FLOORS)
