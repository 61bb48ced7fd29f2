"""R8 (shows, overturns, the banker, the no-show reveal and redeal, the bury, frying) and R9's
two-deck shows, judged by `shengji.bidding.settle`."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hh_builder import Shoe, bidding_hand, dealt_count

from shengji.bidding import Bidding, bottom_trump, read_show, settle
from shengji.cards import Hand, full_deck, parse_cards
from shengji.record import Fry, HandRecord, Show, split_deal
from shengji.rules import TWO_DECK


def _settle(record: HandRecord) -> Bidding:
    dealt, bottom = split_deal(record.deal, record.rules)
    return settle(record, dealt, bottom, line=7)


def _codes(result: Bidding) -> list[str]:
    return [f.code for f in result.findings]


def _show(seat: int, cards: str, dealt: int = 200, trump: str | None = None) -> Show:
    return Show(seat, parse_cards(cards), dealt, trump)


def _conserves_the_deck(result: Bidding, decks: int = 4) -> bool:
    everything = [c for h in result.start for c in h] + list(result.bottom_buried)
    return Hand.of(everything) == Hand.of(full_deck(decks))


def test_r8_2_seed_002_strength_orders() -> None:
    def order(level: int, shows: list[str]) -> list[tuple[int, int]]:
        readings = [read_show(parse_cards(s), level) for s in shows]
        assert all(r is not None for r in readings)
        return [r.strength for r in readings if r is not None]

    level3 = ["3S", "3S 3S", "SJ SJ", "BJ BJ", "3H 3H 3H", "SJ SJ SJ", "BJ BJ BJ", "3D 3D 3D 3D"]
    level3 += ["SJ SJ SJ SJ", "BJ BJ BJ BJ"]
    strengths = order(3, level3)
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)
    level10 = ["TH", "TD TD", "TC TC", "TH TH", "TS TS", "SJ SJ", "BJ BJ", "SJ SJ SJ SJ"]
    strengths = order(10, level10)
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)


def test_r8_1_what_a_show_names() -> None:
    assert read_show(parse_cards("5H 5H"), 5).trump == "H"  # type: ignore[union-attr]
    assert read_show(parse_cards("BJ BJ"), 5).trump == "NT"  # type: ignore[union-attr]
    assert read_show(parse_cards("5H 5S"), 5) is None
    assert read_show(parse_cards("6H"), 5) is None
    assert read_show(parse_cards("SJ BJ"), 5) is None


def test_r8_4_first_hand_the_standing_show_becomes_banker() -> None:
    shoe = Shoe(1).give(1, "2H").give(3, "5C 2S 2S")
    deal = shoe.deal()
    record = bidding_hand(
        deal,
        banker=None,
        bids=[_show(1, "2H", dealt_count(0, 1, 1)), _show(3, "2S 2S", dealt_count(0, 3, 3))],
        bury_seat=3,
    )
    result = _settle(record)
    assert _codes(result) == []
    assert result.banker == 3 and result.trump is not None and result.trump.suit == 0
    assert result.trump_source == "overturn" and result.level == 2
    assert [(b.kind, b.trump, b.valid) for b in result.bids] == [
        ("show", "H", True),
        ("overturn", "S", True),
    ]
    assert result.banker_before_bury is not None and len(result.banker_before_bury) == 60
    assert [len(h) for h in result.start] == [52, 52, 52, 52]
    assert _conserves_the_deck(result)


def test_r8_4_later_hands_shows_only_set_trump() -> None:
    deal = Shoe(2).give(1, "5D").deal()
    record = bidding_hand(deal, banker=0, bids=[_show(1, "5D", 10)], levels=(5, 9))
    result = _settle(record)
    assert _codes(result) == [] and result.banker == 0
    assert result.trump is not None and result.trump.suit == 3 and result.trump.level == 5


def test_r8_1_a_show_of_cards_not_yet_dealt_is_flagged_and_still_applied() -> None:
    shoe = Shoe(3).give(2, "2C 9S 9S 9S 2C")
    record = bidding_hand(shoe.deal(), banker=0, bids=[_show(2, "2C 2C", dealt_count(0, 2, 3))])
    result = _settle(record)
    assert _codes(result) == ["show_not_held"]
    finding = result.findings[0]
    assert (finding.seat, finding.line, finding.trick) == (2, 7, None)
    assert "2♣" in finding.reason
    assert result.trump is not None and result.trump.suit == 2 and not result.rejected


def test_r8_2_a_weaker_or_equal_overturn_is_flagged() -> None:
    shoe = Shoe(4).give(0, "2H 2H").give(1, "2D 2D").give(2, "2S 2S")
    bids = [_show(0, "2H 2H", 20), _show(1, "2D 2D", 30), _show(2, "2S 2S", 40)]
    result = _settle(bidding_hand(shoe.deal(), banker=1, bids=bids))
    assert _codes(result) == ["weak_show"]
    assert result.findings[0].seat == 1
    assert [b.valid for b in result.bids] == [True, False, True]
    assert result.trump is not None and result.trump.suit == 0


def test_r8_3_no_self_overturn_but_reinforcing_is_allowed() -> None:
    shoe = Shoe(5).give(1, "2H 2H 2S 2S")
    ok = [_show(1, "2H", 10), _show(1, "2H 2H", 20)]
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=ok))
    assert _codes(result) == [] and [b.kind for b in result.bids] == ["show", "show"]
    bad = [_show(1, "2H", 10), _show(1, "2S 2S", 20)]
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=bad))
    assert _codes(result) == ["self_overturn"]


def test_r8_1_a_first_joker_show_needs_four_and_four_jokers_may_name_a_suit() -> None:
    shoe = Shoe(6).give(3, "SJ SJ BJ BJ BJ BJ")
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=[_show(3, "SJ SJ")]))
    assert _codes(result) == ["bad_show"] and "needs four" in result.findings[0].reason
    named = [_show(3, "BJ BJ BJ BJ", trump="H")]
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=named))
    assert _codes(result) == [] and result.trump is not None and result.trump.suit == 1
    plain = [_show(3, "BJ BJ BJ BJ")]
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=plain))
    assert result.trump is not None and result.trump.suit is None


def test_r8_1_trump_named_by_a_show_that_is_not_four_jokers() -> None:
    shoe = Shoe(7).give(0, "2H")
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=[_show(0, "2H", 10, "S")]))
    assert _codes(result) == ["bad_show"] and result.trump is not None
    assert result.trump.suit == 1


def test_a_show_that_names_nothing_is_ignored() -> None:
    shoe = Shoe(8).give(0, "2H 9H")
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=[_show(0, "2H 9H", 10)]))
    assert _codes(result) == ["bad_show"]
    assert result.trump_source == "bottom" and result.bids[0].trump == ""


def test_shows_after_the_deal_or_out_of_order_are_flagged() -> None:
    shoe = Shoe(9).give(0, "2H 2S 2S")
    bids = [_show(0, "2H", 209)]
    assert _codes(_settle(bidding_hand(shoe.deal(), banker=1, bids=bids))) == ["bad_show"]
    bids = [_show(0, "2H", 100), _show(2, "BJ BJ BJ BJ", 50)]
    shoe = Shoe(9).give(0, "2H").give(2, "BJ BJ BJ BJ")
    assert _codes(_settle(bidding_hand(shoe.deal(), banker=1, bids=bids))) == ["bad_show"]


@pytest.mark.parametrize(
    ("bottom", "level", "suit"),
    [
        ("3S 4H 7D 9C 7C 5S 6S 8S", 7, 3),  # the first level card's suit
        ("3S 4H 8D 9C AC 5S 6S 8S", 7, 0),  # no level card: the first card's suit
        ("SJ 4H 8D 9C AC 5S 6S 8S", 7, None),  # a joker first: no-trump
        ("SJ 4H 7H 9C AC 5S 6S 8S", 7, 1),  # a level card wins over a joker first
    ],
)
def test_r8_5_trump_from_the_bottom(bottom: str, level: int, suit: int | None) -> None:
    assert bottom_trump(parse_cards(bottom), level) == suit


def test_r8_5_nobody_showed_in_a_later_hand_trump_comes_from_the_bottom() -> None:
    shoe = Shoe(10).bottom("3S 4H 2D 9C AC 5S 6S 8S")
    result = _settle(bidding_hand(shoe.deal(), banker=2))
    assert _codes(result) == [] and result.trump_source == "bottom"
    assert result.trump is not None and result.trump.suit == 3


def test_r8_5_nobody_showed_in_a_first_hand_is_a_redeal() -> None:
    deal = Shoe(11).deal()
    result = _settle(bidding_hand(deal, banker=None))
    assert _codes(result) == ["no_show"] and result.rejected
    redeal = bidding_hand(deal, banker=None, end="redeal")
    result = _settle(redeal)
    assert _codes(result) == [] and result.redeal and not result.rejected
    assert result.trump is None and result.banker is None
    wrong = bidding_hand(deal, banker=1, end="redeal")
    result = _settle(wrong)
    assert _codes(result) == ["bad_redeal"] and "already known" in result.findings[0].reason


def test_r8_6_the_bury() -> None:
    deal = Shoe(12).deal()
    good = bidding_hand(deal, banker=2)
    result = _settle(good)
    assert _codes(result) == [] and result.bottom_buried == split_deal(deal)[1]
    wrong_seat = replace(good, bury=replace(good.bury, seat=1))  # type: ignore[type-var]
    assert _codes(_settle(wrong_seat)) == ["bad_bury"] and not _settle(wrong_seat).rejected
    short = replace(good, bury=replace(good.bury, cards=good.bury.cards[:7]))  # type: ignore[type-var, union-attr]
    assert _codes(_settle(short)) == ["bad_bury"] and _settle(short).rejected
    hand1 = split_deal(deal)[0][1].cards()[:8]
    foreign = replace(good, bury=replace(good.bury, cards=hand1))  # type: ignore[type-var]
    result = _settle(foreign)
    assert (
        _codes(result) == ["bad_bury"]
        and result.rejected
        and "does not hold" in (result.findings[0].reason)
    )
    missing = replace(good, bury=None)
    assert _codes(_settle(missing)) == ["bad_bury"]
    abandoned_early = replace(good, bury=None, end="abandoned")
    assert _codes(_settle(abandoned_early)) == [] and not _settle(abandoned_early).rejected


def test_r8_7_a_fry_takes_the_bottom_and_buries_anew_the_banker_stays() -> None:
    shoe = Shoe(13).give(0, "2H").give(3, "2S 2S")
    deal = shoe.deal()
    record = bidding_hand(deal, banker=0, bids=[_show(0, "2H", 1)])
    dealt, bottom = split_deal(deal)
    fry_bury = dealt[3].cards()[-8:]
    fried = replace(record, fries=(Fry(3, parse_cards("2S 2S"), fry_bury),))
    result = _settle(fried)
    assert _codes(result) == []
    assert result.banker == 0 and result.trump_source == "fry"
    assert result.trump is not None and result.trump.suit == 0
    assert result.bottom_buried == fry_bury
    assert result.start[3] == dealt[3].add(bottom).remove(fry_bury)
    assert result.bids[-1].kind == "fry" and result.bids[-1].buried == fry_bury
    assert _conserves_the_deck(result)


def test_r8_7_four_joker_fry_may_name_no_trump_or_a_suit() -> None:
    shoe = Shoe(14).give(0, "2H").give(1, "BJ BJ BJ BJ")
    deal = shoe.deal()
    dealt, _ = split_deal(deal)
    base = bidding_hand(deal, banker=0, bids=[_show(0, "2H", 1)])
    for named, suit in [(None, None), ("D", 3), ("NT", None)]:
        fry = Fry(1, parse_cards("BJ BJ BJ BJ"), dealt[1].cards()[:8], named)
        result = _settle(replace(base, fries=(fry,)))
        assert _codes(result) == [] and result.trump is not None and result.trump.suit == suit


def test_r8_7_faults_of_a_fry() -> None:
    shoe = Shoe(15).give(0, "2H 2H").give(1, "2D 2D 2S 2S")
    deal = shoe.deal()
    dealt, bottom = split_deal(deal)
    base = bidding_hand(deal, banker=0, bids=[_show(0, "2H 2H", 10)])
    weak = Fry(1, parse_cards("2D 2D"), dealt[1].cards()[:8])
    assert _codes(_settle(replace(base, fries=(weak,)))) == ["weak_show"]
    own = Fry(0, parse_cards("2S 2S"), bottom)
    result = _settle(replace(base, fries=(own,)))
    assert "show_not_held" in _codes(result) and "self_overturn" in _codes(result)
    no_show = bidding_hand(deal, banker=0)
    after_bottom = Fry(1, parse_cards("2S 2S"), dealt[1].cards()[:8])
    assert _codes(_settle(replace(no_show, fries=(after_bottom,)))) == ["bad_fry"]
    bad_bury = Fry(1, parse_cards("2S 2S"), dealt[2].cards()[:8])
    result = _settle(replace(base, fries=(bad_bury,)))
    assert _codes(result) == ["bad_bury"] and result.rejected


def test_r9_two_deck_shows() -> None:
    shoe = Shoe(16, TWO_DECK).give(0, "2H").give(1, "2D").give(2, "2S 2S").give(3, "SJ SJ")
    deal = shoe.deal()
    ok = [_show(0, "2H", 1), _show(2, "2S 2S", 40), _show(3, "SJ SJ", 60)]
    result = _settle(bidding_hand(deal, banker=None, bids=ok, bury_seat=3, rules=TWO_DECK))
    assert _codes(result) == [] and result.banker == 3
    assert result.trump is not None and result.trump.suit is None
    assert [len(h) for h in result.start] == [25] * 4
    assert _conserves_the_deck(result, decks=2)
    single = [_show(1, "2D", 2), _show(0, "2H", 5)]
    result = _settle(bidding_hand(deal, banker=1, bids=single, rules=TWO_DECK))
    assert _codes(result) == ["bad_show"] and "pair" in result.findings[0].reason
    jokers = [_show(3, "SJ SJ", 60)]
    result = _settle(bidding_hand(deal, banker=1, bids=jokers, rules=TWO_DECK))
    assert _codes(result) == ["bad_show"] and "R9" in result.findings[0].reason
