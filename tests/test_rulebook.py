"""The rule book, rule by rule: a test for every rule id of RULES.md (R1.1 … R9) and for every worked
example of RULES.md and of the seeds (002 and 004 four-deck, 003 two-deck), fed through the
referee (`shengji.referee.judge`) wherever a request can express it. R8 (declaring trump) is judged
on whole hands by the bidding module; `R8_COVERED_BY` names the tests that cover each R8 id.

The last tests scan the test files: every rule id RULES.md mentions must be named (in a test's
name or docstring) by some test, and by one in this file unless it is listed in `R8_COVERED_BY`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from test_scoring import FOUR_DECK_TABLE

from shengji.cards import Hand, full_deck, parse_cards, points_of
from shengji.referee import judge
from shengji.rules import FOUR_DECK, OPTION_NAMES, RBTYING, TWO_DECK, RuleError, rules_from_spec
from shengji.scoring import (
    LevelOutcome,
    TrickScore,
    ladder_points,
    next_banker,
    score_hand,
    team_of,
    throw_penalty,
)
from shengji.shape import Component, Reading
from shengji.trump import TRUMP, parse_trump

TESTS = Path(__file__).resolve().parent
README = TESTS.parent / "README.md"
RULE_BOOKS = (TESTS.parent / "docs" / "rules.md", Path("/work/shared/RULES.md"))
"""Where the rule book may be: a copy in the repository, or the shared original."""
RULE_IDS = (
    *(f"R1.{i}" for i in range(1, 5)),
    *(f"R2.{i}" for i in range(1, 6)),
    *(f"R3.{i}" for i in range(1, 5)),
    *(f"R4.{i}" for i in range(1, 6)),
    *(f"R5.{i}" for i in range(1, 5)),
    *(f"R6.{i}" for i in range(1, 5)),
    *(f"R7.{i}" for i in range(1, 6)),
    *(f"R8.{i}" for i in range(1, 8)),
    *(f"R{i}" for i in range(1, 10)),
)
"""The rule ids of RULES.md, for when the rule book itself is not at hand."""

# --- talking to the referee -----------------------------------------------------------------------


def ref(kind: str, **fields: Any) -> dict[str, Any]:
    """The referee's verdict; a request of this file must always be judgeable."""
    response = judge({"id": "rb", "kind": kind, **fields}).response
    assert "error" not in response, response
    return response


def refuse(kind: str, **fields: Any) -> str:
    response = judge({"id": "rb", "kind": kind, **fields}).response
    assert "error" in response, response
    return str(response["error"])


def read(cards: str, trump: str = "S", level: str = "2", rules: Any = "four-deck") -> list[str]:
    """A lead as the referee reads it: `kind:cards` per component, largest first."""
    got = ref("format", cards=cards, trump=trump, level=level, rules=rules)
    return [f"{c['kind']}:{c['cards']}" for c in got["components"]]


def is_tractor(cards: str, trump: str = "S", level: str = "2", rules: Any = "four-deck") -> bool:
    got = read(cards, trump, level, rules)
    return len(got) == 1 and got[0].startswith("tractor:")


def follow(
    lead: str,
    hand: str,
    play: str,
    trump: str = "S",
    level: str = "2",
    rules: Any = "four-deck",
) -> tuple[bool, str]:
    """(legal, rule) of `play` from `hand` (which holds the play) to `lead`."""
    got = ref("follow", lead=lead, hand=hand, play=play, trump=trump, level=level, rules=rules)
    return got["legal"], got["rule"]


def trick(
    plays: list[str],
    trump: str = "S",
    level: str = "2",
    extra: list[str] | None = None,
    rules: Any = "four-deck",
) -> dict[str, Any]:
    """A trick whose holdings are each seat's play plus `extra` cards; seat 0 leads."""
    extra = extra or ["", "", "", ""]
    hands = [f"{p} {e}".strip() for p, e in zip(plays, extra, strict=True)]
    return ref("trick", hands=hands, plays=plays, trump=trump, level=level, rules=rules)


def winner(plays: list[str], **kw: Any) -> int:
    got = trick(plays, **kw)
    assert got["illegal"] == [], got
    return int(got["winner"])


# --- R1 players, cards, deal ----------------------------------------------------------------------


def test_r1_1_seats_play_in_order_and_partners_sit_opposite() -> None:
    """R1.1: plays come from seats 0, 1, 2, 3 in order; {0, 2} and {1, 3} are partners."""
    # Two equal aces: the earlier seat (1, not 3) wins, so play order is seat order.
    assert winner(["7H", "AH", "KH", "AH"]) == 1
    assert team_of(0) == team_of(2) != team_of(1) == team_of(3)
    assert next_banker(3, banker_won=True) == 1


def test_r1_2_four_decks_four_copies_of_every_face() -> None:
    """R1.2: 216 cards, every face four times; a fifth copy cannot be played."""
    assert len(full_deck(4)) == 216 and set(Hand.of(full_deck(4)).counts) == {4}
    assert read("BJ BJ BJ BJ") == ["quad:BJ BJ BJ BJ"]
    assert "copies" in refuse("format", cards="7H 7H 7H 7H 7H", trump="S", level="2")


def test_r1_3_deal_52_each_and_8_in_the_bottom() -> None:
    """R1.3: four decks deal 52 to each seat and leave 8 (seed 004's count; 002's 51 is wrong)."""
    assert (FOUR_DECK.hand_size, FOUR_DECK.bottom_size) == (52, 8)
    assert 4 * FOUR_DECK.hand_size + FOUR_DECK.bottom_size == FOUR_DECK.deck_size == 216
    assert "bottom has 7 cards" in refuse(
        "bottom",
        lead="7H",
        winning_play="AH",
        bottom="3C 4C 6C 7C 8C 9C JC",
        attackers_won=True,
        trump="S",
        level="2",
    )


def test_r1_4_point_cards_and_the_400_points() -> None:
    """R1.4: 5 = 5, 10 = 10, K = 10; four decks hold 400 points; a trick's points count them."""
    assert points_of(full_deck(4)) == 400 == FOUR_DECK.total_points
    assert trick(["5H", "TH", "KH", "QH"])["points"] == 25


# --- R2 levels, trump, card order -----------------------------------------------------------------


def test_r2_1_the_level_rank_is_trump() -> None:
    """R2.1: the hand is played at the banker's level; that rank's cards are trump."""
    assert ref("format", cards="5D", trump="S", level="5")["suit"] == "trump"
    assert ref("format", cards="5D", trump="S", level="6")["suit"] == "D"


def test_r2_2_trumps_are_one_suit_and_no_trump_keeps_only_jokers_and_level_cards() -> None:
    """R2.2: a level-rank ♥ is a trump, not a ♥ (so a holder of only that is void in ♥); with
    无主 the suits stay side suits."""
    assert ref("format", cards="AS", trump="NT", level="5")["suit"] == "S"
    assert ref("format", cards="5H SJ", trump="NT", level="5")["suit"] == "trump"
    assert ref("format", cards="AS 5H BJ", trump="S", level="5")["suit"] == "trump"
    # Holding only the level ♥, the follower is void in ♥ and may discard a club.
    assert follow("AH", "5H 3C", "3C", trump="S", level="5") == (True, "R5.2")


def test_r2_3_trump_order() -> None:
    """R2.3: BJ > SJ > trump-suit level > other level cards (equal) > trump A, K, … (seed 002's
    主牌从大至小: 大王, 小王, 主10, 副10, A, K …)."""
    assert winner(["AS", "TD", "TS", "SJ"], level="T") == 3
    assert winner(["KS", "AS", "TH", "TS"], level="T") == 3
    assert winner(["SJ", "BJ", "TS", "TS"], level="T") == 1
    assert winner(["TS", "TD", "AS", "BJ"], level="T") == 3
    assert winner(["TS", "TD", "AS", "KS"], level="T") == 0


def test_r2_4_side_suit_order_without_the_level_rank() -> None:
    """R2.4: A > K > … > 2 with the level rank removed (level K: the ♥A tops the ♥Q directly)."""
    assert winner(["QH", "AH", "JH", "3H"], level="K") == 1
    assert winner(["2H", "3H", "4H", "QH"], level="K") == 3
    assert is_tractor("QH QH AH AH", level="K")


def test_r2_5_equal_strength_the_first_played_wins() -> None:
    """R2.5 (先出为大; seed 003: 除主花外，其他花级牌…之间无大小区别, 以先出为大): off-suit
    level cards are equal, so the first played wins."""
    got = trick(["TH", "TD", "TC", "3S"], level="T")
    assert got["winner"] == 0 and got["rule"] == "R6.4"
    assert winner(["3H", "TD", "TC", "4H"], level="T") == 1


# --- R3 combinations ------------------------------------------------------------------------------


def test_r3_1_units() -> None:
    """R3.1: single, pair (对子), triple (三条), quad (四条)."""
    assert read("7H") == ["single:7H"]
    assert read("7H 7H") == ["pair:7H 7H"]
    assert read("7H 7H 7H") == ["triple:7H 7H 7H"]
    assert read("7H 7H 7H 7H") == ["quad:7H 7H 7H 7H"]
    # ♥10 and ♦10 are not a pair, even when both are trump.
    assert read("TH TD", level="T") == ["single:TH", "single:TD"]


@pytest.mark.parametrize(
    "cards",
    ["9H 9H JH JH", "AS AS TH TH", "TH TH TS TS", "TS TS SJ SJ BJ BJ"],
)
def test_r3_2_rule_book_tractors_trump_spades_level_10(cards: str) -> None:
    """R3.2's examples (trump ♠, level 10): ♥9♥9♥J♥J (the level gap), ♠A♠A♥10♥10 (trump A →
    off-suit level), ♥10♥10♠10♠10 (→ trump-suit level), ♠10♠10 SJ SJ BJ BJ are tractors."""
    assert is_tractor(cards, trump="S", level="T")


@pytest.mark.parametrize("cards", ["TH TH TD TD", "AS AS TS TS"])
def test_r3_2_rule_book_non_tractors(cards: str) -> None:
    """R3.2: ♥10♥10♦10♦10 (equal, not consecutive) and ♠A♠A♠10♠10 (an off-suit level between)."""
    got = read(cards, trump="S", level="T")
    assert len(got) == 2 and all(c.startswith("pair:") for c in got)


def test_r3_2_level_6_clubs_5_and_7_are_a_tractor() -> None:
    """R3.2 / seed 003 (当轮级牌为6，则梅花对5与梅花对7也可组成连对), four- and two-deck."""
    assert is_tractor("5C 5C 7C 7C", trump="H", level="6")
    assert is_tractor("5C 5C 7C 7C", trump="H", level="6", rules="two-deck")


def test_r3_2_seed_003_tractors() -> None:
    """Seed 003: ♣77 ♣88 ♣99 is a three-pair tractor; jokers' pairs, the trump level pair with an
    off-suit level pair, and an off-suit level pair with the trump A pair are tractors."""
    assert read("7C 7C 8C 8C 9C 9C", trump="H") == ["tractor:7C 7C 8C 8C 9C 9C"]
    for cards in ("SJ SJ BJ BJ", "2H 2H 2S 2S", "AH AH 2S 2S"):
        assert is_tractor(cards, trump="H", level="2", rules="two-deck")


def test_r3_2_seed_004_5566_is_a_tractor() -> None:
    """R3.2 / seed 004 (如：5566): two pairs on adjacent ranks."""
    assert read("5H 5H 6H 6H", level="9") == ["tractor:5H 5H 6H 6H"]


def test_r3_3_ace_low_tractors() -> None:
    """R3.3 (seed 004: 'A'的拖拉机只限制于做头和做尾, AA2233 与 QQKKAA): A at either end only."""
    assert is_tractor("AH AH 2H 2H 3H 3H", level="9")
    assert is_tractor("QH QH KH KH AH AH", level="9")
    assert not is_tractor("KH KH AH AH 2H 2H", level="9")


def test_r3_3_ace_low_tractor_ranks_by_its_3() -> None:
    """R3.3: AA2233 ranks as a 3-high tractor: 223344 beats it, and it does not beat 223344."""
    low, high = "AH AH 2H 2H 3H 3H", "2H 2H 3H 3H 4H 4H"
    voids = ["9C 9C 8C 8C 7C 7C", "6C 6C 5C 5C 4C 4C"]
    assert winner([low, high, *voids], level="9") == 1
    assert winner([high, low, *voids], level="9") == 0


def test_r3_4_mixed_widths_are_no_tractor() -> None:
    """R3.4: 66 7777 is not one tractor: it is a throw, read (R4.2, a tractor before a quad of
    equal size) as ⟨6677⟩ + 77."""
    assert read("6H 6H 7H 7H 7H 7H") == ["tractor:6H 6H 7H 7H", "pair:7H 7H"]


# --- R4 leading and throws ------------------------------------------------------------------------


def test_r4_1_a_lead_is_one_effective_suit_simple_or_a_throw() -> None:
    """R4.1: one unit or tractor is a simple lead; more components make a throw; mixed suits are
    no lead at all (the referee cannot judge them)."""
    assert len(read("KH KH AH AH")) == 1
    assert read("AH KH") == ["single:AH", "single:KH"]
    assert "R4.1" in refuse("format", cards="AH AS", trump="C", level="2")
    # Trumps of every kind are one suit: a level card and a joker lead together.
    assert len(read("2H SJ", trump="S")) == 2


def test_r4_2_the_split_with_the_largest_component_ties_to_tractors() -> None:
    """R4.2: 77 888 reads ⟨2-2⟩ + 8 (4 cards beat a 3-card triple); 8888 99 ties a quad with a
    ⟨2-2⟩ and prefers the tractor: ⟨8899⟩ + 88; 77 8888 99 reads ⟨778899⟩ + 88."""
    assert read("7H 7H 8H 8H 8H") == ["tractor:7H 7H 8H 8H", "single:8H"]
    assert read("8H 8H 8H 8H 9H 9H") == ["tractor:8H 8H 9H 9H", "pair:8H 8H"]
    assert read("7H 7H 8H 8H 8H 8H 9H 9H") == ["tractor:7H 7H 8H 8H 9H 9H", "pair:8H 8H"]


def test_r4_3_a_partner_can_block_a_throw() -> None:
    """R4.3: the thrown ♥K is beaten by the ♥A of seat 2, the leader's partner."""
    got = trick(["AH KH", "5H", "AH", "8H"], extra=["", "4H", "6H", "7H"])
    assert got["throw"] == {"failed": True, "forced": "KH", "blocker": 2}


def test_r4_3_a_triple_of_kings_beats_a_thrown_pair_of_queens() -> None:
    """R4.3: n identical cards higher than a thrown n-unit block it (KKK holds a pair of K)."""
    got = trick(["QH QH AH", "KH KH", "3H 4H", "5H 6H"], extra=["", "KH", "", ""])
    assert got["throw"] == {"failed": True, "forced": "QH QH", "blocker": 1}
    assert got["winner"] == 1 and got["illegal"] == []


def test_r4_3_trumping_does_not_block_a_throw() -> None:
    """R4.3: others void in ♥ with trumps in hand: the throw ♥A ♥A ♥K stands."""
    got = trick(["AH AH KH", "3S 4S 5S", "6S 7S 9S", "3C 4C 5C"])
    assert got["throw"] == {"failed": False, "forced": None, "blocker": None}
    assert got["winner"] == 0 and got["points"] == 20


def test_r4_3_a_tractor_is_blocked_only_by_a_higher_run_at_least_as_wide_and_long() -> None:
    """R4.3: the throw ♥5566 + ♥A stands against loose pairs ♥99 ♥JJ, but a held ⟨3-3-3⟩
    ♥777888999 beats the ⟨2-2⟩, which the leader must then play."""
    lead = "5H 5H 6H 6H AH"
    stands = trick([lead, "9H 9H JH JH 3H", "3C 4C 5C 6C 7C", "3D 4D 5D 6D 7D"])
    assert stands["throw"]["failed"] is False and stands["winner"] == 0
    fails = trick(
        [lead, "7H 7H 8H 8H", "3C 4C 5C 6C", "3D 4D 5D 6D"], extra=["", "7H 8H 9H 9H 9H", "", ""]
    )
    assert fails["throw"] == {"failed": True, "forced": "5H 5H 6H 6H", "blocker": 1}
    assert fails["winner"] == 1


def test_r4_3_seed_003_trump_throws_count_jokers_and_level_cards() -> None:
    """R4.3 / seed 003 (主牌也可进行甩牌…常主和级牌也在比较范围内): a trump throw ♠A ♠K is
    blocked by a ♥2 level card (above the trump A, R2.3); the smaller ♠K is played."""
    got = trick(["AS KS", "2H", "3C", "4C"], extra=["", "5C", "", ""])
    assert got["throw"] == {"failed": True, "forced": "KS", "blocker": 1}
    assert got["winner"] == 1


def test_r4_3_seed_003_throw_after_the_higher_clubs_are_out() -> None:
    """Seed 003 (two-deck): with ♣AA ♣KK ♣Q ♣J ♣10 already played, ♣10 ♣J ♣Q are the highest
    clubs left, so throwing them together stands."""
    got = trick(
        ["TC JC QC", "9C 8C 3C", "9C 7C 6C", "5C 4C 3D"],
        trump="H",
        level="2",
        rules="two-deck",
    )
    assert got["throw"] == {"failed": False, "forced": None, "blocker": None}
    assert got["winner"] == 0 and got["illegal"] == []


def test_r4_3_seed_003_highest_single_and_highest_pair_throw() -> None:
    """Seed 003 (two-deck): ♣AA and ♣QQ are out; the leader's ♣K and ♣JJ are the highest single
    and pair left (the other ♣K only equals the thrown one), so they may be thrown together."""
    got = trick(
        ["KC JC JC", "KC 9C 9C", "TC 8C 7C", "6C 5C 4C"],
        trump="H",
        level="2",
        rules="two-deck",
    )
    assert got["throw"]["failed"] is False and got["winner"] == 0


def test_r4_4_failed_throw_plays_the_smallest_beatable_component() -> None:
    """R4.4 [default `smallest`] (seeds 002/004 出最小的牌型及牌): seat 1's ♥KK beats the ♥QQ,
    seat 2's ♥A beats the ♥K; the single is smaller, so the leader plays ♥K."""
    got = ref(
        "trick",
        hands=["QH QH KH", "KH KH", "AH 4H", "3H 5H"],
        plays=["QH QH KH", "KH", "AH", "3H"],
        trump="S",
        level="2",
    )
    assert got["throw"] == {"failed": True, "forced": "KH", "blocker": 2}
    assert got["winner"] == 2


def test_r4_4_first_blocker_option() -> None:
    """R4.4 option `first_blocker`: seat 1 is the first seat that beats anything (the pair), so
    the leader plays ♥QQ."""
    got = ref(
        "trick",
        hands=["QH QH KH", "KH KH", "AH 4H", "3H 5H"],
        plays=["QH QH KH", "KH KH", "AH 4H", "3H 5H"],
        trump="S",
        level="2",
        rules={"failed_throw_forced": "first_blocker"},
    )
    assert got["throw"] == {"failed": True, "forced": "QH QH", "blocker": 1}
    assert got["winner"] == 1


def test_r4_5_failed_throw_penalty() -> None:
    """R4.5 (seed 004: 甩牌甩错1次扣1分（只扣本人）): the thrower alone loses a ladder point;
    `throw_penalty_points` moves trick points to the thrower's opponents."""
    assert ladder_points(0, LevelOutcome("banker", 1, False), [2]) == (3, 0, 2, 0)
    rules = rules_from_spec({"throw_penalty_points": 10})
    assert throw_penalty(1, 0, rules) == -10 and throw_penalty(0, 0, rules) == 10
    trump = parse_trump("S", "2")
    table = score_hand(0, [TrickScore(1, 30)], None, (), (), trump, rules, failed_throws=[3])
    assert table.attackers_points == 20
    assert any(r.rule == "R4.5" and r.points == -10 for r in table.rows)


# --- R5 following ---------------------------------------------------------------------------------


def test_r5_1_as_many_cards_as_the_lead() -> None:
    """R5.1: a follower plays exactly as many cards as the lead."""
    assert follow("7H 7H", "8H 8H 9H", "8H 8H 9H") == (False, "R5.1")


def test_r5_1_after_a_failed_throw_as_many_as_the_forced_component() -> None:
    """R5.1: the referee refuses a trick whose followers answer the throw, not the forced card."""
    error = refuse(
        "trick",
        hands=["AH KH", "4H 5H", "AH 6H", "7H 8H"],
        plays=["AH KH", "4H 5H", "AH 6H", "7H 8H"],
        trump="S",
        level="2",
    )
    assert "the lead as played has 1" in error


def test_r5_2_short_suit_plays_all_of_it_then_anything() -> None:
    """R5.2: one ♥ held against a ♥ pair: play it and add anything; holding none: ruff or
    discard freely (seed 002 吊主: a trump lead may be answered with any side cards if void)."""
    assert follow("7H 7H", "5H 3C 4C", "5H 3C") == (True, "R5.2")
    assert follow("7H 7H", "5H 3C 4C", "3C 4C") == (False, "R5.2")
    assert follow("7H 7H", "3S 3S 4C", "3S 3S") == (True, "R5.2")
    assert follow("7H 7H", "3S 3S 4C", "3S 4C") == (True, "R5.2")
    assert follow("3S 3S", "7H 8C", "7H 8C") == (True, "R5.2")


def test_r5_3_pair_and_triple_ladders() -> None:
    """R5.3: pair 2 → 1+1; triple 3 → 2+1 → 1+1+1 (有对子必须跟对、有三条必须跟三条)."""
    assert follow("7H 7H", "8H 8H 9H", "8H 9H") == (False, "R5.3")
    assert follow("7H 7H", "8H 9H JH", "8H 9H") == (True, "R5.3")
    assert follow("7H 7H 7H", "9H 9H 9H 8H", "9H 9H 8H") == (False, "R5.3")
    assert follow("7H 7H 7H", "9H 9H 8H 3H", "9H 9H 8H") == (True, "R5.3")
    assert follow("7H 7H 7H", "9H 9H 8H 3H", "9H 8H 3H") == (False, "R5.3")


QUAD = "7H 7H 7H 7H"


def test_r5_3_the_quad_ladder_4_then_3_1_then_tractor_then_2_2() -> None:
    """R5.3 quad ladder 4 → 3+1 → ⟨2-2⟩ → 2+2 → 2+1+1 → 1×4 (四条→三条→连拖→对子→散牌)."""
    # rung 4: a held quad must be played.
    assert follow(QUAD, "9H 9H 9H 9H 3H", "9H 9H 9H 3H") == (False, "R5.3")
    assert follow(QUAD, "9H 9H 9H 9H 3H", "9H 9H 9H 9H") == (True, "R5.3")
    # rung 3+1: no quad, a triple: triple plus any single.
    assert follow(QUAD, "9H 9H 9H 3H 4H 4H 5H 5H", "4H 4H 5H 5H") == (False, "R5.3")
    assert follow(QUAD, "9H 9H 9H 3H 4H 4H 5H 5H", "9H 9H 9H 5H") == (True, "R5.3")
    # rung ⟨2-2⟩: no triple, a tractor: it beats two loose pairs.
    assert follow(QUAD, "9H 9H TH TH 4H 4H", "9H 9H 4H 4H") == (False, "R5.3")
    assert follow(QUAD, "9H 9H TH TH 4H 4H", "9H 9H TH TH") == (True, "R5.3")
    # rung 2+2: no tractor, two pairs.
    assert follow(QUAD, "9H 9H QH QH 3H", "9H 9H QH 3H") == (False, "R5.3")
    assert follow(QUAD, "9H 9H QH QH 3H", "9H 9H QH QH") == (True, "R5.3")
    # rung 2+1+1, then 1×4.
    assert follow(QUAD, "9H 9H QH 3H 4H", "9H 9H QH 4H") == (True, "R5.3")
    assert follow(QUAD, "9H 9H QH 3H 4H", "QH 3H 4H 9H") == (False, "R5.3")
    assert follow(QUAD, "9H QH 3H 4H 5H", "QH 3H 4H 5H") == (True, "R5.3")


def test_r5_3_seed_002_long_tractor_ladders() -> None:
    """R5.3 / seed 002: 三连拖 ⟨2-2-2⟩ → ⟨2-2⟩+2 → 2+2+2; 三条两连拖 ⟨3-3⟩ → 3+3 → … → ⟨2-2-2⟩;
    四条连拖 ⟨4-4⟩ → 4+4 → … → ⟨2-2-2-2⟩."""
    lead = "7H 7H 8H 8H 9H 9H"
    hand = "JH JH QH QH 3H 3H 5H"
    assert follow(lead, hand, "JH JH QH QH 3H 3H") == (True, "R5.3")
    assert follow(lead, hand, "JH JH 3H 3H 5H QH") == (False, "R5.3")
    lead = "7H 7H 7H 8H 8H 8H"
    hand = "JH JH JH 3H 3H 3H 4H 4H 5H 5H 6H 6H"
    assert follow(lead, hand, "JH JH JH 3H 3H 3H") == (True, "R5.3")
    assert follow(lead, hand, "4H 4H 5H 5H 6H 6H") == (False, "R5.3")
    hand = "JH JH 4H 4H 5H 5H 6H 6H"  # no triple: the three-pair tractor is owed
    assert follow(lead, hand, "4H 4H 5H 5H 6H 6H") == (True, "R5.3")
    assert follow(lead, hand, "JH JH 4H 4H 5H 5H") == (False, "R5.3")
    lead = "7H 7H 7H 7H 8H 8H 8H 8H"
    hand = "JH JH JH JH 3H 3H 3H 3H 4H 4H 5H 5H"
    assert follow(lead, hand, "JH JH JH JH 3H 3H 3H 3H") == (True, "R5.3")
    assert follow(lead, hand, "JH JH JH JH 3H 3H 4H 4H") == (False, "R5.3")


def test_r5_3_tractor_ladder_and_breaking_longer_units() -> None:
    """R5.3 ⟨2-2⟩ → 2+2 → 2+1+1 → 1×4 (两连拖→对子→散牌); a triple gives a pair to a pair
    lead unless `protect_longer_units`."""
    lead = "7H 7H 8H 8H"
    assert follow(lead, "JH JH QH QH 3H 3H", "JH JH 3H 3H") == (False, "R5.3")
    assert follow(lead, "JH JH 4H 4H 3H", "JH JH 4H 3H") == (False, "R5.3")
    assert follow(lead, "JH JH 4H 5H 3H", "JH JH 4H 5H") == (True, "R5.3")
    assert follow("7H 7H", "9H 9H 9H 3H", "9H 3H") == (False, "R5.3")
    protect = {"protect_longer_units": True}
    assert follow("7H 7H", "9H 9H 9H 3H 4H", "3H 4H", rules=protect) == (True, "R5.3")


def test_r5_3_a_throw_ladder() -> None:
    """R5.3 / LADDERS.md: throw ♥A + ♥KK♥AA ladders 1+⟨2-2⟩ → 2+2+1 → 2+1+1+1 → 1×5."""
    lead = "AH KH KH AH AH"
    hand = "9H 9H TH TH 3H 5H 5H 6H"
    assert follow(lead, hand, "9H 9H TH TH 3H") == (True, "R5.3")
    assert follow(lead, hand, "9H 9H 5H 5H 3H") == (False, "R5.3")
    hand = "9H 9H JH JH 3H 4H"
    assert follow(lead, hand, "9H 9H JH JH 4H") == (True, "R5.3")
    assert follow(lead, hand, "9H 9H JH 3H 4H") == (False, "R5.3")


def test_r5_4_an_illegal_play_is_flagged_and_left_as_played() -> None:
    """R5.4: seat 1 holds a ♥ yet trumps the ♥ lead: flagged illegal, and the trick is judged on
    the cards as played — its trump cannot win, since seat 1 was not void (R6.1(b))."""
    got = trick(["AH", "BJ", "3H", "4H"], extra=["", "5H", "", ""])
    assert got["illegal"] == [1] and got["winner"] == 0


# --- R6 who wins a trick --------------------------------------------------------------------------


def test_r6_1_a_play_must_have_the_lead_shape() -> None:
    """R6.1 (seed 002: 两张主牌单张是无法杀掉对子的): two trump singles do not beat a pair; a
    void player's trump pair does; a higher pair in the led suit does."""
    assert winner(["7H 7H", "3S 4S", "9H 9H", "3C 4C"]) == 2
    assert winner(["7H 7H", "3S 3S", "9H 9H", "3C 4C"]) == 1
    assert winner(["7H 7H", "3C 4C", "3S 3S", "5S 5S"]) == 3


def test_r6_1_ruff_only_from_a_void_and_all_trump() -> None:
    """R6.1(b): a trump play wins a side-suit lead only from a player void in it, all trump."""
    assert winner(["7H 7H", "3S 3C", "9H 3H", "4S 4S"]) == 3
    blocked = trick(["7H 7H", "3S 3C", "9H 3H", "4S 4S"], extra=["", "", "", "3H"])
    assert (blocked["winner"], blocked["illegal"]) == (0, [3])
    assert winner(["7H 7H", "3C 3C", "2H 2H", "4C 4C"]) == 2  # level ♥2s are trump: a ruff
    assert winner(["3S", "2S", "2H", "BJ"]) == 3  # trump lead: the highest trump wins


THROW_LEAD = "AH AH KH"


@pytest.mark.parametrize(
    ("seat1", "seat2", "compare", "expected"),
    [
        ("3S 3S 6S", "7S 7S 4S", "all", 1),
        ("3S 3S 6S", "7S 7S 4S", "highest", 2),
        ("3S 3S 6S", "7S 7S 4S", "longest_unit", 2),
        ("5S 5S 6S", "4S 4S KS", "all", 1),
        ("5S 5S 6S", "4S 4S KS", "highest", 2),
        ("5S 5S 6S", "4S 4S KS", "longest_unit", 1),
        ("3S 3S 6S", "4S 4S 8S", "all", 2),
    ],
)
def test_r6_2_ranking_throws(seat1: str, seat2: str, compare: str, expected: int) -> None:
    """R6.2 option `throw_compare`: `all` components higher, the `highest` card, or the
    `longest_unit` alone decides between two ruffs of the throw ♥AA + ♥K."""
    got = trick([THROW_LEAD, seat1, seat2, "3C 4C 5C"], level="9", rules={"throw_compare": compare})
    assert got["throw"]["failed"] is False
    assert got["winner"] == expected


@pytest.mark.parametrize(
    ("lead", "stronger", "level"),
    [
        ("QH QH KH KH AH AH", "6H 6H 6H 7H 7H 7H", "2"),
        ("JH JH QH QH KH KH AH AH", "4H 4H 4H 4H 5H 5H 5H 5H", "2"),
        ("7H 7H 8H 8H", "3H 3H 3H 3H", "2"),
        (
            "JH JH JH QH QH QH KH KH KH AH AH AH",
            "6H 6H 6H 6H 7H 7H 7H 7H 8H 8H 8H 8H",
            "2",
        ),
    ],
)
def test_r6_3_stronger_shapes_win(lead: str, stronger: str, level: str) -> None:
    """R6.3 (seed 002): 666777 > QQKKAA; 44445555 > JJQQKKAA; quad > ⟨2-2⟩; 666677778888 >
    JJJQQQKKKAAA — whatever the ranks; with `stronger_shapes_win` off the lead stands."""
    n = len(lead.split())
    discard = " ".join((["3C"] * 4 + ["4C"] * 4 + ["5C"] * 4)[:n])
    discard2 = " ".join((["6C"] * 4 + ["7C"] * 4 + ["8C"] * 4)[:n])
    plays = [lead, stronger, discard, discard2]
    got = trick(plays, level=level)
    assert got["winner"] == 1 and got["rule"] == "R6.3" and got["illegal"] == []
    off = trick(plays, level=level, rules={"stronger_shapes_win": False})
    assert off["winner"] == 0


def test_r6_3_seed_002_quad_over_joker_tractor_over_level_tractors() -> None:
    """R6.3 / seed 002 (level 3, ♦ trump): 四条 > 王连对 > 主级连拖 > 主牌拖拉机: ♦AA♦KK is beaten
    by ♠33♦33, that by SJ SJ BJ BJ, that by a trump quad ♦2♦2♦2♦2."""
    plays = ["KD KD AD AD", "3S 3S 3D 3D", "SJ SJ BJ BJ", "2D 2D 2D 2D"]
    assert winner(plays, trump="D", level="3") == 3
    assert winner([*plays[:3], "4C 4C 5C 5C"], trump="D", level="3") == 2
    assert winner([*plays[:2], "4C 4C 5C 5C", "6C 6C 7C 7C"], trump="D", level="3") == 1


def test_r6_3_a_quad_answering_as_two_pairs_still_outranks() -> None:
    """R5.3/R6.3: holding no ⟨2-2⟩, a quad is a legal 2+2 answer, and it outranks the tractor."""
    got = trick(
        ["7H 7H 8H 8H", "3H 3H 3H 3H", "9C 9C 8C 8C", "4C 4C 5C 5C"], extra=["", "JH", "", ""]
    )
    assert got["illegal"] == [] and got["winner"] == 1


def test_r6_3_only_in_the_led_suit_or_trump_from_a_void() -> None:
    """R6.3: a wider shape in another side suit does not count."""
    assert winner(["7H 7H 8H 8H", "3C 3C 3C 3C", "4C 4C 5C 5C", "6D 6D 7D 7D"]) == 0
    assert winner(["7H 7H 8H 8H", "3S 3S 3S 3S", "4C 4C 5C 5C", "6D 6D 7D 7D"]) == 1


def test_r6_4_ties_to_the_earlier_and_points_to_the_winner() -> None:
    """R6.4: equal plays keep the earlier; every card's points go to the winner."""
    got = trick(["KH KH", "5H 5H", "KH KH", "TH TH"])
    assert got["winner"] == 0 and got["points"] == 70 and got["rule"] == "R6.4"


# --- R7 score of a hand ---------------------------------------------------------------------------


def _pair_lead() -> Reading:
    return Reading(TRUMP, (Component(2, (0,), 0),))


def test_r7_1_only_the_attackers_points_count() -> None:
    """R7.1 (seed 004: 只计算抓分方的分数): tricks won by the banker team score nothing."""
    trump = parse_trump("S", "2")
    tricks = [TrickScore(0, 50), TrickScore(1, 20), TrickScore(2, 40), TrickScore(3, 15)]
    table = score_hand(0, tricks, _pair_lead(), parse_cards("AS AS"), (), trump, FOUR_DECK)
    assert table.attackers_points == 35


BOTTOM = "KD KD 5C 3H 4H 6H 7D 8D"  # 25 points


@pytest.mark.parametrize(
    ("lead", "winning", "multiplier"),
    [
        ("7H", "3S", 2),
        ("7H 7H", "3S 3S", 4),
        ("7H 7H 7H", "3S 3S 3S", 8),
        ("7H 7H 7H 7H", "3S 3S 3S 3S", 16),
        ("7H 7H 8H 8H", "3S 3S 4S 4S", 16),
        ("7H 7H 8H", "3S 3S 4S", 4),
    ],
)
def test_r7_2_bottom_table_single_2_pair_4_triple_8_quad_16(
    lead: str, winning: str, multiplier: int
) -> None:
    """R7.2 (seed 004: 单扣底乘2、双扣底乘4、三扣底乘8、四扣底乘16): won with trump → 2^k, k =
    cards in the largest component of the last lead (⟨2-2⟩ ×16; a throw counts its largest)."""
    got = ref(
        "bottom",
        lead=lead,
        winning_play=winning,
        bottom=BOTTOM,
        attackers_won=True,
        trump="S",
        level="2",
    )
    assert got == {"id": "rb", "multiplier": multiplier, "points": 25 * multiplier}


def test_r7_2_side_suit_capture_and_options() -> None:
    """R7.2: 副牌扣底不翻倍 (×1); `times` 2·k; `linear` k (seed 004's 单张*1 一对*2 三张*3); the
    banker team keeping the bottom counts nothing."""
    common = {"bottom": BOTTOM, "trump": "S", "level": "2", "lead": "7H 7H"}
    side = ref("bottom", winning_play="9H 9H", attackers_won=True, **common)
    assert side["multiplier"] == 1 and side["points"] == 25
    doubles = {"side_suit_capture_doubles": True}
    got = ref("bottom", winning_play="9H 9H", attackers_won=True, rules=doubles, **common)
    assert got["points"] == 100
    times = {"bottom_multiplier": "times"}
    assert (
        ref("bottom", winning_play="3S 3S", attackers_won=True, rules=times, **common)["multiplier"]
        == 4
    )
    linear = {"bottom_multiplier": "linear"}
    assert (
        ref("bottom", winning_play="3S 3S", attackers_won=True, rules=linear, **common)[
            "multiplier"
        ]
        == 2
    )
    kept = ref("bottom", winning_play="3S 3S", attackers_won=False, **common)
    assert kept["points"] == 0
    # The rbtying preset multiplies 2·k whatever suit takes the last trick.
    for play in ("9H 9H", "3S 3S"):
        got = ref("bottom", winning_play=play, attackers_won=True, rules="rbtying", **common)
        assert (got["multiplier"], got["points"]) == (4, 100)


@pytest.mark.parametrize(("total", "winner_", "levels"), FOUR_DECK_TABLE)
def test_r7_3_level_change_table(total: int, winner_: str, levels: int) -> None:
    """R7.3 with step 80: T = 0 → banker +3; 5–75 +2; 80–155 +1; 160–235 take over; 240–315
    attackers +1; 320–395 +2; 400–475 +3; each further 80 +1; negative T adds banker levels."""
    got = ref("outcome", attackers_points=total)
    assert (got["winner"], got["levels"]) == (winner_, levels)


def test_r7_4_next_banker() -> None:
    """R7.4 (seed 002: 庄家那一方赢，下一局由庄家的对家成为庄家…由上一局的庄家的下家坐庄)."""
    assert next_banker(1, banker_won=True) == 3
    assert next_banker(3, banker_won=False) == 0


def test_r7_5_ladder_points() -> None:
    """R7.5 (seed 004: 获胜方，每升一级得3分 … 仅是下庄双方均不得分)."""
    assert ladder_points(1, LevelOutcome("banker", 3, False)) == (0, 9, 0, 9)
    assert ladder_points(1, LevelOutcome("attackers", 2, True)) == (6, 0, 6, 0)
    assert ladder_points(1, LevelOutcome("attackers", 0, True)) == (0, 0, 0, 0)


# --- R8: judged on whole hands by the bidding module ----------------------------------------------

R8_COVERED_BY = {
    "R8.1": "test_bidding.py::test_r8_1_what_a_show_names",
    "R8.2": "test_bidding.py::test_r8_2_seed_002_strength_orders",
    "R8.3": "test_bidding.py::test_r8_3_no_self_overturn_but_reinforcing_is_allowed",
    "R8.4": "test_bidding.py::test_r8_4_first_hand_the_standing_show_becomes_banker",
    "R8.5": "test_bidding.py::test_r8_5_nobody_showed_in_a_first_hand_is_a_redeal",
    "R8.6": "test_bidding.py::test_r8_6_the_bury",
    "R8.7": "test_bidding.py::test_r8_7_a_fry_takes_the_bottom_and_buries_anew_the_banker_stays",
}


def _test_functions(path: Path) -> dict[str, str]:
    """Each test function of a file: its name and docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: ast.get_docstring(node) or ""
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test")
    }


def test_r8_ids_are_covered_by_the_bidding_tests() -> None:
    """R8.1–R8.7: each listed test exists (R8.2's show orders are seed 002's sequences)."""
    for rule, where in R8_COVERED_BY.items():
        file, name = where.split("::")
        tests = _test_functions(TESTS / file)
        assert name in tests, f"{rule}: {where} is gone"
        assert _names(rule, name, tests[name]), f"{where} does not name {rule}"


# --- R9 presets -----------------------------------------------------------------------------------


def test_r9_two_deck_preset() -> None:
    """R9 (seed 003): two decks, pairs at most, 200 points, step 40, no ace-low tractors."""
    assert (TWO_DECK.decks, TWO_DECK.hand_size, TWO_DECK.total_points) == (2, 25, 200)
    assert not is_tractor("AH AH 2H 2H 3H 3H", level="9", rules="two-deck")
    assert "copies" in refuse("format", cards="7H 7H 7H", trump="S", level="2", rules="two-deck")
    got = ref("outcome", attackers_points=80, rules="two-deck")
    assert (got["winner"], got["levels"]) == ("attackers", 0)
    got = ref("outcome", attackers_points=40, rules="two-deck")
    assert (got["winner"], got["levels"]) == ("banker", 1)


def test_r9_rbtying_preset() -> None:
    """R9 `rbtying`: four-deck with rbtying/shengji's defaults, by name in a hand history or the
    referee, and its options overridable like any preset's."""
    assert rules_from_spec("rbtying") == RBTYING
    assert (RBTYING.decks, RBTYING.ace_low_tractor, RBTYING.failed_throw_forced) == (
        4,
        False,
        "first_blocker",
    )
    assert (RBTYING.stronger_shapes_win, RBTYING.protect_longer_units) == (False, False)
    assert (RBTYING.throw_split, RBTYING.throw_ladder) == ("lowest_first", "one_at_a_time")
    assert (RBTYING.bottom_multiplier, RBTYING.level_step) == ("times", 80)
    assert RBTYING.side_suit_capture_doubles
    assert RBTYING.spec() == "rbtying"
    custom = rules_from_spec({"preset": "rbtying", "throw_ladder": "widest_first"})
    assert custom.spec() == {"preset": "rbtying", "throw_ladder": "widest_first"}
    assert not is_tractor("AH AH 2H 2H", level="9", rules="rbtying")
    for bad in ({"throw_split": "narrowest"}, {"throw_ladder": "two_at_a_time"}):
        with pytest.raises(RuleError, match="is not one of"):
            rules_from_spec(bad)
        assert "is not one of" in refuse("format", cards="5H", trump="S", level="2", rules=bad)


def test_r4_2_throw_split_through_the_referee() -> None:
    """R4.2's example (trump ♠, level 9): ♣JJJ QQQ KK reads ⟨JJJ-QQQ⟩ + KK under `widest` and
    ⟨JJ-QQ-KK⟩ + J + Q under `lowest_first` and the rbtying preset."""
    lead = "JC JC JC QC QC QC KC KC"
    assert read(lead, level="9") == ["tractor:JC JC JC QC QC QC", "pair:KC KC"]
    expected = ["tractor:JC JC QC QC KC KC", "single:QC", "single:JC"]
    assert read(lead, level="9", rules="rbtying") == expected
    spec = {"preset": "four-deck", "throw_split": "lowest_first"}
    assert read(lead, level="9", rules=spec) == expected


def test_r4_2_r4_3_r6_1_throw_split_decides_failure_and_what_a_ruff_must_match() -> None:
    """R4.2's example in a trick: a single ♣K beats the `lowest_first` reading's single ♣J (the
    throw fails and the ♣J is forced); and against a standing throw, a void follower's ruff wins
    only with the reading's exact shape: ⟨33-44-55⟩ + 7 + 8 under `lowest_first`, ⟨333-444⟩ + 77
    under `widest`."""
    lead = "JC JC JC QC QC QC KC KC"
    discard = "2H 3H 4H 6H 7H 8H 9H TH"
    blocked = ["", "KC", "", ""]
    got = trick([lead, discard, discard, discard], level="9", extra=blocked)
    assert got["throw"]["failed"] is False
    got = trick([lead, "KC", "2H", "3H"], level="9", rules="rbtying")
    assert got["throw"] == {"failed": True, "forced": "JC", "blocker": 1}
    assert got["winner"] == 1
    tractor_ruff = "3S 3S 4S 4S 5S 5S 7S 8S"
    triple_ruff = "3S 3S 3S 4S 4S 4S 7S 7S"
    for rules, wins in (("four-deck", triple_ruff), ("rbtying", tractor_ruff)):
        for ruff in (tractor_ruff, triple_ruff):
            got = trick([lead, ruff, discard, discard], level="9", rules=rules)
            assert got["throw"]["failed"] is False and got["illegal"] == []
            assert got["winner"] == (1 if ruff == wins else 0), (rules, ruff)


def test_r4_4_equal_rank_suit_order_through_the_referee() -> None:
    """R4.4: no-trump, level 10, a failed throw of single ♥10 and single ♣10 forces the ♥10 (♠ <
    ♥ < ♦ < ♣), under both `failed_throw_forced` values."""
    for rules in ("four-deck", "rbtying"):
        plays = ["TH TC", "SJ", "3D", "5D"]
        got = trick(plays, trump="NT", level="T", extra=["", "2D", "4D", "6D"], rules=rules)
        assert got["throw"] == {"failed": True, "forced": "TH", "blocker": 1}, rules


def test_r5_3_throw_ladder_through_the_referee() -> None:
    """R5.3's `throw_ladder` example: trump ♣, level 6, lead ♠J♠J ♠Q♠Q ♠A♠A♠A♠A, the follower's
    spades ♠2 ♠4♠4 ♠7♠7♠7 ♠8♠8 ♠K: ♠2 ♠4♠4 ♠7♠7 ♠8♠8 ♠K is legal under `one_at_a_time` (its
    first rung this holding meets is 2+2+2+1+1) and illegal under `widest_first` (3+2+2+1)."""
    lead = "JS JS QS QS AS AS AS AS"
    held = "2S 4S 4S 7S 7S 7S 8S 8S KS"
    play = "2S 4S 4S 7S 7S 8S 8S KS"
    assert follow(lead, held, play, trump="C", level="6", rules="rbtying") == (True, "R5.3")
    spec = {"preset": "four-deck", "throw_ladder": "one_at_a_time"}
    assert follow(lead, held, play, trump="C", level="6", rules=spec) == (True, "R5.3")
    assert follow(lead, held, play, trump="C", level="6") == (False, "R5.3")
    got = ref("follow", lead=lead, hand=held, play=play, trump="C", level="6")
    assert "must play 3+2+2+1" in got["reason"]


def test_r9_every_option_of_the_rule_book_is_a_named_field() -> None:
    """R9: the options table (RULES.md, repeated in README.md) names exactly the rule set's
    options, and the referee takes each of them in a `rules` object."""
    named = set(re.findall(r"^\| `(\w+)` \|", README.read_text(encoding="utf-8"), flags=re.M))
    assert named == set(OPTION_NAMES)
    for name in OPTION_NAMES:
        spec = {"preset": "two-deck", name: getattr(FOUR_DECK, name)}
        got = ref("outcome", attackers_points=0, rules=spec)
        assert got["winner"] == "banker"


# --- coverage -------------------------------------------------------------------------------------


def _rule_ids() -> list[str]:
    """The ids the rule book mentions; the rule book must not name an id RULE_IDS lacks."""
    ids = set(RULE_IDS)
    for book in RULE_BOOKS:
        if book.is_file():
            mentioned = set(re.findall(r"\bR\d+(?:\.\d+)?\b", book.read_text(encoding="utf-8")))
            assert mentioned == ids, f"{book} and RULE_IDS differ: {sorted(mentioned ^ ids)}"
    return sorted(ids, key=_id_key)


def _id_key(rule: str) -> tuple[int, ...]:
    return tuple(int(x) for x in rule[1:].split("."))


def _names(rule: str, name: str, doc: str) -> bool:
    """A test names a rule id in its name (`test_r5_3_…`) or its docstring (`R5.3`). A section
    id (`R5`, a heading of RULES.md) is named by any of its rules (`R5.2`)."""
    slug = rule.lower().replace(".", "_")
    sub_slug = r"(?:_\d+)?" if "." not in rule else ""
    sub_id = r"(?:\.\d+)?" if "." not in rule else ""
    in_name = re.search(rf"(?:^|_){slug}{sub_slug}(?:_|$)", name) is not None
    in_doc = re.search(rf"\b{re.escape(rule)}{sub_id}(?!\.?\d)", doc) is not None
    return in_name or in_doc


def test_every_rule_id_of_the_rule_book_has_a_test() -> None:
    """Every id RULES.md mentions (R1.1 … R9) is named by a test in tests/, and by one in this
    file unless R8_COVERED_BY delegates it."""
    ids = _rule_ids()
    assert "R1.1" in ids and "R9" in ids and len(ids) >= 40
    everywhere: dict[str, str] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        for name, doc in _test_functions(path).items():
            everywhere[f"{path.name}::{name}"] = doc
    here = {k: v for k, v in everywhere.items() if k.startswith("test_rulebook.py::")}

    def covered(rule: str, tests: dict[str, str]) -> bool:
        return any(_names(rule, key.split("::")[1], doc) for key, doc in tests.items())

    assert [r for r in ids if not covered(r, everywhere)] == []
    assert [r for r in ids if r not in R8_COVERED_BY and not covered(r, here)] == []
