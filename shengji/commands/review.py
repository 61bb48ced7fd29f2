"""`shengji review PATH… [--hand ID] [--seat S | --player NAME] [--all] [--json]`: every judged
decision of the files' hands."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..cards import format_cards
from ..coach.review import NOT_JUDGED, SEVERITIES, Decision, review_hand, shown_cost
from ..hhfile import READ_ERRORS, read_lines
from ..replay import replay_file_line
from ..results import HandReplay
from ._files import add_paths, may_be_hand, named_files


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
    add_paths(parser)
    parser.add_argument("--hand", metavar="ID", help="only the hand with this hand_id")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, choices=range(4), metavar="S", help="only seat S (0-3)")
    who.add_argument(
        "--player", metavar="NAME", help="only the decisions of the player of this name"
    )
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


def _chosen(d: Decision, replay: HandReplay, args: argparse.Namespace) -> bool:
    if args.seat is not None:
        return bool(d.seat == args.seat)
    if args.player is not None:
        return len(replay.players) == 4 and replay.players[d.seat] == args.player
    return True


class _Run:
    """What a review run has seen so far: only counts, so memory stays flat."""

    def __init__(self) -> None:
        self.hands = 0
        self.rejected = 0
        self.by_severity: Counter[str] = Counter()


def run(args: argparse.Namespace) -> int:
    """0 when hands were reviewed (a rejected one is listed with its reason); 1 when none could
    be (every line rejected), --hand matched nothing or --player sat at no hand; 2 when a file
    cannot be read."""
    state = _Run()
    files, failed = named_files("review", args.paths, force=args.force)
    for path in files:
        number = 0
        try:
            for line in read_lines(path):
                number = line.number
                if not line.too_long and not line.text.strip():
                    continue
                if args.hand is not None and (
                    line.too_long or not may_be_hand(line.text, args.hand)
                ):
                    continue
                replay = replay_file_line(line, file=str(path), strict=False)
                if args.hand is not None and replay.hand_id != args.hand:
                    continue
                _review(replay, path, args, state)
        except BrokenPipeError:  # the reader went away: not a file fault
            raise
        except READ_ERRORS as err:
            sys.stdout.flush()
            print(
                f"shengji review: {path}: cannot read on from line {number + 1}: {err}",
                file=sys.stderr,
            )
            failed = True
    sys.stdout.flush()
    counts = ", ".join(f"{state.by_severity[s]} {s}" for s in SEVERITIES if state.by_severity[s])
    hands = f"{state.hands} hand{'' if state.hands == 1 else 's'}"
    rejected = f" ({state.rejected} rejected, not reviewed)" if state.rejected else ""
    print(f"{hands}{rejected}; decisions: {counts or 'none'}", file=sys.stderr)
    if failed:
        return 2
    if args.hand is not None and not state.hands:
        where = ", ".join(str(p) for p in files)
        print(f"shengji review: no hand {args.hand!r} in {where}", file=sys.stderr)
        return 1
    if args.player is not None and not state.hands:
        print(f"shengji review: no hand with a player named {args.player!r}", file=sys.stderr)
        return 1
    if state.hands and state.rejected == state.hands:
        print("shengji review: no hand could be reviewed", file=sys.stderr)
        return 1
    return 0


def _review(replay: HandReplay, path: Path, args: argparse.Namespace, state: _Run) -> None:
    if args.player is not None and args.player not in replay.players:
        return
    state.hands += 1
    if replay.status == "rejected":
        state.rejected += 1
        first = replay.findings[0] if replay.findings else None
        why = f"{first.code}: {first.reason}" if first is not None else "no reason recorded"
        head = f"hand {replay.hand_id or '(no id)'}  rejected (not reviewed): {why}"
        if args.json:
            where = f"{path}:{replay.line}" if replay.line is not None else str(path)
            print(f"shengji review: {where}: {head}", file=sys.stderr)
        else:
            sys.stdout.write(head + "\n")
        return
    decisions = [d for d in review_hand(replay) if _chosen(d, replay, args)]
    for d in decisions:
        state.by_severity[d.severity] += 1
    shown = [d for d in decisions if args.all or d.severity != "ok"]
    if args.json:
        for d in shown:
            sys.stdout.write(json.dumps(decision_json(d, replay.source), ensure_ascii=False) + "\n")
        return
    total = sum(d.cost for d in decisions)
    judged = sum(d.judged for d in decisions)
    unjudged = sum(d.code in NOT_JUDGED for d in decisions)
    tail = f", {unjudged} not judged" if unjudged else ""
    head = f"hand {replay.hand_id or '(no id)'}  {replay.status}"
    sys.stdout.write(f"{head}  {judged} judged{tail}, {total:.1f} points lost\n")
    for d in shown:
        sys.stdout.write(_line(d, replay.players) + "\n")
