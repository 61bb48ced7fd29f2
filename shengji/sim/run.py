"""A whole simulated run: matches in order, each hand as its canonical `tractor-hh/1` line.

Matches are independent (each has its own generator), so a run can spread them over processes
and still write the same bytes: results are collected in match order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..record import format_hand
from .match import MatchSpec, play_match
from .table import HandPlayed


@dataclass(frozen=True, slots=True)
class SimHand:
    """One logged hand: its line, and what the faults need to corrupt it without side effects."""

    line: str
    played: HandPlayed


def match_hands(spec: MatchSpec) -> list[SimHand]:
    return [SimHand(format_hand(p.record), p) for p in play_match(spec)]


def run_matches(
    specs: Iterable[MatchSpec],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[SimHand]:
    """Every hand of every match, in match order; `progress(matches done, hands so far)`."""
    specs = list(specs)
    done = hands = 0
    if jobs <= 1:
        for spec in specs:
            result = match_hands(spec)
            done, hands = done + 1, hands + len(result)
            if progress is not None:
                progress(done, hands)
            yield from result
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(match_hands, specs):
            done, hands = done + 1, hands + len(result)
            if progress is not None:
                progress(done, hands)
            yield from result
