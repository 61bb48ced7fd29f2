"""R1: cards, tokens, points, the four-deck shoe; R2: trump context and card order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shengji.cards import (
    BIG_JOKER,
    SMALL_JOKER,
    CardError,
    Hand,
    format_cards,
    full_deck,
    parse_card,
    parse_cards,
    points_of,
)
from shengji.trump import TRUMP, parse_trump


def test_r1_2_four_decks_hold_216_cards_four_of_each_face() -> None:
    deck = full_deck(4)
    assert len(deck) == 216
    assert all(n == 4 for n in Hand.of(deck).counts)


def test_r1_4_four_decks_hold_400_points() -> None:
    assert points_of(full_deck(4)) == 400
    assert points_of(parse_cards("5H TS KD 9C SJ")) == 25


def test_tokens_accept_10_and_write_t() -> None:
    assert parse_card("10H") == parse_card("TH")
    assert format_cards(parse_cards("10H  AS\tSJ")) == "TH AS SJ"
    assert parse_card("SJ") == SMALL_JOKER and parse_card("BJ") == BIG_JOKER
    assert parse_card("JS") != SMALL_JOKER


@pytest.mark.parametrize("bad", ["1H", "XX", "AZ", "", "11S"])
def test_bad_token_is_named(bad: str) -> None:
    with pytest.raises(CardError, match=repr(bad).replace("[", r"\[")):
        parse_card(bad)


@given(st.lists(st.integers(0, 53), max_size=60))
def test_parse_format_identity(cards: list[int]) -> None:
    assert parse_cards(format_cards(cards)) == tuple(cards)


def test_hand_remove_lacking_card_raises() -> None:
    hand = Hand.of(parse_cards("AS AS KH"))
    assert hand.remove(parse_cards("AS")).cards() == parse_cards("AS KH")
    with pytest.raises(CardError, match="not in hand: AS"):
        hand.remove(parse_cards("AS AS AS"))


def test_r2_2_level_cards_and_jokers_are_trump() -> None:
    t = parse_trump("S", "T")
    assert t.eff[parse_card("TH")] == TRUMP
    assert t.eff[parse_card("2S")] == TRUMP
    assert t.eff[parse_card("AH")] == 1
    nt = parse_trump("NT", "5")
    assert nt.eff[parse_card("5D")] == TRUMP and nt.eff[parse_card("AS")] == 0


def test_r2_3_trump_order() -> None:
    t = parse_trump("S", "T")
    order = [t.pos[parse_card(x)] for x in ["BJ", "SJ", "TS", "TH", "AS", "KS", "2S"]]
    assert order == sorted(order, reverse=True)
    assert t.pos[parse_card("TH")] == t.pos[parse_card("TD")]


def test_r2_4_side_suit_order_skips_level() -> None:
    t = parse_trump("S", "6")
    assert t.pos[parse_card("7C")] == t.pos[parse_card("5C")] + 1
    assert t.pos[parse_card("AC")] > t.pos[parse_card("KC")]


_TOKEN_VARIANTS = st.sampled_from(
    [format_cards([c]) for c in range(54)] + ["10S", "as", "sj", "XX", "1S", "S", "é", "TS\t"]
)


@given(st.lists(_TOKEN_VARIANTS, max_size=8), st.sampled_from([" ", "  ", "\t", " \n ", ","]))
def test_parse_cards_reads_any_spacing_as_the_token_by_token_reading(
    tokens: list[str], sep: str
) -> None:
    """Canonical text is read from its bytes without splitting; whatever the text, the cards (or
    the error) are those of reading it token by token."""
    text = sep.join(tokens)
    try:
        expected: object = tuple(parse_card(t) for t in text.split())
    except CardError as e:
        expected = str(e)
    try:
        got: object = parse_cards(text)
    except CardError as e:
        got = str(e)
    assert got == expected


@given(st.lists(st.integers(0, 53), max_size=216))
def test_canonical_card_text_reads_back(cards: list[int]) -> None:
    assert parse_cards(format_cards(cards)) == tuple(cards)
