"""Card counting: what the table has seen, as public information every seat shares.

A careful bot reasons from this and its own hand only: the cards it cannot see are the full
shoe minus its hand, minus every card played, minus the bottom it buried (if it buried one).
Voids are learnt when a follower cannot follow the led effective suit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..cards import NUM_FACES, Card, Hand
from ..pickling import picklable
from ..trump import TrumpContext


@dataclass(frozen=True, slots=True)
class Memory:
    decks: int
    played: tuple[int, ...]
    """Copies of each face played so far."""
    voids: tuple[frozenset[int], ...]
    """Per seat, the effective suits it has shown it no longer holds."""

    @staticmethod
    def start(decks: int) -> Memory:
        return Memory(decks, (0,) * NUM_FACES, (frozenset(),) * 4)

    def after_play(
        self, seat: int, cards: Iterable[Card], led_suit: int, trump: TrumpContext
    ) -> Memory:
        """The memory once `seat` has played `cards` to a trick led in `led_suit`."""
        counts = list(self.played)
        off_suit = False
        for c in cards:
            counts[c] += 1
            if trump.eff[c] != led_suit:
                off_suit = True
        voids = self.voids
        if off_suit:
            # A player who adds another suit had no more of the led one (R5.2).
            voids = tuple(v | {led_suit} if s == seat else v for s, v in enumerate(voids))
        return Memory(self.decks, tuple(counts), voids)

    def unseen(self, hand: Hand, known: Iterable[Card] = ()) -> Hand:
        """Cards this seat cannot see: not in its hand, not played, not in `known` (its bury)."""
        decks = self.decks
        counts = [
            decks - played - held for played, held in zip(self.played, hand.counts, strict=True)
        ]
        for c in known:
            counts[c] -= 1
        return Hand(tuple([n if n > 0 else 0 for n in counts]))

    def is_void(self, seat: int, suit: int) -> bool:
        return suit in self.voids[seat]

    def __init__(
        self,
        decks: int,
        played: tuple[int, ...],
        voids: tuple[frozenset[int], ...],
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "decks", decks)
        object.__setattr__(self, "played", played)
        object.__setattr__(self, "voids", voids)


picklable(Memory)
