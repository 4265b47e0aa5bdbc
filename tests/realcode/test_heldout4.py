"""The fourth held-out set (tests/realcode/heldout4): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set while writing it. It is the fourth "code
nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout4); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT4

# Measured unseen by the lead (scripts/recall.py --set heldout4) on the merged code of this session, which nobody
# changed for this set: 4.57.6 4/13 found, 7 true findings of 8; 5.23.0 10/21, 14 of 18; 5.24.0 and 5.25.0 11/21,
# 16 of 21. (On main c0426a5, before the session's changes: 2/13, 3 of 4; 8/21, 10 of 14; 10/21, 12 of 17.)
# Missed, by kind: a legacy tuple or list built by the code into generate or forward (3), removed-member reads on a
# project's own cache built from a transformers one (`key_cache`, `seen_tokens`), EncoderDecoderCache iteration and
# `to_legacy_cache`, a class the release does not have (`LlamaFlashAttention2`), a removed generate keyword in a
# dict, a forward that writes a cache the code treats as read-only, a prepare-inputs hook. False: HFC011 on a
# `cache_position` sent to a patched forward (3 releases x 2 + 3), HFC002 on a tuple the code converts, HFC010.
# Fifth session, first round merged: 4.57.6 8/13, 12 of 12; 5.23.0 19/21, 24 of 24; 5.24.0 and 5.25.0
# 19/21, 25 of 25.
# Round 2 merged (eleventh session, hooks29n's first read `past_key_values[0][0].shape` of the empty cache 4.56-4.57
# hands a hook (XComposer's)): 4.57.6 10 found, precision 13 of 13.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(10, 13 / 13),
    "5.23.0": Floor(20, 1.0),
    "5.24.0": Floor(20, 1.0),
    "5.25.0": Floor(20, 1.0),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout4", HELDOUT4, FLOORS)
