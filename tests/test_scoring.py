"""R7 (score of a hand) and R4.5 (failed-throw penalty): shengji.scoring under both presets."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shengji.cards import parse_card, parse_cards
from shengji.rules import FOUR_DECK, TWO_DECK, rules_from_spec
from shengji.scoring import (
    LevelOutcome,
    TrickScore,
    advance_level,
    apply_level_change,
    bottom_multiplier,
    bottom_score,
    ladder_points,
    level_change,
    next_banker,
    score_hand,
    throw_penalty,
    trick_points,
)
from shengji.shape import Component, Reading
from shengji.trump import TRUMP, parse_trump

TRUMP_S2 = parse_trump("S", "2")


def lead_of(width: int, length: int = 1, *extra: tuple[int, int]) -> Reading:
    """A reading with one component of `width`×`length` (plus `extra` components); only the
    shape matters to scoring, so the faces are placeholders."""
    shapes = [(width, length), *extra]
    comps = tuple(
        Component(w, tuple(range(i * 5, i * 5 + n)), i * 5 + n - 1)
        for i, (w, n) in enumerate(shapes)
    )
    return Reading(TRUMP, tuple(sorted(comps, key=lambda c: -c.size)))


@pytest.mark.parametrize(
    ("width", "length", "multiplier"),
    [(1, 1, 2), (2, 1, 4), (3, 1, 8), (4, 1, 16), (2, 2, 16), (2, 3, 64), (3, 2, 64)],
)
def test_r7_2_power_table_single_2_pair_4_triple_8_quad_16(
    width: int, length: int, multiplier: int
) -> None:
    """R7.2 (seed 004): single ×2, pair ×4, triple ×8, quad ×16, ⟨2-2⟩ ×16, by k = cards."""
    assert bottom_multiplier(lead_of(width, length), True, FOUR_DECK) == multiplier


def test_r7_2_throw_counts_its_largest_component() -> None:
    """R7.2: k is the largest component of the lead, not the whole lead."""
    lead = lead_of(2, 1, (1, 1), (1, 1))
    assert bottom_multiplier(lead, True, FOUR_DECK) == 4


@pytest.mark.parametrize(
    ("policy", "k", "multiplier"),
    [("times", 1, 2), ("times", 2, 4), ("times", 4, 8), ("linear", 1, 1), ("linear", 3, 3)],
)
def test_r7_2_times_and_linear_options(policy: str, k: int, multiplier: int) -> None:
    rules = rules_from_spec({"bottom_multiplier": policy})
    assert bottom_multiplier(lead_of(k), True, rules) == multiplier


def test_r7_2_side_suit_capture_is_times_one_unless_option() -> None:
    """R7.2: 副牌扣底不翻倍, unless side_suit_capture_doubles."""
    assert bottom_multiplier(lead_of(2), False, FOUR_DECK) == 1
    rules = rules_from_spec({"side_suit_capture_doubles": True})
    assert bottom_multiplier(lead_of(2), False, rules) == 4


def test_r7_2_bottom_points_added_only_when_attackers_take_it() -> None:
    bottom = parse_cards("5H TD KC 3S 4S 6S 7S 8S")  # 25 points
    pair_lead = lead_of(2)
    taken = bottom_score(pair_lead, parse_cards("AS AS"), bottom, True, TRUMP_S2, FOUR_DECK)
    assert (taken.bottom_points, taken.won_with_trump, taken.multiplier, taken.points) == (
        25,
        True,
        4,
        100,
    )
    side = bottom_score(pair_lead, parse_cards("AH AH"), bottom, True, TRUMP_S2, FOUR_DECK)
    assert (side.won_with_trump, side.multiplier, side.points) == (False, 1, 25)
    kept = bottom_score(pair_lead, parse_cards("AS AS"), bottom, False, TRUMP_S2, FOUR_DECK)
    assert (kept.captured, kept.multiplier, kept.points) == (False, 0, 0)


def test_r7_2_level_cards_and_jokers_are_trump_capture() -> None:
    """R2.2: a level card of a side suit is trump, so winning with it is a trump capture."""
    bottom = parse_cards("KD KD 3S 4S 6S 7S 8S 9S")
    got = bottom_score(lead_of(1), parse_cards("2H"), bottom, True, TRUMP_S2, FOUR_DECK)
    assert (got.won_with_trump, got.points) == (True, 40)
    nt = parse_trump("NT", "2")
    got = bottom_score(lead_of(1), parse_cards("SJ"), bottom, True, nt, FOUR_DECK)
    assert got.won_with_trump and got.points == 40


def test_r1_4_r6_4_trick_points() -> None:
    assert (
        trick_points([parse_cards("5H 5H"), parse_cards("TS KD"), (), parse_cards("9C 3C")]) == 30
    )


# --- R7.3 ------------------------------------------------------------------------------------------

FOUR_DECK_TABLE = [
    (0, "banker", 3),
    (5, "banker", 2),
    (75, "banker", 2),
    (80, "banker", 1),
    (155, "banker", 1),
    (160, "attackers", 0),
    (235, "attackers", 0),
    (240, "attackers", 1),
    (315, "attackers", 1),
    (320, "attackers", 2),
    (395, "attackers", 2),
    (400, "attackers", 3),
    (475, "attackers", 3),
    (480, "attackers", 4),
    (560, "attackers", 5),
    (1600, "attackers", 18),
    (-5, "banker", 3),
    (-75, "banker", 3),
    (-80, "banker", 4),
    (-155, "banker", 4),
    (-160, "banker", 5),
]

TWO_DECK_TABLE = [
    (0, "banker", 3),
    (5, "banker", 2),
    (35, "banker", 2),
    (40, "banker", 1),
    (75, "banker", 1),
    (80, "attackers", 0),
    (115, "attackers", 0),
    (120, "attackers", 1),
    (160, "attackers", 2),
    (200, "attackers", 3),
    (-40, "banker", 4),
]


@pytest.mark.parametrize(("total", "winner", "levels"), FOUR_DECK_TABLE)
def test_r7_3_four_deck_step_80(total: int, winner: str, levels: int) -> None:
    outcome = level_change(total, FOUR_DECK)
    assert (outcome.winner, outcome.levels) == (winner, levels)
    assert outcome.takes_over == (winner == "attackers")


@pytest.mark.parametrize(("total", "winner", "levels"), TWO_DECK_TABLE)
def test_r7_3_r9_two_deck_step_40(total: int, winner: str, levels: int) -> None:
    outcome = level_change(total, TWO_DECK)
    assert (outcome.winner, outcome.levels) == (winner, levels)


@given(st.integers(-200, 400).map(lambda n: n * 5), st.sampled_from([40, 80, 100]))
def test_r7_3_more_points_never_help_the_banker(total: int, step: int) -> None:
    """R7.3: the outcome is monotone in T, and each step changes it by at most one level."""
    rules = replace(FOUR_DECK, level_step=step)

    def signed(t: int) -> int:
        o = level_change(t, rules)
        return o.levels + 1 if o.winner == "attackers" else -o.levels

    here, there = signed(total), signed(total + step)
    assert here <= signed(total + 5) <= there
    assert there - here <= 2  # the take-over band's 0 sits between banker +1 and attackers +1
    assert level_change(total, rules).levels >= 0


def test_r7_3_levels_stop_at_ace() -> None:
    assert advance_level(12, 3) == 14
    assert advance_level(5, 2) == 7
    outcome = LevelOutcome("attackers", 3, True)
    # banker seat 0: attackers are team 1 at level Q (12), capped at A.
    assert apply_level_change((9, 12), 0, outcome) == (9, 14)
    assert apply_level_change((9, 12), 1, LevelOutcome("banker", 1, False)) == (9, 13)


def test_r7_4_next_banker() -> None:
    """R7.4: 对家坐庄 when the banker team holds, the banker's 下家 when the attackers win."""
    assert [next_banker(b, True) for b in range(4)] == [2, 3, 0, 1]
    assert [next_banker(b, False) for b in range(4)] == [1, 2, 3, 0]


def test_r7_5_ladder_points() -> None:
    """R7.5: 3 per level to the winners, a bare take-over 0 to both, −1 per failed throw."""
    assert ladder_points(0, LevelOutcome("banker", 2, False)) == (6, 0, 6, 0)
    assert ladder_points(0, LevelOutcome("attackers", 1, True)) == (0, 3, 0, 3)
    assert ladder_points(3, LevelOutcome("attackers", 0, True)) == (0, 0, 0, 0)
    assert ladder_points(1, LevelOutcome("banker", 1, False), [1, 2, 2]) == (0, 2, -2, 3)


def test_r4_5_penalty_moves_points_to_the_throwers_opponents() -> None:
    """R4.5: an attacker's failed throw lowers T, a banker-team thrower's raises it."""
    rules = rules_from_spec({"throw_penalty_points": 10})
    assert throw_penalty(1, 0, rules) == -10
    assert throw_penalty(2, 0, rules) == 10
    assert throw_penalty(1, 0, FOUR_DECK) == 0


def test_r7_score_table_explains_the_hand() -> None:
    """R7.1–R7.5 and R4.5 together: rows name their rule and add up to the total."""
    rules = rules_from_spec({"throw_penalty_points": 10})
    trump = parse_trump("H", "5")
    tricks = [TrickScore(1, 20), TrickScore(0, 30), TrickScore(3, 0), TrickScore(3, 45)]
    bottom = parse_cards("KD KD 5C 3S 4S 6S 7S 8S")  # 25
    last_lead = lead_of(2)
    table = score_hand(
        0, tricks, last_lead, parse_cards("AH AH"), bottom, trump, rules, failed_throws=[1, 2]
    )
    points = [r.points for r in table.rows if r.points is not None and r.what != "attackers' total"]
    assert sum(points) == table.attackers_points == 20 + 45 - 10 + 10 + 25 * 4
    assert table.bottom is not None and table.bottom.multiplier == 4
    assert table.attackers_points == 165
    assert table.outcome == LevelOutcome("attackers", 0, True)  # a bare take-over
    assert table.next_banker == 1
    assert table.ladder_points == (0, -1, -1, 0)
    rules_seen = [r.rule for r in table.rows]
    assert {"R7.1", "R4.5", "R7.2", "R7.3", "R7.4", "R7.5"} <= set(rules_seen)
    text = table.render()
    assert "trick 4 won by seat 3" in text and "+100" in text
    assert "trick 2" not in text  # the banker team's trick scores nothing (R7.1)


def test_r7_2_no_trick_means_no_capture() -> None:
    table = score_hand(0, [], None, (), parse_cards("KD KD"), TRUMP_S2, FOUR_DECK)
    assert table.bottom is None and table.attackers_points == 0
    assert table.outcome == LevelOutcome("banker", 3, False)


def test_r7_2_kept_bottom_row_scores_zero() -> None:
    trump = parse_trump("S", "2")
    table = score_hand(
        0, [TrickScore(2, 10)], lead_of(1), (parse_card("AS"),), parse_cards("KD"), trump, FOUR_DECK
    )
    assert table.bottom is not None and not table.bottom.captured
    assert table.attackers_points == 0
    assert any(r.rule == "R7.2" and "kept" in r.what for r in table.rows)
