"""The `botzone2023` preset: the Botzone judge's 2023 version (JackSimbol/Tractor `judge.py`,
5c675d3) and each option it adds to `botzone`, with the judge's verdicts (docs/rules.md, "The 2023
Botzone judge"). Every follow verdict below is the one `judge.py` itself returns for that lead,
holding and play (its `checkLegalMove`, run on the same cards)."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hh_builder import played_hand

from shengji.cards import Hand, parse_cards
from shengji.combos import read_lead
from shengji.follow import check_follow, follow_is_legal
from shengji.referee import judge
from shengji.replay import replay_record
from shengji.rules import RuleError, preset, rules_from_spec
from shengji.throws import check_throw
from shengji.trick import resolve_trick
from shengji.trump import TRUMP, parse_trump, rules_trump

BOTZONE = preset("botzone")
BZ2023 = preset("botzone2023")
NEW = ("trump_ace_low", "two_above_ace", "unchecked_throws")


def _plays(*plays: str) -> list[tuple[int, tuple[int, ...]]]:
    return [(seat, tuple(parse_cards(p))) for seat, p in enumerate(plays)]


def _winner(rules_name: str, trump: str, level: str, *plays: str) -> int:
    rules = preset(rules_name)
    ctx = rules_trump(trump, level, rules)
    lead = read_lead(parse_cards(plays[0]), ctx, rules)
    return resolve_trick(lead, _plays(*plays), [False] * 4, ctx, rules).winner


# --- the preset --------------------------------------------------------------------------------------


def test_botzone2023_is_botzone_plus_one_option_per_difference() -> None:
    differ = {
        f.name: getattr(BZ2023, f.name)
        for f in fields(BZ2023)
        if getattr(BZ2023, f.name) != getattr(BOTZONE, f.name)
    }
    assert differ == {
        "preset": "botzone2023",
        "trump_ace_low": True,
        "two_above_ace": True,
        "unchecked_throws": True,
        "follow_rule": "botzone2023",
    }
    assert rules_from_spec("botzone2023") is BZ2023 and BZ2023.spec() == "botzone2023"


def test_the_new_options_leave_every_other_preset_as_it_was() -> None:
    for name in ("four-deck", "two-deck", "rbtying", "jerryyyu", "botzone", "ejfn"):
        rules = preset(name)
        assert not any(getattr(rules, option) for option in NEW)
        assert rules.follow_rule != "botzone2023"
        # The same ladder as before the options existed.
        for level in ("2", "7", "A"):
            ctx = rules_trump("S", level, rules)
            assert ctx == parse_trump("S", level, rules.level_tractors)


def test_the_new_options_are_checked() -> None:
    for bad in ({"trump_ace_low": "yes"}, {"two_above_ace": 1}, {"follow_rule": "lax"}):
        with pytest.raises(RuleError):
            rules_from_spec({"preset": "botzone2023", **bad})
    got = rules_from_spec({"preset": "botzone", "trump_ace_low": True})
    assert got.options() == {"trump_ace_low": True}


# --- trump_ace_low (R2.3) ------------------------------------------------------------------------------


def test_trump_ace_low_the_trump_a_is_the_lowest_plain_trump() -> None:
    """`setMajor` orders the trump suit A 2 3 … K: log e0001, trick 7 (♣ trump, level 2): seat 3
    leads 3♣, 4♣ J♣ A♣ follow, J♣ wins; under the 2024 judge the A♣ would."""
    assert _winner("botzone2023", "C", "2", "3C", "4C", "JC", "AC") == 2
    assert _winner("botzone", "C", "2", "3C", "4C", "JC", "AC") == 3
    assert _winner("botzone2023", "C", "2", "AC AC", "3C 3C", "5D 6D", "7D 8D") == 1
    # Above the plain trumps the order is the 2024 judge's.
    assert _winner("botzone2023", "C", "2", "KC", "2H", "2C", "SJ") == 3
    ctx = rules_trump("C", "2", BZ2023)
    a, three, king = parse_cards("AC 3C KC")
    assert ctx.pos[a] < ctx.pos[three] < ctx.pos[king] and ctx.eff[a] == TRUMP


def test_trump_ace_low_a_tractor_still_needs_neighbours_of_the_plain_order() -> None:
    """A♣A♣ 3♣3♣ are strength neighbours at level 2, but the judge's tractors climb `pointorder`
    (3 … K A): two pairs. At level 5 the judge's A and 2 are neighbours both ways."""
    ctx = rules_trump("C", "2", BZ2023)
    assert len(read_lead(parse_cards("AC AC 3C 3C"), ctx, BZ2023).components) == 2
    assert len(read_lead(parse_cards("3C 3C 4C 4C"), ctx, BZ2023).components) == 1
    ctx = rules_trump("C", "5", BZ2023)
    assert len(read_lead(parse_cards("AC AC 2C 2C"), ctx, BZ2023).components) == 1
    assert len(read_lead(parse_cards("2C 2C 3C 3C"), ctx, BZ2023).components) == 2


# --- two_above_ace (R2.4, R3.2) ------------------------------------------------------------------------


def test_two_above_ace_the_side_suits_run_3_to_a_then_2() -> None:
    assert _winner("botzone2023", "H", "5", "AS", "2S", "KS", "3S") == 1
    assert _winner("botzone", "H", "5", "AS", "2S", "KS", "3S") == 0
    ctx = rules_trump("H", "5", BZ2023)
    assert len(read_lead(parse_cards("AS AS 2S 2S"), ctx, BZ2023).components) == 1
    assert len(read_lead(parse_cards("2S 2S 3S 3S"), ctx, BZ2023).components) == 2
    # At level 2 (the judge's default) a side suit's order is the usual one (3♠ … A♠).
    assert rules_trump("H", "2", BZ2023).pos[1:13] == rules_trump("H", "2", BOTZONE).pos[1:13]


# --- unchecked_throws (R4.3) ---------------------------------------------------------------------------


def test_unchecked_throws_a_throw_always_stands() -> None:
    """The 2023 judge calls `checkThrow` without `check=True`: ♠Q♠Q ♠K stands against ♠A♠A."""
    hands = [Hand.of(parse_cards(h)) for h in ("QS QS KS 3H", "AS AS 4H", "5D", "6D")]
    for rules, failed in ((BOTZONE, True), (BZ2023, False)):
        ctx = rules_trump("H", "2", rules)
        lead = read_lead(parse_cards("QS QS KS"), ctx, rules)
        got = check_throw(lead, 0, hands, ctx, rules)
        assert got.failed is failed
        assert got.failing_cards == (3 if failed else 0)


# --- follow_rule botzone2023 (R5) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "held", "play", "bz2023", "bz2024", "shape"),
    [
        # No trump pair held: any pair passes, even of a side suit (real-botzone-sample, trick 3).
        ("2H 2H", "TH TH 5C 9C 4D", "TH TH", True, False, None),
        # A trump pair held: a pair is owed.
        ("2H 2H", "5C 5C 9C TH", "5C 9C", False, False, True),
        # A single: the led suit when held (e0001, trick 13).
        ("SJ", "5C TH", "TH", False, False, False),
        # No tractor held, all of the suit: as many pairs as the lead or the hand has.
        ("9S 9S TS TS", "3S 3S 5S 5S 7S", "3S 3S 5S 7S", False, False, True),
        ("9S 9S TS TS", "3S 3S 5S 5S 7S", "3S 3S 5S 5S", True, True, None),
        # No tractor held: a tractor of another suit passes, a spade held or not.
        ("9S 9S TS TS", "3S 4H 4H 5H 5H 6D", "4H 4H 5H 5H", True, False, None),
        # Pairs of two suits: INVALID_POKERTYPE.
        ("9S 9S TS TS", "3S 5D 5D 6H 6H", "5D 5D 6H 6H", False, False, True),
        # No pair of the suit: a side pair passes.
        ("9S 9S", "5S 6S 4D 4D", "4D 4D", True, False, None),
        # The suit counted by its letter: the level card 2♠ counts as a spade.
        ("9S 9S", "2S 5S 6S 4D", "2S 5S", True, False, None),
    ],
)
def test_the_2023_judges_follow_check(
    lead: str, held: str, play: str, bz2023: bool, bz2024: bool, shape: bool | None
) -> None:
    for rules, want in ((BZ2023, bz2023), (BOTZONE, bz2024)):
        ctx = rules_trump("C", "2", rules)
        reading = read_lead(parse_cards(lead), ctx, rules)
        hand = Hand.of(parse_cards(held))
        cards = parse_cards(play)
        got = check_follow(reading, hand, cards, ctx, rules)
        assert got.legal == want, (rules.preset, got.reason)
        after = list(hand.counts)
        for c in cards:
            after[c] -= 1
        assert follow_is_legal(reading, after, cards, ctx, rules) == want
        if rules is BZ2023 and shape is not None:
            assert (got.rung is not None) == shape, got.reason


@pytest.mark.parametrize(
    ("lead", "held", "play"),
    [
        ("AS KS", "3S 4S 5D", "3S 4S"),  # any answer to a throw
        ("2H 2H", "5C 7C 9D", "5C 7C"),  # all trump, no trump pair, not a pair
    ],
)
def test_the_2023_judge_fails_on_these_follows(lead: str, held: str, play: str) -> None:
    """`judge.py` raises UnboundLocalError here (it reads `own_pok`, `major_hold` before assigning
    them): the match ends, which the verdict says instead of naming a rule."""
    ctx = rules_trump("C", "2", BZ2023)
    reading = read_lead(parse_cards(lead), ctx, BZ2023)
    got = check_follow(reading, Hand.of(parse_cards(held)), parse_cards(play), ctx, BZ2023)
    assert not got.legal and "the 2023 judge fails on this play" in got.reason


def test_the_referee_knows_the_2023_judge() -> None:
    request = {"kind": "follow", "rules": "botzone2023", "trump": "C", "level": "2",
               "lead": "2H 2H", "hand": "TH TH 5C 9C 4D", "play": "TH TH"}  # fmt: skip
    got = judge(request)
    assert got.response["legal"] is True
    got = judge({**request, "rules": "botzone"})
    assert got.response["legal"] is False


def test_a_hand_ends_at_the_first_play_the_2023_judge_fails_on() -> None:
    """A throw stands (nothing forced, no penalty), and its first answer fails the judge: the
    replay reports that one `engine_fault`, as the match ended there, and scores nothing."""
    for seed in range(20):
        record = played_hand(seed, rules=BZ2023, throw_rate=0.9)
        got = replay_record(record)
        if [f.code for f in got.findings] != ["engine_fault"]:
            continue
        (fault,) = got.findings
        assert "the 2023 judge fails on this play" in fault.reason
        assert got.attackers_points is None and not sum(got.failed_throws)
        return
    pytest.fail("no seed gave a hand whose first fault is a throw's answer")
