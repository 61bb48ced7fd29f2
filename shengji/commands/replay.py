"""`shengji replay PATH… [--hand ID] [--json]`: every hand of the files drawn trick by trick.

Hands are written as they are replayed and only the run's counts are kept, so memory stays flat
whatever the size of the files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..hhfile import READ_ERRORS, read_lines
from ..render import AuditTotals, render_hand, replay_json
from ..replay import replay_file_line
from ._files import add_paths, may_be_hand, named_files


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a hand-history file and draw each hand trick by trick",
        description=(
            "Replay every hand of a tractor-hh/1 file (.jsonl or .jsonl.gz) and draw it trick "
            "by trick: the leader, every play, the winner, points, the attackers' running total, "
            "each finding under its trick and the outcome. See docs/cli.md."
        ),
    )
    add_paths(parser)
    parser.add_argument("--hand", metavar="ID", help="only the hand with this hand_id")
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per hand instead of drawings"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """0 when every file was read (whatever the hands' status), 1 when --hand matched nothing,
    2 when a file cannot be read."""
    color = sys.stdout.isatty() and not args.json
    totals = AuditTotals()
    files, failed = named_files("replay", args.paths, force=args.force)
    for path in files:
        if not _replay_file(path, args, color, totals):
            failed = True
    sys.stdout.flush()
    if failed:
        return 2
    if args.hand is not None and not totals.hands:
        where = ", ".join(str(p) for p in files)
        print(f"shengji replay: no hand {args.hand!r} in {where}", file=sys.stderr)
        return 1
    if not args.json and totals.hands > 1:
        sys.stdout.write(totals.render() + "\n")
    return 0


def _replay_file(path: Path, args: argparse.Namespace, color: bool, totals: AuditTotals) -> bool:
    """Write every (chosen) hand of one file; False when the file could not be read to its end."""
    number = 0
    try:
        for line in read_lines(path):
            number = line.number
            if not line.too_long and not line.text.strip():
                continue
            if args.hand is not None and (line.too_long or not may_be_hand(line.text, args.hand)):
                continue
            replay = replay_file_line(line, file=str(path), strict=False)
            if args.hand is not None and replay.hand_id != args.hand:
                continue
            totals.add(replay)
            if args.json:
                out = json.dumps(replay_json(replay), ensure_ascii=False, separators=(",", ":"))
            else:
                out = render_hand(replay, color=color) + "\n"
            sys.stdout.write(out + "\n")
    except BrokenPipeError:  # the reader went away: not a file fault
        raise
    except READ_ERRORS as err:
        sys.stdout.flush()
        print(
            f"shengji replay: {path}: cannot read on from line {number + 1}: {err}", file=sys.stderr
        )
        return False
    return True
