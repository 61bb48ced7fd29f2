"""The worst-case follow benchmark still runs against the core's API (no timings are asserted)."""

from __future__ import annotations

import itertools
import random
from typing import get_args

from bench.follow_worst import (
    COMBOS,
    MAX_HOLDING,
    combo_lines,
    issue_case,
    judge,
    random_case,
    search,
    search_combos,
)
from shengji.rules import ThrowLadder


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


def test_every_option_combination_a_follow_check_reads_is_searched() -> None:
    seen = {(r.throw_ladder, r.protect_longer_units, r.ace_low_tractor) for r in COMBOS}
    assert seen == set(itertools.product(get_args(ThrowLadder), (False, True), (False, True)))
    found = search_combos(seed=2, cases=3, starts=1, steps=2)
    assert [rules for rules, *_ in found] == list(COMBOS)
    for rules, times, worst, ms in found:
        assert len(times) == 3 and worst.rules == rules and ms >= 0
        judge(worst)()
    lines = combo_lines(found)
    assert sum(1 for line in lines if line.startswith("| one_at_a_time | true |")) == 2
    assert any(line.startswith("The slowest of all") for line in lines)
