"""`shengji report [--db FILE | --lake DIR] [--json]`: the headline metrics in the terminal, or as
JSON; from the DuckDB store or from a Parquet lake (through views named as the store's tables).

Every rate is printed as hits/opportunities with its 95% Wilson interval, as on the dashboard.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ingest.lake import LAKE_ENV, lake_from_env, open_lake
from ingest.store import StoreError, default_db_path, open_reader

from . import bottom, coverage, overview, throws
from .filters import Filters
from .query import Connection, has_data
from .stats import Rate, rate

EMPTY = "no hands in {db}: run `shengji ingest PATH --db {db}` first"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "report",
        help="headline metrics of the database",
        description="Print the headline metrics of an ingested database: volume, outcomes, "
        "bottom capture, throws and coverage. Rates show hits/opportunities and a 95% Wilson "
        "interval.",
    )
    p.add_argument(
        "--db", default=None, help="database (default $SHENGJI_DB or data/tractor.duckdb)"
    )
    p.add_argument(
        "--lake",
        default=None,
        metavar="DIR",
        help=f"read the Parquet lake written by `ingest --engine ray` (default ${LAKE_ENV} when "
        "--db is not given)",
    )
    p.add_argument("--json", action="store_true", help="print JSON for tooling")
    p.set_defaults(func=run)


def collect(con: Connection, f: Filters | None = None) -> dict[str, Any]:
    """Every figure the report prints, as plain values (rates as `Rate`)."""
    f = f or Filters()
    head = overview.headline(con, f)
    cap = bottom.summary(con, f)
    cost = throws.summary(con, f)
    cov = coverage.totals(con, f)
    return {
        "headline": head,
        "bottom": {
            "captured": rate(int(cap["hits"]), int(cap["n"])),
            "mean_bottom_points": cap["mean_bottom_points"],
            "mean_added_when_captured": cap["mean_added"],
            "changed_outcome": rate(int(cap["changed"]), int(cap["hits"])),
            "turned_the_hand": rate(int(cap["flipped"]), int(cap["hits"])),
        },
        "throws": {
            "failed": rate(int(cost["hits"]), int(cost["n"])),
            "points_conceded_in_failed_tricks": cost["points_conceded"],
            "conceded_per_failure": cost["conceded_per_failure"],
            "conceded_per_success": cost["conceded_per_success"],
            "penalty_points": cost["penalty_points"],
            "ladder_points_lost": cost["ladder_points_lost"],
        },
        "outcomes": overview.outcomes(con, f).select("outcome", "n").rows(),
        "coverage": cov,
    }


def to_json(data: Any) -> Any:
    if isinstance(data, Rate):
        return data.as_dict()
    if isinstance(data, dict):
        return {k: to_json(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [to_json(v) for v in data]
    if hasattr(data, "isoformat"):
        return data.isoformat()
    return data


def _num(x: float | int | None, digits: int = 1) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


def render(data: dict[str, Any], db: str) -> str:
    """Aligned plain text: a label column, then the figure."""
    h = data["headline"]
    b = data["bottom"]
    t = data["throws"]
    c = data["coverage"]
    span = f"{h['first']:%Y-%m-%d} … {h['last']:%Y-%m-%d}" if h["first"] else "n/a"
    sections: list[tuple[str, list[tuple[str, str]]]] = [
        (
            "Volume",
            [
                ("database", db),
                ("hands replayed", _num(h["hands"])),
                ("players", _num(h["players"])),
                ("sources", _num(h["sources"])),
                ("played", span),
                ("flagged (replayed with findings)", h["flagged"].describe()),
            ],
        ),
        (
            "Outcomes",
            [
                ("banker team held", h["banker_held"].describe()),
                ("attackers' points, mean", _num(h["mean_points"])),
                ("attackers' points, median", _num(h["median_points"])),
                *[(f"  {o}", f"{n:,} hand{'' if n == 1 else 's'}") for o, n in data["outcomes"]],
            ],
        ),
        (
            "Bottom capture (R7.2)",
            [
                ("attackers took the bottom", b["captured"].describe()),
                ("points buried, mean", _num(b["mean_bottom_points"])),
                ("points added per capture, mean", _num(b["mean_added_when_captured"])),
                ("captures that changed the level outcome", b["changed_outcome"].describe()),
                ("captures that turned the hand", b["turned_the_hand"].describe()),
            ],
        ),
        (
            "Throws (R4)",
            [
                ("throws per trick led", h["throw_rate"].describe()),
                ("throws that failed", t["failed"].describe()),
                ("points conceded in failed tricks", _num(t["points_conceded_in_failed_tricks"])),
                ("  per failure, mean", _num(t["conceded_per_failure"])),
                ("  per throw that stood, mean", _num(t["conceded_per_success"])),
                ("penalty points (R4.5)", _num(t["penalty_points"])),
                ("ladder points lost (R7.5)", _num(t["ladder_points_lost"])),
            ],
        ),
        (
            "Coverage",
            [
                ("hands stored", _num(c["hands"])),
                (
                    "  ok / flagged / rejected",
                    f"{c['ok']:,} / {c['flagged']:,} / {c['rejected']:,}",
                ),
                ("findings", _num(c["findings"])),
                ("rejected lines", _num(c["rejected_lines"])),
            ],
        ),
    ]
    width = max(len(label) for _, rows in sections for label, _ in rows)
    out: list[str] = []
    for title, rows in sections:
        out.append(title)
        out.extend(f"  {label:<{width}}  {value}" for label, value in rows)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def run(args: argparse.Namespace) -> int:
    if args.db and args.lake:
        print("shengji report: give --db or --lake, not both", file=sys.stderr)
        return 2
    lake = args.lake or (None if args.db else lake_from_env())
    db = str(lake or args.db or default_db_path())
    try:
        con = open_lake(lake) if lake else open_reader(db)
    except StoreError as e:  # missing, not a DuckDB store, another schema: the reason says
        print(f"shengji report: {e}", file=sys.stderr)
        return 3
    try:
        if not has_data(con):
            print(EMPTY.format(db=db), file=sys.stderr)
            return 1
        data = collect(con)
    finally:
        con.close()
    if args.json:
        print(json.dumps(to_json(data), indent=2, sort_keys=True))
    else:
        sys.stdout.write(render(data, db))
    return 0
