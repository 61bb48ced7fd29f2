"""The ingest pipeline: files → chunks of lines → worker processes (parse, replay, Arrow) → store.

Replaying is CPU-bound pure Python, so it runs in a pool of processes (one per core by default),
while this process reads the files, hands out chunks and merges the returned Arrow batches into the
new database version. At most `2 × workers` chunks are in flight, so memory is bounded by the chunk
size, never by the corpus; results are merged in submission order, so the outcome does not depend
on the number of workers.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.abc
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from multiprocessing import get_context
from pathlib import Path
from typing import TypeVar

import duckdb

from shengji.hhfile import MAX_LINE_BYTES, MAX_LINES, too_long_reason
from shengji.results import Finding, HandReplay

from .merge import Known, Merger, RunCounts, next_run_id
from .rows import Batch, BatchBuilder, clean_text
from .sources import (
    LOG_SUFFIXES,
    READ_ERRORS,
    ImportFault,
    ImportNote,
    file_format,
    find_sources,
    read_items,
)
from .store import Publication, StoreError

Replayer = Callable[..., HandReplay]
T = TypeVar("T")
CHUNK_LINES = 1000
"""Lines per chunk once under way: one round trip to a worker and one batch of rows (~106,000
plays) per 1,000 hands. The merger gathers batches into transactions of up to COMMIT_BYTES, so the
size of a chunk no longer decides how the store's rows are written; it bounds what one worker holds
and what a hung chunk costs to retry."""
FIRST_CHUNK = 64
"""The first chunk's size; each next one doubles up to CHUNK_LINES, so a small input still keeps
every worker busy."""


CHUNK_BYTES = 8 << 20
"""A chunk also ends at this many bytes of text, so that long lines (up to MAX_LINE_BYTES each)
cannot make the chunks in flight hold more than a few tens of MB."""
PARENT_POLL_S = 0.5
LINE_TIMEOUT_S = 0.5
"""How long a worker may take per line before it is taken as hung: a chunk of n lines gets
`LINE_TIMEOUT_S × (n + HANG_GRACE_LINES)` (about 9 minutes for 1,000 lines, some 50 times what one
takes on a busy machine), a line retried alone 50 s."""
HANG_GRACE_LINES = 100


@dataclass(frozen=True)
class Chunk:
    file: str
    run_id: int
    lines: list[tuple[int, str]]
    error: tuple[int, str] | None = None
    """(line, reason) when the file could not be read on after these lines."""
    too_long: tuple[tuple[int, str, int], ...] = ()
    """(line, its beginning, its size in bytes) of lines over the length limit: rejected unread."""
    limit: int = MAX_LINE_BYTES
    faults: tuple[ImportFault, ...] = ()
    """Hands of other engines' logs that could not be converted: rejected unreplayed."""
    notes: tuple[ImportNote, ...] = ()
    """Faults of other engines' logs that converted hands were read despite."""


@dataclass
class IngestResult:
    db_path: Path
    version: int
    run_id: int
    counts: RunCounts
    seconds: float
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, why) of what the PATH arguments named but the run did not read (links out of their
    folder, loops, files that are not regular files, logs of no known format)."""
    formats: dict[str, str] = field(default_factory=dict)
    """The format each file was read as (docs/import.md)."""

    @property
    def hands_per_s(self) -> float:
        return self.counts.hands / max(self.seconds, 1e-9)


def default_replayer() -> Replayer:
    """`replay_line`, decoding with orjson (ingest/decode.py: the same replays, faster)."""
    from .decode import replay_text  # the replay engine; imported where it runs

    return replay_text


def replay_chunk(chunk: Chunk, replay: Replayer | None = None) -> Batch:
    """Worker side: replay every line of a chunk and build its Arrow batch. Never raises for a hand."""
    with collector_paused():
        return _replay_chunk(chunk, replay or default_replayer())


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a chunk. Its passes over the objects a replay allocates
    were 6.5% of a worker's instructions (callgrind, 300 lines of the ingest bench's corpus:
    7.29 M a line with it, 6.81 M without), while a replay leaves few cycles to collect (about
    7 objects a line, measured): they wait for the chunk's end, when the collector, on again,
    finds them with the rest of the chunk's objects at its next pass."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _replay_chunk(chunk: Chunk, replay: Replayer) -> Batch:
    builder = BatchBuilder(chunk.file, chunk.run_id)
    for number, head, size in chunk.too_long:
        finding = Finding("line_too_long", too_long_reason(size, chunk.limit), line=number)
        builder.add(HandReplay("", "", "rejected", (finding,), number), head, number)
    _add_faults(builder, chunk)
    notes = {n.line: n.reasons for n in chunk.notes}
    for number, text in chunk.lines:
        try:
            result = replay(text, line=number, file=chunk.file, strict=False)
        except Exception as e:  # a bug in the replayer must not lose the hand nor stop the batch
            result = _internal(number, e)
        builder.add(_noted(result, notes.get(number)), text, number)
    if chunk.error is not None:
        builder.file_error(*chunk.error)
    return builder.finish()


def _add_faults(builder: BatchBuilder, chunk: Chunk) -> None:
    """Each hand of an engine's log that could not be converted, as a rejected hand."""
    for fault in chunk.faults:
        finding = Finding("bad_import", fault.reason, line=fault.line)
        result = HandReplay(fault.hand_id, fault.source, "rejected", (finding,), fault.line)
        builder.add(result, fault.reason, fault.line)


def _noted(result: HandReplay, reasons: tuple[str, ...] | None) -> HandReplay:
    """A converted hand's replay with the faults of its log it was read despite."""
    if not reasons:
        return result
    extra = tuple(Finding("import_warning", r, line=result.line) for r in reasons)
    status = "flagged" if result.status == "ok" else result.status
    return replace(result, findings=result.findings + extra, status=status)


def _internal(number: int, e: Exception) -> HandReplay:
    finding = Finding("internal", f"replay failed: {type(e).__name__}: {e}", line=number)
    return HandReplay("", "", "rejected", (finding,), number)


def read_chunks(
    files: list[Path],
    run_id: int,
    counts: RunCounts,
    size: int,
    max_line_bytes: int = MAX_LINE_BYTES,
    formats: dict[str, str] | None = None,
    skipped: list[tuple[str, str]] | None = None,
) -> Iterator[Chunk]:
    """Non-blank lines in chunks growing to `size` lines (and at most CHUNK_BYTES), one file at a
    time; blank lines are counted here. The same files and size give the same chunks (the Ray
    engine names its staged chunks by their content and relies on it). Each file is read as the
    format its content shows (`formats` gets it); another engine's log gives its hands'
    canonical lines (ingest/sources.py), a file of no known format goes to `skipped`."""
    limit = min(FIRST_CHUNK, size)
    for path in files:
        name = clean_text(str(path))
        try:
            fmt = file_format(path, max_line_bytes)
        except READ_ERRORS as e:
            counts.files.append(name)
            yield Chunk(name, run_id, [], error=(1, f"cannot read: {e}"), limit=max_line_bytes)
            continue
        if fmt is None:
            if skipped is not None:
                skipped.append((name, "not a log of a known format (docs/import.md)"))
            continue
        if formats is not None:
            formats[name] = fmt
        counts.files.append(name)
        lines: list[tuple[int, str]] = []
        too_long: list[tuple[int, str, int]] = []
        faults: list[ImportFault] = []
        notes: list[ImportNote] = []
        held = 0
        last = 0
        try:
            for line in read_items(path, fmt, max_line_bytes):
                if isinstance(line, ImportFault):
                    faults.append(line)
                    continue
                if isinstance(line, ImportNote):
                    notes.append(line)
                    continue
                last = line.number
                if line.too_long:
                    too_long.append((line.number, line.text, line.size))
                elif not line.text.strip():
                    counts.lines_read += 1
                    counts.blank_lines += 1
                    continue
                else:
                    lines.append((line.number, line.text))
                    held += line.size
                if len(lines) + len(too_long) >= limit or held >= CHUNK_BYTES:
                    yield Chunk(
                        name,
                        run_id,
                        lines,
                        too_long=tuple(too_long),
                        limit=max_line_bytes,
                        faults=tuple(faults),
                        notes=tuple(notes),
                    )
                    lines, too_long, faults, notes, held = [], [], [], [], 0
                    limit = min(2 * limit, size)
        except READ_ERRORS as e:
            where = min(last + 1, MAX_LINES)
            yield Chunk(
                name,
                run_id,
                lines,
                error=(where, f"cannot read on: {e}"),
                too_long=tuple(too_long),
                limit=max_line_bytes,
                faults=tuple(faults),
                notes=tuple(notes),
            )
            continue
        if lines or too_long or faults:
            yield Chunk(
                name,
                run_id,
                lines,
                too_long=tuple(too_long),
                limit=max_line_bytes,
                faults=tuple(faults),
                notes=tuple(notes),
            )


class Progress:
    """One self-overwriting stderr line, only on a terminal, at most twice a second."""

    def __init__(self, total_files: int, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.total = total_files
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, counts: RunCounts, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.5:
            return
        self.last = now
        rate = counts.hands / max(now - self.start, 1e-9)
        sys.stderr.write(
            f"\r{len(counts.files)}/{self.total} files · {counts.hands:,} hands · "
            f"{counts.status['rejected']:,} rejected · {rate:,.0f} hands/s "
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def ingest(
    paths: Iterable[str | Path],
    db_path: str | Path,
    *,
    workers: int | None = None,
    chunk_lines: int = CHUNK_LINES,
    replay: Replayer | None = None,
    fresh: bool = False,
    progress: bool | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    force: bool = False,
    line_timeout: float = LINE_TIMEOUT_S,
) -> IngestResult:
    """Load hand histories into the database at `db_path` and publish the result as a new version.

    `workers=0` replays in this process (tests, debugging). A worker that does not answer in time
    (`line_timeout`, see LINE_TIMEOUT_S) is killed and its chunk's lines are retried one by one;
    a line that hangs again is rejected as `internal`. Raises SourceError for a PATH naming no
    file and StoreError when the store cannot be written; the database is then as before.
    """
    sources = find_sources(paths, force=force, suffixes=LOG_SUFFIXES)
    files = sources.files
    formats: dict[str, str] = {}
    replay = replay or default_replayer()
    n_workers = (os.cpu_count() or 1) if workers is None else workers
    started = datetime.now(UTC).replace(tzinfo=None)
    clock = time.monotonic()
    try:
        with Publication(db_path, fresh=fresh) as pub:
            assert pub.con is not None
            run_id = next_run_id(pub.con)
            merger = Merger(pub.con, run_id)
            bar = Progress(len(files), progress)
            chunks = read_chunks(
                files,
                run_id,
                merger.counts,
                chunk_lines,
                max_line_bytes,
                formats,
                sources.skipped,
            )
            try:
                for batch, known in _run(chunks, replay, n_workers, merger, line_timeout):
                    merger.apply(batch, known)
                    bar.update(merger.counts)
            finally:
                bar.update(merger.counts, force=True)
                bar.close()
            counts = merger.finish(
                started=started,
                finished=datetime.now(UTC).replace(tzinfo=None),
                version=_version(),
            )
            version = pub.publish()
    except duckdb.Error as e:  # the store boundary: the new version was discarded
        raise StoreError(f"could not write {db_path}: {e}") from e
    return IngestResult(
        Path(db_path), version, run_id, counts, time.monotonic() - clock, sources.skipped, formats
    )


def _run(
    chunks: Iterator[Chunk],
    replay: Replayer,
    workers: int,
    merger: Merger,
    line_timeout: float = LINE_TIMEOUT_S,
) -> Iterator[tuple[Batch, list[Known]]]:
    """Batches in chunk order, from a bounded window of in-flight chunks, each with the lines
    of its chunk that were already stored as they are (sifted out here, never replayed)."""
    if workers <= 0:
        for chunk in chunks:
            lines, known = merger.sift(chunk.file, chunk.lines)
            yield replay_chunk(replace(chunk, lines=lines), replay), known
        return
    pool = _Workers(workers, line_timeout)
    window: deque[tuple[Future[Batch], Chunk, list[Known]]] = deque()
    try:
        for chunk in chunks:
            lines, known = merger.sift(chunk.file, chunk.lines)
            todo = replace(chunk, lines=lines)
            if lines:
                future = pool.submit(replay_chunk, todo, replay)
            else:  # nothing to replay: keep its place in the order without a round trip
                future = Future()
                future.set_result(replay_chunk(todo, replay))
            window.append((future, todo, known))
            if len(window) >= 2 * workers:
                yield _collect(pool, replay, *window.popleft())
        while window:
            yield _collect(pool, replay, *window.popleft())
    finally:
        for f, _, _ in window:
            f.cancel()
        pool.close()


class _Workers:
    """The replay processes; a new pool replaces one that broke (a worker that died) or that
    hung (`restart`)."""

    def __init__(self, n: int, line_timeout: float = LINE_TIMEOUT_S) -> None:
        self.n = n
        self.line_timeout = line_timeout
        self.pool = self._start()

    def allowance(self, lines: int) -> float:
        """Seconds a worker may take for `lines` lines before it is taken as hung."""
        return self.line_timeout * (lines + HANG_GRACE_LINES)

    def restart(self) -> None:
        """Kill every worker (one is hung; the chunks of the others fail and are retried line by
        line) and start a new pool."""
        processes = getattr(self.pool, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._start()
        # Start the new workers before timing them again: on a busy machine starting a process
        # (and its imports) can take longer than a line is allowed.
        for ready in [self.pool.submit(_warm) for _ in range(self.n)]:
            with contextlib.suppress(Exception):  # a pool that broke again is replaced by submit
                ready.result()

    def _start(self) -> ProcessPoolExecutor:
        # spawn, not fork: this process holds DuckDB's threads and locks, which a fork would copy.
        return ProcessPoolExecutor(
            max_workers=self.n,
            mp_context=get_context("spawn"),
            initializer=start_worker,
            initargs=(os.getpid(),),
        )

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        try:
            return self.pool.submit(fn, *args)
        except BrokenProcessPool:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._start()
            return self.pool.submit(fn, *args)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _warm() -> None:
    from . import decode  # noqa: F401  # the replay engine's imports, done once per worker


def start_worker(parent: int) -> None:
    """Worker initializer: watch the parent, and keep pandas out. pyarrow imports pandas, when it
    can, the first time it converts Python values, only to recognise pandas objects (a worker
    has none): 54 MB of memory and half a second of CPU in every worker (measured)."""
    if "pandas" not in sys.modules:
        sys.meta_path.insert(0, _NoPandas())
    watch_parent(parent)


class _NoPandas(importlib.abc.MetaPathFinder):
    """Makes `import pandas` fail as if it were not installed (pyarrow then does without)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError(f"{name} is not imported in replay workers", name=name)
        return None


def watch_parent(parent: int) -> None:
    """Worker initializer: a thread that ends this worker once the process that started it is gone.
    A `kill -9` of the ingest leaves nobody to shut the pool down; its workers would otherwise
    finish their queue (and hold their memory) for minutes."""

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _collect(
    pool: _Workers, replay: Replayer, future: Future[Batch], chunk: Chunk, known: list[Known]
) -> tuple[Batch, list[Known]]:
    """A chunk's batch; if its worker failed (it raised, died, hung or could not send the result
    back), the chunk's lines are replayed again one by one, and a line that fails again is
    rejected as `internal`: one line never takes the run down."""
    wait = pool.allowance(len(chunk.lines))
    try:
        return future.result(timeout=wait), known
    except TimeoutError:
        pool.restart()
        failure = f"no answer within {wait:.0f} s"
    except Exception as e:
        failure = f"{type(e).__name__}: {e}"
    builder = BatchBuilder(chunk.file, chunk.run_id)
    for number, head, size in chunk.too_long:
        finding = Finding("line_too_long", too_long_reason(size, chunk.limit), line=number)
        builder.add(HandReplay("", "", "rejected", (finding,), number), head, number)
    _add_faults(builder, chunk)
    notes = {n.line: n.reasons for n in chunk.notes}
    for number, text in chunk.lines:
        wait = pool.allowance(1)
        try:
            result = pool.submit(replay_one, text, number, chunk.file, replay).result(wait)
        except TimeoutError:
            pool.restart()
            builder.internal(
                number,
                text,
                f"the worker did not answer on this line within {wait:.0f} s "
                f"(its chunk had failed with {failure})",
            )
            continue
        except Exception as e:
            builder.internal(
                number,
                text,
                f"the worker failed on this line: {type(e).__name__}: {e} "
                f"(its chunk had failed with {failure})",
            )
            continue
        builder.add(_noted(result, notes.get(number)), text, number)
    if chunk.error is not None:
        builder.file_error(*chunk.error)
    return builder.finish(), known


def replay_one(text: str, number: int, file: str, replay: Replayer) -> HandReplay:
    """Worker side of a retry: one line's replay, a program error in it made a rejected replay."""
    try:
        return replay(text, line=number, file=file, strict=False)
    except Exception as e:
        return _internal(number, e)


def _version() -> str:
    try:
        return package_version("shengji-analytics")
    except PackageNotFoundError:
        return "unknown"


FORMAT_NAMES_LISTED = 12
"""Files named per format in the summary; the rest are counted."""


def _formats(formats: dict[str, str]) -> list[str]:
    """Which format each file was read as: per format, its count and the first file names."""
    by_format: dict[str, list[str]] = {}
    for name, fmt in formats.items():
        by_format.setdefault(fmt, []).append(Path(name).name)
    out = []
    for fmt, names in sorted(by_format.items()):
        shown = ", ".join(names[:FORMAT_NAMES_LISTED])
        more = (
            f" and {len(names) - FORMAT_NAMES_LISTED} more"
            if len(names) > FORMAT_NAMES_LISTED
            else ""
        )
        out.append(f"  read as {fmt}: {len(names)} file(s): {shown}{more}")
    return out


def summary(result: IngestResult) -> str:
    """The closing report of `shengji ingest`."""
    c = result.counts
    lines = [
        f"ingested {len(c.files)} file(s), {c.lines_read:,} lines into {result.db_path} "
        f"(version {result.version}, run {result.run_id}) in {result.seconds:.1f} s — "
        f"{result.hands_per_s:,.0f} hands/s",
        f"  hands: {c.status['ok']:,} ok · {c.status['flagged']:,} flagged · "
        f"{c.status['rejected']:,} rejected · {c.duplicates:,} duplicate(s)"
        + (
            f" ({c.conflicts:,} with different content: the first line kept, the others in "
            "rejects as duplicate_conflict)"
            if c.conflicts
            else ""
        )
        + f" · {c.blank_lines:,} blank line(s)",
        f"  store: {c.inserted:,} inserted · {c.replaced:,} replaced · {c.unchanged:,} unchanged",
    ]
    lines.extend(_formats(result.formats))
    if c.file_errors:
        lines.append(f"  files that could not be read to the end: {c.file_errors}")
    if c.findings:
        per_code = ", ".join(f"{code} {n:,}" for code, n in c.findings.most_common())
        lines.append(f"  findings: {per_code}")
    if not c.adds_up():
        lines.append("  WARNING: line counts do not add up (a bug): please report")
    return "\n".join(lines)
