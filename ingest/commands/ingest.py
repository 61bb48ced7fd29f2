"""`shengji ingest PATH… [--db FILE]`: replay hand histories into the DuckDB store."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shengji.hhfile import MAX_LINE_BYTES

from ..pipeline import ingest, summary
from ..rows import clean_text
from ..sources import SourceError
from ..store import DB_ENV, StoreError, default_db_path


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "ingest",
        help="replay .jsonl/.jsonl.gz hand histories into the database",
        description=(
            "Replay every hand of the given files, folders or globs and load the results into "
            "the DuckDB database, published atomically as a new version (readers are never "
            "blocked). Re-ingesting unchanged files changes nothing; a changed hand replaces "
            "its old rows."
        ),
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help=".jsonl / .jsonl.gz files, folders or globs"
    )
    p.add_argument(
        "--db",
        default=None,
        help=f"database pointer path (default: ${DB_ENV} or data/tractor.duckdb)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="replay processes (default: one per core; 0: none)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="start from an empty database instead of the current version (a rebuild)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="read a file named on the command line even if it is not .jsonl / .jsonl.gz",
    )
    p.add_argument(
        "--max-line-bytes",
        type=int,
        default=MAX_LINE_BYTES,
        metavar="N",
        help=f"longest line read; a longer one is rejected as line_too_long (default {MAX_LINE_BYTES:,})",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db_path()
    try:
        result = ingest(
            args.paths,
            db,
            workers=args.workers,
            fresh=args.fresh,
            max_line_bytes=args.max_line_bytes,
            force=args.force,
        )
    except SourceError as e:
        print(f"shengji ingest: {e}", file=sys.stderr)
        return 2
    except StoreError as e:
        print(f"shengji ingest: {e}", file=sys.stderr)
        return 3
    for path, why in result.skipped:
        print(f"shengji ingest: skipped {clean_text(path)}: {clean_text(why)}", file=sys.stderr)
    print(summary(result))
    return 1 if result.counts.file_errors else 0
