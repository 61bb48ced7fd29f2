"""The throw odds (shengji/coach/review_throw.py, docs/review.md) against a brute-force oracle: on small
random situations every deal of the unseen cards is listed with its probability under the model
and judged by the referee's own `throws.check_throw`; the exact count and the exact walk must
give that probability (to rounding), and say 0 or 1 exactly when it is 0 or 1."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shengji.cards import Hand, parse_card, parse_cards
from shengji.coach import review_throw
from shengji.coach.review_throw import BOTTOM, Unseen, fail_odds
from shengji.combos import PlayError, read_lead, suit_layout
from shengji.rules import FOUR_DECK, TWO_DECK, RuleSet
from shengji.shape import Reading
from shengji.throws import check_throw
from shengji.trump import TRUMP, TrumpContext, parse_trump, trump_context


@dataclass(frozen=True)
class Situation:
    reading: Reading
    unseen: Unseen
    trump: TrumpContext
    rules: RuleSet


def _situation(seed: int, tractor: bool) -> Situation | None:
    """A throw from a window of six positions of one effective suit (with a tractor: one of two
    or three positions, and a unit or two beside it), a handful of unseen cards of that window
    (often every other copy of a few neighbouring positions, so that runs come up), the rest of
    the room filled with cards of another suit; three seats and maybe the bottom with small
    rooms, some seats void, some with a pinned card. None when the draw makes no throw of the
    kind asked for."""
    rng = random.Random(seed)
    rules = rng.choice((FOUR_DECK, FOUR_DECK, TWO_DECK))
    trump = trump_context(rng.choice((0, 1, 2, 3, None)), rng.randrange(2, 15))
    suit = rng.choice((0, 1, 2, 3, TRUMP))
    layout = suit_layout(trump, suit)
    if layout.positions < 7:
        return None
    start = rng.randrange(layout.positions - 5)
    window = [f for p in range(start, start + 6) for f in layout.at[p]]
    copies = dict.fromkeys(window, rules.decks)
    thrown: list[int] = []

    def take(f: int, k: int) -> None:
        k = min(k, copies[f])
        thrown.extend([f] * k)
        copies[f] -= k

    if tractor:
        width = rng.choice((2, 2, 3)) if rules.decks == 4 else 2
        first = rng.randrange(start, start + 4)
        for p in range(first, first + rng.choice((2, 2, 3))):
            take(rng.choice(layout.at[p]), width)
        for _ in range(rng.randint(1, 2)):
            take(rng.choice(window), rng.choice((1, 1, 2)))
    else:
        for f in window:
            take(f, rng.choice((0, 0, 1, 2, 2, 3)) if rules.decks == 4 else rng.choice((0, 1, 2)))
    try:
        reading = read_lead(tuple(thrown), trump, rules)
    except PlayError:
        return None
    if not reading.is_throw or any(c.length > 1 for c in reading.components) != tractor:
        return None
    pool = [0] * 54
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 10)):
            f = rng.choice(window)
            if copies[f]:
                copies[f] -= 1
                pool[f] += 1
    else:  # every other copy of two or three neighbouring positions: runs come up
        first = rng.randrange(start, start + 4)
        for f in [f for p in range(first, first + rng.choice((2, 3))) for f in layout.at[p]]:
            pool[f], copies[f] = copies[f], 0
    filler = next(f for f in range(54) if trump.eff[f] not in (suit, TRUMP))
    seats = (1, 2, 3, BOTTOM) if rng.random() < 0.5 else (1, 2, 3)
    caps = [rng.randint(0, 6) for _ in seats]
    if seats[-1] == BOTTOM:
        caps[-1] = rng.randint(1, 4)
    room = sum(caps)
    if room < sum(pool):
        return None
    pool[filler] += room - sum(pool)
    void = tuple(s != BOTTOM and rng.random() < 0.2 for s in seats)
    if sum(c for c, v in zip(caps, void, strict=True) if v) > pool[filler]:
        void = (False,) * len(seats)  # the void seats' room must fit the cards outside the suit
    pinned = []
    for s in seats:
        pin = [0] * 54
        if s != BOTTOM and rng.random() < 0.25:
            f = rng.choice(window)
            if copies[f]:
                copies[f] -= 1
                pin[f] = 1
        pinned.append(tuple(pin))
    unseen = Unseen(tuple(pool), seats, tuple(caps), tuple(pinned), void)
    return Situation(reading, unseen, trump, rules)


def _deals(
    faces: list[int], left: list[int], allowed: list[list[bool]], pool: list[int]
) -> list[list[list[int]]]:
    """Every way to put each face's copies into the destinations without passing their room:
    `got[d][i]` copies of `faces[i]` to destination d."""
    out: list[list[list[int]]] = []
    got = [[0] * len(faces) for _ in left]

    def place(i: int, d: int, rest: int) -> None:
        if i == len(faces):
            if not any(left):
                out.append([list(g) for g in got])
            return
        if d == len(left) - 1:
            if rest <= left[d] and (rest == 0 or allowed[d][i]):
                got[d][i], left[d] = rest, left[d] - rest
                place(i + 1, 0, pool[faces[i + 1]] if i + 1 < len(faces) else 0)
                got[d][i], left[d] = 0, left[d] + rest
            return
        top = min(rest, left[d]) if allowed[d][i] else 0
        for a in range(top + 1):
            got[d][i], left[d] = a, left[d] - a
            place(i, d + 1, rest - a)
            got[d][i], left[d] = 0, left[d] + a

    if faces:
        place(0, 0, pool[faces[0]])
    elif not any(left):
        out.append(got)
    return out


def brute_force(s: Situation) -> Fraction:
    """P(the throw fails) by listing every deal: a deal giving `got[d][f]` copies of each face to
    each destination has probability ∝ Π_f k_f! / Π_d got[d][f]! (the copies are distinct cards
    dealt uniformly), void seats taking no card of the suit; it fails when `check_throw` says so
    with each seat holding its pinned and dealt cards."""
    u, trump = s.unseen, s.trump
    faces = [f for f in range(54) if u.pool[f]]
    allowed = [
        [not (u.void[d] and trump.eff[f] == s.reading.suit) for f in faces]
        for d in range(len(u.seats))
    ]
    total = failed = 0
    for got in _deals(faces, list(u.capacity), allowed, list(u.pool)):
        weight = 1
        for i, f in enumerate(faces):
            weight *= math.factorial(u.pool[f])
            for d in range(len(u.seats)):
                weight //= math.factorial(got[d][i])
        holdings = [Hand((0,) * 54) for _ in range(4)]
        for d, seat in enumerate(u.seats):
            if seat == BOTTOM:
                continue
            counts = list(u.pinned[d])
            for i, f in enumerate(faces):
                counts[f] += got[d][i]
            holdings[seat] = Hand(tuple(counts))
        total += weight
        if check_throw(s.reading, 0, holdings, trump, s.rules).failed:
            failed += weight
    assert total, "the situation has a deal"
    return Fraction(failed, total)


def _check(s: Situation, count: int, walk: int) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(review_throw, "COUNT_LIMIT", count)
        m.setattr(review_throw, "NODE_LIMIT", walk)
        odds = fail_odds(s.reading, s.unseen, s.trump, s.rules, 0)
    truth = brute_force(s)
    assert odds.exact and odds.error == 0.0
    assert odds.p == pytest.approx(float(truth), abs=1e-12)
    assert (odds.p == 0.0) == (truth == 0) and (odds.p == 1.0) == (truth == 1)


_SEEDS = st.integers(0, 10**9)
_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("tractor", [True, False], ids=["with a tractor", "of units"])
@pytest.mark.parametrize("exact", ["count", "walk"])
@_SETTINGS
@given(_SEEDS)
def test_the_odds_of_a_throw_are_exact(tractor: bool, exact: str, seed: int) -> None:
    """The count and the walk, each made to decide alone (the other's budget 0), against the
    brute-force odds."""
    s = _situation(seed, tractor=tractor)
    if s is not None:
        budget = 10**7
        _check(s, count=budget if exact == "count" else 0, walk=budget if exact == "walk" else 0)


@_SETTINGS
@given(_SEEDS)
def test_the_count_of_runs_in_one_pass_adds_as_the_plain_one(seed: int) -> None:
    """A throw with a tractor: the count that deals a position's only face and ends the position
    in one pass gives, to the last bit, what the plain count gives (each face dealt, then the
    position ended), and both count (none gives way to the walk)."""
    s = _situation(seed, tractor=True)
    if s is None:
        return
    with pytest.MonkeyPatch.context() as m:
        m.setattr(review_throw, "COUNT_LIMIT", 10**7)
        m.setattr(review_throw, "NODE_LIMIT", 0)
        fast = fail_odds(s.reading, s.unseen, s.trump, s.rules, 0)
        plain = fail_odds(s.reading, s.unseen, s.trump, s.rules, 0, plain=True)
    assert fast.exact and plain.exact
    assert fast.p.hex() == plain.p.hex() and fast == plain


def test_the_situations_cover_every_outcome() -> None:
    """The generator makes throws that stand, fail for certain and fail maybe, with and without
    a tractor (else the tests above would prove little)."""
    for tractor in (True, False):
        seen = set()
        for seed in range(3000):
            s = _situation(seed, tractor)
            if s is None:
                continue
            p = fail_odds(s.reading, s.unseen, s.trump, s.rules, 0).p
            seen.add(0 if p == 0.0 else 2 if p == 1.0 else 1)
        assert seen == {0, 1, 2}, (tractor, seen)


def _made(thrown: str, unseen: str, caps: tuple[int, ...], pinned: str = "") -> Situation:
    """A hand-made situation (trump ♠, level 2): seats 1, 2, 3 (and the bottom when a fourth room
    is given), the room not taken by `unseen` filled with 3♦; `pinned` known to sit with seat 1."""
    t = parse_trump("S", 2)
    pool = list(Hand.of(parse_cards(unseen)).counts)
    pool[parse_card("3D")] += sum(caps) - len(parse_cards(unseen))
    seats = (1, 2, 3, BOTTOM)[: len(caps)]
    pins = [(0,) * 54 for _ in caps]
    pins[0] = Hand.of(parse_cards(pinned)).counts
    made = Unseen(tuple(pool), seats, caps, tuple(pins), (False,) * len(caps))
    return Situation(read_lead(parse_cards(thrown), t, FOUR_DECK), made, t, FOUR_DECK)


@pytest.mark.parametrize(
    ("thrown", "unseen", "caps", "pinned", "expected"),
    [
        # Seat 1 is known to hold 9♥9♥: with two T♥ it beats ⟨2-2⟩ 7♥7♥8♥8♥ (1 in C(4, 2)).
        ("AH 7H 7H 8H 8H", "TH TH", (2, 2, 0), "9H 9H", Fraction(1, 6)),
        # A run equal to the thrown tractor does not beat it, one a position higher does.
        ("KH 7H 7H 8H 8H", "AH 7H 7H 8H 8H", (5, 1, 1, 2), "", Fraction(7, 9)),
        ("KH 7H 7H 8H 8H", "8H 8H 9H 9H", (4, 2, 2), "", Fraction(1, 70)),
        # A wider or longer run beats through its top part; pairs that are not consecutive never.
        ("AH 7H 7H 8H 8H", "9H 9H 9H TH TH TH", (6, 0, 0), "", Fraction(1)),
        ("AH 7H 7H 8H 8H", "8H 8H 8H 9H 9H 9H", (3, 3, 3), "", None),
        ("AH 7H 7H 8H 8H", "9H 9H JH JH", (4, 0, 0), "", Fraction(0)),
        # Seat 1 takes four of six: 9♥9♥T♥T♥ or T♥T♥J♥J♥ beat, 9♥9♥J♥J♥ does not; 6 of C(6,4).
        ("AH 7H 7H 8H 8H", "9H 9H TH TH JH JH", (4, 2, 0), "", Fraction(2, 15)),
        # A triple tractor is beaten only by triples: 9♥9♥9♥T♥T♥T♥, not by pairs.
        ("AH 7H 7H 7H 8H 8H 8H", "9H 9H 9H TH TH JH", (4, 1, 1), "", Fraction(0)),
        ("AH 7H 7H 8H 8H 9H 9H", "TH TH JH JH QH QH", (6, 0, 0), "", Fraction(1)),
        ("AH 7H 7H 8H 8H 9H 9H", "TH TH JH JH KH KH", (6, 0, 0), "", Fraction(0)),
        # In trumps the off-suit level pairs share a position: 2♥2♥ + 2♠2♠ (trump ♠) is a run,
        # 2♥2♥ + 2♦2♦ is not.
        ("BJ AS AS KS KS", "2H 2H 2S 2S", (4, 1, 1), "", None),
        ("BJ AS AS KS KS", "2H 2H 2D 2D", (4, 1, 1), "", Fraction(0)),
        # A pair among singles on that position still makes the run, whichever face it is.
        ("BJ QS QS KS KS", "AS AS 2H 2H 2D 2C", (6, 0, 0), "", Fraction(1)),
        ("BJ QS QS KS KS", "AS AS 2H 2D 2C 2C", (6, 0, 0), "", Fraction(1)),
        # The bottom takes cards but never beats.
        ("KH 7H 7H 8H 8H", "AH 9H 9H TH TH", (3, 3, 3, 4), "", None),
    ],
)
def test_hand_made_throws_with_a_tractor(
    thrown: str, unseen: str, caps: tuple[int, ...], pinned: str, expected: Fraction | None
) -> None:
    s = _made(thrown, unseen, caps, pinned)
    truth = brute_force(s)
    if expected is not None:
        assert truth == expected
    _check(s, count=10**7, walk=0)
    _check(s, count=0, walk=10**7)


# --- the shortcut for throws nothing can beat ---------------------------------------------------


def _unbeatable(s: Situation) -> bool:
    u = s.unseen
    others = [d for d, seat in enumerate(u.seats) if seat != BOTTOM]
    return review_throw.unbeatable(
        s.reading,
        list(u.pool),
        [list(u.pinned[d]) for d in others],
        [u.void[d] for d in others],
        s.trump,
    )


def _whole_deck(seed: int) -> Situation | None:
    """A throw of random cards of one suit from four decks, the unseen cards a random part of
    the rest, three seats (maybe the bottom) of random room, some void, some with a pinned card:
    the review's situations, where most throws stand for certain."""
    rng = random.Random(seed)
    rules = FOUR_DECK
    trump = trump_context(rng.choice((0, 1, 2, 3, None)), rng.randrange(2, 15))
    suit = rng.choice((0, 1, 2, 3, TRUMP))
    suit_cards = [c for c in range(54) if trump.eff[c] == suit]
    if not suit_cards:  # the trump suit's own cards are all trumps
        return None
    thrown = [rng.choice(suit_cards) for _ in range(rng.randint(2, 10))]
    try:
        reading = read_lead(tuple(thrown), trump, rules)
    except PlayError:
        return None
    if not reading.is_throw:
        return None
    pool = [4] * 54
    for c in thrown:
        pool[c] -= 1
        if pool[c] < 0:
            return None
    deck = [c for c in range(54) for _ in range(pool[c])]
    rng.shuffle(deck)
    seats = (1, 2, 3, BOTTOM) if rng.random() < 0.5 else (1, 2, 3)
    most = rng.choice((3, 10, 30))
    caps = [rng.randint(0, most) for _ in seats]
    unseen = [0] * 54
    for c in deck[: sum(caps)]:
        unseen[c] += 1
    pinned = []
    for seat in seats:
        pin = [0] * 54
        if seat != BOTTOM and rng.random() < 0.3:
            for c in deck[sum(caps) : sum(caps) + rng.randint(1, 3)]:
                pin[c] += 1
        pinned.append(tuple(pin))
    void = tuple(seat != BOTTOM and rng.random() < 0.2 for seat in seats)
    made = Unseen(tuple(unseen), seats, tuple(caps), tuple(pinned), void)
    return Situation(reading, made, trump, rules)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_SEEDS, st.sampled_from(("units", "tractor", "deck")))
def test_a_throw_nothing_can_beat_is_known_before_the_odds(seed: int, kind: str) -> None:
    """`unbeatable` says yes only where `fail_odds` finds no beatable component and 0 exactly
    (what the review then records without calling it); for units only, exactly there."""
    s = _whole_deck(seed) if kind == "deck" else _situation(seed, tractor=kind == "tractor")
    if s is None:
        return
    beatable = review_throw.beatable_components(s.reading, s.unseen, s.trump, s.rules)
    if _unbeatable(s):
        assert beatable == ()
        odds = fail_odds(s.reading, s.unseen, s.trump, s.rules, 0)
        assert odds == review_throw.FailOdds(0.0, 0.0, True, 0, ())
    elif all(c.length == 1 for c in s.reading.components):
        assert beatable != ()


def test_the_shortcut_situations_cover_both_answers() -> None:
    for make in (
        lambda seed: _situation(seed, True),
        lambda seed: _situation(seed, False),
        _whole_deck,
    ):
        seen = set()
        for seed in range(400):
            s = make(seed)
            if s is not None:
                seen.add(_unbeatable(s))
        assert seen == {True, False}
