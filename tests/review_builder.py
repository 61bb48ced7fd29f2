"""Hand-made hands for the review tests, replayed by the real engine.

Trump ♠, level 2, banker seat 0 (who shows 2♠ with its first card). A seat may be given its whole
holding (`full`): the named cards, then ♦ and ♣ filler, so it holds no other ♥ than those named;
the other seats get the named cards and the rest of the shoe at random (seeded)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hh_builder import Shoe, bidding_hand

from shengji.cards import Card, parse_card, parse_cards
from shengji.record import Bury, Play, Show
from shengji.replay import replay_record
from shengji.results import HandReplay


def filler(suits: str) -> list[Card]:
    """Every card of these suits but the level rank 2, four of each, suit by suit."""
    return [parse_card(r + s) for s in suits for r in "3456789TJQKA" for _ in range(4)]


def replayed(
    given: dict[int, str],
    plays: Sequence[tuple[int, str] | tuple[int, str, str]],
    *,
    full: Sequence[int] = (),
    bottom: str = "",
    bury: str | None = None,
    seed: int = 1,
    suits: str = "DC",
) -> HandReplay:
    """A hand dealt so each seat holds `given[seat]` (seat 0 also 2♠), played as `plays`:
    (seat, cards) or (seat, cards, forced claim). Seats in `full` hold exactly their given
    cards plus filler of `suits`. The banker buries `bury` (default: the bottom as dealt)."""
    shoe = Shoe(seed)
    named: dict[int, list[Card]] = {s: list(parse_cards(given.get(s, ""))) for s in range(4)}
    named[0].insert(0, parse_card("2S"))
    taken: list[Card] = [c for cards in named.values() for c in cards] + list(parse_cards(bottom))
    spare = filler(suits)
    for c in taken:
        if c in spare:
            spare.remove(c)
    for seat in range(4):
        cards = list(named[seat])
        if seat in full:
            room = 52 - len(cards)
            cards += spare[:room]
            del spare[:room]
        shoe.give(seat, cards)
    if bottom:
        shoe.bottom(bottom)
    record = bidding_hand(shoe.deal(), banker=0, bids=(Show(0, (parse_card("2S"),), 1),))
    if bury is not None:
        record = dataclasses.replace(record, bury=Bury(0, parse_cards(bury)))
    record = dataclasses.replace(record, plays=tuple(_play(p) for p in plays), hand_id="rv-1")
    return replay_record(record)


def _play(p: tuple[int, str] | tuple[int, str, str]) -> Play:
    forced = parse_cards(p[2]) if len(p) == 3 else None  # type: ignore[misc]
    return Play(p[0], parse_cards(p[1]), forced)
