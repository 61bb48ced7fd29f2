"""The analysis of the bury (docs/analysis.md, "The bury"): the decision numbered 0 before trick 1,
its candidates, a hand-made bury whose cost is checked by hand, determinism for a seed and the
JSON form."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from itertools import islice
from pathlib import Path

from shengji.cards import Card, Hand, card_points, parse_cards
from shengji.coach.analysis import (
    BURY_NUMBER,
    Settings,
    Spot,
    bury_candidates,
    judge,
    judgement_from_json,
    judgement_json,
    spots,
)
from shengji.coach.analysis_world import BOTTOM, knowledge
from shengji.commands.analyse import _line
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.results import HandReplay
from shengji.rules import FOUR_DECK
from shengji.sim.memory import Memory
from shengji.sim.table import Position
from shengji.trump import TRUMP, parse_trump

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
FAST = Settings(worlds=4, min_worlds=4, cap=4, screen=1, listed=12, seed=7)


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(sorted(parse_cards(text)))


@cache
def _replay(index: int) -> HandReplay:
    number, text = next(islice(iter_lines(SAMPLE), index, index + 1))
    return replay_line(text, line=number)


@cache
def _spots(index: int) -> tuple[Spot, ...]:
    return tuple(spots(_replay(index), FAST))


# --- where the bury sits, and what it considers ------------------------------------------------


def test_the_bury_is_decision_0_before_the_plays_which_keep_their_numbers() -> None:
    for index in range(3):
        r = _replay(index)
        found = _spots(index)
        bury = found[0]
        assert (bury.kind, bury.number, bury.trick) == ("bury", BURY_NUMBER, 0) == ("bury", 0, 0)
        assert bury.seat == r.banker
        assert bury.play == tuple(sorted(r.bottom_buried))
        # The plays are numbered from 1 as before: one per card play of the hand.
        assert [s.number for s in found[1:]] == list(range(1, len(found)))
        assert all(s.kind != "bury" for s in found[1:])


def test_the_burier_holds_the_bottom_and_sees_only_the_other_holdings_unseen() -> None:
    r = _replay(0)
    bury = _spots(0)[0]
    k = bury.knowledge
    before = r.start[bury.seat].add(r.bottom_buried)
    assert bury.position.holdings[bury.seat] == before
    assert BOTTOM not in k.dests and k.bottom == bury.play
    # Every card the burier does not hold is with another seat (pinned or unseen).
    pinned = [sum(p[f] for p in k.pinned) for f in range(54)]
    assert [k.pool[f] + pinned[f] + before.counts[f] for f in range(54)] == [4] * 54
    assert list(k.room) == [len(r.start[d]) - sum(k.pinned[i]) for i, d in enumerate(k.dests)]


def test_the_last_fry_buries_and_is_judged() -> None:
    """A hand with a valid fry: the decision is the last fryer's re-bury, from its holding at
    trick 1 with the bottom it buried."""
    for index in (29, 54):
        r = _replay(index)
        fries = [b for b in r.bids if b.kind == "fry" and b.valid and b.buried]
        bury = _spots(index)[0]
        assert bury.kind == "bury" and bury.seat == fries[-1].seat
        assert bury.play == tuple(sorted(r.bottom_buried))
        assert bury.position.holdings[bury.seat] == r.start[bury.seat].add(r.bottom_buried)
    # Seat 1 re-buried last in hand 54, an attacker (seat 2 is banker): the richest bury is
    # listed for it (side cards first), and the decision is judged on every candidate.
    bury = _spots(54)[0]
    assert bury.seat % 2 != _replay(54).banker % 2  # type: ignore[operator]
    points = [sum(card_points(x) for x in c) for c in bury.candidates]
    before = bury.position.holdings[bury.seat]
    trump = bury.position.trump
    side = (card_points(x) for x in before if trump.eff[x] != TRUMP)
    richest = sorted(side, reverse=True)[: len(bury.play)]
    assert max(points) == sum(richest)
    j = judge(bury, FAST)
    assert j.kind == "bury" and j.judged and j.seat == bury.seat
    assert {a.cards for a in j.alternatives} <= set(bury.candidates)


def test_the_candidates_are_buries_of_the_holding_with_the_play_made_first() -> None:
    for index in range(6):
        bury = _spots(index)[0]
        before = bury.position.holdings[bury.seat]
        trump = bury.position.trump
        assert bury.candidates[0] == bury.play
        assert 1 <= len(bury.candidates) <= 5
        for c in bury.candidates:
            assert len(c) == FOUR_DECK.bottom_size and before.contains(c)
        # The cheapest by points is among them: no candidate holds fewer points.
        points = [sum(card_points(x) for x in c) for c in bury.candidates]
        side = [sum(trump.eff[x] != TRUMP for x in c) for c in bury.candidates]
        fewest = min(points)
        assert any(p == fewest for p in points[1:]) or points[0] == fewest
        assert max(side) == min(FOUR_DECK.bottom_size, sum(trump.eff[x] != TRUMP for x in before))


def test_a_short_side_suit_is_buried_whole() -> None:
    """Trump spades at level 2; the holding's hearts are 3 cards: one candidate buries them all."""
    trump = parse_trump("S", 2)
    before = Hand.of(parse_cards("4H 6H 9H 3C 4C 6C 7C 8C 9C JC QC 3D 4D 6D 7D 8D 9D 5S"))
    made = _cards("3C 4C 6C 7C 8C 9C JC QC")
    cands, _ = bury_candidates(before, made, trump, FOUR_DECK)
    hearts = set(parse_cards("4H 6H 9H"))
    assert any(hearts <= set(c) for c in cands)


# --- a hand-made bury, checked by hand ---------------------------------------------------------------


def _one_trick(made: str) -> Spot:
    """The banker (seat 0) holds nine clubs with the bottom taken in and keeps one: every seat
    then holds one card, all known (the others' cards pinned), trump spades, level 2.

    seat 0: 3C 4C 6C 7C 8C 9C JC QC KC   seat 1: A♠   seat 2: 4♥   seat 3: 6♥

    Whatever club the banker keeps and leads, seat 1 ruffs it with A♠ and wins the only trick:
    the attackers capture the bottom, its points doubled (a single's last trick). Burying K♣
    (10 points, keeping 3♣) leaves them 0 + 2 × 10 = 20; burying eight clubs of no points
    (keeping K♣, which falls to the ruff) leaves them 10 + 0 = 10. Burying points is worse by 10."""
    trump = parse_trump("S", 2)
    rules = FOUR_DECK
    before = parse_cards("3C 4C 6C 7C 8C 9C JC QC KC")
    bottom = _cards(made)
    left = list(before)
    for c in bottom:
        left.remove(c)
    texts = [left, parse_cards("AS"), parse_cards("4H"), parse_cards("6H")]
    holdings = [[0] * 54 for _ in range(4)]
    for seat, cards in enumerate(texts):
        for c in cards:
            holdings[seat][c] += 1
    played = [rules.decks] * 54
    for h in holdings:
        for f in range(54):
            played[f] -= h[f]
    for c in bottom:
        played[c] -= 1
    exposed = [list(h) for h in holdings]
    exposed[0] = [0] * 54
    voids = [[False] * 5 for _ in range(4)]
    k = knowledge(0, holdings, played, exposed, voids, bottom, True, rules.decks)
    memory = Memory(rules.decks, tuple(played), (frozenset(),) * 4)
    hands = [Hand(tuple(h)) for h in holdings]
    hands[0] = Hand.of(before)
    position = Position(rules, trump, 0, tuple(hands), bottom, 0, memory, 1, 0)
    cands, note = bury_candidates(hands[0], bottom, trump, rules)
    return Spot("bury", 0, 0, 0, "bury", bottom, position, k, cands, None, note)


def test_burying_points_the_attackers_capture_is_worse_than_burying_none() -> None:
    spot = _one_trick("4C 6C 7C 8C 9C JC QC KC")
    zero = _cards("3C 4C 6C 7C 8C 9C JC QC")
    assert spot.candidates == (spot.play, zero)
    j = judge(spot, FAST)
    assert j.kind == "bury" and j.judged and j.flagged
    assert j.best == zero
    # Every world is the same world: the figures are exact.
    assert (j.loss, j.loss_se) == (10.0, 0.0)
    assert (j.value, j.best_value, j.attackers) == (-20.0, -10.0, 20.0)
    assert j.severity == "mistake"
    assert [(a.cards, a.value) for a in j.alternatives] == [(zero, -10.0), (spot.play, -20.0)]
    # The cheap bury is every candidate's choice: nothing else is listed, nothing to judge...
    cheap = _one_trick("3C 4C 6C 7C 8C 9C JC QC")
    assert cheap.candidates == (zero,) and not judge(cheap, FAST).judged
    # ... and against the bury of K♣ it is best.
    sound = judge(replace(cheap, candidates=(zero, spot.play)), FAST)
    assert sound.judged and not sound.flagged and sound.best is None and sound.loss == 0.0
    assert (sound.value, sound.best_value) == (-10.0, -10.0)


# --- determinism and the JSON form ---------------------------------------------------------------


def test_the_bury_is_judged_the_same_for_a_seed_and_reads_back_from_json() -> None:
    bury = _spots(2)[0]
    first = judge(bury, FAST)
    assert first == judge(bury, FAST)
    assert first.kind == "bury" and first.number == 0 and first.trick == 0
    assert first.judged and first.worlds >= FAST.min_worlds
    assert {a.cards for a in first.alternatives} == set(bury.candidates)
    assert all(a.worlds == first.worlds for a in first.alternatives)
    back = judgement_from_json(json.loads(json.dumps(judgement_json(first))))
    assert back == first


def test_the_text_output_names_the_bury() -> None:
    j = judge(_one_trick("4C 6C 7C 8C 9C JC QC KC"), FAST)
    line = _line(j, ("a", "b", "c", "d"))
    assert line.startswith("  the bury seat 0 (a) ")
    assert "mistake" in line and "played 4C 6C 7C 8C 9C JC QC KC" in line
    assert line.endswith("; 3C 4C 6C 7C 8C 9C JC QC is better")
