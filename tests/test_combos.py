"""R3 units and tractors, R4.1/R4.2 reading a lead, and matching a play to a lead's shape."""

from __future__ import annotations

import itertools
from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shengji.cards import Card, format_card, parse_cards
from shengji.combos import (
    PlayError,
    as_component,
    component_key,
    effective_suit,
    iter_matches,
    match_shape,
    read_lead,
    suit_layout,
)
from shengji.rules import FOUR_DECK, RBTYING, TWO_DECK
from shengji.shape import Reading
from shengji.trump import TRUMP, TrumpContext, parse_trump

SPADES_10 = parse_trump("S", "T")
CLUBS_6 = parse_trump("C", "6")
LOWEST_FIRST = replace(FOUR_DECK, throw_split="lowest_first")


def comp(text: str, trump: TrumpContext = SPADES_10, rules=FOUR_DECK):
    return as_component(parse_cards(text), trump, rules)


def shapes(text: str, trump: TrumpContext = SPADES_10, rules=FOUR_DECK, split=None):
    reading = read_lead(parse_cards(text), trump, rules, split)
    return [(c.width, c.length) for c in reading.components]


# R3.1 units


def test_r3_1_units_are_identical_faces() -> None:
    assert comp("AH").kind == "single"
    assert comp("AH AH").kind == "pair"
    assert comp("AH AH AH").kind == "triple"
    assert comp("AH AH AH AH").kind == "quad"
    # Two level cards of different suits are equal in strength but not identical (R3.1).
    assert comp("TH TD") is None
    assert comp("TH TH TD TD") is None
    assert comp("AH KH") is None


def test_r3_1_two_deck_units_stop_at_pairs() -> None:
    assert comp("AH AH", rules=TWO_DECK).kind == "pair"
    assert comp("AH AH AH", rules=TWO_DECK) is None
    with pytest.raises(PlayError, match="3 copies of A♥ with 2 decks"):
        read_lead(parse_cards("AH AH AH"), SPADES_10, TWO_DECK)


# R3.2 tractors: RULES.md's examples (trump ♠, level 10; level 6)


@pytest.mark.parametrize(
    "text", ["9H 9H JH JH", "AS AS TH TH", "TH TH TS TS", "TS TS SJ SJ BJ BJ", "SJ SJ BJ BJ"]
)
def test_r3_2_rule_book_tractors(text: str) -> None:
    found = comp(text)
    assert found is not None and found.is_tractor


@pytest.mark.parametrize("text", ["TH TH TD TD", "AS AS TS TS", "9H 9H TH TH", "9H 9H QH QH"])
def test_r3_2_rule_book_non_tractors(text: str) -> None:
    assert comp(text) is None


def test_r3_2_level_rank_leaves_the_suit_so_its_neighbours_join() -> None:
    found = comp("5C 5C 7C 7C", trump=CLUBS_6)
    assert found is not None and found.is_tractor
    found = comp("5H 5H 7H 7H", trump=CLUBS_6)
    assert found is not None and found.is_tractor


def test_r3_2_trump_ladder_runs_a_then_off_level_then_trump_level_then_jokers() -> None:
    run = comp("AS AS TD TD TS TS SJ SJ BJ BJ")
    assert run is not None and run.length == 5 and run.top == SPADES_10.pos[parse_cards("BJ")[0]]


def test_r3_2_no_trump_level_cards_join_the_small_joker() -> None:
    nt = parse_trump("NT", "T")
    assert comp("TH TH SJ SJ", trump=nt) is not None
    assert comp("TH TH TS TS", trump=nt) is None


def test_r3_2_triple_and_quad_tractors() -> None:
    assert comp("5H 5H 5H 6H 6H 6H").shape() == (3, 2)
    assert comp("5H 5H 5H 5H 6H 6H 6H 6H 7H 7H 7H 7H").shape() == (4, 3)
    assert comp("5H 5H 5H 5H 6H 6H 6H 6H", rules=TWO_DECK) is None


def test_r3_2_components_describe_their_cards() -> None:
    assert comp("7H 7H 8H 8H").describe() == "tractor⟨2-2⟩ 7♥ 7♥ 8♥ 8♥"
    assert comp("7H 7H").describe() == "pair 7♥ 7♥"


# R3.3 ace-low, R3.4 mixed widths


def test_r3_3_ace_low_tractor_at_the_low_end_only() -> None:
    aa2233 = comp("AH AH 2H 2H 3H 3H", trump=CLUBS_6)
    assert aa2233 is not None and aa2233.is_tractor
    assert aa2233.top == CLUBS_6.pos[parse_cards("3H")[0]]
    assert aa2233.faces[0] == parse_cards("AH")[0]
    assert comp("QH QH KH KH AH AH", trump=CLUBS_6) is not None
    assert comp("KH KH AH AH 2H 2H", trump=CLUBS_6) is None


def test_r3_3_ace_low_is_an_option_and_off_in_two_deck() -> None:
    assert comp("AH AH 2H 2H", rules=replace(FOUR_DECK, ace_low_tractor=False)) is None
    assert comp("AH AH 2H 2H", rules=TWO_DECK) is None
    assert comp("KH KH AH AH", rules=TWO_DECK) is not None


def test_r3_3_ace_low_at_level_two_joins_the_three() -> None:
    level2 = parse_trump("S", "2")
    assert comp("AH AH 3H 3H", trump=level2) is not None
    assert read_lead(parse_cards("AH AH 3H 3H 4H 4H"), level2, FOUR_DECK).components[0].top == 1


def test_r3_4_mixed_widths_are_no_tractor() -> None:
    assert comp("6H 6H 7H 7H 7H 7H") is None
    assert shapes("6H 6H 7H 7H 7H 7H") == [(2, 2), (2, 1)]


# R4.1, R4.2 reading a lead


def test_r4_1_a_lead_is_one_effective_suit() -> None:
    with pytest.raises(PlayError, match="one effective suit"):
        read_lead(parse_cards("AH AC"), SPADES_10, FOUR_DECK)
    with pytest.raises(PlayError):
        read_lead((), SPADES_10, FOUR_DECK)
    # ♥10 is a trump at level 10, so it leads with spades.
    assert read_lead(parse_cards("TH AS"), SPADES_10, FOUR_DECK).suit == TRUMP


def test_r4_1_simple_leads_are_one_component() -> None:
    reading = read_lead(parse_cards("9H 9H JH JH"), SPADES_10, FOUR_DECK)
    assert not reading.is_throw and reading.components[0].is_tractor


def test_r4_2_largest_component_first() -> None:
    assert shapes("AH KH KH 3H 3H 3H 4H 4H 4H 9H") == [(3, 2), (2, 1), (1, 1), (1, 1)]


def test_r4_2_on_a_tie_tractors_before_units() -> None:
    # quad 5555 and ⟨2-2⟩ 5566 both hold four cards: the tractor is taken.
    assert shapes("5H 5H 5H 5H 6H 6H") == [(2, 2), (2, 1)]


def test_r4_2_equal_size_tractors_prefer_the_wider() -> None:
    reading = read_lead(parse_cards("5H 5H 5H 6H 6H 6H 6H 7H 7H"), SPADES_10, FOUR_DECK)
    assert [c.describe() for c in reading.components] == [
        "tractor⟨3-3⟩ 5♥ 5♥ 5♥ 6♥ 6♥ 6♥",
        "pair 7♥ 7♥",
        "single 6♥",
    ]


def test_r4_2_equal_shapes_prefer_the_higher() -> None:
    reading = read_lead(parse_cards("QH QH KH KH AH AH 2H 2H 3H 3H"), CLUBS_6, FOUR_DECK)
    assert [c.describe() for c in reading.components] == [
        "tractor⟨2-2-2⟩ Q♥ Q♥ K♥ K♥ A♥ A♥",
        "tractor⟨2-2⟩ 2♥ 2♥ 3♥ 3♥",
    ]


def test_r4_2_shared_position_takes_the_best_fitting_face() -> None:
    # ♠A + off-suit level: ♦10 (two copies) joins the tractor, so ♥10's triple stays whole.
    reading = read_lead(parse_cards("AS AS TH TH TH TD TD"), SPADES_10, FOUR_DECK)
    assert [c.describe() for c in reading.components] == [
        "tractor⟨2-2⟩ A♠ A♠ 10♦ 10♦",
        "triple 10♥ 10♥ 10♥",
    ]


def test_r4_2_long_thin_tractor_beats_a_wide_short_one() -> None:
    # Ten cards in ⟨2-2-2-2-2⟩ beat nine in ⟨3-3-3⟩.
    got = shapes("5H 5H 5H 6H 6H 6H 7H 7H 7H 8H 8H 9H 9H")
    assert got == [(2, 5), (1, 1), (1, 1), (1, 1)]


def described(text: str, trump: TrumpContext, rules) -> list[str]:
    return [c.describe() for c in read_lead(parse_cards(text), trump, rules).components]


def test_r4_2_throw_split_rules_example() -> None:
    """R4.2 (trump ♠, level 9): ♣JJJ QQQ KK reads ⟨JJJ-QQQ⟩ + KK under `widest` (the default) and
    ⟨JJ-QQ-KK⟩ + J + Q under `lowest_first` (and the rbtying preset)."""
    spades_9 = parse_trump("S", "9")
    lead = "JC JC JC QC QC QC KC KC"
    assert described(lead, spades_9, FOUR_DECK) == [
        "tractor⟨3-3⟩ J♣ J♣ J♣ Q♣ Q♣ Q♣",
        "pair K♣ K♣",
    ]
    expected = ["tractor⟨2-2-2⟩ J♣ J♣ Q♣ Q♣ K♣ K♣", "single Q♣", "single J♣"]
    assert described(lead, spades_9, LOWEST_FIRST) == expected
    assert described(lead, spades_9, RBTYING) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A unit of all copies of the lowest card comes before any tractor from it.
        (
            "5H 5H 6H 6H 6H 7H 7H 7H 8H",
            ["tractor⟨3-3⟩ 6♥ 6♥ 6♥ 7♥ 7♥ 7♥", "pair 5♥ 5♥", "single 8♥"],
        ),
        # Not offered when every tractor from the lowest card uses all copies of its faces.
        ("5H 5H 6H 6H 9H 9H", ["tractor⟨2-2⟩ 5♥ 5♥ 6♥ 6♥", "pair 9♥ 9♥"]),
        ("5H 5H 6H 6H 7H 7H", ["tractor⟨2-2-2⟩ 5♥ 5♥ 6♥ 6♥ 7♥ 7♥"]),
        # The width is the fewest copies: 55 666 reads ⟨55-66⟩ + 6 (a tractor beats a triple).
        ("5H 5H 6H 6H 6H", ["tractor⟨2-2⟩ 5♥ 5♥ 6♥ 6♥", "single 6♥"]),
        # Equal largest components: the longer tractor from the lowest card wins.
        ("5H 5H 5H 6H 6H 6H 7H 7H", ["tractor⟨2-2-2⟩ 5♥ 5♥ 6♥ 6♥ 7♥ 7♥", "single 6♥", "single 5♥"]),
        # A quad and a tractor of equal size: the tractor is larger (R4.2's measure).
        ("5H 5H 6H 6H 6H 6H", ["tractor⟨2-2⟩ 5♥ 5♥ 6♥ 6♥", "pair 6♥ 6♥"]),
        ("3H 9H KH", ["single K♥", "single 9♥", "single 3♥"]),
    ],
)
def test_r4_2_lowest_first_splits(text: str, expected: list[str]) -> None:
    assert described(text, SPADES_10, LOWEST_FIRST) == expected


def test_r4_2_lowest_first_through_the_trump_ladder() -> None:
    """Trump ♠, level 10: the off-suit level cards share a position, walked ♠ < ♥ < ♦ < ♣; a
    tractor from ♠A climbs to either of them, the later suit preferred as rbtying/shengji does
    (its `from_cards` keeps ⟨♠A-♦10-♠10⟩ + ♥10 ♥10 here); the trump-suit ♠10 sits above them."""
    got = described("AS AS TH TH TD TD TS TS", SPADES_10, LOWEST_FIRST)
    assert got == ["tractor⟨2-2-2⟩ A♠ A♠ 10♦ 10♦ 10♠ 10♠", "pair 10♥ 10♥"]
    assert described("TH TH TS TS SJ SJ", SPADES_10, LOWEST_FIRST) == [
        "tractor⟨2-2-2⟩ 10♥ 10♥ 10♠ 10♠ SJ SJ"
    ]


def test_r4_2_r3_3_lowest_first_with_ace_low_tractors() -> None:
    """Under `ace_low_tractor` the plain A may start a tractor below the 2 when that makes the
    largest component larger; otherwise it stays at its own place."""
    rules = replace(LOWEST_FIRST, ace_low_tractor=True)
    hearts_2 = parse_trump("S", "2")  # ♥ runs 3..A, the A also below the 3
    assert described("AH AH 3H 3H 4H 4H", hearts_2, rules) == ["tractor⟨2-2-2⟩ A♥ A♥ 3♥ 3♥ 4♥ 4♥"]
    assert described("AH AH 3H 3H KH KH", hearts_2, rules) == [
        "tractor⟨2-2⟩ K♥ K♥ A♥ A♥",
        "pair 3♥ 3♥",
    ]
    no_low = replace(rules, ace_low_tractor=False)
    assert described("AH AH 3H 3H 4H 4H", hearts_2, no_low) == [
        "tractor⟨2-2⟩ 3♥ 3♥ 4♥ 4♥",
        "pair A♥ A♥",
    ]


def test_r4_2_stated_split_must_be_valid() -> None:
    cards = parse_cards("5H 5H 5H 5H 6H 6H")
    reading = read_lead(
        cards, SPADES_10, FOUR_DECK, [parse_cards("5H 5H 5H 5H"), parse_cards("6H 6H")]
    )
    assert [c.shape() for c in reading.components] == [(4, 1), (2, 1)]
    with pytest.raises(PlayError, match="not a unit or tractor"):
        read_lead(cards, SPADES_10, FOUR_DECK, [parse_cards("5H 5H 6H"), parse_cards("5H 5H 6H")])
    with pytest.raises(PlayError, match="does not use exactly the lead"):
        read_lead(cards, SPADES_10, FOUR_DECK, [parse_cards("5H 5H 5H 5H")])


def test_effective_suit() -> None:
    assert effective_suit(parse_cards("TH SJ 2S"), SPADES_10) == TRUMP
    assert effective_suit(parse_cards("2H 3H"), SPADES_10) == 1
    assert effective_suit(parse_cards("2H 3C"), SPADES_10) is None
    assert effective_suit((), SPADES_10) is None


# Matching a play to the lead's exact shape (used by R5 and R6)


def test_match_shape_exact_shape_only() -> None:
    lead = read_lead(parse_cards("9H 9H JH JH"), SPADES_10, FOUR_DECK)
    assert match_shape(parse_cards("3S 3S 4S 4S"), lead, SPADES_10, FOUR_DECK) is not None
    assert match_shape(parse_cards("3S 3S 5S 5S"), lead, SPADES_10, FOUR_DECK) is None
    assert match_shape(parse_cards("3S 3S 3S 3S"), lead, SPADES_10, FOUR_DECK) is None


def test_match_shape_answers_each_component_strongest_first() -> None:
    lead = read_lead(parse_cards("JH JH KH KH AH AH 8H"), SPADES_10, FOUR_DECK)
    assert [c.shape() for c in lead.components] == [(2, 2), (2, 1), (1, 1)]
    got = match_shape(parse_cards("5S 5S 6S 6S 7S 7S 2S"), lead, SPADES_10, FOUR_DECK)
    assert got is not None
    assert [c.describe() for c in got] == [
        "tractor⟨2-2⟩ 6♠ 6♠ 7♠ 7♠",
        "pair 5♠ 5♠",
        "single 2♠",
    ]
    every = list(iter_matches(parse_cards("5S 5S 6S 6S 7S 7S 2S"), lead, SPADES_10, FOUR_DECK))
    assert len(every) == 2 and every[0] == got


def test_match_shape_equal_shapes_pair_highest_with_highest() -> None:
    lead = read_lead(parse_cards("AH AH 9H 9H 4H"), SPADES_10, FOUR_DECK)
    got = match_shape(parse_cards("2S 2S 2S 2S 3S"), lead, SPADES_10, FOUR_DECK)
    assert got is not None and [c.shape() for c in got] == [(2, 1), (2, 1), (1, 1)]
    assert match_shape(parse_cards("2S 2S 3S 3S 4S"), lead, SPADES_10, FOUR_DECK) is not None
    assert match_shape(parse_cards("2S 2S 3S 4S 5S"), lead, SPADES_10, FOUR_DECK) is None
    assert match_shape(parse_cards("2S 2S 3S 3S 4H"), lead, SPADES_10, FOUR_DECK) is None


# Hypothesis properties


TRUMPS = st.builds(
    parse_trump, st.sampled_from(["S", "H", "C", "D", "NT"]), st.sampled_from(list("23456789TJQKA"))
)


@st.composite
def suit_holdings(draw, max_cards: int = 14):
    trump = draw(TRUMPS)
    rules = draw(st.sampled_from([FOUR_DECK, TWO_DECK, LOWEST_FIRST, RBTYING]))
    suits = [s for s in range(5) if suit_layout(trump, s).faces]
    suit = draw(st.sampled_from(suits))
    faces = suit_layout(trump, suit).faces
    picked = draw(st.lists(st.sampled_from(faces), min_size=1, max_size=max_cards))
    cards: list[Card] = []
    for f in picked:
        if cards.count(f) < rules.max_width:
            cards.append(f)
    return trump, rules, tuple(cards)


@settings(max_examples=150, deadline=None)
@given(suit_holdings())
def test_r4_2_reading_uses_exactly_the_leads_cards(case) -> None:
    trump, rules, cards = case
    reading = read_lead(cards, trump, rules)
    assert sorted(reading.cards()) == sorted(cards)
    keys = [component_key(c) for c in reading.components]
    assert keys == sorted(keys, reverse=True)
    for c in reading.components:
        # Every component is a genuine unit or tractor of the rules.
        again = as_component(c.cards(), trump, rules)
        assert again is not None and again.shape() == c.shape() and again.top == c.top


@settings(max_examples=60, deadline=None)
@given(suit_holdings(max_cards=8))
def test_r4_2_no_component_of_the_lead_is_larger_than_the_first(case) -> None:
    trump, rules, cards = case
    first = read_lead(cards, trump, rules).components[0]
    best = (first.size, first.is_tractor)
    for k in range(1, len(cards) + 1):
        for sub in set(combinations(sorted(cards), k)):
            c = as_component(sub, trump, rules)
            if c is not None:
                assert (c.size, c.is_tractor) <= best, (sub, first)


@settings(max_examples=100, deadline=None)
@given(suit_holdings())
def test_a_lead_matches_its_own_shape(case) -> None:
    trump, rules, cards = case
    reading = read_lead(cards, trump, rules)
    got = match_shape(cards, reading, trump, rules)
    assert got is not None
    assert [c.shape() for c in got] == [c.shape() for c in reading.components]
    # The strongest split is at least as high as the reading, component by component in order.
    assert [c.top for c in got] >= [c.top for c in reading.components]


def test_reading_of_a_reading_is_stable() -> None:
    cards = parse_cards("AH KH KH 3H 3H 3H 4H 4H 4H 9H")
    reading = read_lead(cards, SPADES_10, FOUR_DECK)
    again = read_lead(cards, SPADES_10, FOUR_DECK, [c.cards() for c in reading.components])
    assert again == reading
    assert isinstance(again, Reading)


# Brute-force cross-checks of the shape matcher (R5/R6 rely on it)


def _brute_splits(cards: tuple[Card, ...], shapes_left, trump, rules):
    """Every way to cut `cards` into components of `shapes_left`, in that order (slow)."""
    if not shapes_left:
        yield ()
        return
    width, length = shapes_left[0]
    for sub in set(combinations(sorted(cards), width * length)):
        c = as_component(sub, trump, rules)
        if c is None or c.shape() != (width, length):
            continue
        rest = list(cards)
        for x in sub:
            rest.remove(x)
        for more in _brute_splits(tuple(rest), shapes_left[1:], trump, rules):
            yield (c, *more)
    # An ace-low tractor and its plain reading only differ when both fit; as_component picks one.


def _canonical(split) -> tuple:
    return tuple(sorted((c.width, c.length, c.top, c.faces) for c in split))


@st.composite
def lead_and_play(draw):
    trump, rules, lead_cards = draw(suit_holdings(max_cards=7))
    reading = read_lead(lead_cards, trump, rules)
    suit = draw(st.sampled_from([s for s in range(5) if suit_layout(trump, s).faces]))
    faces = suit_layout(trump, suit).faces
    play: list[Card] = []
    while len(play) < len(lead_cards):
        f = draw(st.sampled_from(faces))
        if play.count(f) < rules.max_width:
            play.append(f)
    return trump, rules, reading, tuple(play)


@settings(max_examples=120, deadline=None)
@given(lead_and_play(), st.data())
def test_iter_matches_finds_every_split_once(case, data) -> None:
    trump, rules, reading, play = case
    shapes_ = [c.shape() for c in reading.components]
    brute = {_canonical(s) for s in _brute_splits(play, shapes_, trump, rules)}
    found = list(iter_matches(play, reading, trump, rules))
    assert len({_canonical(s) for s in found}) == len(found)
    assert {_canonical(s) for s in found} == brute
    for split in found:
        assert [c.shape() for c in split] == shapes_
        assert sorted(c for comp in split for c in comp.cards()) == sorted(play)
    if found:
        # Strongest first: the tops, in the lead's key order, are lexicographically greatest.
        order = sorted(
            range(len(shapes_)), key=lambda i: component_key(reading.components[i]), reverse=True
        )
        tops = [tuple(s[i].top for i in order) for s in found]
        assert tops[0] == max(tops)
        floors = [data.draw(st.integers(-2, 12)) for _ in shapes_]
        kept = list(iter_matches(play, reading, trump, rules, floors))
        expected = [s for s in found if all(c.top > f for c, f in zip(s, floors, strict=True))]
        assert {_canonical(s) for s in kept} == {_canonical(s) for s in expected}


# --- R4.2 `lowest_first` against a brute force of its text -----------------------------------


def oracle_lowest_first(cards, trump: TrumpContext, rules) -> set[tuple]:
    """Every split R4.2 `lowest_first` keeps, as sorted (width, length, top) triples: all splits
    built from the lowest card up (a tractor from it — the faces right above it, each held >= 2,
    width the fewest copies — or a unit of all its copies unless every tractor from it uses all
    copies of its faces), those whose largest component (card count, then tractor) is largest,
    and of those the ones whose choices, from the lowest card up, prefer the unit, then longer
    tractors. Under `ace_low_tractor` a plain A may first start a tractor below the 2 (not doing
    so preferred, like the unit)."""
    left = {f: cards.count(f) for f in set(cards)}

    def order(f: int) -> tuple[int, int]:
        return (trump.pos[f], "SHDC".find(format_card(f)[-1]))

    def tractors(first: int, start: int, end: int) -> list[tuple]:
        """Tractors (width, faces, top) from `first` standing on position `start`, climbing
        positions below `end`."""
        out = []

        def climb(faces, width, p):
            if len(faces) >= 2:
                out.append((width, faces, p))
            for g in left:
                if trump.pos[g] == p + 1 and p + 1 < end and left[g] >= 2:
                    climb((*faces, g), min(width, left[g]), p + 1)

        if left[first] >= 2:
            climb((first,), left[first], start)
        return out

    def splits(ace: int | None):
        """(choice ranks, components) of every complete split of `left`."""
        if ace is not None:
            options = [((0,), None)] + [
                ((1, -len(t[1])), t) for t in tractors(ace, -1, trump.pos[ace])
            ]
        elif not any(left.values()):
            yield (), ()
            return
        else:
            x = min((f for f in left if left[f]), key=order)
            runs = tractors(x, trump.pos[x], 99)
            options = [((1, -len(t[1])), t) for t in runs]
            if not runs or any(any(left[f] != t[0] for f in t[1]) for t in runs):
                options.append(((0,), (left[x], (x,), trump.pos[x])))
        for rank, comp in options:
            if comp is not None:
                for f in comp[1]:
                    left[f] -= comp[0]
            for ranks, comps in splits(None):
                yield (rank, *ranks), (comp, *comps) if comp is not None else comps
            if comp is not None:
                for f in comp[1]:
                    left[f] += comp[0]

    ace = None
    if rules.ace_low_tractor:
        ace = next((f for f in left if trump.low_pos[f] == -1), None)
    every = list(splits(ace))

    def largest(comps) -> tuple[int, bool]:
        return max((w * len(faces), len(faces) > 1) for w, faces, _ in comps)

    best = max(largest(c) for _, c in every)
    kept = [(r, c) for r, c in every if largest(c) == best]

    def preferred(a: tuple, b: tuple) -> bool:
        """`a`'s choices win over `b`'s at their first difference. Where one split has run out
        of choices there is no difference: the text prefers nothing there, so a split whose
        choices are the start of another's ties with it (the reader then takes the faces' suit
        order, `combos._LowestFirst.choices`)."""
        for x, y in zip(a, b, strict=False):
            if x != y:
                return bool(x < y)
        return False

    return {
        tuple(sorted((w, len(faces), top) for w, faces, top in c))
        for r, c in kept
        if not any(preferred(other, r) for other, _ in kept)
    }


@st.composite
def dense_leads(draw):
    """Up to 12 cards on a window of a few neighbouring faces (or the ends of the suit, for
    ace-low runs), so that splits compete."""
    trump = draw(TRUMPS)
    rules = draw(st.sampled_from([FOUR_DECK, TWO_DECK]))
    suit = draw(st.sampled_from([s for s in range(5) if suit_layout(trump, s).faces]))
    faces = sorted(suit_layout(trump, suit).faces, key=lambda f: trump.pos[f])
    start = draw(st.integers(0, max(0, len(faces) - 3)))
    window = faces[start : start + draw(st.integers(2, 5))]
    if draw(st.booleans()):
        window = sorted(set(window) | {faces[0], faces[1], faces[-1]}, key=lambda f: trump.pos[f])
    counts = draw(
        st.lists(st.integers(0, rules.max_width), min_size=len(window), max_size=len(window))
    )
    cards = tuple(f for f, k in zip(window, counts, strict=True) for _ in range(k))
    assume(1 <= len(cards) <= 12)
    return trump, rules, cards


def test_r4_2_lowest_first_ties_past_the_text_go_to_the_later_suit() -> None:
    """Trump ♠ at level 2: A♠ A♠ 2♥ 2♥ 2♥ 2♣ 2♣. The lowest card, A♠, starts a tractor with the
    off-suit 2s right above it, 2♥ or 2♣, both as long; what follows (a single 2♥ and a pair 2♣,
    or a triple 2♥) differs only where one split has run out of choices, where R4.2's text prefers
    neither. The oracle keeps both; the reader takes rbtying/shengji's reading: its
    `Trump::successor` lists the off-suit level cards ♠ ♥ ♦ ♣ (`ALL_SUITS`), so
    `find_tractors_from_start` finds the ♣ tractor after the ♥ one, and `TrickFormat::from_cards`
    keeps the last of the splits with the greatest largest component (mechanics/src/trick.rs).
    Found by the property below in CI."""
    trump = parse_trump("S", "2")
    cards = tuple(parse_cards("AS AS 2H 2H 2H 2C 2C"))
    for rules in (LOWEST_FIRST, RBTYING):
        reading = read_lead(cards, trump, rules)
        got = tuple(sorted((c.width, c.length, c.top) for c in reading.components))
        both = oracle_lowest_first(cards, trump, rules)
        assert len(both) == 2 and got in both
        assert [c.describe() for c in reading.components] == [
            "tractor⟨2-2⟩ A♠ A♠ 2♣ 2♣",
            "triple 2♥ 2♥ 2♥",
        ]


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        # Three off-suit level pairs: every tractor from A♠ uses all its cards, so no unit; ♣ is
        # the last suit rbtying tries.
        (
            "AS AS 2H 2H 2D 2D 2C 2C",
            ["tractor⟨2-2⟩ A♠ A♠ 2♣ 2♣", "pair 2♦ 2♦", "pair 2♥ 2♥"],
        ),
        (
            "AS AS 2H 2H 2H 2D 2D 2D 2C 2C",
            ["tractor⟨2-2⟩ A♠ A♠ 2♣ 2♣", "triple 2♦ 2♦ 2♦", "triple 2♥ 2♥ 2♥"],
        ),
        # ♣ is never wider (it is found last); where the largest component needs the wider ♥
        # tractor, that one is read.
        (
            "AS AS AS 2H 2H 2H 2C 2C",
            ["tractor⟨3-3⟩ A♠ A♠ A♠ 2♥ 2♥ 2♥", "pair 2♣ 2♣"],
        ),
    ],
)
def test_r4_2_lowest_first_equal_level_cards_as_rbtying_reads_them(
    lead: str, expected: list[str]
) -> None:
    """rbtying/shengji's reading of these leads (trump ♠, level 2), worked through its
    `find_plays_inner` and `TrickFormat::from_cards` without a format hint."""
    reading = read_lead(tuple(parse_cards(lead)), parse_trump("S", "2"), RBTYING)
    assert [c.describe() for c in reading.components] == expected


@settings(max_examples=250, deadline=None)
@given(dense_leads(), st.booleans())
def test_r4_2_lowest_first_agrees_with_a_brute_force_of_its_text(case, ace_low: bool) -> None:
    trump, rules, cards = case
    rules = replace(rules, throw_split="lowest_first", ace_low_tractor=ace_low)
    reading = read_lead(cards, trump, rules)
    got = tuple(sorted((c.width, c.length, c.top) for c in reading.components))
    assert got in oracle_lowest_first(cards, trump, rules), [
        c.describe() for c in reading.components
    ]


@pytest.mark.parametrize(
    ("trump", "window", "ace_low"),
    [
        (SPADES_10, "7H 8H 9H JH", False),  # a plain run across the level gap
        (SPADES_10, "KS AS TH TS", False),  # the trump ladder: A, an off-suit level card, ♠10
        (parse_trump("S", "2"), "AH 3H 4H KH", True),  # the A at both ends
    ],
)
def test_r4_2_lowest_first_every_lead_of_four_faces(trump, window: str, ace_low: bool) -> None:
    """Exhaustively, every lead of 0–4 copies of four neighbouring faces agrees with the brute
    force of R4.2 `lowest_first`."""
    rules = replace(LOWEST_FIRST, ace_low_tractor=ace_low)
    faces = parse_cards(window)
    for counts in itertools.product(range(5), repeat=len(faces)):
        cards = tuple(f for f, k in zip(faces, counts, strict=True) for _ in range(k))
        if not cards:
            continue
        reading = read_lead(cards, trump, rules)
        got = tuple(sorted((c.width, c.length, c.top) for c in reading.components))
        assert got in oracle_lowest_first(cards, trump, rules), window
