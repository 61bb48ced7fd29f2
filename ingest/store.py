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

Every connection the project opens comes from `connect`: DuckDB otherwise installs and loads an
extension by itself when a file or a function needs one (a SQLite file given as a store made it
download `sqlite_scanner` over plain HTTP). A path is checked to be a DuckDB file (`check_file`)
before DuckDB opens it, and a reader checks the store's schema (`schema_problem`), so a wrong
path is named for what it is. A store behind a symbolic link of the user's is written where the
link leads, and the link kept (`resolve_pointer`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .schema import SCHEMA_VERSION, TABLES, create_all, sql_name, sql_str

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


NO_EXTENSIONS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
"""DuckDB settings of every connection: no extension is fetched or loaded behind our back. The
ones the project uses (parquet, json, icu, core_functions) are built into the Python package."""

DUCKDB_MAGIC = b"DUCK"
"""A DuckDB database file holds these bytes at offset 8 (after the header's checksum)."""
MAX_LINKS = 40
"""Symbolic links followed to a store's pointer before giving up (as the kernel does)."""


def connect(path: str | Path = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection that never installs nor loads an extension by itself.

    The settings are SET once connected, not given as `config`: DuckDB refuses a second
    connection to a file in the same process under another configuration, and a user's own
    `duckdb.connect` of the store (a notebook beside the dashboard, a test) would then fail. What
    DuckDB reads while connecting is a file `check_file` has already found to be a DuckDB
    database, so no SQLite or other foreign file reaches it."""
    con = duckdb.connect(str(path), read_only=read_only)
    try:
        for name, value in NO_EXTENSIONS.items():
            con.execute(f"SET {name} = {str(value).lower()}")
    except BaseException:
        con.close()
        raise
    return con


def default_db_path() -> Path:
    return Path(os.environ.get(DB_ENV) or DEFAULT_DB)


def _what_it_is(head: bytes) -> str:
    """What a file that is not a DuckDB database seems to be, from its first bytes."""
    if not head:
        return "an empty file"
    if head.startswith(b"SQLite format 3\0"):
        return "a SQLite database"
    if head.startswith(b"PAR1"):
        return "a Parquet file"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip file"
    if head.startswith(b"PK\x03\x04"):
        return "a zip file"
    text = head.decode("utf-8", "ignore")
    if all(c.isprintable() or c in "\t\r\n" for c in text):
        return "a text file"
    return "of unknown content"


def check_file(path: Path, shown: str | Path | None = None) -> None:
    """Raise StoreError with the reason unless `path` is a DuckDB database file: a directory, a
    SQLite or text file is named as such before DuckDB is asked to open it."""
    name = shown if shown is not None else path
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise StoreError(f"no database at {name}: run `shengji ingest PATH… --db {name}`") from None
    except OSError as e:
        raise StoreError(f"cannot read {name}: {e.strerror or e}") from e
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(
            f"{name} is a directory, not a DuckDB store: give the store's file "
            f"(for instance {Path(name) / 'tractor.duckdb'})"
        )
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{name} is not a regular file, so not a DuckDB store")
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError as e:
        raise StoreError(f"cannot read {name}: {e.strerror or e}") from e
    if head[8:12] != DUCKDB_MAGIC:
        raise StoreError(
            f"{name} is not a DuckDB store ({_what_it_is(head)}): give the path of a store "
            "written by `shengji ingest`, or a new path to start one"
        )


def resolve_pointer(db_path: str | Path) -> Path:
    """The pointer a store path names. Our pointer is a link to one of its versions; a link of the
    user's (`lnk.duckdb -> other/real.duckdb`) is followed, link by link, to the pointer or plain
    file it leads to, which is then written in place, the user's link kept. A path that leads to
    a published version of another pointer is refused: writing there would replace that file."""
    path = Path(db_path)
    for _ in range(MAX_LINKS):
        try:
            target = os.readlink(path)
        except OSError:  # missing, or not a link
            break
        layout = Layout(path)
        n = layout.version_of(Path(target))
        if n is not None and os.path.normpath(path.parent / target) == os.path.normpath(
            layout.version_path(n)
        ):
            return path
        path = path.parent / target
    else:
        raise StoreError(f"{db_path}: too many levels of symbolic links")
    if path != Path(db_path) and path.parent.name == "db":
        owner = path.parent.parent / re.sub(r"\.\d+\.duckdb$", ".duckdb", path.name)
        if owner.name != path.name and Layout(owner).version_of(path) is not None:
            raise StoreError(
                f"{db_path} leads to {path}, a published version of the store {owner}: "
                f"give {owner} instead (a version is never written once published)"
            )
    return path


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

    Cheap (a readlink or two): a reader polls it and reconnects when it changes.
    """
    try:
        pointer = resolve_pointer(db_path)
    except StoreError:
        return None
    try:
        target = os.readlink(pointer)
    except FileNotFoundError:
        return None
    except OSError:  # not a link: a plain DuckDB file (made by hand or by an old version)
        return 0 if pointer.exists() else None
    return Layout(pointer).version_of(Path(target))


def open_reader(
    db_path: str | Path, *, attempts: int = 5, check: bool = True
) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the current version, through the pointer.

    A version disappears only two publications after it stopped being current, so a failure to
    open is retried after re-reading the pointer: it moved between reading it and opening.
    Raises StoreError naming what the path is when it is not a DuckDB store, and, with `check`,
    when the store's schema is not the one this program reads (`schema_problem`).
    """
    pointer = Path(db_path)
    last: Exception | None = None
    for _ in range(attempts):
        if not pointer.exists():
            raise StoreError(f"no database at {pointer}: run `shengji ingest PATH… --db {pointer}`")
        target = pointer.resolve()
        try:
            check_file(
                target, pointer if target == pointer.absolute() else f"{pointer} -> {target}"
            )
            con = connect(target, read_only=True)
        except (duckdb.Error, StoreError) as e:
            last = e
            if pointer.resolve() == target and target.exists():
                if isinstance(e, StoreError):
                    raise
                raise StoreError(f"cannot open {pointer} -> {target}: {e}") from e
            continue
        if check:
            try:
                problem = schema_problem(con, pointer)
            except duckdb.Error as e:
                problem = f"cannot read {pointer}: {e}"
            if problem is not None:
                con.close()
                raise StoreError(problem)
        return con
    raise StoreError(f"cannot open {pointer}: it kept changing ({last})")


def schema_problem(con: duckdb.DuckDBPyConnection, shown: str | Path) -> str | None:
    """Why the store open on `con` cannot be read by this program, with what to do; None when
    it can: every table there, written at this program's SCHEMA_VERSION."""
    rebuild = f"rebuild it from the hand histories with `shengji ingest PATH… --db {shown} --fresh`"
    present = {
        str(name)
        for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() "
            "WHERE database_name = current_database() AND schema_name = 'main'"
        ).fetchall()
    }
    if not present & {t.name for t in TABLES}:
        return (
            f"{shown} is a DuckDB database but not a hand store (none of its tables): give the "
            "path of a store written by `shengji ingest`"
        )
    stored = None
    if "ingest_runs" in present:
        stored = con.execute("SELECT max(schema_version) FROM ingest_runs").fetchall()[0][0]
    if stored is not None and stored > SCHEMA_VERSION:
        return (
            f"{shown} was written by a newer shengji (schema version {stored}; this one reads "
            f"{SCHEMA_VERSION}): upgrade shengji, or {rebuild}"
        )
    if stored is not None and stored < SCHEMA_VERSION:
        return (
            f"{shown} has schema version {stored}, older than the {SCHEMA_VERSION} this program "
            f"reads: {rebuild}"
        )
    missing = [t.name for t in TABLES if t.name not in present]
    if missing:
        return f"{shown} lacks the table(s) {', '.join(missing)}: {rebuild}"
    return None


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
        self.layout = Layout(resolve_pointer(db_path))
        self.fresh = fresh
        self.con: duckdb.DuckDBPyConnection | None = None
        self.version = 0
        self.base_version: int | None = None
        self.path = Path()
        self._lock: contextlib.ExitStack | None = None
        self.published = False

    def __enter__(self) -> Publication:
        pointer = self.layout.pointer
        if current_version(pointer) == 0:  # a plain file or a folder: named before any write
            check_file(pointer)
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(writer_lock(self.layout))
        except OSError as e:
            raise StoreError(
                f"cannot take the writer's lock {self.layout.lock_path}: {_reason(e)}; "
                f"{self.layout.pointer} is as it was"
            ) from e
        self._lock = stack
        try:
            self._start()
        except OSError as e:
            self._discard()
            stack.close()
            raise StoreError(
                f"cannot write a new version of {self.layout.pointer}: {_reason(e)}; "
                "the store is as it was"
            ) from e
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
        if base is not None and base.exists():
            check_file(base, pointer if base == pointer.absolute() else f"{pointer} -> {base}")
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
            self.con = connect(self.path)
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
        swap the pointer; returns the new version number. A file system error (disk full,
        read-only) is a StoreError: the pointer is then as it was."""
        try:
            return self._publish()
        except OSError as e:
            raise StoreError(
                f"cannot publish a new version of {self.layout.pointer}: {_reason(e)}; "
                "the store is as it was"
            ) from e

    def _publish(self) -> int:
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
        con = connect(target)
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


def _reason(e: OSError) -> str:
    """An OS error as words: "No space left on device (/data/db/tractor.000002.duckdb)"."""
    words = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
    return f"{words} ({e.filename})" if e.filename is not None else words


def _remove(path: Path) -> None:
    """A version file with its WAL, DuckDB's spill folder and a compacted copy being written
    (left behind by a killed writer). Best effort: what cannot be removed now (a read-only file
    system) is removed by the next writer."""
    for base in (str(path), str(path) + COMPACT_SUFFIX):
        for p in (Path(base), Path(base + ".wal")):
            with contextlib.suppress(OSError):
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
