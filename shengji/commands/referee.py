"""`shengji referee [FILE] [--explain]`: judge JSON Lines requests, one verdict line per request."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..referee import dumps, judge_line


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="judge leads, follows, tricks, bottoms and outcomes given as JSON Lines",
        description=(
            "Read JSON Lines requests (FILE, or stdin) and write one JSON verdict line per "
            "request, in order, echoing its id. A request that cannot be judged gets an "
            "`error` verdict and the rest still run. See docs/referee.md."
        ),
    )
    parser.add_argument("file", nargs="?", type=Path, help="JSON Lines input (default: stdin)")
    parser.add_argument(
        "--explain", action="store_true", help="write an account of each verdict to stderr"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file is None else args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"shengji referee: cannot read input: {err}", file=sys.stderr)
        return 2
    for line in text.splitlines():
        # Blank lines separate nothing in JSON Lines; they get no verdict.
        if not line.strip():
            continue
        verdict = judge_line(line)
        sys.stdout.write(dumps(verdict.response) + "\n")
        if args.explain:
            sys.stderr.write(verdict.explanation + "\n")
    sys.stdout.flush()
    return 0
