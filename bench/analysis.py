"""The computer analysis (docs/analysis.md): its cost and its signal.

Cost: hands of the bundled sample analysed with the default settings in two processes (as
`shengji analyse --jobs 2`): wall time per hand and per decision, CPU per rollout, the worlds and
the standard errors the decisions reached.

Signal: simulated four-deck deals played in duplicate. Each deal is played twice from the same
shoe: once with seats 0 and 2 playing the analysis's best move at every lead and follow and seats
1 and 3 the careful bot, once the other way round (the cards cancel out). The gain of a deal is
the analysing partnership's attackers' total, signed for its side, at the first table less that
of the same seats at the second: what the analysis adds over the careful bot across the pair.
And agreement with the review: for the review's fourth-seat `lost_trick` verdicts (exact for the
trick) on sample hands, what the analysis says of the same decision.

`SHENGJI_BENCH_ANALYSIS_DEALS` (default 16), `SHENGJI_BENCH_ANALYSIS_HANDS` (default 1),
`SHENGJI_BENCH_ANALYSIS_AGREE` (default 24) set the sizes; the signal's settings are
`SIGNAL` (fewer worlds than the default, to play whole hands at every decision).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from types import ModuleType

from shengji.analysis import (
    DEFAULT,
    Judgement,
    Kind,
    Settings,
    Spot,
    follow_candidates,
    judge,
    lead_candidates,
    spots,
)
from shengji.analysis_world import Inconsistent, knowledge
from shengji.cards import Card
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.review import review_hand
from shengji.rules import FOUR_DECK
from shengji.scoring import TrickScore
from shengji.sim.bots.base import LeadChoice, Option, PlayView
from shengji.sim.bots.careful import Careful
from shengji.sim.personas import Persona
from shengji.sim.table import HandSetup, Position, play_hand

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
SIGNAL = Settings(worlds=8, min_worlds=4, cap=3, screen=1, listed=12)
CAREFUL = Persona("careful", "careful", 0.0, 0.5)


def _env(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


# --- cost ----------------------------------------------------------------------------------------


def _judge(spot: Spot) -> tuple[Judgement, float]:
    start = time.process_time()
    j = judge(spot, DEFAULT)
    return j, time.process_time() - start


def _core() -> str:
    """Which core the rollouts ran on: the rules core and the table loop compiled, or pure."""
    from shengji import rules
    from shengji.sim import table

    def native(module: ModuleType) -> bool:
        return not str(module.__file__).endswith(".py")

    if native(table):
        return "compiled core (rollouts compiled)"
    return "compiled rules core (rollouts pure Python)" if native(rules) else "pure-Python core"


def cost(hands: int) -> list[str]:
    rows: list[str] = []
    per_decision: list[float] = []
    rollouts = 0
    cpu = 0.0
    worlds: list[int] = []
    ses: list[float] = []
    walls: list[float] = []
    decisions = judged = 0
    for number, text in islice(iter_lines(SAMPLE), 1, 1 + hands):
        r = replay_line(text, line=number)
        todo = spots(r, DEFAULT)
        order = sorted(todo, key=lambda s: (-len(s.candidates) * (40 - s.trick), s.number))
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=2) as pool:
            found = list(pool.map(_judge, order))
        wall = time.perf_counter() - start
        walls.append(wall)
        decisions += len(found)
        for j, spent in found:
            cpu += spent
            per_decision.append(spent)
            if j.judged:
                judged += 1
                worlds.append(j.worlds)
                ses.append(j.loss_se)
                rollouts += sum(a.worlds for a in j.alternatives)
        rows.append(f"| {r.hand_id} | {len(found)} | {wall:.1f} |")
    rows = [
        "| hand | decisions | wall s (2 processes) |",
        "|---|---:|---:|",
        *rows,
        "",
        f"Default settings ({DEFAULT.worlds} worlds at most, {DEFAULT.min_worlds} first, "
        f"{DEFAULT.cap} candidates past a screening of {DEFAULT.screen} worlds), {_core()}: "
        f"{statistics.median(walls):.1f} s wall per hand (median of {len(walls)}), "
        f"{1000 * statistics.median(per_decision):.0f} ms CPU per decision (median; "
        f"{1000 * max(per_decision):.0f} ms the longest), {1000 * cpu / max(rollouts, 1):.1f} ms "
        f"CPU per rollout ({rollouts} rollouts). {judged} of {decisions} decisions judged; worlds "
        f"per judged decision median {statistics.median(worlds) if worlds else 0:.0f}; standard "
        f"error of the loss median {statistics.median(ses) if ses else 0:.1f} points, 90th "
        f"percentile {sorted(ses)[int(0.9 * len(ses))] if ses else 0:.1f}.",
    ]
    return rows


# --- signal: duplicate deals ---------------------------------------------------------------------


class Analyst(Careful):
    """Plays the analysis's best move at every lead and follow: the careful bot's own choice is
    the play made the analysis judges (so the draws of the table's generator are the careful
    bot's), and the best candidate is played instead."""

    def __init__(self, persona: Persona, settings: Settings) -> None:
        super().__init__(persona)
        self.settings = settings
        self.decisions = 0

    def _spot(self, view: PlayView, made: tuple[Card, ...]) -> Spot | None:
        n = view.lead.size if view.lead is not None else 0
        done = {s for s, _ in view.plays}
        size = len(view.hand)
        holdings = [[0] * 54 for _ in range(4)]
        holdings[view.seat] = list(view.hand.counts)
        for s in range(4):
            if s != view.seat:
                # Unknown cards, but their count is known: one face stands in for it.
                holdings[s][0] = size - (n if s in done else 0)
        voids = [[suit in view.memory.voids[s] for suit in range(5)] for s in range(4)]
        knows = bool(view.buried)
        try:
            k = knowledge(
                view.seat,
                holdings,
                list(view.memory.played),
                [[0] * 54] * 4,
                voids,
                view.buried if knows else (0,) * view.rules.bottom_size,
                knows,
                view.rules.decks,
            )
        except Inconsistent:
            return None
        leader = view.plays[0][0] if view.plays else view.seat
        attackers = (view.banker + 1) % 4
        hands = list(view.hand for _ in range(4))
        position = Position(
            view.rules,
            view.trump,
            view.banker,
            tuple(hands),
            view.buried,
            view.seat if knows else view.banker,
            view.memory,
            view.trick,
            leader,
            (TrickScore(attackers, view.attackers_points),),
            (),
            view.attackers_points,
            view.lead,
            view.plays,
            view.voids,
        )
        if view.lead is None:
            cands, legal, note = lead_candidates(
                view.hand, made, view.trump, view.rules, position, view.seat
            )
            kind: Kind = "lead"
        else:
            cands, legal, note = follow_candidates(
                view.lead,
                view.hand,
                made,
                view.trump,
                view.rules,
                self.settings,
                position,
                view.seat,
            )
            kind = "follow"
        self.decisions += 1
        return Spot(
            "live",
            self.decisions,
            view.trick,
            view.seat,
            kind,
            made,
            position,
            k,
            cands,
            legal,
            note,
        )

    def _best(self, view: PlayView, made: tuple[Card, ...]) -> tuple[Card, ...]:
        spot = self._spot(view, made)
        if spot is None or len(spot.candidates) < 2:
            return made
        j = judge(spot, self.settings)
        return j.best if j.best is not None else made

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        mine = super().choose_lead(view, rng)
        best = self._best(view, mine.cards)
        return mine if sorted(best) == sorted(mine.cards) else LeadChoice(best)

    def choose_follow(
        self, view: PlayView, options: Sequence[Option], rng: random.Random
    ) -> tuple[Card, ...]:
        mine = super().choose_follow(view, options, rng)
        return self._best(view, mine)


def _table(deal: int, analysts: int) -> int:
    """The attackers' total signed for seats 0 and 2 when team `analysts` (0: seats 0 and 2)
    plays the analysis and the other the careful bot, banker seat 0."""
    personas = (CAREFUL, CAREFUL, CAREFUL, CAREFUL)
    settings = Settings(
        SIGNAL.worlds, SIGNAL.min_worlds, SIGNAL.cap, SIGNAL.screen, SIGNAL.listed, deal
    )
    bots = [Analyst(CAREFUL, settings) if s % 2 == analysts else Careful(CAREFUL) for s in range(4)]
    setup = HandSetup(
        f"d-{deal}", "bench", "d", 1, "2026-01-01T00:00:00Z", FOUR_DECK, personas, (2, 2), 0
    )
    played = play_hand(setup, bots, random.Random(deal))
    assert played.score is not None
    # Seats 0 and 2 are the banker's side: their value is minus the attackers' total.
    return -played.score.attackers_points


def _pair(deal: int) -> tuple[int, int]:
    return _table(deal, 0), _table(deal, 1)


def signal(deals: int) -> list[str]:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        pairs = list(pool.map(_pair, range(deals)))
    took = time.perf_counter() - start
    gains = [a - b for a, b in pairs]
    mean = statistics.fmean(gains)
    se = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else float("nan")
    return [
        f"{deals} deals in duplicate ({2 * deals} hands, {took:.0f} s wall on 2 processes; "
        f"rollout settings {SIGNAL.worlds} worlds at most, {SIGNAL.cap} candidates): the "
        f"analysing partnership gained **{mean:+.1f} points per deal** (both tables together; "
        f"95% interval {mean - 1.96 * se:+.1f} to {mean + 1.96 * se:+.1f}; per deal from "
        f"{min(gains):+d} to {max(gains):+d}). Gains are in the score's unit: the attackers' "
        "total signed for the analysing side.",
    ]


# --- agreement with the review's exact fourth-seat verdicts --------------------------------------


def _agree_one(task: tuple[int, int]) -> tuple[str, float, float]:
    line, number = task
    n, text = next(islice(iter_lines(SAMPLE), line, line + 1))
    r = replay_line(text, line=n)
    spot = next(s for s in spots(r, DEFAULT) if s.number == number)
    j = judge(spot, DEFAULT)
    if j.flagged:
        kind = "flagged too"
    elif j.loss >= 5:
        kind = "loss ≥ 5 but within two standard errors"
    elif j.best is not None:
        kind = "another play best, by less than 5 points"
    else:
        kind = "the play made best over the hand"
    return kind, j.loss, j.loss_se


def agreement(limit: int) -> list[str]:
    tasks: list[tuple[int, int]] = []
    for i, (n, text) in enumerate(islice(iter_lines(SAMPLE), 200)):
        r = replay_line(text, line=n)
        lost = [d for d in review_hand(r) if d.code == "lost_trick"]
        if not lost:
            continue
        numbers = {(s.trick, s.seat): s.number for s in spots(r, DEFAULT) if s.kind == "follow"}
        for d in lost:
            if d.trick is not None and (d.trick, d.seat) in numbers:
                tasks.append((i, numbers[(d.trick, d.seat)]))
        if len(tasks) >= limit:
            break
    tasks = tasks[:limit]
    with ProcessPoolExecutor(max_workers=2) as pool:
        found = list(pool.map(_agree_one, tasks))
    kinds = Counter(k for k, _, _ in found)
    rows = ["| what the analysis says | verdicts |", "|---|---:|"]
    rows += [f"| {k} | {v} |" for k, v in kinds.most_common()]
    return [
        f"Of the review's first {len(found)} `lost_trick` verdicts on the bundled sample (exact "
        "for the trick, now priced in the attackers' total), judged by the analysis with the "
        "default settings:",
        "",
        *rows,
    ]


def main() -> str:
    lines = ["## Analysis", ""]
    lines += ["### Cost", ""]
    lines += cost(_env("SHENGJI_BENCH_ANALYSIS_HANDS", 1))
    lines += ["", "### Signal: the analysis against the careful bot, in duplicate", ""]
    lines += signal(_env("SHENGJI_BENCH_ANALYSIS_DEALS", 16))
    lines += ["", "### Agreement with the review's fourth-seat verdicts", ""]
    lines += agreement(_env("SHENGJI_BENCH_ANALYSIS_AGREE", 24))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(main())
