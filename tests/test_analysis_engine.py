"""The computer analysis (docs/analysis.md): the worlds it deals, the decisions it does not judge,
a forced line in a hand-made ending checked by hand, the rollouts' entry point mid-hand, the
result's JSON form, and determinism for a seed."""

from __future__ import annotations

import json
import random
from functools import cache
from itertools import islice
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shengji.cards import Card, Hand, parse_cards
from shengji.coach.analysis import (
    ENGINE,
    HandAnalysis,
    Settings,
    Spot,
    analysis_from_json,
    analysis_json,
    follow_candidates,
    judge,
    spots,
)
from shengji.coach.analysis_world import BOTTOM, knowledge, sample_world
from shengji.combos import read_lead
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK
from shengji.shape import Reading
from shengji.sim.bots import make_bot
from shengji.sim.memory import Memory
from shengji.sim.personas import Persona
from shengji.sim.table import HandSetup, Position, play_hand, play_out
from shengji.trump import parse_trump

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
FAST = Settings(worlds=4, min_worlds=4, cap=3, screen=1, listed=12, seed=7)


@cache
def _sample_spots(index: int) -> tuple[Spot, ...]:
    number, text = next(islice(iter_lines(SAMPLE), index, index + 1))
    return tuple(spots(replay_line(text, line=number), FAST))


# --- the worlds ----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 2**32 - 1))
def test_every_world_is_consistent_with_the_actors_knowledge(
    hand: int, pick: int, seed: int
) -> None:
    """Each destination gets exactly its room, its pinned cards stay, no card of a suit it is
    known to be void in, and the deal is exactly the unseen cards: never a hidden card read."""
    found = _sample_spots(hand)
    spot = found[pick % len(found)]
    k = spot.knowledge
    trump = spot.position.trump
    world = sample_world(k, trump, random.Random(seed))
    dealt = [0] * 54
    for i, d in enumerate(k.dests):
        got = [world[i][f] - k.pinned[i][f] for f in range(54)]
        assert min(got) >= 0
        assert sum(got) == k.room[i]
        for f in range(54):
            if got[f]:
                assert not k.void[i][trump.eff[f]], (d, f)
            dealt[f] += got[f]
    assert dealt == list(k.pool)
    # The actor's own cards are theirs alone: the pool never holds more than the decks allow.
    decks = spot.position.rules.decks
    assert all(k.pool[f] + k.hand[f] <= decks for f in range(54))


def test_the_bottom_is_dealt_only_to_who_did_not_bury_it() -> None:
    for spot in _sample_spots(0)[:8]:
        k = spot.knowledge
        burier = spot.position.bury_seat
        assert (BOTTOM in k.dests) == (spot.seat != burier)
        assert (k.bottom is not None) == (spot.seat == burier)


def test_voids_force_the_deal() -> None:
    """Seat 2 is void in hearts and seat 3 in spades: every heart goes to 1 or 3, every spade to
    1 or 2, whatever the seed (the sampler never rejects)."""
    trump = parse_trump("D", 2)
    holdings = [[0] * 54 for _ in range(4)]
    for seat, text in enumerate(("3C 4C", "5S 5H", "6S 7C", "8H 9C")):
        for c in parse_cards(text):
            holdings[seat][c] += 1
    played = [4] * 54
    for h in holdings:
        for f in range(54):
            played[f] -= h[f]
    voids = [[False] * 5 for _ in range(4)]
    voids[2][trump.eff[parse_cards("3H")[0]]] = True
    voids[3][trump.eff[parse_cards("3S")[0]]] = True
    k = knowledge(0, holdings, played, [[0] * 54] * 4, voids, (), True, 4)
    hearts = {c for c in range(54) if trump.eff[c] == trump.eff[parse_cards("3H")[0]]}
    spades = {c for c in range(54) if trump.eff[c] == trump.eff[parse_cards("3S")[0]]}
    for seed in range(200):
        world = sample_world(k, trump, random.Random(seed))
        seats = dict(zip(k.dests, world, strict=True))
        assert not any(seats[2][c] for c in hearts)
        assert not any(seats[3][c] for c in spades)
        assert sum(seats[1]) == sum(seats[2]) == sum(seats[3]) == 2


# --- a hand-made ending ----------------------------------------------------------------------------


def _ending(lead_made: str) -> Spot:
    """The last two tricks, every card known to the banker (seat 0, who buried a bottom of no
    points and sees the other holdings pinned): trump spades, level 2.

    seat 0: A♥ 3♥   seat 1: K♥ 5♠   seat 2: 4♥ 6♠   seat 3: 10♥ 7♠

    Leading A♥, the followers must play their hearts (K♥ 4♥ 10♥): seat 0 takes 20; then 3♥ is
    ruffed by seat 1's 5♠, over-ruffed by 7♠: the attackers take 5 and the last trick, the
    bottom of no points. Leading 3♥, K♥ takes the 20 for the attackers; seat 1 leads 5♠, 7♠ wins
    the last trick and its 5. So A♥ leaves the attackers 5 points, 3♥ leaves them 25."""
    trump = parse_trump("S", 2)
    rules = FOUR_DECK
    texts = ("AH 3H", "KH 5S", "4H 6S", "TH 7S")
    bottom = parse_cards("3C 3C 4C 4C 6C 6C 7C 7C")
    holdings = [[0] * 54 for _ in range(4)]
    for seat, text in enumerate(texts):
        for c in parse_cards(text):
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
    hands = tuple(Hand(tuple(h)) for h in holdings)
    position = Position(rules, trump, 0, hands, tuple(bottom), 0, memory, 1, 0)
    made = tuple(parse_cards(lead_made))
    other = tuple(parse_cards("AH" if lead_made == "3H" else "3H"))
    return Spot("ending", 1, 1, 0, "lead", made, position, k, (made, other), None, "")


def test_a_forced_winning_line_is_found_in_a_hand_made_ending() -> None:
    j = judge(_ending("3H"), FAST)
    assert j.judged and j.flagged
    assert j.best == tuple(parse_cards("AH"))
    # Every world is the same world: the loss is exact, 25 - 5 for the banker's side.
    assert (j.loss, j.loss_se) == (20.0, 0.0)
    assert (j.value, j.best_value, j.attackers) == (-25.0, -5.0, 25.0)
    assert j.severity == "mistake"
    sound = judge(_ending("AH"), FAST)
    assert sound.judged and not sound.flagged and sound.best is None and sound.loss == 0.0


def test_a_decision_with_one_legal_play_is_not_judged() -> None:
    """Seat 1 answers A♥ holding K♥ 5♠: K♥ is its only legal play."""
    spot = _ending("AH")
    pos = spot.position
    lead = read_lead(parse_cards("AH"), pos.trump, pos.rules)
    hand = pos.holdings[1]
    cands, legal, _ = follow_candidates(
        lead, hand, tuple(parse_cards("KH")), pos.trump, pos.rules, FAST, pos, 1
    )
    assert cands == (tuple(parse_cards("KH")),) and legal == 1
    one = Spot("ending", 2, 1, 1, "follow", cands[0], pos, spot.knowledge, cands, legal, "")
    j = judge(one, FAST)
    assert not j.judged and j.worlds == 0 and not j.flagged and j.severity == "ok"
    # And so on a sample hand: every decision with one distinct candidate.
    for s in _sample_spots(1):
        if len(s.candidates) == 1:
            assert not judge(s, FAST).judged


# --- the rollouts' entry point ----------------------------------------------------------------------


def test_play_out_from_the_first_lead_plays_the_hand_the_table_played() -> None:
    """Careful bots that never slip play the same hand whether the table runs it from the deal
    or `play_out` continues it from the first lead (the same loop)."""
    careful = Persona("c", "careful", 0.0, 0.5)
    personas = (careful, careful, careful, careful)
    for seed in range(3):
        setup = HandSetup(
            f"p-{seed}", "t", "p", 1, "2026-01-01T00:00:00Z", FOUR_DECK, personas, (2, 2), 0
        )
        bots = [make_bot(p) for p in personas]
        played = play_hand(setup, bots, random.Random(seed))
        assert played.score is not None and played.trump is not None
        record = played.record
        bury_seat = record.fries[-1].seat if record.fries else 0
        assert record.bury is not None
        buried = record.fries[-1].bury if record.fries else record.bury.cards
        position = Position(
            FOUR_DECK,
            played.trump,
            0,
            played.start,
            tuple(buried),
            bury_seat,
            Memory.start(FOUR_DECK.decks),
            1,
            0,
        )
        out = play_out(position, bots, random.Random(99))
        assert out.score.attackers_points == played.score.attackers_points


# --- determinism and the JSON form ------------------------------------------------------------------


def test_the_same_seed_gives_the_same_verdicts() -> None:
    found = [s for s in _sample_spots(2) if len(s.candidates) > 1][:3]
    first = [judge(s, FAST) for s in found]
    again = [judge(s, FAST) for s in found]
    assert first == again
    assert all(j.judged and j.worlds >= FAST.min_worlds for j in first)


def test_the_json_form_reads_back() -> None:
    found = [judge(s, FAST) for s in _sample_spots(2)[:6]]
    a = HandAnalysis("h", "src", ENGINE, FAST, tuple(found), True)
    text = json.dumps(analysis_json(a))
    assert analysis_from_json(json.loads(text)) == a


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(sorted(parse_cards(text)))


def test_a_follow_spot_keeps_the_trick_under_way() -> None:
    spot = next(s for s in _sample_spots(0) if s.kind == "follow")
    pos = spot.position
    assert isinstance(pos.lead, Reading)
    assert len(pos.plays) == len(pos.voids) >= 1
    assert spot.play in spot.candidates or tuple(sorted(spot.play)) == spot.candidates[0]
