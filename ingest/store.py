"""The database on disk: a pointer to immutable versions, so readers are never blocked.

DuckDB lets one process open a file for writing and then no other process may open it at all. So
the database path (`data/tractor.duckdb`) is a symbolic link to the current version
(`data/db/tractor.<n>.duckdb`), and a version is never written once published:

- a writer takes an exclusive lock (`data/db/tractor.lock`), copies the current version to n+1 (or
  starts empty), writes it, checkpoints and closes it, fsyncs, then replaces the link atomically
  with `os.replace`; the previous version is kept for readers that still have it open, older ones
  are deleted;
- a writer killed half-way leaves the link untouched: the database is as before, and the next
  writer deletes the half-written file;
- readers open the link read-only (`open_reader`) and keep reading the version they opened; they
  poll `current_version` to notice a new one and reconnect.

`duckdb.Error` is caught here and in the writer's batch loop only (STYLE.md: at the store boundary).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .schema import SCHEMA_VERSION, create_all, sql_name, sql_str

DEFAULT_DB = Path("data/tractor.duckdb")
WRITER_MEMORY = "256MB"
COMPACT_FREE = 1 / 3
"""The share of a new version's blocks left free, at or above which it is rewritten compacted
before it is published. DuckDB reuses freed blocks only in part, and each run rewrites the rollup
tables: 1,500 sample hands grown by 17 runs of 100 hands came to 28.6 MB, 41 of its 109 blocks
free, where the same 3,200 hands written once take 15.0 MB (`COPY FROM DATABASE`: 0.8 s, the same
rows). A version written once has few free (none at 1,500 and 3,200 hands, 14% at 100,000): a
fresh store is not rewritten."""
COMPACT_SUFFIX = ".compact"
DB_ENV = "SHENGJI_DB"


class StoreError(RuntimeError):
    """The store cannot be opened or written: a message for the CLI, not a traceback."""


def default_db_path() -> Path:
    return Path(os.environ.get(DB_ENV) or DEFAULT_DB)


@dataclass(frozen=True)
class Layout:
    """Where a pointer's versions and lock live: `<dir>/db/<stem>.<n>.duckdb`, `<dir>/db/<stem>.lock`."""

    pointer: Path

    @property
    def versions_dir(self) -> Path:
        return self.pointer.parent / "db"

    @property
    def stem(self) -> str:
        return self.pointer.name.removesuffix(".duckdb")

    @property
    def lock_path(self) -> Path:
        return self.versions_dir / f"{self.stem}.lock"

    def version_path(self, n: int) -> Path:
        return self.versions_dir / f"{self.stem}.{n:06d}.duckdb"

    def version_of(self, path: Path) -> int | None:
        m = re.fullmatch(re.escape(self.stem) + r"\.(\d+)\.duckdb", path.name)
        return int(m.group(1)) if m else None

    def versions(self) -> dict[int, Path]:
        """Every version file on disk (published or not), by number."""
        if not self.versions_dir.is_dir():
            return {}
        out: dict[int, Path] = {}
        for p in self.versions_dir.iterdir():
            n = self.version_of(p)
            if n is not None:
                out[n] = p
        return out


def current_version(db_path: str | Path) -> int | None:
    """The published version number; 0 for a plain database file; None when there is none.

    Cheap (one readlink): a reader polls it and reconnects when it changes.
    """
    pointer = Path(db_path)
    try:
        target = os.readlink(pointer)
    except FileNotFoundError:
        return None
    except OSError:  # not a link: a plain DuckDB file (made by hand or by an old version)
        return 0 if pointer.exists() else None
    return Layout(pointer).version_of(Path(target))


def open_reader(db_path: str | Path, *, attempts: int = 5) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the current version, through the pointer.

    A version disappears only two publications after it stopped being current, so a failure to
    open is retried after re-reading the pointer: it moved between reading it and opening.
    """
    pointer = Path(db_path)
    last: Exception | None = None
    for _ in range(attempts):
        if not pointer.exists():
            raise StoreError(f"no database at {pointer}: run `shengji ingest PATH… --db {pointer}`")
        target = pointer.resolve()
        try:
            return duckdb.connect(str(target), read_only=True)
        except duckdb.Error as e:
            last = e
            if pointer.resolve() == target and target.exists():
                raise StoreError(f"cannot open {pointer} -> {target}: {e}") from e
    raise StoreError(f"cannot open {pointer}: it kept changing ({last})")


@contextlib.contextmanager
def writer_lock(layout: Layout, *, wait_message: bool = True) -> Iterator[None]:
    """One writer per pointer. flock is released by the kernel if the holder dies (kill -9)."""
    layout.versions_dir.mkdir(parents=True, exist_ok=True)
    with open(layout.lock_path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if wait_message:
                print(f"waiting for another ingest into {layout.pointer} …", file=sys.stderr)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class Publication:
    """A new version being written. Use as a context manager; publish() makes it current.

    Leaving the block without publish() (an error, a KeyboardInterrupt) deletes the new file and
    leaves the pointer as it was.
    """

    def __init__(self, db_path: str | Path, *, fresh: bool = False) -> None:
        self.layout = Layout(Path(db_path))
        self.fresh = fresh
        self.con: duckdb.DuckDBPyConnection | None = None
        self.version = 0
        self.base_version: int | None = None
        self.path = Path()
        self._lock: contextlib.ExitStack | None = None
        self.published = False

    def __enter__(self) -> Publication:
        stack = contextlib.ExitStack()
        stack.enter_context(writer_lock(self.layout))
        self._lock = stack
        try:
            self._start()
        except BaseException:
            self._discard()
            stack.close()
            raise
        return self

    def _start(self) -> None:
        layout = self.layout
        pointer = layout.pointer
        self.base_version = current_version(pointer)
        base = pointer.resolve() if self.base_version is not None else None
        # Anything not current is garbage of a killed writer, or a version no reader needs soon.
        known = layout.versions()
        for n, p in known.items():
            if n > (self.base_version or 0):
                _remove(p)
        self.version = (self.base_version or 0) + 1
        self.path = layout.version_path(self.version)
        if base is not None and not self.fresh:
            if not base.exists():
                raise StoreError(
                    f"{pointer} points at {base}, which is gone: re-ingest with --fresh"
                )
            copy_version(base, self.path)
            wal = Path(str(base) + ".wal")
            if wal.exists():  # a plain file someone wrote without checkpointing
                copy_version(wal, Path(str(self.path) + ".wal"))
        try:
            self.con = duckdb.connect(str(self.path))
            # Each checkpoint rewrites the row groups appended since the last one and leaves
            # partly used blocks behind; at the default 16 MB threshold a fresh 4,000-hand load
            # came out 30% larger than the same data written once (measured). Fewer checkpoints,
            # same bounded memory: un-checkpointed data is in DuckDB's evictable buffer pool.
            self.con.execute("SET checkpoint_threshold = '256MB'")
            # DuckDB's default limit is 80% of RAM, and it keeps what it read cached up to it:
            # the writer's memory then grew with the database (532 MB at 25,000 hands, 718 MB at
            # 100,000). Capped, it stayed at 431 / 447 MB, no slower; beyond it DuckDB spills to
            # `<version>.tmp/` (a 1M-hand, 4M-seat-key load ran flat at 430 MB).
            self.con.execute(f"SET memory_limit = '{WRITER_MEMORY}'")
            create_all(self.con)
            stored = self.con.execute("SELECT max(schema_version) FROM ingest_runs").fetchall()[0]
        except duckdb.Error as e:
            self._discard()
            raise StoreError(f"cannot write a new version of {pointer}: {e}") from e
        if stored and stored[0] is not None and stored[0] != SCHEMA_VERSION:
            self._discard()
            raise StoreError(
                f"{pointer} has schema version {stored[0]}, this program writes {SCHEMA_VERSION}: "
                "re-ingest with --fresh to rebuild it from the hand histories"
            )

    def publish(self) -> int:
        """Checkpoint, close (compacted when much of the file is free: `COMPACT_FREE`), fsync,
        swap the pointer; returns the new version number."""
        assert self.con is not None
        self.con.execute("CHECKPOINT")
        total, free = self.con.execute(
            "SELECT total_blocks, free_blocks FROM pragma_database_size() "
            "WHERE database_name = current_database()"
        ).fetchall()[0]
        self.con.close()
        self.con = None
        if total and free >= COMPACT_FREE * total:
            _compact(self.path)
        _fsync(self.path)
        pointer = self.layout.pointer
        tmp = pointer.with_name(f".{pointer.name}.{os.getpid()}.tmp")
        _remove(tmp)
        os.symlink(os.path.relpath(self.path, pointer.parent), tmp)
        os.replace(tmp, pointer)
        _fsync_dir(pointer.parent)
        self.published = True
        self._prune()
        return self.version

    def _prune(self) -> None:
        """Keep the new version and the one it replaced; delete the rest."""
        for n, p in self.layout.versions().items():
            if n not in (self.version, self.base_version):
                _remove(p)

    def _discard(self) -> None:
        if self.con is not None:
            with contextlib.suppress(duckdb.Error):
                self.con.close()
            self.con = None
        _remove(self.path)

    def __exit__(self, *exc: object) -> None:
        try:
            if not self.published:
                self._discard()
        finally:
            if self._lock is not None:
                self._lock.close()


def copy_version(source: Path, target: Path) -> None:
    """Copy a version file for the next version to be written over. `os.copy_file_range` first:
    on a file system that shares blocks between files (XFS, btrfs) the copy is a reflink, made at
    once and taking no space until the writer changes a block, where a daily ingest into a store
    of millions of hands otherwise copies gigabytes; elsewhere the kernel copies the bytes
    itself. Where the call is missing or refused (not Linux, an old kernel, a file system without
    it), `shutil.copyfile` as before."""
    copy_range = getattr(os, "copy_file_range", None)
    if copy_range is not None:
        with open(source, "rb") as src, open(target, "wb") as dst:
            size = os.fstat(src.fileno()).st_size
            done = 0
            try:
                while done < size:
                    n = copy_range(src.fileno(), dst.fileno(), size - done)
                    if n == 0:
                        # Some file systems answer 0 where they cannot copy (a published version
                        # never shrinks): `copyfile` below, never a short copy.
                        break
                    done += n
                else:
                    return
            except OSError:
                pass  # `copyfile` below starts the target afresh
    shutil.copyfile(source, target)


def _compact(path: Path) -> None:
    """Rewrite the version at `path` (closed, checkpointed) without its free blocks: `COPY FROM
    DATABASE` into a new file, which then replaces it; where that fails the version stays as it
    was (whole either way). A killed writer's half-written copy (`<version>.compact`) is removed
    with its version by the next writer."""
    target = Path(str(path) + COMPACT_SUFFIX)
    _remove(target)
    try:
        con = duckdb.connect(str(target))
        try:
            con.execute(f"SET memory_limit = '{WRITER_MEMORY}'")
            name = str(con.execute("SELECT current_database()").fetchall()[0][0])
            con.execute(f"ATTACH {sql_str(str(path))} AS written (READ_ONLY)")
            con.execute(f"COPY FROM DATABASE written TO {sql_name(name)}")
            con.execute("DETACH written")
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(target, path)
    except (duckdb.Error, OSError):
        _remove(target)


def _remove(path: Path) -> None:
    """A version file with its WAL, DuckDB's spill folder and a compacted copy being written
    (left behind by a killed writer)."""
    for base in (str(path), str(path) + COMPACT_SUFFIX):
        for p in (Path(base), Path(base + ".wal")):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        shutil.rmtree(base + ".tmp", ignore_errors=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
