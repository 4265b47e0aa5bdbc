"""rules/order.py keeps kwargs_rejected's answer per call object: the kept answer must be the one computed afresh,
whichever targets ask in whichever order."""

from __future__ import annotations

from dataclasses import replace

from hf_cache_lint.checking.source import analyse
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules import ALL_RULES, order
from hf_cache_lint.rules.base import CHECKED_VERSIONS


def test_kept_answers_are_the_fresh_ones_for_every_target():
    targets = [Target.of(v) for v in CHECKED_VERSIONS]
    asked = rejected = 0
    for rule in ALL_RULES:
        for ex in rule.invalid:
            for call in analyse(ex.code, "/x/example.py", Context()).calls:
                for target in targets + targets[::-1]:  # each asked twice, the targets interleaved
                    fresh = order._kwargs_rejected(target, call)
                    assert order.kwargs_rejected(target, call) is fresh
                    asked += 1
                    rejected += fresh
    assert asked > 100 and 0 < rejected < asked


def test_the_memo_stays_bounded():
    call = analyse("model.generate(x, past_key_valyes=c)\n", "/x/a.py", Context()).calls[0]
    for _ in range(3 * order._REJECTED_MAX):
        assert order.kwargs_rejected(Target.of(None), replace(call))  # a new object each time
    assert len(order._REJECTED) <= order._REJECTED_MAX


def test_no_answer_outlives_its_check():
    from hf_cache_lint.checking.source import check_source

    found = check_source("model.generate(x, past_key_valyes=c, cache_implementation='static')\n", "/x/c.py").findings
    assert found and order._REJECTED == {}
