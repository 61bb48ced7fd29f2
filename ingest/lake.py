"""The Parquet lake: the store's tables as Parquet files, named by a manifest, read through DuckDB views.

Layout of a lake folder `LAKE/` (docs/scale.md tells the whole protocol):

- `LAKE/<table>/source=<source>/month=<YYYY-MM>/<part>.parquet` for every table whose rows belong
  to a hand (`schema.HAND_TABLES`): hive-partitioned by the hand's source (percent-encoded) and the
  month it was played (`unknown` without `played_at`). A *part* is what one chunk of input wrote:
  the same file name in every table holds the rows of the same hands, so a hand's rows can be
  found and rewritten together. Every column of the store is in the file, `source` included.
- `LAKE/<table>/<table>.<version>.parquet` for the other tables (`rejects`, `ingest_runs`): small,
  rewritten whole by each run.
- `LAKE/_manifests/<version>.json`: the files that make up each version, per table. A version is
  published by renaming its manifest into place, which is atomic; readers take the highest
  version and read exactly its files, so a half-written run is never seen.

Which tables exist, their columns and keys come from `ingest.schema`: nothing here names a table.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from .schema import HAND_TABLES, ROLLUP_TABLES, SCHEMA_VERSION, TABLES, Table, sql_str
from .store import StoreError, connect

LAKE_ENV = "SHENGJI_LAKE"
MANIFESTS = "_manifests"
STAGING = "_staging"
KEEP_VERSIONS = 2
"""The current manifest and the one before: a reader that opened the previous version keeps
reading while the next run publishes; older versions' files are deleted."""

PARTITIONED: tuple[Table, ...] = HAND_TABLES
"""Tables written in parts, partitioned by source and month; the rest are written whole."""
WHOLE: tuple[Table, ...] = tuple(
    t for t in TABLES if t not in PARTITIONED and t not in ROLLUP_TABLES
)
"""Rollup tables are not stored: a reader computes them from the hand tables (`open_lake`)."""

_MANIFEST = re.compile(r"(\d{6,})\.json")


def lake_from_env() -> Path | None:
    value = os.environ.get(LAKE_ENV)
    return Path(value) if value else None


def is_lake(path: str | Path) -> bool:
    return (Path(path) / MANIFESTS).is_dir()


def partition_dir(source: str, month: str) -> str:
    """`source=<source>/month=<month>`, the source percent-encoded so that any text is one safe
    folder name (no `/`, no `..`, at most 255 bytes)."""
    enc = urllib.parse.quote(source, safe="-_.~@+")
    if enc in ("", ".", "..") or len(enc) > 200:
        import hashlib

        enc = f"{enc[:120]}~{hashlib.sha256(source.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"
    return f"source={enc}/month={month}"


@dataclass
class Manifest:
    """One published version: per table, the files (relative to the lake) that hold its rows."""

    version: int = 0
    schema_version: int = SCHEMA_VERSION
    tables: dict[str, list[str]] = field(default_factory=dict)

    def files(self, table: str) -> list[str]:
        return self.tables.get(table, [])

    def all_files(self) -> set[str]:
        return {f for files in self.tables.values() for f in files}

    def to_json(self) -> str:
        return json.dumps(
            {
                "version": self.version,
                "schema_version": self.schema_version,
                "tables": {t: sorted(f) for t, f in sorted(self.tables.items())},
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        return cls(int(data["version"]), int(data["schema_version"]), dict(data["tables"]))


def manifest_versions(lake: Path) -> list[int]:
    folder = lake / MANIFESTS
    if not folder.is_dir():
        return []
    out = []
    for p in folder.iterdir():
        m = _MANIFEST.fullmatch(p.name)
        if m:
            out.append(int(m.group(1)))
    return sorted(out)


def manifest_path(lake: Path, version: int) -> Path:
    return lake / MANIFESTS / f"{version:06d}.json"


def current_manifest(lake: str | Path) -> Manifest | None:
    """The published version with the highest number, or None for a lake with none yet."""
    lake = Path(lake)
    versions = manifest_versions(lake)
    if not versions:
        return None
    return Manifest.from_json(manifest_path(lake, versions[-1]).read_text())


def current_lake_version(lake: str | Path) -> int | None:
    """Cheap (one directory listing): a reader polls it and reopens when it changes."""
    versions = manifest_versions(Path(lake))
    return versions[-1] if versions else None


def publish_manifest(lake: Path, manifest: Manifest) -> None:
    """Write the manifest under a temporary name, fsync it, and rename it into place."""
    folder = lake / MANIFESTS
    folder.mkdir(parents=True, exist_ok=True)
    final = manifest_path(lake, manifest.version)
    tmp = folder / f".{final.name}.{os.getpid()}.tmp"
    with open(tmp, "w") as fh:
        fh.write(manifest.to_json())
        fh.flush()
        os.fsync(fh.fileno())
    os.rename(tmp, final)
    fsync_dir(folder)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def lake_lock(lake: Path) -> Iterator[None]:
    """One writer per lake (flock: released by the kernel if the writer dies)."""
    lake.mkdir(parents=True, exist_ok=True)
    with open(lake / "_lock", "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            import sys

            print(f"waiting for another ingest into {lake} …", file=sys.stderr)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def table_select(table: Table, lake: Path, files: list[str]) -> str:
    """A SELECT giving `table`'s columns, in the store's order and types, from its Parquet files."""
    cols = ", ".join(f"CAST({c.name} AS {c.sql}) AS {c.name}" for c in table.columns)
    if not files:
        empty = ", ".join(f"CAST(NULL AS {c.sql}) AS {c.name}" for c in table.columns)
        return f"SELECT {empty} WHERE false"
    paths = ", ".join(sql_str(str(lake / f)) for f in files)
    return f"SELECT {cols} FROM read_parquet([{paths}], hive_partitioning = false)"


def create_views(
    con: duckdb.DuckDBPyConnection, lake: Path, manifest: Manifest, *, rollups: bool = False
) -> None:
    """One view per store table, named as the table, over the manifest's files; with `rollups`,
    the rollup tables computed from them in memory (they are derived, not stored in the lake)."""
    for table in TABLES:
        if rollups and table in ROLLUP_TABLES:
            con.execute(table.ddl())
            continue
        con.execute(
            f"CREATE OR REPLACE VIEW {table.name} AS "
            f"{table_select(table, lake, manifest.files(table.name))}"
        )
    if rollups:
        from . import rollups as derived

        derived.refresh(con)


def open_lake(lake: str | Path, *, attempts: int = 5) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection whose views (named as the store's tables) read the lake's
    current version: analytics queries run on it unchanged.

    A version's files are deleted two publications after it stopped being current, so a failure
    to read them is retried with the then current manifest."""
    lake = Path(lake)
    last: Exception | None = None
    for _ in range(attempts):
        try:
            manifest = current_manifest(lake)
        except (OSError, ValueError, KeyError) as e:
            last = e
            continue
        if manifest is None:
            raise StoreError(
                f"no lake at {lake}: run `shengji ingest PATH… --engine ray --lake {lake}`"
            )
        if manifest.schema_version != SCHEMA_VERSION:
            raise StoreError(
                f"the lake {lake} has schema version {manifest.schema_version}, this program "
                f"reads {SCHEMA_VERSION}: re-ingest with --fresh to rebuild it"
            )
        con = connect()
        try:
            create_views(con, lake, manifest, rollups=True)
            for table in TABLES:  # opens every file once: a vanished one fails here, not later
                con.execute(f"SELECT count(*) FROM {table.name}").fetchall()
            return con
        except duckdb.Error as e:
            con.close()
            last = e
    raise StoreError(f"cannot read the lake {lake}: {last}")
