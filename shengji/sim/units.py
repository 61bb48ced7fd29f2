"""A bot's view of its own cards: per effective suit, the faces it holds and the runs among them.

This is candidate generation, not judgement: every lead or follow built from these pieces is
checked by the engine (`combos.as_component`, `combos.read_lead`, `follow.check_follow`) before a
bot commits to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..cards import Card, Hand, card_points
from ..pickling import picklable
from ..trump import TRUMP, TrumpContext, trump_context


@cache
def _suit_faces(suit: int | None, level: int) -> tuple[tuple[Card, ...], ...]:
    trump = trump_context(suit, level)
    by_suit: list[list[Card]] = [[] for _ in range(TRUMP + 1)]
    for card in range(54):
        by_suit[trump.eff[card]].append(card)
    return tuple(tuple(sorted(faces, key=lambda c: (trump.pos[c], c))) for faces in by_suit)


def suit_faces(trump: TrumpContext, suit: int) -> tuple[Card, ...]:
    """Every face of an effective suit, low to high along its ladder."""
    return _suit_faces(trump.suit, trump.level)[suit]


def held_in_suit(hand: Hand, trump: TrumpContext, suit: int) -> list[Card]:
    """The hand's cards of one effective suit, low to high (with multiplicity)."""
    counts = hand.counts
    return [f for f in suit_faces(trump, suit) for _ in range(counts[f])]


def suit_count(hand: Hand, trump: TrumpContext, suit: int) -> int:
    counts = hand.counts
    return sum(counts[f] for f in suit_faces(trump, suit))


@dataclass(frozen=True, slots=True)
class Run:
    """`width` copies of each of `faces`, consecutive along the suit's ladder (a tractor candidate)."""

    width: int
    faces: tuple[Card, ...]

    def cards(self) -> tuple[Card, ...]:
        return tuple(f for f in self.faces for _ in range(self.width))

    def __init__(
        self,
        width: int,
        faces: tuple[Card, ...],
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "faces", faces)


def units_in_suit(hand: Hand, trump: TrumpContext, suit: int) -> list[tuple[Card, int]]:
    """(face, copies held) for every face of the suit the hand holds, low to high."""
    counts = hand.counts
    return [(f, counts[f]) for f in suit_faces(trump, suit) if counts[f]]


def runs_in_suit(hand: Hand, trump: TrumpContext, suit: int, max_width: int) -> list[Run]:
    """Maximal runs of faces held at least twice on consecutive ladder positions, at every width
    they support. Where several faces share a position (the off-suit level cards) the most-held
    one is taken; the engine confirms each run before it is played."""
    best_at: dict[int, Card] = {}
    counts = hand.counts
    for face in suit_faces(trump, suit):
        n = counts[face]
        if n >= 2:
            p = trump.pos[face]
            if p not in best_at or n > counts[best_at[p]]:
                best_at[p] = face
    runs: list[Run] = []
    positions = sorted(best_at)
    for width in range(2, max_width + 1):
        chain: list[Card] = []
        last = -99
        for p in positions:
            face = best_at[p]
            if counts[face] < width:
                continue
            if chain and p == last + 1:
                chain.append(face)
            else:
                if len(chain) >= 2:
                    runs.append(Run(width, tuple(chain)))
                chain = [face]
            last = p
        if len(chain) >= 2:
            runs.append(Run(width, tuple(chain)))
    return runs


def cheapness(card: Card, trump: TrumpContext) -> tuple[int, int, int]:
    """How little a card is worth keeping: side cards before trumps, no points before points,
    low before high. Sorting by it puts the cards to give away first."""
    return (1 if trump.eff[card] == TRUMP else 0, card_points(card), trump.pos[card])


picklable(Run)
