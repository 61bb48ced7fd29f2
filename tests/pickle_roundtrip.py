"""Every value type of the rules core through a real process pool, and back.

The simulator sends match specs (with their `RuleSet`) to worker processes and gets hands back
(`HandRecord`, `Deal`, …); the ingest sends chunks to workers and gets `HandReplay`s back. Under
the compiled build a frozen dataclass only unpickles through its constructor
(`shengji.pickling`), so this script gathers an instance of every registered class from real
replays, verdicts and score tables, sends them all to a spawned worker which returns them, and
checks that what comes back equals what was sent. It also runs a simulation on two processes and
compares it with one process. Run by tests/test_pickling.py in a process of the build under test;
prints one line: `N values of M types round-tripped (compiled: K modules | pure Python)`.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, is_dataclass
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_equivalence import compiled_modules, corpus

from shengji.bidding import Standing, read_show, settle
from shengji.cards import CardError, Hand
from shengji.coach.analysis import spots
from shengji.coach.review import review_for_store, review_hand
from shengji.coach.review_last import options
from shengji.coach.review_throw import BOTTOM, Unseen, fail_odds
from shengji.combos import PlayError, read_lead, shape_plan, suit_layout
from shengji.follow import check_follow, demand
from shengji.ladder import blocks, ladder_key
from shengji.pickling import REGISTERED
from shengji.record import (
    Claimed,
    RecordError,
    TrickClaim,
    format_hand,
    parse_hand,
    split_deal,
)
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK, RuleError
from shengji.scoring import TrickScore, score_hand
from shengji.shape import Reading
from shengji.sim.bots.base import BuryView, LeadChoice, Option, PlayView, ShowView
from shengji.sim.bots.careful import Careful
from shengji.sim.match import match_specs
from shengji.sim.personas import Persona
from shengji.sim.run import run_matches
from shengji.sim.table import HandSetup, _Standing, play_hand, play_out
from shengji.sim.units import runs_in_suit
from shengji.throws import check_throw
from shengji.trick import resolve_trick
from shengji.trump import TRUMP, parse_trump


def _walk(value: object, seen: dict[type, object]) -> None:
    """The first instance of each registered type inside `value`."""
    if isinstance(value, (tuple, list)):
        for item in value:
            _walk(item, seen)
        return
    if isinstance(value, dict):
        for item in value.values():
            _walk(item, seen)
        return
    if is_dataclass(value) and not isinstance(value, type):
        seen.setdefault(type(value), value)
        for f in fields(value):
            _walk(getattr(value, f.name), seen)


def _roots(lines: list[str]) -> Iterator[object]:
    """Real values: replays of `lines`, the records they came from, and what the public rule
    functions say about their tricks."""
    for text in lines:
        replay = replay_line(text, strict=False)
        yield replay
        try:
            record = parse_hand(text)
        except RecordError:
            continue
        yield record
        yield Claimed(banker=0, tricks=(TrickClaim(0, 1, 10),))  # imported logs' claims
        if replay.trump is None or replay.level is None or not replay.tricks:
            continue
        dealt, bottom = split_deal(record.deal, record.rules)
        yield settle(record, dealt, bottom)
        for show in record.bids:
            reading = read_show(show.cards, replay.level)
            if reading is not None:
                yield Standing(show.seat, reading, reading.trump)
        trump = parse_trump(replay.trump, replay.level)
        yield trump
        for layout in range(5):
            yield suit_layout(trump, layout)
        first = replay.tricks[0]
        lead = read_lead(first.plays[0].cards, trump, record.rules)
        yield lead, shape_plan(lead)
        yield list(blocks(ladder_key(lead, record.rules)))[:2]
        hands = [Hand(tuple(h.counts)) for h in replay.start]
        yield check_throw(lead, first.leader, hands, trump, record.rules)
        follower = first.plays[1]
        held = hands[follower.seat]
        yield check_follow(lead, held, follower.cards, trump, record.rules)
        yield demand(lead, held, trump, record.rules)
        plays = [(p.seat, p.cards) for p in first.plays]
        yield resolve_trick(lead, plays, [False] * 4, trump, record.rules)
        yield review_hand(replay)
        yield review_for_store(replay)
        if len(plays) == 4:
            last = plays[3][0]
            yield options(lead, plays[:3], [False] * 3, last, hands[last], trump, record.rules)
        # The thrower's view of a lead with every other card unseen, spread over three seats.
        pool = [record.rules.decks] * 54
        for c in first.plays[0].cards:
            pool[c] -= 1
        room = sum(pool)
        caps = (room // 3, room // 3, room - 2 * (room // 3))
        unseen = Unseen(tuple(pool), (1, 2, BOTTOM), caps, ((0,) * 54,) * 3, (False,) * 3)
        yield unseen, fail_odds(lead, unseen, trump, record.rules, 0)
        if replay.attackers_points is not None and replay.banker is not None:
            last = replay.tricks[-1]
            winning = next(p.cards for p in last.plays if p.seat == last.winner)
            scores = [TrickScore(t.winner, t.points) for t in replay.tricks]
            yield (
                scores,
                score_hand(
                    replay.banker,
                    scores,
                    Reading(last.suit, last.components),
                    winning,
                    replay.bottom_buried,
                    trump,
                    record.rules,
                    [],
                ),
            )


class _Watching(Careful):
    """The careful bot, keeping the first view of each kind it is shown and what it answers."""

    def __init__(self, persona: Persona, seen: list[object]) -> None:
        super().__init__(persona)
        self.seen = seen

    def choose_show(
        self, view: ShowView, options: Sequence[tuple[int, ...]], rng: random.Random
    ) -> tuple[int, ...] | None:
        self.seen.append(view)
        return super().choose_show(view, options, rng)

    def choose_bury(self, view: BuryView, rng: random.Random) -> tuple[int, ...]:
        self.seen.append(view)
        return super().choose_bury(view, rng)

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        choice = super().choose_lead(view, rng)
        self.seen.append((view, choice))
        return choice

    def choose_follow(
        self, view: PlayView, options: Sequence[Option], rng: random.Random
    ) -> tuple[int, ...]:
        self.seen.append(list(options))
        return super().choose_follow(view, options, rng)


def _table_roots() -> Iterator[object]:
    """The simulator's values: a hand played at the table (its setup, the views the bots were
    shown, their answers) and one played out from its middle, as the analysis's rollouts do."""
    seen: list[object] = []
    persona = Persona("watching", "careful", 0.0, 0.5)
    bots = [_Watching(persona, seen) for _ in range(4)]
    setup = HandSetup(
        "t-h001", "test", "t", 1, "2026-01-01T00:00:00Z", FOUR_DECK, (persona,) * 4, (2, 2), 0
    )
    played = play_hand(setup, bots, random.Random(3))
    yield setup, played, seen[:2000]
    yield _Standing(0, (52, 52), "NT")
    views = [v[0] for v in seen if isinstance(v, tuple) and isinstance(v[0], PlayView)]
    yield [runs_in_suit(v.hand, v.trump, suit, 2) for v in views for suit in range(TRUMP + 1)]
    position = spots(replay_line(format_hand(played.record)))[40].position
    yield position, play_out(position, bots, random.Random(4))


def samples(simulated: list[str]) -> list[object]:
    """An instance of every registered type, from the equivalence corpus (faults of every kind,
    claims) and `simulated` lines (bot personas)."""
    seen: dict[type, object] = {}
    for root in _roots(simulated + corpus()):
        _walk(root, seen)
    for root in _table_roots():
        _walk(root, seen)
    missing = sorted(c.__qualname__ for c in REGISTERED if c not in seen)
    if missing:
        raise SystemExit(f"no sample of {', '.join(missing)}: add one to _roots")
    return list(seen.values())


ERRORS = (RecordError("bad line"), PlayError("bad play"), CardError("bad card"), RuleError("x"))


def echo(values: list[object]) -> list[object]:
    """The worker: what it received (unpickled here), pickled again on the way back."""
    return values


def main() -> int:
    specs = match_specs(2, 3, 7, FOUR_DECK)
    alone = [h.line for h in run_matches(specs)]
    shared = [h.line for h in run_matches(specs, jobs=2)]
    if alone != shared:
        print("a simulation on two processes differs from one on one", file=sys.stderr)
        return 1
    values = samples(alone)
    context = get_context("spawn")  # a fresh interpreter, as the ingest's workers are
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        back = pool.submit(echo, values).result()
        errors = pool.submit(echo, list(ERRORS)).result()
    for sent, got in zip(values, back, strict=True):
        if type(sent) is not type(got) or sent != got:
            print(f"{type(sent).__qualname__} changed on the round trip", file=sys.stderr)
            return 1
    for sent, got in zip(ERRORS, errors, strict=True):
        if type(sent) is not type(got) or sent.args != got.args:
            print(f"{type(sent).__qualname__} changed on the round trip", file=sys.stderr)
            return 1
    native = compiled_modules()
    where = f"compiled: {len(native)} modules" if native else "pure Python"
    print(f"{len(values)} values of {len(REGISTERED)} types round-tripped ({where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
