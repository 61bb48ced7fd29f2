"""Simulator throughput, and the bundled sample replayed: its speed and what its hands look like.

Simulation: hands per second playing fixed-seed matches (all styles, four-deck), in one process
(median of several runs) and spread over two processes (`--jobs 2`). Replay: every hand of
data/sample replayed once (`replay_line`), hands per second on one core, and from the same pass the
statistics that say whether the bots play like people: bottom captures, throw attempts and
failures per style, attackers' points, the level outcomes.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK
from shengji.sim.match import match_specs
from shengji.sim.run import run_matches

SEED = 5
MATCHES = 8
HANDS = 20
RUNS = 3
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"


def _simulate(jobs: int) -> tuple[int, float]:
    start = time.perf_counter()
    hands = sum(1 for _ in run_matches(match_specs(MATCHES, HANDS, SEED, FOUR_DECK), jobs))
    return hands, time.perf_counter() - start


def _rate(rows: list[tuple[int, float]]) -> float:
    return statistics.median(hands / seconds for hands, seconds in rows)


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def sample_section() -> list[str]:
    files = sorted(SAMPLE.rglob("*.jsonl.gz"))
    hands = redeals = captured = fried = 0
    points: list[int] = []
    outcomes: Counter[str] = Counter()
    leads: Counter[str] = Counter()
    throws: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    start = time.perf_counter()
    lines = 0
    for path in files:
        for number, text in iter_lines(path):
            lines += 1
            replay = replay_line(text, line=number, strict=False)
            if replay.end == "redeal" or replay.bottom is None or replay.level_change is None:
                redeals += replay.end == "redeal"
                continue
            styles = [p["style"] for p in json.loads(text).get("_personas", [])]
            hands += 1
            fried += any(b.kind == "fry" for b in replay.bids)
            captured += replay.bottom.captured
            points.append(replay.attackers_points or 0)
            change = replay.level_change
            side = "banker holds" if change.banker_won else "attackers take over"
            outcomes[f"{side}, +{change.levels}"] += 1
            for trick in replay.tricks:
                style = styles[trick.leader] if styles else "?"
                leads[style] += 1
                if trick.throw is not None:
                    throws[style] += 1
                    failed[style] += trick.throw.failed
    seconds = time.perf_counter() - start
    out = [
        f"Replaying data/sample ({len(files)} file(s), {lines} hands, one pass, one core): "
        f"**{lines / seconds:.0f} hands/s** ({seconds:.1f} s).",
        "",
        f"What the sample looks like ({hands} played hands, {redeals} redeals): the attackers "
        f"capture the bottom in {_pct(captured, hands)} of hands; they take "
        f"{statistics.mean(points):.1f} points on average (median "
        f"{statistics.median(points):.0f}) of 400; {_pct(fried, hands)} of hands are fried.",
        "",
        "| style | leads | throws | of leads | failed | of throws |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for style in sorted(leads):
        out.append(
            f"| {style} | {leads[style]} | {throws[style]} | {_pct(throws[style], leads[style])} "
            f"| {failed[style]} | {_pct(failed[style], throws[style])} |"
        )
    out += ["", "| level outcome | hands | share |", "|---|---:|---:|"]
    for name in sorted(outcomes):
        out.append(f"| {name} | {outcomes[name]} | {_pct(outcomes[name], hands)} |")
    return out


def main() -> str:
    one = [_simulate(1) for _ in range(RUNS)]
    two = [_simulate(2) for _ in range(RUNS)]
    lines = [
        "## Simulator (`shengji simulate`)",
        "",
        f"{MATCHES} matches of up to {HANDS} hands (seed {SEED}, {one[0][0]} hands), all styles, "
        f"four-deck; median of {RUNS} runs.",
        "",
        "| processes | hands/s |",
        "|---:|---:|",
        f"| 1 | {_rate(one):.1f} |",
        f"| 2 | {_rate(two):.1f} |",
        "",
    ]
    if SAMPLE.is_dir():
        lines += sample_section()
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
