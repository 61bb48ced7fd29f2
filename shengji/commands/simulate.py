"""`shengji simulate`: bots of documented styles play whole matches; the hands go to a file.

    shengji simulate --matches M --hands N --seed S [--players a,b,c,d] [--rules PRESET|JSON]
                     [--faults RATE] [--jobs J] -o FILE.jsonl.gz

The same arguments write the same bytes (gzip with mtime 0). With `--faults RATE` about that
share of hands is corrupted and FILE.truth.jsonl lists each injected fault with the finding the
audit must report (docs/bots.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..hhfile import write_lines
from ..rules import RuleError, RuleSet, rules_from_spec
from ..sim.faults import inject_faults, truth_path
from ..sim.match import match_specs
from ..sim.personas import ROSTER, Persona, PersonaError, persona
from ..sim.run import run_matches


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play whole matches with bots and write tractor-hh/1 hand histories",
        description=(
            "Play M matches of up to N hands among four named bot players (drawn per match from "
            "the roster unless --players names them) and write every hand as a tractor-hh/1 "
            "line. Deterministic from --seed. See docs/bots.md."
        ),
    )
    parser.add_argument("--matches", type=int, default=1, help="matches to play (default 1)")
    parser.add_argument(
        "--hands", type=int, default=40, help="most hands per match, redeals included (default 40)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument(
        "--players",
        help="comma-separated player names: four sit in that order every match, more form the "
        "pool each match draws four from (roster: " + ", ".join(p.name for p in ROSTER) + ")",
    )
    parser.add_argument(
        "--rules",
        default="four-deck",
        help='a preset name or a JSON object, e.g. \'{"preset": "four-deck", '
        '"bottom_multiplier": "times"}\' (default four-deck)',
    )
    parser.add_argument(
        "--faults",
        type=float,
        default=0.0,
        help="share of hands to corrupt (0..1); writes FILE.truth.jsonl with the expected findings",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes to play matches in")
    parser.add_argument("--source", default="shengji-sim", help="the hands' `source` field")
    parser.add_argument("-o", "--output", type=Path, required=True, help="FILE.jsonl[.gz]")
    parser.set_defaults(func=run)


def _rules(text: str) -> RuleSet:
    spec = text.strip()
    if spec.startswith("{"):
        try:
            return rules_from_spec(json.loads(spec))
        except json.JSONDecodeError as e:
            raise RuleError(f"--rules is not valid JSON: {e.msg}") from None
    return rules_from_spec(spec)


def _players(text: str | None) -> list[Persona] | None:
    if text is None:
        return None
    return [persona(name) for name in text.split(",") if name.strip()]


def run(args: argparse.Namespace) -> int:
    try:
        rules = _rules(args.rules)
        players = _players(args.players)
        if args.matches < 1 or args.hands < 1:
            raise ValueError("--matches and --hands must be at least 1")
        if not 0.0 <= args.faults <= 1.0:
            raise ValueError("--faults is a share between 0 and 1")
        specs = match_specs(args.matches, args.hands, args.seed, rules, players, args.source)
    except (RuleError, PersonaError, ValueError) as err:
        print(f"shengji simulate: {err}", file=sys.stderr)
        return 2
    name = args.output.name
    if not name.endswith((".jsonl", ".jsonl.gz")):
        print("shengji simulate: the output must end in .jsonl or .jsonl.gz", file=sys.stderr)
        return 2
    started = time.monotonic()
    tty = sys.stderr.isatty()

    def progress(done: int, hands: int) -> None:
        if tty:
            rate = hands / max(time.monotonic() - started, 1e-9)
            print(
                f"\rmatch {done}/{args.matches}, {hands} hands, {rate:.1f} hands/s",
                end="",
                file=sys.stderr,
                flush=True,
            )

    hands = list(run_matches(specs, args.jobs, progress))
    if tty:
        print(file=sys.stderr)
    lines = [h.line for h in hands]
    truth: list[str] = []
    if args.faults > 0:
        lines, rows = inject_faults(hands, args.faults, args.seed)
        truth = [json.dumps(row, separators=(",", ":")) for row in rows]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_lines(args.output, lines)
    if args.faults > 0:
        write_lines(truth_path(args.output), truth)
    elapsed = time.monotonic() - started
    faults = f", {len(truth)} faults" if args.faults > 0 else ""
    print(
        f"shengji simulate: {len(lines)} hands in {args.matches} match{'' if args.matches == 1 else 'es'}{faults} -> "
        f"{args.output} ({elapsed:.1f} s)",
        file=sys.stderr,
    )
    return 0
