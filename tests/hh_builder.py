"""Builders of hand histories for the replay tests: arranged shoes and whole hands."""

from __future__ import annotations

import random
from collections.abc import Sequence

from shengji.cards import Card, parse_cards
from shengji.record import Bury, Deal, HandRecord, Show, shuffled_shoe, split_deal
from shengji.rules import FOUR_DECK, RuleSet

PLAYERS = ("ann", "bo", "cy", "di")


class Shoe:
    """A shuffled shoe in which chosen cards are moved to chosen places (swapping with others)."""

    def __init__(self, seed: int = 0, rules: RuleSet = FOUR_DECK, first: int = 0) -> None:
        self.rules = rules
        self.first = first
        self.cards = list(shuffled_shoe(random.Random(seed), rules))
        self.fixed: set[int] = set()
        self.next_k = [0, 0, 0, 0]

    @property
    def dealing(self) -> int:
        return self.rules.deck_size - self.rules.bottom_size

    def _put(self, index: int, card: Card) -> None:
        if self.cards[index] != card:
            j = next(
                j
                for j, c in enumerate(self.cards)
                if c == card and j not in self.fixed and j != index
            )
            self.cards[index], self.cards[j] = self.cards[j], self.cards[index]
        self.fixed.add(index)

    def give(self, seat: int, cards: str | Sequence[Card]) -> Shoe:
        """Deal these cards to `seat` as its next cards (its earliest unfixed places)."""
        for card in parse_cards(cards) if isinstance(cards, str) else cards:
            while True:
                index = (seat - self.first) % 4 + 4 * self.next_k[seat]
                self.next_k[seat] += 1
                if index not in self.fixed:
                    break
            assert index < self.dealing, "a seat cannot be given more cards than it is dealt"
            self._put(index, card)
        return self

    def bottom(self, cards: str | Sequence[Card]) -> Shoe:
        """The bottom's cards, in reveal order."""
        for i, card in enumerate(parse_cards(cards) if isinstance(cards, str) else cards):
            self._put(self.dealing + i, card)
        return self

    def deal(self) -> Deal:
        return Deal(self.first, tuple(self.cards))


def dealt_count(first: int, seat: int, k: int) -> int:
    """How many cards had been dealt when `seat` received its k-th card (k from 1)."""
    return (seat - first) % 4 + 4 * (k - 1) + 1


def bidding_hand(
    deal: Deal,
    *,
    banker: int | None,
    bids: Sequence[Show] = (),
    bury_seat: int | None = None,
    levels: tuple[int, int] = (2, 2),
    rules: RuleSet = FOUR_DECK,
    **more: object,
) -> HandRecord:
    """A hand up to the bury: the bury is the bottom itself (always held by whoever took it)."""
    _, bottom = split_deal(deal, rules)
    seat = bury_seat if bury_seat is not None else banker
    bury = Bury(seat, tuple(bottom)) if seat is not None else None
    return HandRecord(
        hand_id="b-1",
        source="tests",
        players=PLAYERS,
        levels=levels,
        deal=deal,
        rules=rules,
        banker=banker,
        bids=tuple(bids),
        bury=bury,
        **more,  # type: ignore[arg-type]
    )
