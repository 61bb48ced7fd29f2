"""`shengji export --parquet DIR`: every table as Parquet, hive-partitioned by month of play.

`hands` is partitioned by the month of `played_at`; its child tables take their hand's month (a
join on the key), so one month's folder holds whole hands; `rejects` and `ingest_runs` have no
month and are written unpartitioned. A hand without `played_at` goes to `month=unknown`.

The export reads through `open_reader` (or `open_lake` for a Parquet lake: the same tables as views), so it never blocks an ingest nor waits for one. It writes
to a staging folder inside DIR and moves each table's folder into place once all are written, so
an interrupted export leaves the previous export's folders as they were.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from .lake import open_lake
from .schema import CHILD_TABLES, HANDS, TABLES, Table
from .store import open_reader

MONTH = "coalesce(strftime(h.played_at, '%Y-%m'), 'unknown') AS month"


def _query(table: Table) -> tuple[str, bool]:
    """The SELECT that feeds a table's export, and whether it is partitioned by month."""
    if table is HANDS:
        return f"SELECT h.*, {MONTH} FROM hands h", True
    if table in CHILD_TABLES:
        return (
            f"SELECT c.*, {MONTH} FROM {table.name} c "
            "LEFT JOIN (SELECT source, hand_id, played_at FROM hands) h USING (source, hand_id)",
            True,
        )
    return f"SELECT * FROM {table.name}", False


def export_parquet(
    db_path: str | Path, out_dir: str | Path, *, lake: str | Path | None = None
) -> dict[str, int]:
    """Write every table under `out_dir/<table>/`; returns the rows written per table. With
    `lake`, the tables are read from that Parquet lake's current version instead."""
    con = open_lake(lake) if lake is not None else open_reader(db_path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    staging = out / f".export-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    counts: dict[str, int] = {}
    try:
        for table in TABLES:
            query, by_month = _query(table)
            target = staging / table.name
            if by_month:
                con.execute(
                    f"COPY ({query}) TO '{_sql_path(target)}' "
                    "(FORMAT parquet, PARTITION_BY (month), COMPRESSION zstd)"
                )
            else:
                target.mkdir()
                con.execute(
                    f"COPY ({query}) TO '{_sql_path(target / (table.name + '.parquet'))}' "
                    "(FORMAT parquet, COMPRESSION zstd)"
                )
            row = con.execute(f"SELECT count(*) FROM {table.name}").fetchall()[0]
            counts[table.name] = int(row[0]) if row else 0
            if not target.exists():  # an empty table with PARTITION_BY writes no folder
                target.mkdir()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        con.close()
    for table in TABLES:
        final = out / table.name
        if final.exists():
            shutil.rmtree(final)
        os.replace(staging / table.name, final)
    with contextlib.suppress(OSError):
        staging.rmdir()
    return counts


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
