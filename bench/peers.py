"""Our replay beside other tools' loaders, in one process, by CPU time: how far from a plain JSON
decode is replaying a Tractor hand, and how do a poker and a chess library fare at the same job?

- the replay and audit of the replay benchmark's four-deck lines (bench/replay.py), with the core
  this process imports (pure Python, or the compiled build when it is on the path);
- `json.loads` and `orjson.loads` of the same lines: the floor for anything that reads them;
- pokerkit: a six-handed no-limit hold'em hand in PHH, `HandHistory.loads` and every state of it;
- python-chess: `chess.pgn.read_game` of 80-ply games (random legal moves, fixed seed), which
  parses the moves and checks their legality.

pokerkit and python-chess are the `bench` extra (`pip install -e '.[bench]'`, which `make bench`
does; `make test` does not need them); one not installed is reported as such, and the section
still runs. Each figure is the median of `RUNS` runs.
"""

from __future__ import annotations

import io
import json
import random
import statistics
import time
from collections.abc import Callable

import orjson

import shengji.replay
from shengji.render import audit_json
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK

RUNS = 5
PLIES = 80
GAMES = 200

PHH = """variant = "NT"
ante_trimming_status = true
antes = [0, 0, 0, 0, 0, 0]
blinds_or_straddles = [500, 1000, 0, 0, 0, 0]
min_bet = 1000
starting_stacks = [1125600, 2000000, 553500, 1125600, 2000000, 553500]
actions = [
  "d dh p1 7s4s", "d dh p2 Js8h", "d dh p3 9h2d", "d dh p4 QcJc", "d dh p5 Tc8c",
  "d dh p6 Ac7d", "p3 f", "p4 cbr 2500", "p5 cc", "p6 f", "p1 f", "p2 cc",
  "d db 2c6cQh", "p2 cc", "p4 cbr 4000", "p5 cc", "p2 f", "d db 9s", "p4 cbr 9000",
  "p5 cc", "d db 3d", "p4 cc", "p5 cbr 20000", "p4 cc", "p4 sm QcJc", "p5 sm Tc8c",
]
"""
"""One hold'em hand in the PHH format: 6 players, 26 actions, to showdown."""


def build_info() -> str:
    """Which core this process runs: mypyc's compiled modules are extension modules."""
    compiled = not shengji.replay.__file__.endswith(".py")
    return "compiled core" if compiled else "pure-Python core"


def _per_cpu_second(fn: Callable[[], int]) -> float:
    """Items per CPU-second of `fn` (which returns how many items it handled), median of runs."""
    rates = []
    for _ in range(RUNS):
        start = time.process_time()
        n = fn()
        rates.append(n / max(time.process_time() - start, 1e-9))
    return statistics.median(rates)


def _replay(lines: list[str]) -> int:
    for line in lines:
        audit_json(replay_line(line, strict=False))
    return len(lines)


def _pokerkit() -> float | None:
    try:
        from pokerkit import HandHistory
    except ImportError:
        return None

    def run() -> int:
        for _ in range(100):
            for _state in HandHistory.loads(PHH):
                pass
        return 100

    return _per_cpu_second(run)


def _chess() -> tuple[float, float] | None:
    """(games read per CPU-second, plies per CPU-second) for `chess.pgn.read_game`."""
    try:
        import chess
        import chess.pgn
    except ImportError:
        return None
    rng = random.Random(3)
    pgns = []
    while len(pgns) < GAMES:
        board = chess.Board()
        for _ in range(PLIES):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.ply() == PLIES:
            pgns.append(str(chess.pgn.Game.from_board(board)))

    def run() -> int:
        for text in pgns:
            chess.pgn.read_game(io.StringIO(text))
        return len(pgns)

    games = _per_cpu_second(run)
    return games, games * PLIES


def main() -> str:
    from bench.replay import corpus

    lines = corpus(FOUR_DECK)
    ours = _per_cpu_second(lambda: _replay(lines))
    stdlib = _per_cpu_second(lambda: len([json.loads(x) for x in lines]))
    fast = _per_cpu_second(lambda: len([orjson.loads(x) for x in lines]))
    poker = _pokerkit()
    chess_rate = _chess()
    plays = sum(len(json.loads(x).get("plays", [])) for x in lines) / len(lines)
    rows = [
        (
            f"shengji replay + audit ({build_info()})",
            "four-deck hands",
            f"{ours:,.0f}",
            "1.00×",
        ),
        ("`json.loads`, same lines", "lines", f"{stdlib:,.0f}", f"{stdlib / ours:,.1f}×"),
    ]
    missing = []
    rows.append(("`orjson.loads`, same lines", "lines", f"{fast:,.0f}", f"{fast / ours:,.1f}×"))
    if poker is None:
        missing.append("pokerkit")
    else:
        rows.append(
            (
                "pokerkit PHH load + every state",
                "hold'em hands (26 actions)",
                f"{poker:,.0f}",
                f"{poker / ours:,.2f}×",
            )
        )
    if chess_rate is None:
        missing.append("chess")
    else:
        games, plies_s = chess_rate
        rows.append(
            (
                f"python-chess `read_game`, {PLIES}-ply games",
                f"games ({plies_s:,.0f} plies/s)",
                f"{games:,.0f}",
                f"{games / ours:,.2f}×",
            )
        )
    parts = [
        "## Replay beside other loaders",
        "",
        f"{len(lines)} four-deck lines (about {plays:.0f} plays a hand) and the peers' own "
        f"inputs, in one process, per CPU-second, medians of {RUNS} runs. The last column is "
        "each rate over the replay's.",
        "",
        "| what | unit | per CPU-second | vs replay |",
        "|---|---|---:|---:|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows],
    ]
    if missing:
        parts += [
            "",
            f"Not installed: {', '.join(missing)} (`pip install -e '.[bench]'`).",
        ]
    return "\n".join(parts)


if __name__ == "__main__":
    print(main())
