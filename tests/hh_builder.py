"""Builders of hand histories for the replay tests: arranged shoes and whole hands."""

from __future__ import annotations

import random
from collections.abc import Sequence

from shengji.bidding import bottom_trump
from shengji.cards import Card, Hand, parse_cards
from shengji.combos import read_lead
from shengji.follow import random_legal_play
from shengji.record import Bury, Deal, Fry, HandRecord, Play, Show, shuffled_shoe, split_deal
from shengji.rules import FOUR_DECK, RuleSet
from shengji.throws import check_throw
from shengji.trick import resolve_trick
from shengji.trump import TrumpContext, trump_context

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


# --- whole hands played by the rules -------------------------------------------------------------


def _first_level_show(deal: Deal, rules: RuleSet, level: int) -> Show | None:
    """The first level card dealt, shown by its seat the moment it arrives."""
    dealing = rules.deck_size - rules.bottom_size
    for i, card in enumerate(deal.cards[:dealing]):
        if card < 52 and card % 13 + 2 == level:
            return Show((deal.first + i) % 4, (card,), i + 1)
    return None


def _choose_lead(
    rng: random.Random, hand: list[int], trump: TrumpContext, rules: RuleSet, throw_rate: float
) -> tuple[Card, ...]:
    """A random lead: one unit or tractor of a random suit held, sometimes a throw of several."""
    suits = sorted({trump.eff[c] for c in range(54) if hand[c]})
    suit = rng.choice(suits)
    cards = tuple(c for c in range(54) if trump.eff[c] == suit for _ in range(hand[c]))
    comps = list(read_lead(cards, trump, rules).components)
    if len(comps) > 1 and rng.random() < throw_rate:
        picked = rng.sample(comps, rng.randint(2, min(3, len(comps))))
        return tuple(c for comp in picked for c in comp.cards())
    if rng.random() < 0.5:
        return rng.choice(comps).cards()
    return (rng.choice(cards),)


def _fry_show(hands: list[list[int]], level: int, not_seat: int, start: int) -> Fry | None:
    """A pair of level cards held by the first seat (from `start`, in play order) other than
    `not_seat`: stronger than any single show."""
    for k in range(4):
        seat = (start + k) % 4
        if seat == not_seat:
            continue
        for suit in range(4):
            card = suit * 13 + level - 2
            if hands[seat][card] >= 2:
                return Fry(seat, (card, card), ())
    return None


def played_hand(
    seed: int,
    *,
    rules: RuleSet = FOUR_DECK,
    banker: int = 0,
    levels: tuple[int, int] = (2, 2),
    show: bool = True,
    first_hand: bool = False,
    fry: bool = False,
    throw_rate: float = 0.15,
    claim_forced: bool = True,
    hand_id: str | None = None,
) -> HandRecord:
    """A complete hand played legally at random (follows by `follow.random_legal_play`, winners by
    `trick.resolve_trick`, failed throws by `throws.check_throw`), deterministic in `seed`.

    `first_hand`: banker null, the first level card dealt is shown and its seat becomes banker.
    `fry`: after the bury, the first seat after the banker holding a pair of level cards fries
    with it (AssertionError when no seat can)."""
    rng = random.Random(seed)
    deal = Deal(rng.randrange(4), shuffled_shoe(rng, rules))
    dealt, bottom = split_deal(deal, rules)
    shown = _first_level_show(deal, rules, levels[banker % 2]) if show or first_hand else None
    if first_hand:
        assert shown is not None
        banker = shown.seat
    level = levels[banker % 2]
    if shown is not None:
        suit: int | None = shown.cards[0] // 13
    else:
        suit = bottom_trump(bottom, level)
    hands = [list(h.counts) for h in dealt]
    for c in bottom:
        hands[banker][c] += 1
    buried = tuple(rng.sample([c for c in range(54) for _ in range(hands[banker][c])], 8))
    for c in buried:
        hands[banker][c] -= 1
    fries: tuple[Fry, ...] = ()
    if fry:
        found = _fry_show(hands, level, shown.seat if shown else -1, banker + 1)
        assert found is not None, "no seat can fry"
        fryer = found.seat
        for c in buried:
            hands[fryer][c] += 1
        fry_bury = tuple(rng.sample([c for c in range(54) for _ in range(hands[fryer][c])], 8))
        for c in fry_bury:
            hands[fryer][c] -= 1
        fries = (Fry(fryer, found.cards, fry_bury),)
        suit = found.cards[0] // 13
    trump = trump_context(suit, level, rules.level_tractors)
    plays: list[Play] = []
    leader = banker
    while any(hands[leader]):
        attempted = _choose_lead(rng, hands[leader], trump, rules, throw_rate)
        reading = read_lead(attempted, trump, rules)
        forced_claim = None
        if reading.is_throw:
            check = check_throw(reading, leader, [Hand(tuple(h)) for h in hands], trump, rules)
            if check.forced is not None:
                reading = check.forced
                forced_claim = reading.cards() if claim_forced else None
        plays.append(Play(leader, attempted, forced_claim))
        lead = reading.cards()
        for c in lead:
            hands[leader][c] -= 1
        trick = [(leader, lead)]
        voids = [False]
        for k in range(1, 4):
            seat = (leader + k) % 4
            hand = Hand(tuple(hands[seat]))
            voids.append(not any(hand.counts[c] for c in range(54) if trump.eff[c] == reading.suit))
            cards = random_legal_play(reading, hand, trump, rules, rng)
            cards = tuple(rng.sample(cards, len(cards)))
            for c in cards:
                hands[seat][c] -= 1
            trick.append((seat, cards))
            plays.append(Play(seat, cards))
        leader = resolve_trick(reading, trick, voids, trump, rules).winner
    return HandRecord(
        hand_id=hand_id or f"h-{seed}",
        source="tests",
        players=PLAYERS,
        levels=levels,
        deal=deal,
        rules=rules,
        banker=None if first_hand else banker,
        bids=(shown,) if shown is not None else (),
        bury=Bury(banker, buried),
        fries=fries,
        plays=tuple(plays),
    )
