"""The twelfth held-out set (tests/realcode/heldout12): its shape, its releases and its probes, per release.

Written from public repositories none of the earlier sets had used (each case's docstring names them, with the
commit read); every label was proved on real transformers (tests/oracle/test_recall_set.py) and committed BEFORE
hf-cache-lint was run on the files: nobody ran the checker on this set, nor read the rules or engine, while writing
it. It is the twelfth "code nobody here has seen" figure of issue 29: build for the mechanism, never for these files.

FLOORS holds what the code measured (scripts/recall.py --set heldout12); a regression fails, an improvement passes
and should raise the floor.
"""

from __future__ import annotations

from heldout_support import Floor, held_out_tests
from recall_set import HELDOUT12

# Measured unseen by the lead (2026-12-07, eighth session) on the session's final code (merge 3a892c9), before anyone
# built on the set: 4.57.6 10/11, 11 of 11; 5.23.0 13/17, 16 of 18; 5.24.0 and 5.25.0 15/22, 18 of 20. On the code
# where the session began (main 736332d, the same scorer): 10/11, 11 of 11; 13/17, 16 of 18; 15/22, 18 of 21. (Before
# recall_set.statement_lines read a marker after a two-line signature's `):`, LongBench's patched forward scored as
# one miss and one false finding at every release: 9/11, 10 of 11 at the start.)
# Eighth session, round 2, ownclass29h: 5.23.0 16/17, 19 of 19; 5.24.0 and 5.25.0 18/22, 21 of 21 (AdaKV's
# `DynamicCache.from_legacy_cache` beside its own class's; Ouroboros's body unpack reported where it raises).
# Ninth session, values29i: a write to a cache's read-only `max_cache_len` property (HeadInfer, 4.57.6), a loop
# unpacking `list(cache)` parked on the model (Kangaroo, 5.x) and a direct call of a prepare hook set on the model
# class with a forward's cache (AdaKV, 5.24+): 4.57.6 11/11, 12 of 12; 5.23.0 17/17, 20 of 20; 5.24.0 and 5.25.0
# 20/22, 23 of 23.
# Ninth session, hooks29i: HFC010 reports a generated model's forward that takes `past_key_values` and a `**kwargs` it
# never hands on (VideoLLaMA2's vl_forward_kwargs, where 5.24's `cache=` is dropped): 5.24.0 and 5.25.0 19/22, 22 of 22.
# Both merged (main after the ninth session's round 1): 4.57.6 11/11, 12 of 12; 5.23.0 17/17, 20 of 20; 5.24.0 and
# 5.25.0 21/22, 24 of 24.
FLOORS: dict[str, Floor] = {
    "4.57.6": Floor(11, 12 / 12),
    "5.23.0": Floor(17, 20 / 20),
    "5.24.0": Floor(21, 24 / 24),
    "5.25.0": Floor(21, 24 / 24),
}

(test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
 test_recall_and_precision_floor) = held_out_tests("heldout12", HELDOUT12, FLOORS)
