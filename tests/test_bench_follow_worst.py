"""The worst-case follow benchmark still runs against the core's API (no timings are asserted)."""

from __future__ import annotations

import random

from bench.follow_worst import MAX_HOLDING, issue_case, judge, random_case, search


def test_random_situations_are_long_leads_answered_from_the_holding() -> None:
    rng = random.Random(4)
    made = [c for c in (random_case(rng) for _ in range(40)) if c is not None]
    assert len(made) >= 10
    for case in made:
        assert 12 <= case.lead.size <= 40 and len(case.hand) <= MAX_HOLDING
        assert case.hand.contains(case.play) and len(case.play) == case.lead.size
        judge(case)()


def test_search_reports_times_and_a_worst_case() -> None:
    times, worst, ms = search(seed=1, cases=6)
    assert len(times) == 6 and all(t >= 0 for t in times) and ms >= 0
    assert worst.lead.size >= 12
    assert judge(issue_case())().legal
