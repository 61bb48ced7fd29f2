"""`shengji analyse FILE [--hand ID] [--seat S] [--worlds N] [--jobs N] [--seed S] [--json]`:
every decision of a file's hands (the bury, every lead and follow) judged by its effect on the
whole hand (docs/analysis.md)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from ..cards import format_cards
from ..coach.analysis import (
    DEFAULT,
    ENGINE,
    Judgement,
    Settings,
    Spot,
    judge,
    judgement_json,
    spots,
)
from ..coach.review import shown_cost
from ..hhfile import iter_lines
from ..record import RecordError, load_json
from ..replay import replay_line


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "analyse",
        help="judge every decision by its effect on the whole hand (computer analysis)",
        description=(
            "Replay every hand of a tractor-hh/1 file and judge its last bury and each lead and "
            "follow by playing the hand out in many deals of the cards the player could not see "
            "(perfect-information Monte Carlo, the careful bot as rollout policy): the expected "
            "loss of the play made against the best alternative, with its standard error and the "
            "worlds it rests on. Deterministic for a seed; Ctrl+C stops and prints what is done. See "
            "docs/analysis.md."
        ),
    )
    parser.add_argument("file", type=Path, help="hand-history file (.jsonl or .jsonl.gz)")
    parser.add_argument("--hand", metavar="ID", help="only the hand with this hand_id")
    parser.add_argument("--seat", type=int, choices=range(4), metavar="S", help="only seat S (0-3)")
    parser.add_argument(
        "--worlds",
        type=int,
        default=DEFAULT.worlds,
        metavar="N",
        help=f"most worlds per decision (default {DEFAULT.worlds})",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="processes to analyse in (default 1)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument(
        "--all", action="store_true", help="also list decisions not flagged (text output)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per decision")
    parser.set_defaults(func=run)


def _quiet_worker() -> None:
    # Ctrl+C reaches the whole process group: the parent stops the run and keeps what is done,
    # so a worker must not die of it mid-decision with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Progress:
    """A bar on stderr when it is a terminal; nothing when piped."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()

    def show(self, hand: str, done: int, total: int) -> None:
        if not self.tty or not total:
            return
        width = 30
        filled = width * done // total
        bar = "#" * filled + "." * (width - filled)
        spent = time.monotonic() - self.start
        self.stream.write(f"\r{hand} [{bar}] {done}/{total} decisions, {spent:.0f} s ")
        self.stream.flush()

    def end(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def judge_all(
    todo: list[Spot], settings: Settings, jobs: int, progress: _Progress, hand: str
) -> tuple[list[Judgement], bool]:
    """Every spot judged, in order; on Ctrl+C those finished and False."""
    done: dict[int, Judgement] = {}
    progress.show(hand, 0, len(todo))
    if jobs <= 1:
        try:
            for s in todo:
                done[s.number] = judge(s, settings)
                progress.show(hand, len(done), len(todo))
        except KeyboardInterrupt:
            return sorted(done.values(), key=lambda j: j.number), False
        return sorted(done.values(), key=lambda j: j.number), True
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_quiet_worker)
    complete = True
    try:
        # The longest first (leads and the hand's start have the most to roll out).
        order = sorted(todo, key=lambda s: (-len(s.candidates) * (40 - s.trick), s.number))
        pending: set[Future[Judgement]] = {pool.submit(judge, s, settings) for s in order}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                j = f.result()
                done[j.number] = j
            progress.show(hand, len(done), len(todo))
    except KeyboardInterrupt:
        complete = False
        # The decisions under way are dropped: their workers are ended now, or the interpreter
        # would wait for them at exit. (The executor keeps its processes in `_processes`.)
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return sorted(done.values(), key=lambda j: j.number), complete


def _line(j: Judgement, players: tuple[str, ...]) -> str:
    name = f" ({players[j.seat]})" if len(players) == 4 else ""
    if j.kind == "bury":
        # Decision 0, before trick 1: the column of the trick names it.
        where = f"the bury seat {j.seat}{name} {'':<6}"
    else:
        where = f"trick {j.trick:<2} seat {j.seat}{name} {j.kind:<6}"
    if not j.judged:
        return f"  {where}  not judged  {format_cards(j.play)}: {j.note}"
    better = f"; {format_cards(j.best)} is better" if j.best is not None else ""
    return (
        f"  {where}  {j.severity:<10} loss {shown_cost(j.loss):>5} ± {j.loss_se:.1f} "
        f"({j.worlds} worlds)  played {format_cards(j.play)}{better}"
    )


def _may_be(text: str, hand_id: str) -> bool:
    """Whether the line could replay as hand `hand_id` (not empty): the replay takes a line's
    hand_id from its JSON object or, for a line that is not one, leaves it empty. Reading the JSON
    alone spares replaying every other hand of a large file (seconds for the sample)."""
    try:
        obj = load_json(text)
    except RecordError:
        return False
    return bool(obj.get("hand_id") == hand_id)


def run(args: argparse.Namespace) -> int:
    """0 when the file was read (and not cut short), 1 when --hand matched nothing, 2 when the
    file cannot be read or an option is out of range, 130 when stopped with Ctrl+C."""
    if args.worlds < 1 or args.jobs < 1:
        print("shengji analyse: --worlds and --jobs must be at least 1", file=sys.stderr)
        return 2
    settings = replace(
        DEFAULT,
        worlds=args.worlds,
        min_worlds=min(DEFAULT.min_worlds, args.worlds),
        seed=args.seed,
    )
    progress = _Progress(sys.stderr)
    seen = 0
    judged = flagged = 0
    try:
        for number, text in iter_lines(args.file):
            if args.hand and not _may_be(text, args.hand):
                continue
            replay = replay_line(text, line=number, file=str(args.file), strict=False)
            if args.hand is not None and replay.hand_id != args.hand:
                continue
            seen += 1
            todo = [s for s in spots(replay, settings) if args.seat is None or s.seat == args.seat]
            found, complete = judge_all(todo, settings, args.jobs, progress, replay.hand_id)
            progress.end()
            judged += sum(j.judged for j in found)
            flagged += sum(j.flagged for j in found)
            if args.json:
                for j in found:
                    out = {"source": replay.source, "engine": ENGINE, **judgement_json(j)}
                    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
            else:
                lost = sum(j.loss for j in found if j.flagged)
                head = f"hand {replay.hand_id or '(no id)'}  {replay.status}"
                if not todo:
                    head += "  (not analysed)"
                sys.stdout.write(
                    f"{head}  {sum(j.judged for j in found)} judged of {len(found)} decisions, "
                    f"{sum(j.flagged for j in found)} flagged, {lost:.1f} points lost\n"
                )
                for j in found:
                    if args.all or j.flagged:
                        sys.stdout.write(_line(j, replay.players) + "\n")
            sys.stdout.flush()
            if not complete:
                print(
                    f"shengji analyse: stopped; {len(found)} of {len(todo)} decisions of "
                    f"{replay.hand_id} were finished and are shown",
                    file=sys.stderr,
                )
                return 130
    except KeyboardInterrupt:
        progress.end()
        print("shengji analyse: stopped", file=sys.stderr)
        return 130
    except (OSError, EOFError) as err:
        print(f"shengji analyse: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    if args.hand is not None and not seen:
        print(f"shengji analyse: no hand {args.hand!r} in {args.file}", file=sys.stderr)
        return 1
    print(f"{seen} hands; {judged} decisions judged, {flagged} flagged", file=sys.stderr)
    return 0
