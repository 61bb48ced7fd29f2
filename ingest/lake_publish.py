"""Publishing a lake ingest run: the staged chunks merged into a new version, in one manifest rename.

The decisions are those of the local ingest (ingest/merge.py), taken over the whole run at once in
DuckDB from the staged `keys.parquet` files and the current version's `hands`:

- a key met again later in the run (chunks in input order, then lines) is a duplicate: the first
  line wins, a duplicate whose content differs is also a conflict, and its `rejects` row is dropped;
- a first line whose key the lake does not hold is inserted; one held with the same content hash
  from the same file and line is unchanged (its staged rows are dropped); any other is replaced.

New rows are published by hard-linking the staged files into the lake (a chunk whose hands are all
kept) or by writing the kept rows of a chunk anew (a chunk with dropped hands). A replaced hand's
old rows are removed by writing each part that holds them anew without them (copy-on-write: a part
is the same file name in every hand table). `rejects` and `ingest_runs` are written whole. The
new manifest then names exactly the new version's files and is renamed into place: the commit.
Nothing before that rename changes what a reader sees; nothing after it can fail the run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from .lake import (
    KEEP_VERSIONS,
    PARTITIONED,
    STAGING,
    WHOLE,
    Manifest,
    create_views,
    fsync_dir,
    manifest_path,
    manifest_versions,
    publish_manifest,
)
from .lake_stage import KEYS, REJECTS
from .merge import RunClock, RunCounts, conflict_rows, run_row
from .schema import INGEST_RUNS, TABLES, sql_str
from .store import connect

_REJECTS_NAME = "rejects"


def _list(paths: Sequence[Path | str]) -> str:
    return "[" + ", ".join(sql_str(str(p)) for p in paths) + "]"


def _part(rel: str) -> str:
    """A file's part: its name without `.parquet` (the same in every hand table)."""
    return rel.rsplit("/", 1)[-1].removesuffix(".parquet")


class Publisher:
    """Merges one run's staged chunks into the version after `base`."""

    def __init__(
        self,
        lake: Path,
        base: Manifest,
        version: int,
        run_id: int,
        staging: Path,
        chunks: list[dict[str, Any]],
        counts: RunCounts,
    ) -> None:
        self.lake = lake
        self.base = base
        self.version = version
        self.run_id = run_id
        self.staging = staging
        self.chunks = chunks
        self.counts = counts
        self.seconds = 0.0
        """The run's time up to its `ingest_runs` row (set by `write`)."""
        self.con = connect()
        self.con.execute("SET preserve_insertion_order = false")
        create_views(self.con, lake, base)

    def close(self) -> None:
        self.con.close()

    # --- deciding ---------------------------------------------------------------------------

    def decide(self) -> None:
        """Count the run (RunCounts, as the local ingest does) and decide each staged hand."""
        con = self.con
        c = self.counts
        for meta in self.chunks:
            c.lines_read += int(meta["lines"])
            c.status.update(meta["status"])
            c.findings.update(meta["findings"])
        order = pa.table(
            {
                "chunk_id": pa.array([m["chunk_id"] for m in self.chunks], pa.string()),
                "ord": pa.array(range(len(self.chunks)), pa.int32()),
            }
        )
        con.register("run_chunks", order)
        keys = [self.staging / m["chunk_id"] / KEYS for m in self.chunks]
        if keys:
            con.execute(
                f"""
                CREATE TEMP TABLE k AS
                SELECT s.*, c.ord,
                       row_number() OVER w AS occ,
                       first_value(s.content_hash) OVER w AS first_hash,
                       first_value(s.file) OVER w AS first_file,
                       first_value(s.line) OVER w AS first_line
                FROM read_parquet({_list(keys)}) s JOIN run_chunks c USING (chunk_id)
                WINDOW w AS (PARTITION BY s.source, s.hand_id ORDER BY c.ord, s.line)
                """
            )
        else:
            con.execute(
                "CREATE TEMP TABLE k (chunk_id VARCHAR, file VARCHAR, line INTEGER, "
                "source VARCHAR, hand_id VARCHAR, content_hash VARCHAR, status VARCHAR, "
                "staged BOOLEAN, ord INTEGER, occ BIGINT, first_hash VARCHAR, first_file VARCHAR, "
                "first_line INTEGER)"
            )
        dups = con.execute(
            "SELECT status, count(*), count(*) FILTER (WHERE content_hash <> first_hash) "
            "FROM k WHERE occ > 1 GROUP BY status"
        ).fetchall()
        for status, n, conflicts in dups:
            c.duplicates += n
            c.conflicts += conflicts
            c.status[status] -= n
        con.execute(
            """
            CREATE TEMP TABLE d AS
            SELECT k.chunk_id, k.source, k.hand_id, k.staged,
                   CASE WHEN h.hand_id IS NULL THEN 'insert'
                        WHEN h.content_hash = k.content_hash AND h.file = k.file
                             AND h.line = k.line THEN 'unchanged'
                        ELSE 'replace' END AS action
            FROM k LEFT JOIN (SELECT source, hand_id, content_hash, file, line FROM hands) h
                 ON h.source = k.source AND h.hand_id = k.hand_id
            WHERE k.occ = 1
            """
        )
        for action, n in con.execute("SELECT action, count(*) FROM d GROUP BY action").fetchall():
            if action == "insert":
                c.inserted += n
            elif action == "replace":
                c.replaced += n
            else:
                c.unchanged += n

    # --- writing ------------------------------------------------------------------------------

    def write(self, *, clock: RunClock, version: str) -> Manifest:
        """Put the new version's files in place and return its manifest (not yet published); the
        run is timed on `clock` up to its `ingest_runs` row, in `seconds`."""
        tables: dict[str, list[str]] = {t.name: list(self.base.files(t.name)) for t in PARTITIONED}
        self._remove_replaced(tables)
        self._add_staged(tables)
        self._write_rejects(tables)
        # The run row is counted last: the closing counts include the rejects' file errors.
        self.seconds = clock.seconds()
        row = run_row(
            self.counts, self.run_id, started=clock.started, seconds=self.seconds, version=version
        )
        self.con.register("b_run", row)
        self._copy(
            INGEST_RUNS.name,
            "SELECT * FROM ingest_runs UNION ALL BY NAME SELECT * FROM b_run",
            tables,
        )
        for t in WHOLE:
            tables.setdefault(t.name, [])
        return Manifest(self.version, self.base.schema_version, tables)

    def _remove_replaced(self, tables: dict[str, list[str]]) -> None:
        """Write anew, without the replaced hands, every published part that holds one."""
        con = self.con
        hands_files = [self.lake / f for f in self.base.files("hands")]
        (n,) = con.execute("SELECT count(*) FROM d WHERE action = 'replace'").fetchall()[0]
        if not n or not hands_files:
            return
        parts = {
            _part(os.path.relpath(f, self.lake))
            for (f,) in con.execute(
                f"""
                SELECT DISTINCT filename FROM read_parquet({_list(hands_files)}, filename = true) h
                SEMI JOIN (SELECT source, hand_id FROM d WHERE action = 'replace') r
                     ON h.source = r.source AND h.hand_id = r.hand_id
                """
            ).fetchall()
        }
        con.execute(
            "CREATE TEMP TABLE gone AS SELECT source, hand_id FROM d WHERE action = 'replace'"
        )
        for t in PARTITIONED:
            kept: list[str] = []
            for rel in tables[t.name]:
                part = _part(rel)
                if part not in parts:
                    kept.append(rel)
                    continue
                new_rel = f"{rel.rsplit('/', 1)[0]}/{part.split('.', 1)[0]}.v{self.version}.parquet"
                n_rows = self._copy_to(
                    f"SELECT * FROM read_parquet({_list([self.lake / rel])}) x "
                    "ANTI JOIN gone g ON x.source = g.source AND x.hand_id = g.hand_id",
                    self.lake / new_rel,
                )
                if n_rows:
                    kept.append(new_rel)
            tables[t.name] = kept

    def _add_staged(self, tables: dict[str, list[str]]) -> None:
        """Each chunk's staged files into the lake: linked whole when every staged hand of the
        chunk is new or changed, else only the rows of those hands written anew."""
        con = self.con
        per_chunk = dict(
            con.execute(
                "SELECT chunk_id, list(struct_pack(source, hand_id)) FILTER "
                "(WHERE action <> 'unchanged') "
                "FROM d WHERE staged GROUP BY chunk_id"
            ).fetchall()
        )
        staged_counts = dict(
            con.execute(
                "SELECT chunk_id, count(*) FROM k WHERE staged GROUP BY chunk_id"
            ).fetchall()
        )
        for meta in self.chunks:
            chunk_id = meta["chunk_id"]
            files: list[str] = meta["files"]
            if not files:
                continue
            keep = per_chunk.get(chunk_id) or []
            if not keep:
                continue
            whole = len(keep) == staged_counts.get(chunk_id, 0)
            if not whole:
                con.register(
                    "b_keep",
                    pa.table(
                        {
                            "source": [k["source"] for k in keep],
                            "hand_id": [k["hand_id"] for k in keep],
                        }
                    ),
                )
            for rel in files:
                table = rel.split("/", 1)[0]
                src = self.staging / chunk_id / rel
                dst = self.lake / rel
                if whole:
                    _link(src, dst)
                    tables[table].append(rel)
                else:
                    n_rows = self._copy_to(
                        f"SELECT * FROM read_parquet({_list([src])}) x "
                        "SEMI JOIN b_keep b ON x.source = b.source AND x.hand_id = b.hand_id",
                        dst,
                    )
                    if n_rows:
                        tables[table].append(rel)
            if not whole:
                con.unregister("b_keep")

    def _write_rejects(self, tables: dict[str, list[str]]) -> None:
        """The lake's `rejects` after this run, as the local ingest's merge leaves them."""
        con = self.con
        staged = [self.staging / m["chunk_id"] / REJECTS for m in self.chunks]
        con.register("run_files", pa.table({"file": pa.array(self.counts.files, pa.string())}))
        if staged:
            con.execute(
                f"""
                CREATE TEMP TABLE run_rejects AS
                SELECT n.* FROM read_parquet({_list(staged)}) n
                ANTI JOIN (SELECT file, line FROM k WHERE occ > 1) d
                     ON n.file = d.file AND n.line = d.line
                """
            )
        else:
            con.execute("CREATE TEMP TABLE run_rejects AS SELECT * FROM rejects WHERE false")
        # A duplicate with other content than the line kept: a reject saying which line was kept.
        conflicts = con.execute(
            "SELECT file, line, source, hand_id, first_file, first_line FROM k "
            "WHERE occ > 1 AND content_hash <> first_hash ORDER BY ord, line"
        ).fetchall()
        for file, line, source, hand_id, first_file, first_line in conflicts:
            con.register(
                "b_conflict",
                conflict_rows(self.run_id, file, [(line, source, hand_id, first_file, first_line)]),
            )
            con.execute("INSERT INTO run_rejects BY NAME SELECT * FROM b_conflict")
            con.unregister("b_conflict")
        (errors,) = con.execute(
            "SELECT count(*) FROM run_rejects WHERE code = 'file_error'"
        ).fetchall()[0]
        self.counts.file_errors += int(errors)
        self._copy(
            _REJECTS_NAME,
            """
            SELECT * FROM rejects r
            WHERE r.file NOT IN (SELECT file FROM run_files)
               OR EXISTS (SELECT 1 FROM run_rejects n WHERE n.file = r.file AND n.line = r.line
                          AND n.raw = r.raw AND n.code = r.code)
            UNION ALL BY NAME
            SELECT * FROM run_rejects n
            WHERE NOT EXISTS (SELECT 1 FROM rejects r WHERE r.file = n.file AND r.line = n.line
                              AND r.raw = n.raw AND r.code = n.code)
            """,
            tables,
        )

    def _copy(self, table: str, query: str, tables: dict[str, list[str]]) -> None:
        rel = f"{table}/{table}.{self.version:06d}.parquet"
        n = self._copy_to(f"SELECT * FROM ({query}) ORDER BY ALL", self.lake / rel)
        tables[table] = [rel] if n else []

    def _copy_to(self, query: str, dst: Path) -> int:
        """Write `query`'s rows to `dst` (replacing a leftover of a killed run); the row count."""
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
        (n,) = self.con.execute(f"SELECT count(*) FROM ({query})").fetchall()[0]
        if not n:
            return 0
        self.con.execute(
            f"COPY ({query}) TO {sql_str(str(tmp))} (FORMAT parquet, COMPRESSION zstd)"
        )
        _fsync(tmp)
        os.replace(tmp, dst)
        return int(n)


def _link(src: Path, dst: Path) -> None:
    """A staged file into the lake under its final name (a hard link: no copy, and the staged
    file stays for a re-run until the manifest is published)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    try:
        os.link(src, tmp)
    except OSError:  # a filesystem without hard links
        shutil.copyfile(src, tmp)
        _fsync(tmp)
    os.replace(tmp, dst)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(lake: Path, manifest: Manifest) -> None:
    """The commit: fsync the table folders, rename the manifest into place."""
    for folder in {(lake / f).parent for f in manifest.all_files()}:
        fsync_dir(folder)
    publish_manifest(lake, manifest)


def collect_garbage(lake: Path) -> None:
    """After a publication: drop the staging area, manifests older than the last KEEP_VERSIONS
    and every data file none of those names (leftovers of replaced parts and killed runs)."""
    shutil.rmtree(lake / STAGING, ignore_errors=True)
    versions = manifest_versions(lake)
    keep = versions[-KEEP_VERSIONS:]
    for v in versions[:-KEEP_VERSIONS]:
        with contextlib.suppress(FileNotFoundError):
            manifest_path(lake, v).unlink()
    live: set[str] = set()
    for v in keep:
        live |= Manifest.from_json(manifest_path(lake, v).read_text()).all_files()
    for table in TABLES:  # only the tables' folders: nothing else in LAKE is ours to delete
        top = lake / table.name
        if not top.is_dir():
            continue
        for dirpath, _dirnames, filenames in os.walk(top, topdown=False):
            for name in filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), lake)
                if rel not in live:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.path.join(dirpath, name))
            with contextlib.suppress(OSError):
                os.rmdir(dirpath)  # only when empty
