"""The rules micro-benchmark still runs against the core's API (no timings are asserted)."""

from __future__ import annotations

from bench.rules import measure, situations
from shengji.cards import Hand


def test_situations_are_reproducible_and_well_formed() -> None:
    """R4.1/R5.1: every lead is one suit held by seat 0; every answer has the lead's size."""
    cases = situations(count=12, seed=7)
    assert [c.lead_cards for c in cases] == [c.lead_cards for c in situations(count=12, seed=7)]
    for case in cases:
        assert case.holdings[0].contains(case.lead_cards)
        assert sorted(case.lead.cards()) == sorted(case.lead_cards)
        for seat, play in enumerate(case.plays, start=1):
            assert len(play) == len(case.lead_cards)
            assert case.holdings[seat].contains(play)
        assert all(isinstance(h, Hand) for h in case.holdings)


def test_measure_reports_every_operation() -> None:
    rows = measure(situations(count=30, seed=3))
    names = [name.split(" (")[0].split(",")[0] for name, _, _ in rows]
    assert {"read_lead", "check_follow", "resolve_trick"} <= set(names)
    assert all(n > 0 and us > 0 for _, n, us in rows)
