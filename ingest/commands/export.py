"""`shengji export --parquet DIR [--db FILE]`: every table as Parquet, partitioned by month."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import duckdb

from ..export import export_parquet
from ..store import DB_ENV, StoreError, default_db_path


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "export",
        help="write every table of the database as Parquet",
        description=(
            "Write every table as Parquet under DIR/<table>/, hive-partitioned by month of "
            "played_at (DIR/plays/month=2026-11/…); child tables take their hand's month."
        ),
    )
    p.add_argument("--parquet", required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--db",
        default=None,
        help=f"database pointer path (default: ${DB_ENV} or data/tractor.duckdb)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db_path()
    try:
        counts = export_parquet(db, args.parquet)
    except (StoreError, duckdb.Error) as e:
        print(f"shengji export: {e}", file=sys.stderr)
        return 3
    except OSError as e:
        print(f"shengji export: cannot write {args.parquet}: {e.strerror or e}", file=sys.stderr)
        return 2
    total = sum(counts.values())
    detail = ", ".join(f"{name} {n:,}" for name, n in counts.items())
    print(f"exported {total:,} rows from {db} to {args.parquet}: {detail}")
    return 0
