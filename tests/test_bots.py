"""Bot styles (docs/bots.md): every play legal (R4.1, R5 through check_follow), careful throws
proved safe (R4.3), buries by style (R8.6), and the careful style beating the novice."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shengji.cards import Hand, card_points, parse_cards
from shengji.combos import read_lead
from shengji.follow import check_follow
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK
from shengji.sim.bots import make_bot
from shengji.sim.bots.base import Bot, BuryView, PlayView, throw_is_safe
from shengji.sim.bots.careful import Careful
from shengji.sim.match import match_specs, play_match
from shengji.sim.memory import Memory
from shengji.sim.personas import ROSTER, Persona, persona
from shengji.sim.run import run_matches
from shengji.sim.table import HandSetup, play_hand
from shengji.trump import TRUMP, parse_trump

TRUMP_H2 = parse_trump("H", "2")


class _Checked(Bot):
    """Wraps a bot: every lead must read as one effective suit from held cards, every follow
    must pass check_follow. A `Bot` itself (the compiled table takes only bots), passing every
    other call to the bot it wraps."""

    def __init__(self, bot, counts: Counter) -> None:
        super().__init__(bot.persona)
        self.bot = bot
        self.counts = counts

    def choose_show(self, view, options, rng):
        return self.bot.choose_show(view, options, rng)

    def choose_bury(self, view, rng):
        return self.bot.choose_bury(view, rng)

    def name_trump(self, view, cards):
        return self.bot.name_trump(view, cards)

    def lead(self, view: PlayView, rng: random.Random):
        choice = self.bot.lead(view, rng)
        assert view.hand.contains(choice.cards)
        read_lead(choice.cards, view.trump, view.rules, choice.split)  # raises if mixed
        self.counts["lead"] += 1
        return choice

    def follow(self, view: PlayView, rng: random.Random):
        cards = self.bot.follow(view, rng)
        assert view.lead is not None
        verdict = check_follow(view.lead, view.hand, cards, view.trump, view.rules)
        assert verdict.legal, (self.bot.persona.name, verdict.reason)
        self.counts["follow"] += 1
        return cards


@pytest.mark.parametrize("names", [("lin", "yan", "wei", "tao"), ("ping", "xin", "bo", "jun")])
def test_r5_bots_never_play_illegally(names: tuple[str, ...]) -> None:
    counts: Counter = Counter()
    personas = tuple(persona(n) for n in names)
    bots = [_Checked(make_bot(p), counts) for p in personas]
    rng = random.Random(11)
    banker = None
    for k in range(4):
        setup = HandSetup(f"c-{k}", "t", "c", k + 1, "2026-01-01T00:00:00Z", FOUR_DECK,
                          personas, (2, 2), banker)  # fmt: skip
        played = play_hand(setup, bots, rng)
        if played.score is not None:
            banker = played.score.next_banker
    assert counts["follow"] == 3 * counts["lead"] > 60


def test_r4_3_careful_throws_only_what_no_unseen_card_beats() -> None:
    rules = FOUR_DECK
    lead = read_lead(parse_cards("AS AS KS"), TRUMP_H2, rules)
    unseen_with_pair_of_k = Hand.of(parse_cards("KS KS QS"))
    unseen_with_ace = Hand.of(parse_cards("AS QS QS"))
    unseen_low = Hand.of(parse_cards("QS QS JS 3S"))
    assert lead.is_throw
    assert throw_is_safe(lead, 0, unseen_low, TRUMP_H2, rules)
    assert throw_is_safe(lead, 0, unseen_with_pair_of_k, TRUMP_H2, rules)
    assert not throw_is_safe(lead, 0, unseen_with_ace, TRUMP_H2, rules)


def _view(hand: str, memory: Memory, seat: int = 0, banker: int = 0) -> PlayView:
    return PlayView(seat, Hand.of(parse_cards(hand)), TRUMP_H2, FOUR_DECK, banker, 1, memory,
                    (), 0)  # fmt: skip


def test_careful_lead_throws_sure_cards_once_the_aces_are_out() -> None:
    bot = Careful(Persona("t", "careful", 0.0, 0.5))
    hand = "AS KS KS 3D 4D"
    fresh = Memory.start(4)
    first = bot.choose_lead(_view(hand, fresh), random.Random(1))
    assert not read_lead(first.cards, TRUMP_H2, FOUR_DECK).is_throw
    # Three aces of spades and every trump have been played: AS + KS KS can no longer be beaten.
    seen = fresh
    for card in parse_cards("AS AS AS"):
        seen = seen.after_play(1, [card], 0, TRUMP_H2)
    lead = bot.choose_lead(_view(hand, seen), random.Random(1))
    assert sorted(lead.cards) == sorted(parse_cards("AS KS KS"))


def test_r8_6_buries_by_style() -> None:
    cards = parse_cards(
        "3S 4S 6S 7S 8S 9S JS QS 5S TS KS 3C 4C 6C 7C 5C 5C AH AH KH 2H 2D SJ BJ 3D"
    )
    view = BuryView(0, Hand.of(cards), TRUMP_H2, FOUR_DECK)
    careful = make_bot(persona("lin")).choose_bury(view, random.Random(0))
    novice = make_bot(persona("wei")).choose_bury(view, random.Random(0))
    assert len(careful) == len(novice) == 8
    assert sum(card_points(c) for c in careful) == 0
    assert all(TRUMP_H2.eff[c] != TRUMP for c in careful)
    assert sum(card_points(c) for c in novice) > 0  # the lowest cards include the fives


def _team_results(names: str, careful_team: int, matches: int, seed: int):
    players = [persona(n) for n in names.split(",")]
    levels = Counter()
    attack: dict[str, list[int]] = {"careful": [], "novice": []}
    hands = 0
    for spec in match_specs(matches, 40, seed, FOUR_DECK, players):
        for played in play_match(spec):
            if played.score is None or played.banker is None:
                continue
            hands += 1
            outcome = played.score.outcome
            side = "careful" if outcome.winning_team(played.banker) == careful_team else "novice"
            levels[side] += outcome.levels
            attackers = 1 - played.banker % 2
            who = "careful" if attackers == careful_team else "novice"
            attack[who].append(played.score.attackers_points)
    return hands, levels, attack


def test_careful_pair_beats_novice_pair_over_200_hands() -> None:
    """Measured on this run (seed 2, 227 hands): the careful pair gains 292 levels to the
    novices' 1 and attacks for 275 points on average to the novices' 92; seeds 1, 3 and 4 give
    the same picture. The margins below are about half of the measured differences."""
    hands = 0
    levels: Counter = Counter()
    attack: dict[str, list[int]] = {"careful": [], "novice": []}
    for names, team in (("lin,wei,mei,xin", 0), ("wei,lin,xin,mei", 1)):
        h, lv, at = _team_results(names, team, 11, seed=2)
        hands += h
        levels += lv
        for k in attack:
            attack[k] += at[k]
    assert hands >= 200
    assert levels["careful"] - levels["novice"] >= 130
    mean = {k: sum(v) / len(v) for k, v in attack.items()}
    assert mean["careful"] - mean["novice"] >= 90


def test_throw_failure_rates_follow_the_styles() -> None:
    """Bold throws on hope and fails often; careful throws only proven-safe cards (a lapse now
    and then). Measured on this run: careful 0 of 49 throws failed, bold 28 of 76."""
    thrown: Counter = Counter()
    failed: Counter = Counter()
    specs = match_specs(4, 12, 8, FOUR_DECK, [p for p in ROSTER if p.style != "novice"])
    for hand in run_matches(specs):
        replay = replay_line(hand.line)
        styles = [persona(n).style for n in replay.players]
        for trick in replay.tricks:
            if trick.throw is not None:
                thrown[styles[trick.leader]] += 1
                failed[styles[trick.leader]] += trick.throw.failed
    assert thrown["careful"] >= 20 and thrown["bold"] >= 20
    assert failed["careful"] / thrown["careful"] < 0.12
    assert failed["bold"] / thrown["bold"] > 0.25
