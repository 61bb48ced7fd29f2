"""`shengji audit PATH… [--json]`: each hand's status and findings, with totals per code."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..hhfile import READ_ERRORS, read_lines
from ..render import AuditTotals, audit_json
from ..replay import replay_file_line
from ..results import HandReplay
from ._files import add_paths, named_files


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="replay hand-history files and list every hand's status and findings",
        description=(
            "Replay every hand of the tractor-hh/1 files (.jsonl or .jsonl.gz; folders and globs "
            "are walked as `shengji ingest` walks them) and list each "
            "hand's status (ok, flagged, rejected) and findings, then the totals per finding "
            "code. Exit status 1 when a hand is flagged or rejected. See docs/findings.md."
        ),
    )
    add_paths(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON line per hand ({hand_id, status, findings, …}); totals go to stderr",
    )
    parser.set_defaults(func=run)


def _text(path: Path, replay: HandReplay) -> list[str]:
    lines = [f"{path}:{replay.line}  {replay.hand_id or '(no id)'}  {replay.status}"]
    for f in replay.findings:
        where = " ".join(
            part
            for part in (
                f"trick {f.trick}" if f.trick is not None else "",
                f"seat {f.seat}" if f.seat is not None else "",
            )
            if part
        )
        lines.append(f"    {f.code}{' ' + where if where else ''}: {f.reason}")
    return lines


def run(args: argparse.Namespace) -> int:
    """0 when every hand is ok, 1 when any is flagged or rejected, 2 when a file cannot be read."""
    totals = AuditTotals()
    files, unreadable = named_files("audit", args.paths, force=args.force)
    opened = len(files)
    for path in files:
        number = 0
        try:
            for line in read_lines(path):
                number = line.number
                if not line.too_long and not line.text.strip():
                    continue
                replay = replay_file_line(line, file=str(path), strict=False)
                totals.add(replay)
                if args.json:
                    obj = {"file": str(path), **audit_json(replay)}
                    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
                else:
                    sys.stdout.write("\n".join(_text(path, replay)) + "\n")
        except BrokenPipeError:  # the reader went away: not a file fault
            raise
        except READ_ERRORS as err:
            print(
                f"shengji audit: {path}: cannot read on from line {number + 1}: {err}",
                file=sys.stderr,
            )
            unreadable = True
    sys.stdout.flush()
    if opened:
        print(totals.render(), file=sys.stderr if args.json else sys.stdout)
    if unreadable:
        return 2
    return 0 if totals.all_ok() else 1
