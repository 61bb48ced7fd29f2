"""`shengji replay FILE [--hand ID] [--json]`: every hand of a file drawn trick by trick."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..hhfile import READ_ERRORS, read_lines, unreadable
from ..render import render_hand, render_totals, replay_json
from ..replay import replay_file_line
from ..results import HandReplay


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
    parser.add_argument("file", type=Path, help="hand-history file (.jsonl or .jsonl.gz)")
    parser.add_argument("--hand", metavar="ID", help="only the hand with this hand_id")
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per hand instead of drawings"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """0 when the file was read (whatever the hands' status), 1 when --hand matched nothing,
    2 when the file cannot be read."""
    color = sys.stdout.isatty() and not args.json
    seen: list[HandReplay] = []
    why = unreadable(args.file)
    if why is not None:
        print(f"shengji replay: {args.file}: {why}", file=sys.stderr)
        return 2
    number = 0
    try:
        for line in read_lines(args.file):
            number = line.number
            if not line.too_long and not line.text.strip():
                continue
            replay = replay_file_line(line, file=str(args.file), strict=False)
            if args.hand is not None and replay.hand_id != args.hand:
                continue
            seen.append(replay)
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
            f"shengji replay: {args.file}: cannot read on from line {number + 1}: {err}",
            file=sys.stderr,
        )
        return 2
    sys.stdout.flush()
    if args.hand is not None and not seen:
        print(f"shengji replay: no hand {args.hand!r} in {args.file}", file=sys.stderr)
        return 1
    if not args.json and len(seen) > 1:
        sys.stdout.write(render_totals(seen) + "\n")
    return 0
