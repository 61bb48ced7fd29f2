"""`shengji review FILE [--hand ID] [--seat S] [--json]`: every judged decision of a file's hands."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..cards import format_cards
from ..hhfile import iter_lines
from ..replay import replay_line
from ..review import NOT_JUDGED, SEVERITIES, Decision, review_hand, shown_cost


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "review",
        help="judge every decision of a hand-history file (coaching review)",
        description=(
            "Replay every hand of a tractor-hh/1 file and judge each decision that can be judged "
            "from the player's knowledge at that moment: throws, the fourth seat's play, the "
            "bury. Each has a code, a severity, a cost in points, the play made, the better play "
            "and a reason quoting the cards. See docs/review.md."
        ),
    )
    parser.add_argument("file", type=Path, help="hand-history file (.jsonl or .jsonl.gz)")
    parser.add_argument("--hand", metavar="ID", help="only the hand with this hand_id")
    parser.add_argument("--seat", type=int, choices=range(4), metavar="S", help="only seat S (0-3)")
    parser.add_argument(
        "--all", action="store_true", help="also list decisions judged sound (severity ok)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per decision")
    parser.set_defaults(func=run)


def decision_json(d: Decision, source: str) -> dict[str, Any]:
    return {
        "source": source,
        "hand_id": d.hand_id,
        "trick": d.trick,
        "seat": d.seat,
        "code": d.code,
        "kind": d.kind,
        "severity": d.severity,
        "judged": d.judged,
        "cost": d.cost,
        "play": format_cards(d.play),
        "better": None if d.better is None else format_cards(d.better),
        "p_fail": d.p_fail,
        "p_error": d.p_error,
        "outcome": d.outcome,
        "reason": d.reason,
    }


def _line(d: Decision, players: tuple[str, ...]) -> str:
    where = "bury    " if d.trick is None else f"trick {d.trick:<2}"
    name = f" ({players[d.seat]})" if len(players) == 4 else ""
    cost = f"{shown_cost(d.cost):>5}" if d.cost else "    -"
    return f"  {where} seat {d.seat}{name}  {d.severity:<10} {cost}  {d.code}: {d.reason}"


def run(args: argparse.Namespace) -> int:
    """0 when the file was read, 1 when --hand matched nothing, 2 when the file cannot be read."""
    seen = 0
    by_severity: Counter[str] = Counter()
    try:
        for number, text in iter_lines(args.file):
            replay = replay_line(text, line=number, file=str(args.file), strict=False)
            if args.hand is not None and replay.hand_id != args.hand:
                continue
            seen += 1
            decisions = [d for d in review_hand(replay) if args.seat is None or d.seat == args.seat]
            for d in decisions:
                by_severity[d.severity] += 1
            if args.json:
                for d in decisions:
                    out = decision_json(d, replay.source)
                    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
                continue
            shown = [d for d in decisions if args.all or d.severity != "ok"]
            head = f"hand {replay.hand_id or '(no id)'}  {replay.status}"
            if replay.status == "rejected":
                head += "  (not reviewed)"
            total = sum(d.cost for d in decisions)
            judged = sum(d.judged for d in decisions)
            unjudged = sum(d.code in NOT_JUDGED for d in decisions)
            tail = f", {unjudged} not judged" if unjudged else ""
            sys.stdout.write(f"{head}  {judged} judged{tail}, {total:.1f} points lost\n")
            for d in shown:
                sys.stdout.write(_line(d, replay.players) + "\n")
    except (OSError, EOFError) as err:
        print(f"shengji review: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    if args.hand is not None and not seen:
        print(f"shengji review: no hand {args.hand!r} in {args.file}", file=sys.stderr)
        return 1
    counts = ", ".join(f"{by_severity[s]} {s}" for s in SEVERITIES if by_severity[s])
    print(f"{seen} hands; decisions: {counts or 'none'}", file=sys.stderr)
    return 0
