"""`shengji ingest PATH… [--db FILE]`: replay hand histories into the DuckDB store; with
`--engine ray --lake DIR`, on a Ray cluster into a Parquet lake."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from shengji.hhfile import MAX_LINE_BYTES

from ..lake import LAKE_ENV, lake_from_env
from ..pipeline import ingest, summary
from ..rows import clean_text
from ..sources import SourceError
from ..store import DB_ENV, StoreError, default_db_path


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "ingest",
        help="replay .jsonl/.jsonl.gz hand histories (and other engines' logs) into the database",
        description=(
            "Replay every hand of the given files, folders or globs and load the results into "
            "the DuckDB database, published atomically as a new version (readers are never "
            "blocked). Re-ingesting unchanged files changes nothing; a changed hand replaces "
            "its old rows."
        ),
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help=".jsonl / .jsonl.gz files or engine logs (docs/import.md), folders or globs",
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
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: worker processes into the DuckDB store (default); ray: Ray tasks into the "
        "Parquet lake given by --lake",
    )
    p.add_argument(
        "--lake",
        default=None,
        metavar="DIR",
        help=f"the Parquet lake folder written by --engine ray (default: ${LAKE_ENV})",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="--engine ray: the Ray cluster's address (host:port of `ray start --head`); "
        "without it a local Ray instance is started",
    )
    p.add_argument(
        "--num-cpus",
        type=int,
        default=None,
        metavar="N",
        help="--engine ray without --address: CPUs of the local Ray instance (default: all)",
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
    if args.engine == "ray":
        return _run_ray(args)
    if args.lake or args.address or args.num_cpus is not None:
        print("shengji ingest: --lake, --address and --num-cpus need --engine ray", file=sys.stderr)
        return 2
    db = args.db or default_db_path()
    return _run_and_report(
        lambda: ingest(
            args.paths,
            db,
            workers=args.workers,
            fresh=args.fresh,
            max_line_bytes=args.max_line_bytes,
            force=args.force,
        ),
        (StoreError,),
    )


def _run_and_report(run: Callable[[], Any], store_errors: tuple[type[Exception], ...]) -> int:
    """One engine's run, its skipped paths and summary, and the exit code of docs/cli.md."""
    try:
        result = run()
    except SourceError as e:
        print(f"shengji ingest: {e}", file=sys.stderr)
        return 2
    except store_errors as e:
        print(f"shengji ingest: {e}", file=sys.stderr)
        return 3
    for path, why in result.skipped:
        print(f"shengji ingest: skipped {clean_text(path)}: {clean_text(why)}", file=sys.stderr)
    print(summary(result))
    return 1 if result.counts.file_errors else 0


def _run_ray(args: argparse.Namespace) -> int:
    from ..ray_engine import EngineError, ingest_lake  # imports Ray: only when asked for

    lake = args.lake or lake_from_env()
    if lake is None:
        print(
            f"shengji ingest: --engine ray writes a lake: give --lake DIR or ${LAKE_ENV}",
            file=sys.stderr,
        )
        return 2
    if args.db or args.workers is not None:
        print("shengji ingest: --db and --workers are for --engine local", file=sys.stderr)
        return 2
    if args.num_cpus is not None and (args.address or args.num_cpus < 1):
        print(
            "shengji ingest: --num-cpus is a positive count, for a local Ray instance only",
            file=sys.stderr,
        )
        return 2
    return _run_and_report(
        lambda: ingest_lake(
            args.paths,
            lake,
            address=args.address,
            num_cpus=args.num_cpus,
            fresh=args.fresh,
            max_line_bytes=args.max_line_bytes,
            force=args.force,
        ),
        (StoreError, EngineError),
    )
