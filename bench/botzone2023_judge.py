"""Differential check of the `botzone2023` preset against the 2023 Botzone judge's own code.

    python -m bench.botzone2023_judge --judge FILE [--cases N] [--seed S] [--log MATCH]…

FILE is `judge.py` of github.com/JackSimbol/Tractor (the preset follows commit 5c675d3). The tool
runs the judge's definitions (everything above the lines that read a match from stdin or
logs.json), one fresh copy per case since the judge keeps its trump order in module globals, and
compares, on random cases of random levels and trumps:

- its `checkLegalMove` on follows to single, pair, tractor and throw leads with
  `shengji.botzone2023.follow_debt` (passes, rejections and the errors the judge does not catch);
- its `checkWinner` on tricks of singles, pairs and tractors (cards listed in either order) with
  `shengji.trick.resolve_trick`, leaving out the trump tractors across the A that the preset does
  not model (docs/rules.md, "The 2023 Botzone judge").

`--log MATCH` (a Botzone match file, `.json` or `.json.gz`) also runs the whole judge on every
prefix of the match that ends with a bot's answer, as Botzone would, and compares what it prints
with the judge turn the log holds next: a log written by that code agrees on every turn.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from shengji.botzone2023 import JUDGE_FAILS, follow_debt, lead_type
from shengji.combos import read_lead
from shengji.rules import preset
from shengji.trick import resolve_trick
from shengji.trump import TrumpContext, trump_context

RULES = preset("botzone2023")
SUITS = {"h": 1, "d": 3, "s": 0, "c": 2}  # the judge's suit letters → shengji suit indices
RANKS = {"A": 14, "0": 10, "J": 11, "Q": 12, "K": 13, **{str(i): i for i in range(2, 10)}}


def card(judge_id: int) -> int:
    """A judge card id (0..107, suits `h d s c`) as a shengji card."""
    n = judge_id % 54
    if n >= 52:
        return n
    return SUITS["hdsc"[n % 4]] * 13 + RANKS["A234567890JQK"[n // 4]] - 2


def definitions(path: Path) -> Any:
    """The judge's source up to its entry point, compiled once."""
    text = path.read_text(encoding="utf-8")
    text = text[: text.index("_online = ")].replace("import numpy as np\n", "")
    return compile(text, str(path), "exec")


def fresh(code: Any, level: str, major: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "judge2023"}
    exec(code, namespace)  # the judge's own code, named on the command line
    namespace["setMajor"](major, level)
    return namespace


def call(namespace: dict[str, Any], name: str, *args: Any) -> str:
    """`ok`, `error:<the judge's error>` (it ends the match) or `crash:<exception>`."""
    namespace["errored"][:] = [None] * 4
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            namespace[name](*args)
    except SystemExit:
        errors = [e for e in namespace["errored"] if e is not None]
        return f"error:{errors[0] if errors else '?'}"
    except Exception as e:  # an error the judge does not catch is what is compared
        return f"crash:{type(e).__name__}"
    return "ok"


def _context(level: str, major: str) -> TrumpContext:
    return trump_context(SUITS[major], RANKS[level], False, True, True)


def _pairs(namespace: dict[str, Any], ids: list[int]) -> list[list[int]]:
    by: defaultdict[str, list[int]] = defaultdict(list)
    for i in ids:
        by[namespace["num2Poker"](i)].append(i)
    return [v[:2] for v in by.values() if len(v) >= 2]


def follows(code: Any, cases: int, rng: random.Random) -> Counter[str]:
    stats: Counter[str] = Counter()
    for _ in range(cases):
        level, major = rng.choice(["2", "2", "5", "0", "A"]), rng.choice("hdsc")
        ns = fresh(code, level, major)
        trump = _context(level, major)
        ids = list(range(108))
        rng.shuffle(ids)
        leader, hand = ids[:40], ids[40 : 40 + rng.choice([8, 12, 25])]
        kind = rng.choice(["single", "pair", "pair", "tractor", "tractor", "throw"])
        pairs = _pairs(ns, leader)
        if kind == "single":
            lead = [leader[0]]
        elif kind == "pair" and pairs:
            lead = rng.choice(pairs)
        elif kind == "tractor" and len(pairs) >= 2:
            a, b = rng.sample(pairs, 2)
            lead = a + b
        else:
            lead = rng.sample(leader, rng.choice([2, 3, 4]))
        lead_cards = [card(i) for i in lead]
        judged = ""
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                judged = ns["checkPokerType"](lead, 0, level)
            except SystemExit:
                stats["skipped: a lead the judge rejects"] += 1
                continue
        if len({trump.eff[c] for c in lead_cards}) != 1:
            stats["skipped: a lead of several suits"] += 1
            continue
        reading = read_lead(lead_cards, trump, RULES)
        if lead_type(reading) != judged:
            stats["skipped: a lead the preset reads otherwise (trump K-A)"] += 1
            continue
        size = len(lead)
        pool = hand
        in_suit = [i for i in hand if trump.eff[card(i)] == reading.suit]
        if in_suit and rng.random() < 0.7:
            pool = list(dict.fromkeys(in_suit + rng.sample(hand, min(len(hand), 3))))
        if len(pool) < size:
            pool = hand
        if len(pool) < size:
            continue
        play = rng.sample(pool, size)
        mine = _pairs(ns, pool)
        if size % 2 == 0 and rng.random() < 0.4 and len(mine) >= size // 2:
            play = [i for pair in rng.sample(mine, size // 2) for i in pair]
        counts = [0] * 54
        for i in hand:
            counts[card(i)] += 1
        debt = follow_debt(reading, counts, tuple(card(i) for i in play), trump)
        verdict = call(ns, "checkLegalMove", play, level, major, 1, [lead], [[], hand, [], []], 0)
        theirs = verdict.split(":")[0]
        ours = "ok" if debt is None else "crash" if JUDGE_FAILS in debt[0] else "error"
        stats[f"follows the judge {theirs}"] += 1
        if ours != theirs:
            stats["DIFFERENT"] += 1
            print("follow differs:", level, major, lead, play, hand, verdict, debt)
    return stats


def _wraps(namespace: dict[str, Any], major: str, play: list[int]) -> bool:
    """A trump pair run the judge climbs across the top of its strength order (K-A, K-2)."""
    faces = {namespace["num2Poker"](i) for i in play}
    ranks = {f[1] for f in faces}
    return (
        len(play) == 4 and ranks in ({"K", "A"}, {"K", "2"}) and all(f[0] == major for f in faces)
    )


def tricks(code: Any, cases: int, rng: random.Random) -> Counter[str]:
    stats: Counter[str] = Counter()
    for _ in range(cases):
        level, major = rng.choice(["2", "2", "3", "5", "0", "A"]), rng.choice("hdsc")
        ns = fresh(code, level, major)
        trump = _context(level, major)
        ids = list(range(108))
        rng.shuffle(ids)
        by: defaultdict[str, list[int]] = defaultdict(list)
        for i in ids:
            by[ns["num2Poker"](i)].append(i)
        kind = rng.choice(["single", "pair", "tractor"])
        plays: list[list[int]] = []
        for _seat in range(4):
            if kind == "single":
                plays.append([ids.pop()])
                continue
            if kind == "pair":
                face = rng.choice([f for f, v in by.items() if len(v) == 2])
                plays.append(by.pop(face))
                continue
            order, suit = ns["pointorder"], rng.choice("hdsc")
            at = rng.randrange(len(order) - 1)
            low, high = suit + order[at], suit + order[at + 1]
            if low not in by or high not in by:
                break
            run = by.pop(low) + by.pop(high)
            plays.append(run if rng.random() < 0.5 else run[2:] + run[:2])
        if len(plays) < 4:
            continue
        if any(_wraps(ns, major, p) for p in plays):
            stats["skipped: a trump tractor across the A"] += 1
            continue
        reading = read_lead([card(i) for i in plays[0]], trump, RULES)
        with contextlib.redirect_stdout(io.StringIO()):
            winner = ns["checkWinner"](plays, plays[3], 3, level, major, 0)
        seats = [(s, tuple(card(i) for i in p)) for s, p in enumerate(plays)]
        voids = [False] + [all(trump.eff[c] != reading.suit for c in p) for _, p in seats[1:]]
        ours = resolve_trick(reading, seats, voids, trump, RULES).winner
        stats[f"tricks of {kind}s"] += 1
        if ours != winner:
            stats["DIFFERENT"] += 1
            print("trick differs:", level, major, plays, winner, ours)
    return stats


def replay_log(judge: Path, match: Path) -> Counter[str]:
    """The whole judge on every prefix of a match ending with a bot's answer."""
    opener = gzip.open if match.suffix == ".gz" else open
    with opener(match, "rt", encoding="utf-8") as f:
        data = json.load(f)
    log = data["log"]
    stats: Counter[str] = Counter()
    for k in range(1, len(log) - 1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "logs.json").write_text(
                json.dumps({"initdata": data["initdata"], "log": log[: k + 1]}), encoding="utf-8"
            )
            run = subprocess.run(
                [sys.executable, str(judge.resolve())],
                cwd=tmp,
                capture_output=True,
                text=True,
                env={"PATH": os.environ.get("PATH", ""), "USER": "bench"},
                check=False,
            )
        got = json.loads(run.stdout) if run.stdout.strip() else None
        want = log[k + 1].get("output")
        same = got is not None and want is not None and got.get("content") == want.get("content")
        stats["turns agree" if same else "turns differ"] += 1
        if not same:
            shown = run.stdout.strip()[:200] or run.stderr.strip()[-200:]
            print(f"{match.name}: turn {k + 1} differs: the judge prints {shown}")
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judge", type=Path, required=True, help="judge.py of JackSimbol/Tractor")
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--log", type=Path, action="append", default=[], help="a Botzone match")
    args = parser.parse_args(argv)
    code = definitions(args.judge)
    rng = random.Random(args.seed)
    different = 0
    for name, stats in (
        ("follows", follows(code, args.cases, rng)),
        ("tricks", tricks(code, args.cases, rng)),
        *((str(m), replay_log(args.judge, m)) for m in args.log),
    ):
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
        different += stats["DIFFERENT"]
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
