"""`shengji export --parquet DIR [--db FILE | --lake DIR]`: every table as Parquet, partitioned by month."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import duckdb

from ..export import export_parquet
from ..lake import LAKE_ENV, lake_from_env
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
    p.add_argument(
        "--lake",
        default=None,
        metavar="DIR",
        help=f"export from the Parquet lake written by `ingest --engine ray` (default ${LAKE_ENV} "
        "when --db is not given)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.db and args.lake:
        print("shengji export: give --db or --lake, not both", file=sys.stderr)
        return 2
    lake = args.lake or (None if args.db else lake_from_env())
    db = lake or args.db or default_db_path()
    try:
        counts = export_parquet(db, args.parquet, lake=lake)
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
