"""Shuffling and dealing one card at a time (R1.3): the shoe is what the hand history records."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import Card, Hand, full_deck
from ..rules import RuleSet


@dataclass(frozen=True, slots=True)
class Deal:
    """A shuffled shoe and the seat that gets its first card (`deal.first`, `deal.cards`)."""

    first: int
    cards: tuple[Card, ...]
    bottom_size: int = 8

    @property
    def dealt_count(self) -> int:
        """Cards that go to the players; the rest is the bottom."""
        return len(self.cards) - self.bottom_size

    def seat_of(self, index: int) -> int:
        """The seat that receives card `index` of the shoe (it must not be a bottom card)."""
        return (self.first + index) % 4

    def hands_after(self, dealt: int) -> tuple[Hand, ...]:
        """Each seat's cards once `dealt` cards have been dealt."""
        per_seat: list[list[Card]] = [[], [], [], []]
        for i in range(dealt):
            per_seat[self.seat_of(i)].append(self.cards[i])
        return tuple(Hand.of(cards) for cards in per_seat)

    def hands(self) -> tuple[Hand, ...]:
        return self.hands_after(self.dealt_count)

    @property
    def bottom(self) -> tuple[Card, ...]:
        return self.cards[self.dealt_count :]


def shuffle_deal(rules: RuleSet, first: int, rng: random.Random) -> Deal:
    """A uniformly shuffled shoe of the preset's decks."""
    cards = list(full_deck(rules.decks))
    rng.shuffle(cards)
    return Deal(first, tuple(cards), rules.bottom_size)
