"""R5.3 for long leads: the deciding rung found by search (`shengji.rungs`) without listing the
ladder, checked against the ladder listed and walked rung by rung."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from dataclasses import replace
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from shengji import follow, ladder
from shengji.cards import Card, Hand, parse_cards
from shengji.combos import PlayError, read_lead
from shengji.follow import FollowVerdict, check_follow, demand
from shengji.ladder import format_rung, parse_rung
from shengji.rules import FOUR_DECK, TWO_DECK, RuleSet
from shengji.trump import TRUMP, parse_trump, trump_context

# Issue 10's situation: trump ♣, level 6, a 25-card throw <4-4-4-4> + <2-2-2> + 2 + 1.
TRUMP_C6 = parse_trump("C", "6")
ISSUE_LEAD = "5C KC KC AC 4C AC 6S 6S 6S 5C 5C 4C 5C 7C 7C 7C 7C 8C 8C 8C 8C 9C 9C 9C 9C"
ISSUE_HAND = "JC JC JC JC 6C 6C 2C 2C 2C 2C SJ SJ 4C 4C 6S QC QC QC TC 3C 6H 6H 6D 6D 6D"


def _judge(lead: str, hand: str, play: str, rules: RuleSet = FOUR_DECK) -> FollowVerdict:
    reading = read_lead(parse_cards(lead), TRUMP_C6, rules)
    return check_follow(reading, Hand.of(parse_cards(hand)), parse_cards(play), TRUMP_C6, rules)


def test_issue_10_long_throw_whole_holding_is_legal() -> None:
    """The 25-card holding is all trump: played whole it meets the first rung it can meet,
    <4-3>+4+3+<2-2-2>+2+1+1+1 (♣2222 is a quad; 6♦6♦6♦ and Q♣Q♣Q♣ are triples; the off-suit 6s
    share one position below the trump 6 and the jokers)."""
    verdict = _judge(ISSUE_LEAD, ISSUE_HAND, ISSUE_HAND)
    assert (verdict.legal, verdict.rule, verdict.kind) == (True, "R5.3", "follow")
    assert verdict.rung == parse_rung("<4-3>+4+3+<2-2-2>+2+1+1+1")
    reading = read_lead(parse_cards(ISSUE_LEAD), TRUMP_C6, FOUR_DECK)
    owed = demand(reading, Hand.of(parse_cards(ISSUE_HAND)), TRUMP_C6, FOUR_DECK)
    assert owed is not None and format_rung(owed.rung) == "<4-3>+4+3+<2-2-2>+2+1+1+1"
    assert sorted(owed.witness) == sorted(parse_cards(ISSUE_HAND))


def test_issue_10_long_throw_a_play_that_breaks_the_rung_is_illegal() -> None:
    """With three more side cards held, playing them instead of ♣3, ♣10 and a ♠6 still meets
    every unit but leaves the lead's size to cards of another suit: R5.3 asks for trump first.
    Swapping the ♣QQQ triple for singles while a triple is owed breaks the rung itself."""
    hand = ISSUE_HAND + " 3H 4H 5H"
    short = ISSUE_HAND.replace("3C", "3H")
    verdict = _judge(ISSUE_LEAD, hand, short)
    assert (verdict.legal, verdict.rule) == (False, "R5.3")
    assert verdict.reason.startswith("must follow trump")
    # Two more trumps held (♣K, ♣A): playing them instead of a Q♣ breaks the owed triple.
    bigger = ISSUE_HAND + " KC AC"
    broken = ISSUE_HAND.replace("QC QC QC", "QC QC KC")
    verdict = _judge(ISSUE_LEAD, bigger, broken)
    assert (verdict.legal, verdict.rule) == (False, "R5.3")
    assert verdict.rung == parse_rung("<4-3>+4+3+<2-2-2>+2+1+1+1")
    assert verdict.reason.startswith("must play <4-3>+4+3+<2-2-2>+2+1+1+1 from ")


_NEVER_LISTED = """
import shengji
from shengji import follow, ladder
from shengji.cards import Hand, parse_cards
from shengji.combos import read_lead
from shengji.follow import check_follow, follow_is_legal
from shengji.rules import FOUR_DECK
from shengji.trump import parse_trump

# Patching reaches calls only inside the pure modules: compiled code calls the function directly.
assert follow.__file__.endswith(".py") and ladder.__file__.endswith(".py"), shengji.__file__


def listed(shape):
    raise AssertionError("the ladder was listed")


follow.blocks = listed
ladder.blocks = listed
trump = parse_trump("C", "6")
reading = read_lead(parse_cards(LEAD), trump, FOUR_DECK)
hand = Hand.of(parse_cards(HOLD))
assert check_follow(reading, hand, parse_cards(HOLD), trump, FOUR_DECK).legal
after = list(hand.counts)
for c in parse_cards(HOLD):
    after[c] -= 1
assert follow_is_legal(reading, after, parse_cards(HOLD), trump, FOUR_DECK)
print("judged without listing")
"""


def test_long_leads_are_judged_without_listing_the_ladder() -> None:
    """Listing the ladder of the issue's throw took seconds; the search never lists it. Run on
    the pure modules in a fresh process, where replacing `blocks` reaches every caller."""
    script = f"LEAD = {ISSUE_LEAD!r}\nHOLD = {ISSUE_HAND!r}\n" + _NEVER_LISTED
    env = {**os.environ, "SHENGJI_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "judged without listing"


SEARCHED_RULES = [
    FOUR_DECK,
    replace(FOUR_DECK, protect_longer_units=True),
    replace(FOUR_DECK, ace_low_tractor=False),
    TWO_DECK,
]
"""The rule sets the search is checked under (it knows the widest_first ladder only)."""


def _situation(seed: int, rules: RuleSet, size: int) -> tuple[Any, ...] | None:
    """A lead of about `size` cards of one effective suit, chunky (many units), a holding from
    the same shoe and a few plays from it."""
    rng = random.Random(seed)
    trump = trump_context(rng.choice([0, 1, 2, 3, None]), rng.randint(2, 14))
    suit = TRUMP if rng.random() < 0.5 else rng.randrange(4)
    faces = [c for c in range(54) if trump.eff[c] == suit]
    left = dict.fromkeys(faces, rules.decks)
    lead: list[Card] = []
    for face in rng.sample(faces, len(faces)):
        if len(lead) >= size:
            break
        k = rng.randint(1, rules.decks)
        lead += [face] * k
        left[face] -= k
    hold: list[Card] = []
    for face in rng.sample(faces, len(faces)):
        hold += [face] * rng.randint(0, left[face])
    if len(hold) < len(lead):
        return None
    hold = hold[: rng.randint(len(lead), len(hold))]
    try:
        reading = read_lead(tuple(sorted(lead)), trump, rules)
    except PlayError:
        return None
    plays = [rng.sample(hold, len(lead)) for _ in range(3)]
    return trump, reading, hold, plays


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32),
    st.sampled_from(SEARCHED_RULES),
    st.integers(4, 13),
)
def test_search_finds_the_rung_the_listed_ladder_finds(
    seed: int, rules: RuleSet, size: int
) -> None:
    """R5.3 exactly: for leads short enough to list their ladder, the search (`rungs.decide`)
    names the same deciding rung, and whether the play meets it, as the walk of the listed
    ladder — for the holding alone (what it owes) and against plays from it."""
    found = _situation(seed, rules, size)
    if found is None:
        return
    trump, reading, hold, plays = found
    lay = follow._layout(trump, reading.suit, rules.ace_low_tractor)
    vals = lay.values(Hand.of(hold).counts)
    protect = tuple(vals) if rules.protect_longer_units else None
    shape = ladder.ladder_key(reading, rules)
    for play in [None, *plays]:
        counts = None if play is None else lay.tally(play)
        walked = follow._walk_ladder(reading, rules, lay, list(vals), protect, counts)
        searched = follow.decide(shape, lay.at, lay.lo, lay.ace_stop, list(vals), protect, counts)
        assert (walked and walked[1:]) == (searched and searched[1:]), (shape, vals, play)


def _sub_multisets(hold: list[Card], n: int) -> set[tuple[Card, ...]]:
    counts = Hand.of(hold).counts
    faces = [(f, k) for f, k in enumerate(counts) if k]
    out: set[tuple[Card, ...]] = set()
    for take in itertools.product(*(range(k + 1) for _, k in faces)):
        if sum(take) == n:
            out.add(tuple(f for (f, _), t in zip(faces, take, strict=True) for _ in range(t)))
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32),
    st.sampled_from([*SEARCHED_RULES, replace(FOUR_DECK, throw_ladder="one_at_a_time")]),
    st.integers(12, 16),
    st.integers(0, 3),
)
# Under `protect_longer_units` a play can be legal without meeting the rung the holding owes:
# the rung found once would wrongly refuse some play here (it is judged one by one instead).
@example(175, replace(FOUR_DECK, protect_longer_units=True), 15, 3)
@example(490, replace(FOUR_DECK, protect_longer_units=True), 15, 3)
def test_legal_plays_of_a_long_lead_are_those_the_referee_allows(
    seed: int, rules: RuleSet, size: int, spare: int
) -> None:
    """R5.3 for leads of 12 cards and more: `legal_plays` (which tests every candidate against
    the rung the holding owes, found once) lists exactly the plays `check_follow` (which
    searches the deciding rung for each play) calls legal, each once."""
    found = _situation(seed, rules, size)
    if found is None:
        return
    trump, reading, hold, _ = found
    n = reading.size
    hold = hold[: n + spare]  # a few cards to spare: every play of the holding is judged
    holding = Hand.of(hold)
    listed = list(follow.legal_plays(reading, holding, trump, rules))
    assert len(listed) == len(set(listed))
    allowed = {
        p for p in _sub_multisets(hold, n) if check_follow(reading, holding, p, trump, rules).legal
    }
    assert set(listed) == allowed, (reading, hold)
    assert allowed, "some play is always legal"
