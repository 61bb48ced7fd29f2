"""R6 who wins a trick: R6.1 shape and suit, R6.2 throw_compare, R6.3 stronger shapes, R6.4 ties."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.cards import make_card, parse_cards, points_of
from shengji.combos import read_lead, suit_layout
from shengji.rules import FOUR_DECK, TWO_DECK, RuleSet
from shengji.trick import resolve_trick, trick_winner
from shengji.trump import TRUMP, TrumpContext, parse_trump

SPADES_10 = parse_trump("S", "T")
DIAMONDS_3 = parse_trump("D", "3")


def trick(
    *plays: str,
    voids: tuple[bool, ...] | None = None,
    leader: int = 0,
    trump: TrumpContext = SPADES_10,
    rules: RuleSet = FOUR_DECK,
    split=None,
):
    cards = [parse_cards(p) for p in plays]
    lead = read_lead(cards[0], trump, rules, split)
    seated = [((leader + i) % 4, c) for i, c in enumerate(cards)]
    if voids is None:
        voids = tuple(
            i > 0 and not any(trump.eff[c] == lead.suit for c in cards[i])
            for i in range(len(cards))
        )
    return resolve_trick(lead, seated, voids, trump, rules)


# R6.1


def test_r6_1_the_lead_stands_unless_beaten() -> None:
    verdict = trick("KH", "2H", "3H", "5H")
    assert verdict.winner == 0 and verdict.rule == "R6.1" and "stands" in verdict.reason


def test_r6_1_a_higher_card_of_the_led_suit_wins() -> None:
    verdict = trick("KH", "AH", "3H", "5H", leader=2)
    assert verdict.winner == 3 and verdict.winner_index == 1
    assert "A♥" in verdict.reason


def test_r6_1_discards_never_win() -> None:
    verdict = trick("2H", "AC", "AD", "3H")
    assert verdict.winner == 3


def test_r6_1_a_void_player_ruffs_and_can_be_over_ruffed() -> None:
    verdict = trick("AH", "2S", "3H", "3S")
    assert verdict.winner == 3 and "beats seat 1's" in verdict.reason
    verdict = trick("AH", "2S", "3H", "KH")
    assert verdict.winner == 1 and "ruffs" in verdict.reason


def test_r6_1_a_trump_play_from_a_player_holding_the_suit_does_not_win() -> None:
    verdict = trick("AH", "2S", voids=(False, False))
    assert verdict.winner == 0


def test_r6_1_a_trump_lead_is_followed_in_trump() -> None:
    verdict = trick("2S", "TH", "AS", "SJ", voids=(False, False, False, False))
    assert verdict.winner == 3


def test_r6_1_a_ruff_must_keep_the_shape() -> None:
    # Two unequal trumps do not beat a pair (seed 004: 两张主牌单张是无法杀掉对子的).
    verdict = trick("AH AH", "2S 3S", "4H 4H", "5S 5S")
    assert verdict.winner == 3
    verdict = trick("AH AH", "2S 3S", "4H 4H", "5C 5C")
    assert verdict.winner == 0


def test_r6_1_mixed_plays_never_win() -> None:
    verdict = trick("7H 7H", "8H 2S", "AH AH")
    assert verdict.winner == 2


def test_r6_1_off_suit_level_cards_tie_trump_level_card_beats_them() -> None:
    verdict = trick("TH", "TD", "TC", "TS", voids=(False,) * 4)
    assert verdict.winner == 3


# R6.4


def test_r6_4_ties_go_to_the_earlier_play() -> None:
    verdict = trick("TH", "TD", "TC", voids=(False,) * 3)
    assert verdict.winner == 0 and verdict.rule == "R6.4"
    assert "ties" in verdict.reason
    verdict = trick("9H", "AH", "AH", "AH", leader=1)
    assert verdict.winner == 2 and verdict.rule == "R6.4"


def test_r6_4_points_are_every_point_card_played() -> None:
    verdict = trick("KH", "5H", "TD", "5S")
    assert verdict.points == 10 + 5 + 10 + 5
    assert "30 points" in verdict.reason


# R6.2 throws


def test_r6_2_all_every_component_must_be_higher() -> None:
    lead = "9H 9H 5H"
    # Seat 1 ruffs with 33 + 2 (all trump); seat 2 over-ruffs with 44 + 7: both higher.
    assert trick(lead, "3S 3S 2S", "4S 4S 7S", "2C").winner == 2
    # 44 + 2: the pair is higher but the single ties: not beaten under `all`.
    verdict = trick(lead, "3S 3S 2S", "4S 4S 2S", "2C")
    assert verdict.winner == 1
    # Following in the led suit with a matching, higher throw.
    assert trick(lead, "TH TH 6H", "2C 2C 3C", "2D 2D 3D").winner == 0  # ♥10 is trump
    assert trick(lead, "JH JH 6H", "2C 2C 3C", "2D 2D 3D").winner == 1
    assert trick(lead, "JH JH 4H", "2C 2C 3C", "2D 2D 3D").winner == 0


def test_r6_2_all_finds_the_split_that_beats() -> None:
    # Lead ⟨JJ QQ⟩ + 55 (a gap at ♥6..♥10 keeps them apart); seat 1 ruffs ⟨33 44⟩ + 66.
    # Seat 2's 55 66 77 beats it read as ⟨55 66⟩ + 77, not as its strongest ⟨66 77⟩ + 55.
    lead = "JH JH QH QH 5H 5H"
    verdict = trick(lead, "3S 3S 4S 4S 6S 6S", "5S 5S 6S 6S 7S 7S", "2C 2C 3C 3C 4C 4C")
    assert verdict.winner == 2 and verdict.rule == "R6.2"
    assert [c.describe() for c in verdict.winning] == [
        "tractor⟨2-2⟩ 5♠ 5♠ 6♠ 6♠",
        "pair 7♠ 7♠",
    ]


def test_r6_2_equal_shapes_compare_highest_with_highest() -> None:
    lead = "AH AH 9H 9H 4H"
    # Seat 1 ruffs with 88 + 22 + 3. Seat 2's 77 + 66 + 5: its higher pair 77 meets 88 and loses.
    verdict = trick(lead, "8S 8S 2S 2S 3S", "6S 6S 7S 7S 5S")
    assert verdict.winner == 1
    verdict = trick(lead, "8S 8S 2S 2S 3S", "9S 9S 4S 4S 5S")
    assert verdict.winner == 2


def test_r6_2_highest_policy() -> None:
    rules = replace(FOUR_DECK, throw_compare="highest")
    lead = "9H 9H 5H"
    # 44 + 2 over 33 + 2: the highest card 4♠ beats 3♠ (`all` would not: the singles tie).
    assert trick(lead, "3S 3S 2S", "4S 4S 2S", "2C", rules=rules).winner == 2
    # 33 + 8 over 44 + 2: 8♠ is the highest card of all.
    assert trick(lead, "4S 4S 2S", "3S 3S 8S", "2C", rules=rules).winner == 2
    assert trick(lead, "4S 4S 2S", "3S 3S 8S", "2C").winner == 1
    # Equal highest cards: the earlier play keeps it.
    assert trick(lead, "4S 4S 8S", "5S 5S 8S", "2C", rules=rules).winner == 1


def test_r6_2_longest_unit_policy() -> None:
    rules = replace(FOUR_DECK, throw_compare="longest_unit")
    lead = "9H 9H 5H"
    # Only the pair counts: 44 + 2 beats 33 + 8 although its single is lower.
    assert trick(lead, "3S 3S 8S", "4S 4S 2S", "2C", rules=rules).winner == 2
    assert trick(lead, "3S 3S 8S", "4S 4S 2S", "2C").winner == 1
    # A higher single alone does not.
    assert trick(lead, "4S 4S 2S", "3S 3S 8S", "2C", rules=rules).winner == 1
    # A throw of singles is ranked by its highest single.
    assert trick("AH QH", "2S 5S", "4S 3S", rules=rules).winner == 1
    assert trick("AH QH", "2S 5S", "6S 3S", rules=rules).winner == 2


def test_r6_2_the_greatest_component_is_the_tractor_under_longest_unit() -> None:
    rules = replace(FOUR_DECK, throw_compare="longest_unit")
    lead = "7H 7H 8H 8H KH KH KH KH"  # ⟨7788⟩ + quad K: four cards each, the tractor first
    verdict = trick(lead, "3S 3S 4S 4S 9S 9S 9S 9S", "5S 5S 6S 6S 2S 2S 2S 2S", rules=rules)
    assert verdict.winner == 2


def test_r6_2_a_failed_throw_s_forced_component_is_the_lead() -> None:
    # After a failed throw the lead as played is one pair: a pair beats it normally.
    lead = read_lead(parse_cards("QH QH"), SPADES_10, FOUR_DECK)
    plays = [(0, parse_cards("QH QH")), (1, parse_cards("KH KH")), (2, parse_cards("2H 3H"))]
    verdict = resolve_trick(lead, plays, [False, False, False], SPADES_10, FOUR_DECK)
    assert verdict.winner == 1


# R6.3 stronger shapes


def test_r6_3_seed_002_666777_beats_qqkkaa() -> None:
    verdict = trick("QH QH KH KH AH AH", "6H 6H 6H 7H 7H 7H", "2H 2H 3H 3H 4H 4H")
    assert verdict.winner == 1 and verdict.rule == "R6.3"
    assert "stronger shape" in verdict.reason


def test_r6_3_seed_002_44445555_beats_jjqqkkaa() -> None:
    verdict = trick("JH JH QH QH KH KH AH AH", "4H 4H 4H 4H 5H 5H 5H 5H")
    assert verdict.winner == 1 and verdict.rule == "R6.3"


def test_r6_3_seed_002_triple_quad_tractor_beats_quadruple_triple_tractor() -> None:
    verdict = trick("JH JH JH QH QH QH KH KH KH AH AH AH", "6H 6H 6H 6H 7H 7H 7H 7H 8H 8H 8H 8H")
    assert verdict.winner == 1 and verdict.rule == "R6.3"


def test_r6_3_seed_002_quad_beats_the_joker_tractor_which_beats_the_level_tractor() -> None:
    # Level 3, ♦ trump: 四条 > 王连对 > 主级别指数连拖.
    verdict = trick(
        "3D 3D SJ SJ",
        "SJ SJ BJ BJ",
        "4D 4D 4D 4D",
        "2C 2C 4C 4C",
        trump=DIAMONDS_3,
        voids=(False,) * 4,
    )
    assert verdict.winner == 2 and verdict.rule == "R6.3"


def test_r6_3_wider_shape_first_then_rank() -> None:
    lead = "2H 2H 4H 4H 5H 5H 6H 6H"  # ⟨2-2-2-2⟩ at level 3
    trump = DIAMONDS_3
    verdict = trick(lead, "7H 7H 7H 7H 8H 8H 8H 8H", "9H 9H 9H 9H TH TH TH TH", trump=trump)
    assert verdict.winner == 2
    verdict = trick(lead, "9H 9H 9H 9H TH TH TH TH", "7H 7H 7H 7H 8H 8H 8H 8H", trump=trump)
    assert verdict.winner == 1
    # ⟨2-2-2⟩ lead: ⟨3-3⟩ is wider than any ⟨2-2-2⟩, however high.
    verdict = trick("2H 2H 4H 4H 5H 5H", "4H 4H 4H 5H 5H 5H", "QH QH KH KH AH AH", trump=trump)
    assert verdict.winner == 1


def test_r6_3_only_in_the_led_suit_or_trump_from_a_void() -> None:
    # A quad of another side suit is a discard.
    assert trick("5H 5H 6H 6H", "2C 2C 2C 2C").winner == 0
    # A trump quad from a void player ruffs; from a player holding hearts it does not win.
    assert trick("5H 5H 6H 6H", "2S 2S 2S 2S", voids=(False, True)).winner == 1
    assert trick("5H 5H 6H 6H", "2S 2S 2S 2S", voids=(False, False)).winner == 0


def test_r6_3_trump_class_comes_before_width() -> None:
    # Led ♥⟨2-2-2⟩: a trump ⟨2-2-2⟩ ruff outranks a ♥⟨3-3⟩ in either order (R6.1(b)).
    lead = "QH QH KH KH AH AH"
    first = trick(lead, "2S 2S 3S 3S 4S 4S", "6H 6H 6H 7H 7H 7H", voids=(False, True, False))
    assert first.winner == 1
    second = trick(lead, "6H 6H 6H 7H 7H 7H", "2S 2S 3S 3S 4S 4S", voids=(False, False, True))
    assert second.winner == 2


def test_r6_3_option_off_makes_stronger_shapes_plain_non_matching_plays() -> None:
    rules = replace(FOUR_DECK, stronger_shapes_win=False)
    assert trick("QH QH KH KH AH AH", "6H 6H 6H 7H 7H 7H", rules=rules).winner == 0
    assert trick("5H 5H 6H 6H", "2H 2H 2H 2H", rules=rules).winner == 0


def test_r6_3_only_for_tractor_leads() -> None:
    # A pair lead is not beaten by a wider unit of more cards, nor a throw by a tractor.
    assert trick("5H 5H 9H", "6H 6H 6H").winner == 0
    assert trick("5H 5H 9H 9H", "7H 7H 7H 7H").winner == 0


# Seed 002's trump tractor order, level 3, ♦ trump (as far as RULES.md agrees; see trick.py)


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("3D 3D SJ SJ", "SJ SJ BJ BJ"),
        ("3S 3S 3D 3D", "3D 3D SJ SJ"),
        ("AD AD 3H 3H", "3C 3C 3D 3D"),
        ("KD KD AD AD", "AD AD 3S 3S"),
    ],
)
def test_r3_2_r6_1_seed_002_trump_tractor_order(lower: str, higher: str) -> None:
    verdict = trick(lower, higher, trump=DIAMONDS_3, voids=(False, False))
    assert verdict.winner == 1
    verdict = trick(higher, lower, trump=DIAMONDS_3, voids=(False, False))
    assert verdict.winner == 0


def test_r2_3_off_suit_level_tractors_of_different_suits_tie() -> None:
    verdict = trick("AD AD 3H 3H", "AD AD 3C 3C", trump=DIAMONDS_3, voids=(False, False))
    assert verdict.winner == 0 and verdict.rule == "R6.4"


def test_two_deck_preset_tricks() -> None:
    verdict = trick("5H 5H 6H 6H", "2S 2S 3S 3S", rules=TWO_DECK, voids=(False, True))
    assert verdict.winner == 1


# Hypothesis properties


@st.composite
def tricks(draw):
    trump = parse_trump(draw(st.sampled_from("SHCD")) if draw(st.booleans()) else "NT", "7")
    rules = draw(
        st.sampled_from([FOUR_DECK, TWO_DECK, replace(FOUR_DECK, throw_compare="highest")])
    )
    suits = [s for s in range(5) if suit_layout(trump, s).faces]
    led = draw(st.sampled_from(suits))
    faces = suit_layout(trump, led).faces
    lead_cards = draw(st.lists(st.sampled_from(faces), min_size=1, max_size=6))
    lead_cards = [
        f for i, f in enumerate(lead_cards) if lead_cards[: i + 1].count(f) <= rules.decks
    ]
    size = len(lead_cards)
    plays = [tuple(lead_cards)]
    for _ in range(3):
        plays.append(tuple(draw(st.lists(st.integers(0, 53), min_size=size, max_size=size))))
    voids = [False] + [draw(st.booleans()) for _ in range(3)]
    leader = draw(st.integers(0, 3))
    return trump, rules, leader, plays, voids


@settings(max_examples=150, deadline=None)
@given(tricks())
def test_r6_a_trick_has_exactly_one_winner_among_its_players(case) -> None:
    trump, rules, leader, plays, voids = case
    lead = read_lead(plays[0], trump, rules)
    seated = [((leader + i) % 4, p) for i, p in enumerate(plays)]
    verdict = resolve_trick(lead, seated, voids, trump, rules)
    assert 0 <= verdict.winner_index < len(plays)
    assert verdict.winner == seated[verdict.winner_index][0]
    assert verdict.points == sum(points_of(p) for p in plays)
    assert verdict.rule in {"R6.1", "R6.2", "R6.3", "R6.4"}
    assert sum(len(c.cards()) for c in verdict.winning) == len(plays[0])


@settings(max_examples=150, deadline=None)
@given(tricks())
def test_r6_the_winner_alone_is_the_verdict_without_its_reason(case) -> None:
    """`trick_winner` (the review's resolve, which spells no reason) says what `resolve_trick`
    says: the same winner, index, points, rule and winning split."""
    trump, rules, leader, plays, voids = case
    lead = read_lead(plays[0], trump, rules)
    seated = [((leader + i) % 4, p) for i, p in enumerate(plays)]
    full = resolve_trick(lead, seated, voids, trump, rules)
    assert full.reason
    assert trick_winner(lead, seated, voids, trump, rules) == replace(full, reason="")


@settings(max_examples=150, deadline=None)
@given(tricks())
def test_r6_the_last_play_against_the_winner_so_far_is_the_whole_verdict(case) -> None:
    """R6 compares each play with the winner so far: given the verdict on all plays but the
    last, comparing the last play alone gives the whole trick's winner, split, points and rule."""
    trump, rules, leader, plays, voids = case
    lead = read_lead(plays[0], trump, rules)
    seated = [((leader + i) % 4, p) for i, p in enumerate(plays)]
    for n in range(2, len(seated) + 1):
        before = trick_winner(lead, seated[: n - 1], voids[: n - 1], trump, rules)
        whole = trick_winner(lead, seated[:n], voids[:n], trump, rules)
        assert trick_winner(lead, seated[:n], voids[:n], trump, rules, before) == whole


def test_r6_4_a_tie_before_the_last_play_stays_a_tie() -> None:
    lead = read_lead(parse_cards("5H 5H"), SPADES_10, FOUR_DECK)
    seated = [(0, parse_cards("5H 5H")), (1, parse_cards("5H 5H")), (2, parse_cards("3H 4H"))]
    before = trick_winner(lead, seated[:2], [False] * 2, SPADES_10, FOUR_DECK)
    assert (before.winner, before.rule) == (0, "R6.4")
    whole = trick_winner(lead, seated, [False] * 3, SPADES_10, FOUR_DECK)
    assert trick_winner(lead, seated, [False] * 3, SPADES_10, FOUR_DECK, before) == whole
    assert whole.rule == "R6.4"


def test_r6_4_the_winner_alone_keeps_the_tie_rule() -> None:
    """A tie after a change of winner: both resolves say R6.4; the reason still names R6.2."""
    rules = FOUR_DECK
    lead = read_lead(parse_cards("3H 3H 5H"), SPADES_10, rules)
    seated = [
        (0, parse_cards("3H 3H 5H")),
        (1, parse_cards("4H 4H 6H")),
        (2, parse_cards("4H 4H 6H")),
    ]
    full = resolve_trick(lead, seated, [False] * 3, SPADES_10, rules)
    assert (full.winner, full.rule) == (1, "R6.4")
    assert "R6.2" in full.reason
    assert trick_winner(lead, seated, [False] * 3, SPADES_10, rules) == replace(full, reason="")


@settings(max_examples=150, deadline=None)
@given(
    level=st.sampled_from(list("23456789TJQKA")),
    width=st.integers(1, 4),
    length=st.integers(1, 4),
    start=st.integers(0, 10),
    shift=st.integers(1, 10),
    seat=st.integers(1, 3),
)
def test_r6_1_same_shape_higher_in_the_led_suit_wins(level, width, length, start, shift, seat):
    trump = parse_trump("S", level)
    if width == 1:
        length = 1
    faces = suit_layout(trump, 1).faces  # hearts, one face per position
    if start + shift + length > len(faces):
        return
    lead = tuple(f for f in faces[start : start + length] for _ in range(width))
    higher = tuple(f for f in faces[start + shift : start + shift + length] for _ in range(width))
    plays = [lead]
    for i in range(1, 4):
        plays.append(higher if i == seat else tuple([make_card(2, 2)] * len(lead)))
    reading = read_lead(lead, trump, FOUR_DECK)
    assert reading.suit == 1 and reading.suit != TRUMP
    seated = [(i, p) for i, p in enumerate(plays)]
    verdict = resolve_trick(reading, seated, [False, False, False, False], trump, FOUR_DECK)
    assert verdict.winner == seat


@st.composite
def spaced_throws(draw):
    """A ♥ throw of components two or more positions apart (so it reads as drawn), inside
    positions 1..10 so that an ace-low run cannot form, and a copy one position higher."""
    trump = parse_trump("S", draw(st.sampled_from(list("23456789TJQKA"))))
    rules = draw(
        st.sampled_from(
            [FOUR_DECK, *(replace(FOUR_DECK, throw_compare=p) for p in ("highest", "longest_unit"))]
        )
    )
    faces = suit_layout(trump, 1).faces
    parts = []
    p = draw(st.integers(1, 3))
    while p <= 10 and len(parts) < 4:
        width = draw(st.integers(1, 4))
        length = 1 if width == 1 else draw(st.integers(1, 2))
        if p + length - 1 > 10:
            break
        parts.append((width, p, length))
        p += length + draw(st.integers(1, 3))
    if len(parts) < 2:
        parts = [(1, 2, 1), (2, 5, 1)]

    def cards(shift: int) -> tuple[int, ...]:
        return tuple(
            faces[q + shift]
            for width, start, length in parts
            for q in range(start, start + length)
            for _ in range(width)
        )

    return trump, rules, cards(0), cards(1)


@settings(max_examples=100, deadline=None)
@given(spaced_throws(), st.integers(1, 3))
def test_r6_2_a_throw_copied_one_rank_higher_in_the_led_suit_wins(case, seat) -> None:
    trump, rules, lead_cards, higher = case
    lead = read_lead(lead_cards, trump, rules)
    assert lead.is_throw
    plays = [lead_cards] + [
        higher if i == seat else tuple([make_card(2, 2)] * len(lead_cards)) for i in (1, 2, 3)
    ]
    verdict = resolve_trick(lead, list(enumerate(plays)), [False] * 4, trump, rules)
    assert verdict.winner == seat and verdict.rule == "R6.2"


def test_reasons_spell_components_like_component_describe() -> None:
    from shengji.trick import describe_play

    for text in ["7H", "7H 7H", "7H 7H 7H", "AS AS TD TD TS TS", "AH AH 2H 2H 3H 3H"]:
        comp = read_lead(parse_cards(text), SPADES_10, FOUR_DECK).components[0]
        assert describe_play([comp, comp]) == f"{comp.describe()} + {comp.describe()}"
