"""The review's shortcuts against its slow path (docs/review.md, "Cost per hand"): the fast
review says exactly what the exhaustive one says, on random whole hands and on random fourth-seat
situations of every lead shape, the throw sampler deals exactly as the plain one, and the bundled
sample's verdicts are those of tests/data/review_digest.json."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from itertools import islice

import pytest
from hh_builder import played_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from review_digest import DIGEST, digest, replays

from shengji.cards import Card, Hand, parse_cards, points_of
from shengji.coach import review_throw
from shengji.coach.review import _cheapest, review_hand
from shengji.coach.review_last import (
    UNRESOLVED,
    Option,
    _by_cost,
    _ends_by_cost,
    _multisets,
    count_multisets,
    may_beat,
    options,
    over_limit,
    play_may_beat,
    point_classes,
    resolve,
    settled,
    too_many_plays,
)
from shengji.coach.review_throw import BOTTOM, Unseen, fail_odds
from shengji.combos import read_lead
from shengji.follow import legal_plays, random_legal_play
from shengji.replay import replay_record
from shengji.rules import FOUR_DECK, TWO_DECK, RuleSet
from shengji.shape import Reading
from shengji.trick import resolve_trick, trick_winner
from shengji.trump import TRUMP, TrumpContext, parse_trump

VARIANTS: tuple[RuleSet, ...] = (
    FOUR_DECK,
    FOUR_DECK,
    TWO_DECK,
    replace(FOUR_DECK, protect_longer_units=True),
    replace(FOUR_DECK, throw_compare="highest"),
    replace(FOUR_DECK, throw_compare="longest_unit"),
    replace(FOUR_DECK, stronger_shapes_win=False),
)


def test_the_bundled_sample_says_what_the_digest_says() -> None:
    expected = json.loads(DIGEST.read_text(encoding="utf-8"))
    found = digest(replays())
    assert found["codes"] == expected["codes"]
    changed = [k for k, v in found["per_hand"].items() if expected["per_hand"].get(k) != v]  # type: ignore[attr-defined]
    assert not changed, f"{len(changed)} hands judged differently, first {changed[:5]}"
    assert found == expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 100_000), st.sampled_from(range(len(VARIANTS))))
def test_fast_review_equals_the_exhaustive_one(seed: int, variant: int) -> None:
    r = replay_record(played_hand(seed, rules=VARIANTS[variant], throw_rate=0.4))
    assert review_hand(r) == review_hand(r, exhaustive=True)


# --- the fourth seat: `settled` never claims what the options deny ---------------------------------


def _situation(
    seed: int, rules: RuleSet
) -> tuple[TrumpContext, Reading, list[tuple[int, tuple[Card, ...]]], list[bool], Hand]:
    """A random trick after three plays and the fourth seat's holding: leads of every shape (a
    random component of the leader's suit, or several of them: a throw), holdings of random
    length so that pairs, triples and tractors come up."""
    rng = random.Random(seed)
    trump = parse_trump(rng.choice("SHDC"), rng.randrange(2, 15))
    shoe = [c for c in range(54) for _ in range(rules.decks)]
    rng.shuffle(shoe)
    size = rng.choice((13, 20, 30)) if rules.decks == 4 else rng.choice((10, 15))
    hands = [Hand.of(shoe[i * size : (i + 1) * size]) for i in range(4)]
    suit = trump.eff[rng.choice(hands[0].cards())]
    cards = [c for c in hands[0] if trump.eff[c] == suit]
    comps = read_lead(tuple(cards), trump, rules).components
    picked = rng.sample(comps, rng.randint(1, min(3, len(comps))))
    lead = read_lead(tuple(c for comp in picked for c in comp.cards()), trump, rules)
    first: list[tuple[int, tuple[Card, ...]]] = [(0, lead.cards())]
    for seat in (1, 2):
        first.append((seat, random_legal_play(lead, hands[seat], trump, rules, rng)))
    voids = [not any(trump.eff[c] == suit for c in hands[s]) for s in range(3)]
    return trump, lead, first, voids, hands[3]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))))
def test_settled_only_when_no_option_is_better(seed: int, variant: int) -> None:
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    before = resolve_trick(lead, first, voids, trump, rules)
    found = options(lead, first, voids, 3, hand, trump, rules, 120, before)
    exact = options(lead, first, voids, 3, hand, trump, rules, 100_000, before)
    assert exact is not None
    held = sum(1 for c in hand if trump.eff[c] == lead.suit)
    # The review skips such a seat before asking `settled` (`too_many_plays`).
    assert too_many_plays(lead, hand, held, trump, rules, 120)[0] == (found is None)
    if found is None:
        return
    plays = list(islice(legal_plays(lead, hand, trump, rules), 200))
    plays += [o.cards for o in exact]
    classes = point_classes(hand.counts, trump.eff)
    claimed = 0
    for play in plays:
        v = resolve_trick(lead, [*first, (3, play)], [*voids, held == 0], trump, rules)
        own_won = v.winner % 2 == 1
        ok = settled(
            lead, before, before.points, 3, hand.counts, classes, own_won, v.points, trump, rules
        )
        if not ok:
            continue
        claimed += 1
        # What the review then says without listing the options: they must agree.
        assert found, "settled, yet the review would skip or say nothing"
        wins = [o for o in exact if o.winner % 2 == 1]
        if own_won:
            assert all(o.points <= v.points for o in wins)
        else:
            assert not wins
            assert min(o.points for o in exact) >= v.points


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))), st.integers(0, 200))
def test_over_limit_is_exactly_when_the_options_give_up(
    seed: int, variant: int, limit: int
) -> None:
    """The review skips a fourth seat on `too_many_plays` before resolving anything: it must say
    exactly when listing the options would give up, whatever the limit, and that is exactly
    when the seat has more than `limit` distinct legal plays (a seat holding enough of the led
    suit) or more than `limit` all-trump plays (a seat void in a side suit)."""
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    held = sum(1 for c in hand if trump.eff[c] == lead.suit)
    found = options(lead, first, voids, 3, hand, trump, rules, limit)
    skip, _ = too_many_plays(lead, hand, held, trump, rules, limit)
    assert skip == (found is None)
    comps = lead.components
    if held >= lead.size and not (len(comps) == 1 and comps[0].length == 1 and comps[0].width <= 2):
        assert skip == (len(list(islice(legal_plays(lead, hand, trump, rules), limit + 1))) > limit)


def test_over_limit_for_a_void_seat_counts_its_trumps() -> None:
    """A seat void in hearts answering a heart tractor: judged through its trumps, so skipped
    when they make more four-card plays than the limit; a seat with fewer cards than the lead
    has nothing to judge and is never skipped; a pair lead never is."""
    rules = FOUR_DECK
    trump = parse_trump("S", 2)
    lead = read_lead(parse_cards("3H 3H 4H 4H"), trump, rules)
    first = [(0, lead.cards()), (1, parse_cards("5H 6H 7H 8H")), (2, parse_cards("9H TH JH QH"))]
    voids = [False, False, False]
    spades = Hand.of(parse_cards("3S 4S 5S 6S 7S 8S 9S TS JS QS 3C"))  # C(10, 4) = 210 plays
    assert over_limit(lead, spades.counts, 0, trump, 209)
    assert options(lead, first, voids, 3, spades, trump, rules, 209) is None
    assert not over_limit(lead, spades.counts, 0, trump, 210)
    assert options(lead, first, voids, 3, spades, trump, rules, 210)
    few = Hand.of(parse_cards("3S 4S 5S"))
    assert not over_limit(lead, few.counts, 0, trump, 0)
    assert options(lead, first, voids, 3, few, trump, rules, 0) == []
    pair = read_lead(parse_cards("3H 3H"), trump, rules)
    assert not over_limit(pair, spades.counts, 0, trump, 0)


def _void_of_the_lead(hand: Hand, lead: Reading, trump: TrumpContext) -> Hand:
    """The holding without its cards of the led suit: a seat answering from a void."""
    return Hand.of([c for c in hand if trump.eff[c] != lead.suit])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 1_000_000),
    st.sampled_from(range(len(VARIANTS))),
    st.integers(0, 300),
    st.booleans(),
)
def test_over_limit_is_the_count_of_plays_against_the_limit(
    seed: int, variant: int, limit: int, void: bool
) -> None:
    """`over_limit` decides most seats by bounds on the count (choosing among the cards, among
    the distinct faces) before counting: it says what `count_multisets` says of the plays of the
    led suit, or of trumps from a void in a side suit."""
    rules = VARIANTS[variant]
    trump, lead, _, _, hand = _situation(seed, rules)
    if void:
        hand = _void_of_the_lead(hand, lead, trump)
    counts, eff, n = hand.counts, trump.eff, lead.size
    held = sum(k for f, k in enumerate(counts) if eff[f] == lead.suit)
    comps = lead.components
    if len(comps) == 1 and comps[0].length == 1 and comps[0].width <= 2:
        expected = False
    elif held >= n:
        expected = (
            count_multisets([k for f, k in enumerate(counts) if eff[f] == lead.suit], n) > limit
        )
    elif held == 0 and lead.suit != TRUMP and len(hand) >= n:
        expected = count_multisets([k for f, k in enumerate(counts) if eff[f] == TRUMP], n) > limit
    else:
        expected = False
    assert over_limit(lead, counts, held, trump, limit) == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))), st.booleans())
def test_a_play_that_cannot_beat_leaves_the_trick_as_it_stood(
    seed: int, variant: int, void: bool
) -> None:
    """`options` resolves only the plays `play_may_beat` allows: it is `may_beat` of a holding of
    just the play's cards, and a play it turns away leaves the winner after three plays winning,
    with the play's points added."""
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    if void:
        hand = _void_of_the_lead(hand, lead, trump)
    before = resolve_trick(lead, first, voids, trump, rules)
    widest = max(c.width for c in lead.components)
    plays = list(islice(legal_plays(lead, hand, trump, rules), 300))
    found = options(lead, first, voids, 3, hand, trump, rules, 100_000, before) or []
    plays += [o.cards for o in found]
    for play in plays:
        inside = sum(1 for c in play if trump.eff[c] == lead.suit)
        quick = play_may_beat(play, lead, before, widest, trump, rules)
        assert quick == may_beat(lead, before, Hand.of(play).counts, inside, trump, rules)
        if not quick:
            v = trick_winner(lead, [*first, (3, play)], [*voids, inside == 0], trump, rules)
            assert (v.winner, v.points) == (before.winner, before.points + points_of(play))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))), st.booleans())
def test_lazy_options_resolve_to_the_options(seed: int, variant: int, void: bool) -> None:
    """`options(..., lazy=True)` leaves only plays that may beat unresolved, with their points,
    and `resolve` gives each the outcome `options` gives it."""
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    if void:
        hand = _void_of_the_lead(hand, lead, trump)
    before = resolve_trick(lead, first, voids, trump, rules)
    whole = options(lead, first, voids, 3, hand, trump, rules, 100_000, before)
    lazy = options(lead, first, voids, 3, hand, trump, rules, 100_000, before, lazy=True)
    assert (whole is None) == (lazy is None)
    if whole is None or lazy is None:
        return
    held = sum(hand.counts[f] for f in range(54) if trump.eff[f] == lead.suit)
    assert [o.cards for o in lazy] == [o.cards for o in whole]
    assert [o.points for o in lazy] == [o.points for o in whole]
    resolved = [resolve(o, held == 0, lead, first, voids, 3, trump, rules, before) for o in lazy]
    assert resolved == whole
    widest = max(c.width for c in lead.components)
    for o, w in zip(lazy, whole, strict=True):
        # Left unresolved exactly when the play may beat: a unit lead's options are all settled.
        unit = len(lead.components) == 1 and lead.components[0].length == 1 and widest <= 2
        may = not unit and play_may_beat(o.cards, lead, before, widest, trump, rules)
        assert o.winner == (UNRESOLVED if may else w.winner)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1_000_000), st.integers(1, 12))
def test_a_short_follower_s_cheapest_and_richest_additions(seed: int, k: int) -> None:
    """`_ends_by_cost` reads the k cheapest and k richest cards outside the led suit from both
    ends of the cost order: the first and last k of the whole list in that order."""
    rng = random.Random(seed)
    trump = parse_trump(rng.choice("SHDC"), rng.randrange(2, 15))
    counts = [rng.choice((0, 0, 0, 1, 2, 4)) for _ in range(54)]
    suit = rng.choice((0, 1, 2, 3, TRUMP))
    rest = [f for f in _by_cost(trump) if trump.eff[f] != suit for _ in range(counts[f])]
    ends = _ends_by_cost(counts, suit, trump, k)
    if len(rest) < k:
        assert ends is None
    else:
        assert ends == (rest[:k], rest[len(rest) - k :])


def _tractor_situation(
    seed: int, rules: RuleSet, void: bool
) -> tuple[TrumpContext, Reading, list[tuple[int, tuple[Card, ...]]], list[bool], Hand] | None:
    """A random tractor lead (one component, two or three units of 2 to 4 copies), two answers
    of the led suit, and a fourth holding rich in pairs, triples and quads of the led suit (or,
    `void`, of trumps against a side-suit lead): the seats where the shape decides; None when the
    draw makes no tractor."""
    rng = random.Random(seed)
    trump = parse_trump(rng.choice("SHDC"), rng.randrange(2, 15))
    suit = rng.choice((0, 1, 2, 3, TRUMP))
    if void and suit == TRUMP:
        return None
    shoe = [c for c in range(54) for _ in range(rules.decks)]
    in_suit = sorted({c for c in shoe if trump.eff[c] == suit}, key=lambda c: trump.pos[c])
    width = rng.randint(2, rules.decks)
    length = rng.randint(2, 3)
    if len(in_suit) < length:
        return None
    start = rng.randrange(len(in_suit) - length + 1)
    lead = read_lead(
        tuple(c for c in in_suit[start : start + length] for _ in range(width)), trump, rules
    )
    if len(lead.components) != 1 or lead.components[0].length != length:
        return None
    for c in lead.cards():
        shoe.remove(c)
    rng.shuffle(shoe)
    first: list[tuple[int, tuple[Card, ...]]] = [(0, lead.cards())]
    for seat in (1, 2):
        answer = [c for c in shoe if trump.eff[c] == suit][: lead.size]
        if len(answer) < lead.size:
            return None
        for c in answer:
            shoe.remove(c)
        first.append((seat, tuple(answer)))
    source = TRUMP if void else suit
    faces = [c for c in set(shoe) if trump.eff[c] == source]
    held: list[Card] = []
    for f in rng.sample(faces, min(len(faces), rng.randint(2, 6))):
        held += [f] * rng.randint(1, shoe.count(f))
    return trump, lead, first, [False, False, False], Hand.of(held)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))), st.booleans())
def test_a_play_beating_a_tractor_lead_is_one_tractor_of_units_as_wide(
    seed: int, variant: int, void: bool
) -> None:
    """Against a tractor lead, `play_may_beat` turns a play away (and `may_beat` a holding) when
    its cards cannot make one tractor of the lead's size from units at least as wide (R6.1; R6.3
    for wider units): never a play the referee says beats the winner after three plays."""
    rules = VARIANTS[variant]
    drawn = _tractor_situation(seed, rules, void)
    if drawn is None:
        return
    trump, lead, first, voids, hand = drawn
    before = resolve_trick(lead, first, voids, trump, rules)
    widest = lead.components[0].width
    inside = sum(1 for c in hand if trump.eff[c] == lead.suit)
    beaten = False
    for play in islice(legal_plays(lead, hand, trump, rules), 400):
        v = trick_winner(lead, [*first, (3, play)], [*voids, void], trump, rules)
        if v.winner_index == 3:
            beaten = True
            assert play_may_beat(play, lead, before, widest, trump, rules), play
    if beaten:
        assert may_beat(lead, before, hand.counts, inside, trump, rules)


def test_only_one_tractor_of_units_as_wide_beats_a_tractor_lead() -> None:
    """⟨5-6⟩ of heart pairs led: ⟨9-T⟩ beats it, 9 9 9 T (a triple and a single) does not; a
    quad does by R6.3 and not without it. ⟨9-T-J⟩ of pairs is beaten by ⟨K-A⟩ of triples (R6.3),
    not by a quad and a pair."""
    trump = parse_trump("S", 2)
    lead = read_lead(parse_cards("5H 5H 6H 6H"), trump, FOUR_DECK)
    first = [(0, lead.cards()), (1, parse_cards("3H 4H 7H 8H")), (2, parse_cards("3H 4H 7H 8H"))]
    voids = [False, False, False]
    before = resolve_trick(lead, first, voids, trump, FOUR_DECK)
    plain = replace(FOUR_DECK, stronger_shapes_win=False)
    for play, rules, beats in (
        ("9H 9H TH TH", FOUR_DECK, True),
        ("9H 9H 9H TH", FOUR_DECK, False),
        ("KH KH KH KH", FOUR_DECK, True),
        ("KH KH KH KH", plain, False),
    ):
        cards = parse_cards(play)
        assert play_may_beat(cards, lead, before, 2, trump, rules) == beats, play
        v = trick_winner(lead, [*first, (3, cards)], [*voids, False], trump, rules)
        assert (v.winner_index == 3) == beats, play
    pairs = read_lead(parse_cards("9H 9H TH TH JH JH"), trump, FOUR_DECK)
    first = [(0, pairs.cards()), (1, parse_cards("3H 4H 5H 6H 7H 8H"))]
    first.append((2, parse_cards("3H 4H 5H 6H 7H 8H")))
    before = resolve_trick(pairs, first, voids, trump, FOUR_DECK)
    for play, beats in (("KH KH KH AH AH AH", True), ("KH KH KH KH AH AH", False)):
        cards = parse_cards(play)
        assert play_may_beat(cards, pairs, before, 2, trump, FOUR_DECK) == beats, play
        v = trick_winner(pairs, [*first, (3, cards)], [*voids, False], trump, FOUR_DECK)
        assert (v.winner_index == 3) == beats, play


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))))
def test_the_winner_alone_is_the_referee_s_verdict_for_every_option(
    seed: int, variant: int
) -> None:
    """The options are resolved by `trick_winner`, which spells no reason, comparing the fourth
    play with the winner after three only: for every listed play of the fourth seat, and for
    every legal play, it says what `resolve_trick` says of the whole trick."""
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    held = sum(1 for c in hand if trump.eff[c] == lead.suit)
    before = resolve_trick(lead, first, voids, trump, rules)
    found = options(lead, first, voids, 3, hand, trump, rules, 100_000) or []
    plays = [o.cards for o in found] + list(islice(legal_plays(lead, hand, trump, rules), 100))
    for play in plays:
        trick = [*first, (3, play)]
        full = resolve_trick(lead, trick, [*voids, held == 0], trump, rules)
        alone = replace(full, reason="")
        assert trick_winner(lead, trick, [*voids, held == 0], trump, rules) == alone
        assert trick_winner(lead, trick, [*voids, held == 0], trump, rules, before) == alone
    for o in found:
        full = resolve_trick(lead, [*first, (3, o.cards)], [*voids, held == 0], trump, rules)
        assert (o.winner, o.points) == (full.winner, full.points)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))))
def test_the_better_play_is_the_least_by_trumps_then_ranks(seed: int, variant: int) -> None:
    """The recommended play among options of equal points: the first least (trumps spent, rank
    sum, cards), as `min` with that key gives it."""
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    found = options(lead, first, voids, 3, hand, trump, rules, 100_000) or []
    eff, pos = trump.eff, trump.pos

    def spend(o: Option) -> tuple[int, int, tuple[Card, ...]]:
        return (sum(1 for c in o.cards if eff[c] == TRUMP), sum(pos[c] for c in o.cards), o.cards)

    for points in {o.points for o in found}:
        expected = min((o for o in found if o.points == points), key=spend)
        assert _cheapest(found, points, trump) is expected


def test_settled_claims_the_obvious_cases() -> None:
    """A trick the fourth seat cannot win, followed with its cheapest cards; its partner's trick
    given its richest: both settled. A richer or cheaper play: not."""
    rules = FOUR_DECK
    trump = parse_trump("S", 2)
    lead = read_lead(parse_cards("AH AH"), trump, rules)
    first = [(0, parse_cards("AH AH")), (1, parse_cards("3H 4H")), (2, parse_cards("6H 7H"))]
    voids = [False, False, False]
    hand = Hand.of(parse_cards("5H KH 8H 9H"))
    before = resolve_trick(lead, first, voids, trump, rules)
    classes = point_classes(hand.counts, trump.eff)
    args = (trump, rules)
    # Seat 3 plays against seat 0's team; the fewest points any two of its hearts carry: 0.
    assert settled(
        lead, before, before.points, 3, hand.counts, classes, False, before.points, *args
    )
    assert not settled(
        lead, before, before.points, 3, hand.counts, classes, False, before.points + 5, *args
    )
    # The same trick as the partner of the winner (seat 2 playing fourth): 15 points at most.
    assert settled(
        lead, before, before.points, 2, hand.counts, classes, True, before.points + 15, *args
    )
    assert not settled(
        lead, before, before.points, 2, hand.counts, classes, True, before.points + 10, *args
    )
    # Its team won: the trick after three plays is not needed, only its points.
    assert settled(
        lead, None, before.points, 2, hand.counts, classes, True, before.points + 15, *args
    )
    assert not settled(
        lead, None, before.points, 3, hand.counts, classes, False, before.points, *args
    )
    # A seat that can beat the pair (it holds a higher one): never settled while it lost.
    big = Hand.of(parse_cards("SJ SJ 8H 9H"))
    lead_t = read_lead(parse_cards("3S 3S"), trump, rules)
    first_t = [(0, parse_cards("3S 3S")), (1, parse_cards("4S 6S")), (2, parse_cards("7S 8S"))]
    before_t = resolve_trick(lead_t, first_t, voids, trump, rules)
    big_classes = point_classes(big.counts, trump.eff)
    assert not settled(
        lead_t, before_t, before_t.points, 3, big.counts, big_classes, False, before_t.points, *args
    )


# --- the throw sampler ----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000))
def test_the_sampler_deals_as_the_plain_one(seed: int) -> None:
    rng = random.Random(seed)
    rules = FOUR_DECK
    trump = parse_trump("S", 2)
    suit_cards = [c for c in range(54) if trump.eff[c] == 2]  # ♥ under trump ♠
    thrower = [rng.choice(suit_cards) for _ in range(rng.randint(3, 9))]
    try:
        reading = read_lead(tuple(thrower), trump, rules)
    except Exception:  # an unreadable draw: nothing to compare
        return
    pool = [4] * 54
    for c in thrower:
        pool[c] -= 1
    caps = [rng.randint(5, 40) for _ in range(3)] + ([8] if rng.random() < 0.5 else [])
    # Only the room the destinations have: the rest of the pool is seen.
    room = sum(caps)
    deck = [c for c in range(54) for _ in range(pool[c])]
    rng.shuffle(deck)
    unseen = [0] * 54
    for c in deck[:room]:
        unseen[c] += 1
    seats = (1, 2, 3, BOTTOM)[: len(caps)]
    void = tuple(rng.random() < 0.15 and s != BOTTOM for s in seats)
    made = Unseen(tuple(unseen), seats, tuple(caps), tuple((0,) * 54 for _ in caps), void)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(review_throw, "NODE_LIMIT", 0)
        m.setattr(review_throw, "COUNT_LIMIT", 0)
        try:
            fast = fail_odds(reading, made, trump, rules, seed)
        except review_throw.Inconsistent:
            return
        plain = fail_odds(reading, made, trump, rules, seed, plain=True)
    assert fast == plain


# --- the count of a units-only throw against the walk -----------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000))
def test_the_units_count_gives_the_walks_odds(seed: int) -> None:
    """Where both finish, the count of standing deals (`_count_units`, used past the walk's
    branch limit for throws of units only) gives the walk's probability, and says 0 and 1 only
    when the walk does: random unit throws, seats of random room, some void, some with a pinned
    card, the bottom known or not."""
    rng = random.Random(seed)
    rules = FOUR_DECK
    trump = parse_trump("S", 2)
    suit_cards = [c for c in range(54) if trump.eff[c] == 2]
    thrower = [rng.choice(suit_cards) for _ in range(rng.randint(3, 9))]
    try:
        reading = read_lead(tuple(thrower), trump, rules)
    except Exception:  # an unreadable draw: nothing to compare
        return
    if any(c.length > 1 for c in reading.components):
        return
    pool = [4] * 54
    for c in thrower:
        pool[c] -= 1
    caps = [rng.randint(3, 30) for _ in range(3)] + ([8] if rng.random() < 0.5 else [])
    deck = [c for c in range(54) for _ in range(pool[c])]
    rng.shuffle(deck)
    unseen = [0] * 54
    for c in deck[: sum(caps)]:
        unseen[c] += 1
    seats = (1, 2, 3, BOTTOM)[: len(caps)]
    void = tuple(rng.random() < 0.15 and s != BOTTOM for s in seats)
    pinned = []
    for s in seats:
        pin = [0] * 54
        if s != BOTTOM and rng.random() < 0.3:
            pin[rng.choice(suit_cards)] = 1
        pinned.append(tuple(pin))
    made = Unseen(tuple(unseen), seats, tuple(caps), tuple(pinned), void)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(review_throw, "COUNT_LIMIT", 0)
        m.setattr(review_throw, "NODE_LIMIT", 10**7)
        try:
            walked = fail_odds(reading, made, trump, rules, seed)
        except review_throw.Inconsistent:
            return
        m.setattr(review_throw, "COUNT_LIMIT", 10**7)
        m.setattr(review_throw, "NODE_LIMIT", 0)
        counted = fail_odds(reading, made, trump, rules, seed)
    assert walked.exact and counted.exact
    assert counted.p == pytest.approx(walked.p, abs=1e-12)
    assert (counted.p in (0.0, 1.0)) == (walked.p in (0.0, 1.0))
    assert counted.beatable == walked.beatable


def _every_multiset(items: list[tuple[Card, int]], k: int) -> list[tuple[Card, ...]]:
    """The listing without pruning: each face's copies taken most first, every branch followed."""
    out: list[tuple[Card, ...]] = []

    def walk(i: int, left: int, picked: tuple[Card, ...]) -> None:
        if left == 0:
            out.append(picked)
        elif i < len(items):
            face, have = items[i]
            for take in range(min(have, left), -1, -1):
                walk(i + 1, left - take, picked + (face,) * take)

    walk(0, k, ())
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=0, max_size=12),
    st.integers(0, 10),
)
def test_the_pruned_listing_of_multisets_is_the_full_one(copies: list[int], k: int) -> None:
    items = [(face, have) for face, have in enumerate(copies)]
    assert _multisets(items, k) == _every_multiset(items, k)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1_000_000), st.sampled_from(range(len(VARIANTS))))
def test_options_of_a_follower_of_the_suit_are_its_legal_plays(seed: int, variant: int) -> None:
    """A seat holding as many cards of the led suit as the lead answers with them alone, so
    `options` at the review's limit lists each legal play once: made from the ladder under a
    budget of C(held, n) or the limit, not the counted plays of the suit, and for a pair lead
    by `_unit_options`' own two loops."""
    rules = VARIANTS[variant]
    trump, lead, first, voids, hand = _situation(seed, rules)
    held = sum(1 for c in hand if trump.eff[c] == lead.suit)
    if held < lead.size:
        return
    found = options(lead, first, voids, 3, hand, trump, rules)
    if found is None:
        assert over_limit(lead, hand.counts, held, trump, 120)
        return
    plays = [o.cards for o in found]
    assert len(plays) == len(set(plays))
    assert set(plays) == set(legal_plays(lead, hand, trump, rules))
