"""Rules micro-benchmark: the cost of one lead reading, throw check, legality check and trick
resolution on random four-deck situations (fixed seed), as medians of several runs."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from shengji.cards import Card, Hand, full_deck
from shengji.combos import PlayError, as_component, clear_caches, read_lead
from shengji.follow import check_follow
from shengji.rules import FOUR_DECK, RuleSet
from shengji.shape import Reading
from shengji.throws import check_throw
from shengji.trick import resolve_trick
from shengji.trump import TrumpContext, trump_context

SEED = 20260
SITUATIONS = 400
RUNS = 7


@dataclass(frozen=True, slots=True)
class Situation:
    """Four holdings at a trick's start, seat 0's lead and what seats 1–3 answer with."""

    trump: TrumpContext
    holdings: tuple[Hand, ...]
    lead_cards: tuple[Card, ...]
    lead: Reading
    plays: tuple[tuple[Card, ...], ...]
    voids: tuple[bool, ...]


def _suit_cards(hand: Sequence[Card], suit: int, trump: TrumpContext) -> list[Card]:
    return sorted((c for c in hand if trump.eff[c] == suit), key=trump.sort_key)


def _pick_lead(
    rng: random.Random, cards: list[Card], trump: TrumpContext, rules: RuleSet
) -> tuple[Card, ...]:
    """A unit (every copy of a random face), a two-face tractor when the suit holds one, or a
    short random throw of the suit, in equal shares: the mix a replay meets."""
    counts: dict[Card, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    roll = rng.random()
    if roll < 1 / 3:
        face = rng.choice(sorted(counts))
        return (face,) * counts[face]
    if roll < 2 / 3:
        pairs = sorted((f for f, n in counts.items() if n >= 2), key=trump.sort_key)
        runs = [
            (a,) * 2 + (b,) * 2
            for a, b in pairwise(pairs)
            if as_component((a, a, b, b), trump, rules) is not None
        ]
        if runs:
            return rng.choice(runs)
    size = min(len(cards), rng.randint(2, 6))
    return tuple(sorted(rng.sample(cards, size)))


def _answer(
    rng: random.Random, hand: Sequence[Card], suit: int, n: int, trump: TrumpContext
) -> tuple[Card, ...]:
    """Seat's answer: the led suit first (pairs kept together), then anything to make up n."""
    in_suit = _suit_cards(hand, suit, trump)
    rng.shuffle(in_suit)
    in_suit.sort(key=lambda c: -in_suit.count(c))
    play = in_suit[:n]
    rest = [c for c in hand if trump.eff[c] != suit]
    play += rng.sample(rest, n - len(play))
    return tuple(play)


def situations(
    count: int = SITUATIONS, seed: int = SEED, rules: RuleSet = FOUR_DECK
) -> list[Situation]:
    rng = random.Random(seed)
    out: list[Situation] = []
    while len(out) < count:
        shoe = list(full_deck(rules.decks))
        rng.shuffle(shoe)
        trump = trump_context(rng.choice([None, 0, 1, 2, 3]), rng.randint(2, 14))
        hands = [shoe[seat : 4 * rules.hand_size : 4] for seat in range(4)]
        suit = rng.choice(sorted({trump.eff[c] for c in hands[0]}))
        lead_cards = _pick_lead(rng, _suit_cards(hands[0], suit, trump), trump, rules)
        try:
            lead = read_lead(lead_cards, trump, rules)
        except PlayError:
            continue
        plays = tuple(_answer(rng, hands[s], suit, len(lead_cards), trump) for s in (1, 2, 3))
        voids = (False, *(not any(trump.eff[c] == suit for c in hands[s]) for s in (1, 2, 3)))
        holdings = tuple(Hand.of(h) for h in hands)
        out.append(Situation(trump, holdings, lead_cards, lead, plays, voids))
    return out


def _median_us(calls: Sequence[Callable[[], object]], cold: bool = False) -> float:
    """Median over RUNS of the mean cost of one call, in microseconds; `cold` forgets the
    remembered readings before each run, so each distinct lead is read afresh once."""
    per_call = []
    for _ in range(RUNS):
        if cold:
            clear_caches()
        start = time.perf_counter()
        for call in calls:
            call()
        per_call.append((time.perf_counter() - start) / len(calls) * 1e6)
    return statistics.median(per_call)


def measure(cases: Sequence[Situation], rules: RuleSet = FOUR_DECK) -> list[tuple[str, int, float]]:
    units = [s for s in cases if not s.lead.is_throw and not s.lead.components[0].is_tractor]
    tractors = [s for s in cases if not s.lead.is_throw and s.lead.components[0].is_tractor]
    throws = [s for s in cases if s.lead.is_throw]

    def read(s: Situation) -> Callable[[], object]:
        return lambda: read_lead(s.lead_cards, s.trump, rules)

    def throw(s: Situation) -> Callable[[], object]:
        return lambda: check_throw(s.lead, 0, s.holdings, s.trump, rules)

    def follow(s: Situation, seat: int) -> Callable[[], object]:
        return lambda: check_follow(s.lead, s.holdings[seat], s.plays[seat - 1], s.trump, rules)

    def trick(s: Situation) -> Callable[[], object]:
        played = [(0, s.lead.cards()), *((seat, s.plays[seat - 1]) for seat in (1, 2, 3))]
        return lambda: resolve_trick(s.lead, played, s.voids, s.trump, rules)

    rows = [
        ("read_lead, one unit (R4.2), remembered", [read(s) for s in units]),
        ("read_lead, one tractor (R4.2), remembered", [read(s) for s in tractors]),
        ("read_lead, throw of 2–6 cards (R4.2), remembered", [read(s) for s in throws]),
        ("check_throw (R4.3–R4.4)", [throw(s) for s in throws]),
        ("check_follow (R5)", [follow(s, seat) for s in cases for seat in (1, 2, 3)]),
        ("resolve_trick (R6)", [trick(s) for s in cases]),
    ]
    cold = [(name.replace("remembered", "read afresh"), calls) for name, calls in rows[:3]]
    measured = [(name, len(calls), _median_us(calls, cold=True)) for name, calls in cold if calls]
    return measured + [(name, len(calls), _median_us(calls)) for name, calls in rows if calls]


def main() -> str:
    cases = situations()
    rows = measure(cases)
    lines = [
        "## Rules core: cost per call",
        "",
        f"{len(cases)} random four-deck situations (seed {SEED}: a shuffled shoe, random trump "
        "and level; seat 0 leads a unit, a tractor or a 2–6-card throw of one suit; seats 1–3 "
        "answer in suit where they can, pairs first). Each figure is the median over "
        f"{RUNS} runs of the mean cost of one call (`time.perf_counter`).",
        "",
        "| operation | calls per run | µs per call |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {n} | {us:.1f} |" for name, n, us in rows]
    return "\n".join(lines) + "\n"
