"""The shows a seat may make at a given moment (R8.1–R8.3, R9), so bots only ever choose among
allowed ones. Strength comes from `bidding.read_show`; the replay's `bidding.settle` judges the
result, and the simulator's tests hold the two to agreement (no show finding in any simulated hand).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bidding import read_show
from ..cards import BIG_JOKER, SMALL_JOKER, Card
from ..rules import RuleSet

Cards = tuple[Card, ...]


def show_options(
    counts: Sequence[int],
    level: int,
    standing: tuple[int, Cards] | None,
    seat: int,
    rules: RuleSet,
    *,
    reinforce: bool = True,
) -> list[Cards]:
    """Every show `seat` could make from a holding (`counts` per face) against the standing one.

    A first show is 1–4 identical level cards, or four identical jokers (R8.1); in two-deck one or
    two level cards, never jokers, and every later show a pair (R9). A later show must be strictly
    stronger (R8.2); a seat may not top its own standing show except by adding cards to it (R8.3,
    上保险), and only when `reinforce`.
    """
    two_deck = rules.decks == 2
    options: list[Cards] = []
    faces = [s * 13 + level - 2 for s in range(4)] + [SMALL_JOKER, BIG_JOKER]
    top = None if standing is None else read_show(standing[1], level)
    for face in faces:
        jokers = face >= SMALL_JOKER
        for k in range(2 if jokers else 1, counts[face] + 1):
            if standing is None:
                if jokers and (two_deck or k < 4):
                    continue
                if two_deck and k > 2:
                    continue
            else:
                if two_deck and k != 2:
                    continue
                if standing[0] == seat and (face != standing[1][0] or not reinforce):
                    continue
            cards = (face,) * k
            if top is not None:
                reading = read_show(cards, level)
                if reading is None or reading.strength <= top.strength:
                    continue
            options.append(cards)
    return options
