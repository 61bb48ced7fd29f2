"""The computer analysis (docs/analysis.md): its cost and its signal.

Cost: hands of the bundled sample analysed with the default settings in two processes (as
`shengji analyse --jobs 2`): wall time per hand and per decision, CPU per rollout, the worlds and
the standard errors the decisions reached, and the bury's own cost.

Signal: simulated four-deck deals played in duplicate. Each deal is played twice from the same
shoe: once with seats 0 and 2 playing the analysis's best move at every lead and follow and seats
1 and 3 the careful bot, once the other way round (the cards cancel out). The gain of a deal is
the analysing partnership's attackers' total, signed for its side, at the first table less that
of the same seats at the second: what the analysis adds over the careful bot across the pair.
And agreement with the review: for the review's fourth-seat `lost_trick` verdicts (exact for the
trick) on sample hands, what the analysis says of the same decision.

`SHENGJI_BENCH_ANALYSIS_DEALS` (default 300), `SHENGJI_BENCH_ANALYSIS_HANDS` (default 3),
`SHENGJI_BENCH_ANALYSIS_AGREE` (default 60) set the sizes; the signal's settings are
`SIGNAL` (the default settings, as `shengji analyse` and the dashboard use them;
`SHENGJI_BENCH_ANALYSIS_WORLDS` changes its most worlds).
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
from dataclasses import replace
from itertools import islice
from pathlib import Path
from types import ModuleType

from shengji.cards import Card
from shengji.coach.analysis import (
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
from shengji.coach.analysis_world import Inconsistent, knowledge
from shengji.coach.review import review_hand
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK
from shengji.scoring import TrickScore
from shengji.sim.bots.base import LeadChoice, Option, PlayView
from shengji.sim.bots.careful import Careful
from shengji.sim.personas import Persona
from shengji.sim.table import HandSetup, Position, play_hand
from shengji.trump import TrumpContext

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
SIGNAL = DEFAULT
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
    buries: list[tuple[float, int, float]] = []
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
            if j.kind == "bury":
                buries.append((spent, j.candidates, j.loss))
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
    if buries:
        rows += [
            "",
            f"The bury (decision 0, {len(buries)} of them): "
            f"{1000 * statistics.median(b[0] for b in buries):.0f} ms CPU (median), "
            f"{statistics.median(b[1] for b in buries):.0f} candidates, loss of the bury made "
            f"{statistics.median(b[2] for b in buries):.1f} points (median).",
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
        self.deviations = 0

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
        # The analysis's advice: the bot's play stands unless the analysis flags it (a loss of
        # at least 5 points beyond two standard errors); an unflagged "best" is within noise.
        if j.flagged and j.best is not None:
            self.deviations += 1
            return j.best
        return made

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        mine = super().choose_lead(view, rng)
        best = self._best(view, mine.cards)
        return mine if sorted(best) == sorted(mine.cards) else LeadChoice(best)

    def choose_follow(
        self, view: PlayView, options: Sequence[Option], rng: random.Random
    ) -> tuple[Card, ...]:
        mine = super().choose_follow(view, options, rng)
        return self._best(view, mine)


def _signal_settings(deal: int) -> Settings:
    worlds = _env("SHENGJI_BENCH_ANALYSIS_WORLDS", SIGNAL.worlds)
    return replace(SIGNAL, worlds=worlds, min_worlds=min(SIGNAL.min_worlds, worlds), seed=deal)


def _table(deal: int, analysts: int) -> tuple[int, int, int]:
    """The attackers' total signed for seats 0 and 2 when team `analysts` (0: seats 0 and 2)
    plays the analysis and the other the careful bot, banker seat 0; with the analysing
    partnership's decisions judged and the plays it changed."""
    personas = (CAREFUL, CAREFUL, CAREFUL, CAREFUL)
    settings = _signal_settings(deal)
    bots = [Analyst(CAREFUL, settings) if s % 2 == analysts else Careful(CAREFUL) for s in range(4)]
    setup = HandSetup(
        f"d-{deal}", "bench", "d", 1, "2026-01-01T00:00:00Z", FOUR_DECK, personas, (2, 2), 0
    )
    played = play_hand(setup, bots, random.Random(deal))
    assert played.score is not None
    analysts_ = [b for b in bots if isinstance(b, Analyst)]
    # Seats 0 and 2 are the banker's side: their value is minus the attackers' total.
    return (
        -played.score.attackers_points,
        sum(b.decisions for b in analysts_),
        sum(b.deviations for b in analysts_),
    )


def _pair(deal: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return _table(deal, 0), _table(deal, 1)


def signal(deals: int) -> list[str]:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        pairs = list(pool.map(_pair, range(deals)))
    took = time.perf_counter() - start
    gains = [a[0] - b[0] for a, b in pairs]
    mean = statistics.fmean(gains)
    se = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else float("nan")
    decisions = sum(a[1] + b[1] for a, b in pairs)
    changed = sum(a[2] + b[2] for a, b in pairs)
    untouched = sum(1 for a, b in pairs if a[2] + b[2] == 0)
    worlds = _signal_settings(0).worlds
    return [
        f"{deals} deals in duplicate ({2 * deals} hands, {took:.0f} s wall on 2 processes; "
        f"the default settings, {worlds} worlds at most, {SIGNAL.cap} candidates past the "
        f"screening; {_core()}): the "
        f"analysing partnership gained **{mean:+.1f} points per deal** (both tables together; "
        f"95% interval {mean - 1.96 * se:+.1f} to {mean + 1.96 * se:+.1f}; per deal from "
        f"{min(gains):+d} to {max(gains):+d}). Gains are in the score's unit: the attackers' "
        "total signed for the analysing side.",
        "",
        f"The analysing seats judged {decisions} decisions and changed the careful bot's play at "
        f"{changed} of them ({changed / max(decisions, 1):.1%}), where the analysis flagged it "
        f"(a loss of 5 points or more beyond two standard errors); {untouched} of the {deals} "
        "deals had no change at either table (gain 0).",
    ]


# --- agreement with the review's exact fourth-seat verdicts --------------------------------------


AgreeTask = tuple[int, int, tuple[Card, ...], tuple[Card, ...] | None, float, str]
"""A review `lost_trick` verdict to judge again: the sample line, the analysis's decision number,
the play made, the review's better play, its cost and severity."""


def _trumps(cards: Sequence[Card], trump: TrumpContext) -> tuple[int, int]:
    """How much trump a play spends: its trump cards, then the rank of its highest one."""
    ranks = [trump.sort_key(c) for c in cards if trump.is_trump(c)]
    return len(ranks), max(ranks)[1] if ranks else -1


def _why(j: Judgement, task: AgreeTask, trump: TrumpContext) -> str:
    """Why the analysis does not flag what the review flagged, by kind (the first that holds)."""
    _, _, made, better, cost, _ = task
    if better is not None and _trumps(better, trump) > _trumps(made, trump):
        return "the review's play spends more or higher trump, which the rest of the hand missed"
    if cost < 10:
        return "a trick worth under 10 points: the lead or the cards it cost weigh more"
    if j.best is not None and j.loss >= 5:
        return "a loss of 5 or more, within two standard errors (the worlds' noise)"
    return "the points the trick lost came back later: under 5 lost by the hand's end"


def _agree_one(task: AgreeTask) -> tuple[str, str, str, float, float]:
    line, number, _, _, _, severity = task
    n, text = next(islice(iter_lines(SAMPLE), line, line + 1))
    r = replay_line(text, line=n)
    spot = next(s for s in spots(r, DEFAULT) if s.number == number)
    j = judge(spot, DEFAULT)
    if j.flagged:
        kind, why = "flagged too", ""
    elif j.loss >= 5:
        kind = "loss ≥ 5 but within two standard errors"
        why = _why(j, task, spot.position.trump)
    elif j.best is not None:
        kind = "another play best, by less than 5 points"
        why = _why(j, task, spot.position.trump)
    else:
        kind = "the play made best over the hand"
        why = _why(j, task, spot.position.trump)
    return severity, kind, why, j.loss, j.loss_se


def agreement(limit: int) -> list[str]:
    tasks: list[AgreeTask] = []
    for i, (n, text) in enumerate(islice(iter_lines(SAMPLE), 400)):
        r = replay_line(text, line=n)
        lost = [d for d in review_hand(r) if d.code == "lost_trick"]
        if not lost:
            continue
        numbers = {(s.trick, s.seat): s.number for s in spots(r, DEFAULT) if s.kind == "follow"}
        for d in lost:
            if d.trick is not None and (d.trick, d.seat) in numbers:
                tasks.append(
                    (i, numbers[(d.trick, d.seat)], d.play, d.better, d.cost, str(d.severity))
                )
        if len(tasks) >= limit:
            break
    tasks = tasks[:limit]
    with ProcessPoolExecutor(max_workers=2) as pool:
        found = list(pool.map(_agree_one, tasks))
    blunders = [f for f in found if f[0] == "blunder"]
    kinds = Counter(k for _, k, _, _, _ in found)
    kinds_b = Counter(k for _, k, _, _, _ in blunders)
    rows = ["| what the analysis says | verdicts | of them blunders |", "|---|---:|---:|"]
    rows += [f"| {k} | {v} | {kinds_b.get(k, 0)} |" for k, v in kinds.most_common()]
    whys = Counter(w for _, k, w, _, _ in found if w)
    whys_b = Counter(w for _, k, w, _, _ in blunders if w)
    why_rows = ["| why the analysis disagrees | verdicts | of them blunders |", "|---|---:|---:|"]
    why_rows += [f"| {w} | {v} | {whys_b.get(w, 0)} |" for w, v in whys.most_common()]
    agree = kinds.get("flagged too", 0)
    agree_b = kinds_b.get("flagged too", 0)
    return [
        f"Of the review's first {len(found)} `lost_trick` verdicts on the bundled sample (exact "
        "for the trick, priced in the attackers' total), judged by the analysis with the "
        f"default settings, the analysis flags {agree} ({agree / max(len(found), 1):.0%}); of "
        f"the {len(blunders)} blunders among them, {agree_b} "
        f"({agree_b / max(len(blunders), 1):.0%}).",
        "",
        *rows,
        "",
        "The disagreements by kind (the first that holds, in this order: the review's better "
        "play spends more trump cards, or a higher one, than the play made; the trick was worth "
        "under 10 points; a loss the worlds could not separate from noise; otherwise the rest "
        "of the hand made up for the trick). The review prices the trick, the analysis the hand:",
        "",
        *why_rows,
    ]


def main() -> str:
    lines = ["## Analysis", ""]
    lines += ["### Cost", ""]
    lines += cost(_env("SHENGJI_BENCH_ANALYSIS_HANDS", 3))
    lines += ["", "### Signal: the analysis against the careful bot, in duplicate", ""]
    lines += signal(_env("SHENGJI_BENCH_ANALYSIS_DEALS", 300))
    lines += ["", "### Agreement with the review's fourth-seat verdicts", ""]
    lines += agreement(_env("SHENGJI_BENCH_ANALYSIS_AGREE", 60))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(main())
