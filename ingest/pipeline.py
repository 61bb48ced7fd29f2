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
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from shengji.hhfile import MAX_LINE_BYTES, MAX_LINES, too_long_reason
from shengji.results import Finding, HandReplay

from .merge import Known, Merger, RunClock, RunCounts, next_run_id, run_speed
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
LINE_TIMEOUT_S = 60.0
"""Seconds a worker may spend on one line before it is taken as hung and stopped. The work of a
valid line is bounded: a hand has 216 cards, and the review that judges its decisions stops at its
budgets (`shengji.coach.review_throw.NODE_LIMIT` branches, `COUNT_LIMIT` steps, `review_last`'s listing
budget). The slowest valid line known takes 0.43–0.55 s on the compiled core and 2.7 s on the pure
one, so a line gets some twenty times the worst on a busy machine. Each line is timed on its own
(the worker says which line it is on): a chunk of slow lines is never taken as hung for their sum."""
POLL_S = 0.5
"""How often the ingest looks at the line its oldest chunk's worker is on (at most; a quarter of a
smaller line timeout)."""
BEAT_FIELDS = 3
"""A worker's slot in the shared beat array: the chunk's tag, the line, when the line began."""


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
    hung: tuple[tuple[int, str, str], ...] = ()
    """(line, text, reason) of lines whose replay was taken as hung: rejected as `internal`
    without another try."""

    faults: tuple[ImportFault, ...] = ()
    """Hands of other engines' logs that could not be converted: rejected unreplayed."""
    notes: tuple[ImportNote, ...] = ()
    """Faults of other engines' logs that converted hands were read despite."""


@dataclass(frozen=True)
class Incident:
    """A retry or a timeout during a run, for its summary: `kind` is `timeout` (a line took longer
    than the line timeout: rejected, its worker stopped), `retry` (a chunk replayed again whole
    because its worker was stopped or died) or `one_by_one` (a chunk whose worker failed, replayed
    again a line at a time)."""

    kind: str
    file: str
    line: int
    """The line that timed out; for a retry, the chunk's first line."""
    lines: int
    """Lines replayed again (0 for a timeout)."""
    why: str


@dataclass
class IngestResult:
    db_path: Path
    version: int
    run_id: int
    counts: RunCounts
    seconds: float
    """The run's time from its start to its `ingest_runs` row: the time base of its speed."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, why) of what the PATH arguments named but the run did not read (links out of their
    folder, loops, files that are not regular files, logs of no known format)."""
    formats: dict[str, str] = field(default_factory=dict)
    """The format each file was read as (docs/import.md)."""
    incidents: list[Incident] = field(default_factory=list)
    """Every retry and timeout of the run, in the order they happened."""
    wall_seconds: float = 0.0
    """The whole call: `seconds` and then publishing the version (a checkpoint, a sync)."""

    @property
    def hands_per_s(self) -> float:
        """The speed its `ingest_runs` row stores (the Audit page's), from the same seconds."""
        return run_speed(self.counts.hands, self.seconds)


def default_replayer() -> Replayer:
    """`replay_line`, decoding with orjson (ingest/decode.py: the same replays, faster)."""
    from .decode import replay_text  # the replay engine; imported where it runs

    return replay_text


def replay_chunk(chunk: Chunk, replay: Replayer | None = None, tag: int = 0) -> Batch:
    """Worker side: replay every line of a chunk and build its Arrow batch. Never raises for a hand.
    `tag` (> 0) names the chunk in the worker's beats (`_beat`), so the ingest can time each line."""
    with collector_paused():
        try:
            return _replay_chunk(chunk, replay or default_replayer(), tag)
        finally:
            _beat(0, 0)


_BEATS: Any = None
"""In a worker: the shared array the ingest reads each worker's current line from (None in the
ingest's own process)."""
_SLOT = -1
"""In a worker: its slot in `_BEATS`."""


def _beat(tag: int, line: int) -> None:
    """Say that this worker now works on `line` of the chunk `tag` (0: on no chunk). The start
    time is written before the tag, so a reader that sees the tag sees its line's start."""
    beats = _BEATS
    if beats is None or _SLOT < 0:
        return
    i = BEAT_FIELDS * _SLOT
    beats[i + 2] = time.monotonic()
    beats[i + 1] = line
    beats[i] = tag


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


def _replay_chunk(chunk: Chunk, replay: Replayer, tag: int = 0) -> Batch:
    builder = BatchBuilder(chunk.file, chunk.run_id)
    for number, head, size in chunk.too_long:
        finding = Finding("line_too_long", too_long_reason(size, chunk.limit), line=number)
        builder.add(HandReplay("", "", "rejected", (finding,), number), head, number)
    for number, text, reason in chunk.hung:
        builder.internal(number, text, reason)
    _add_faults(builder, chunk)
    notes = {n.line: n.reasons for n in chunk.notes}
    for number, text in chunk.lines:
        if tag:
            _beat(tag, number)
        try:
            result = replay(text, line=number, file=chunk.file, strict=False)
        except Exception as e:  # a bug in the replayer must not lose the hand nor stop the batch
            result = _internal(number, e)
        builder.add(_noted(result, notes.get(number)), text, number)
    if chunk.error is not None:
        builder.file_error(*chunk.error)
    if tag:
        _beat(tag, 0)  # building the batch: timed as a line is
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
    on_progress: Callable[[RunCounts], None] | None = None,
) -> IngestResult:
    """Load hand histories into the database at `db_path` and publish the result as a new version.

    `workers=0` replays in this process (tests, debugging). A worker that spends longer than
    `line_timeout` on one line (see LINE_TIMEOUT_S) is taken as hung: the workers are stopped, the
    line is rejected as `internal`, and the chunks they held are replayed again; a worker that dies
    has its chunk replayed again a line at a time. Each of these is an `Incident` of the result.
    `on_progress` is called with the counts after every batch stored. Raises SourceError for a
    PATH naming no file and StoreError when the store cannot be written; the database is then as
    before.
    """
    sources = find_sources(paths, force=force, suffixes=LOG_SUFFIXES)
    files = sources.files
    formats: dict[str, str] = {}
    replay = replay or default_replayer()
    n_workers = (os.cpu_count() or 1) if workers is None else workers
    clock = RunClock.start()
    incidents: list[Incident] = []
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
                for batch, known in _run(
                    chunks, replay, n_workers, merger, line_timeout, incidents
                ):
                    merger.apply(batch, known)
                    bar.update(merger.counts)
                    if on_progress is not None:
                        on_progress(merger.counts)
            finally:
                bar.update(merger.counts, force=True)
                bar.close()
            counts = merger.finish(clock=clock, version=_version())
            version = pub.publish()
    except duckdb.Error as e:  # the store boundary: the new version was discarded
        raise StoreError(f"could not write {db_path}: {e}") from e
    return IngestResult(
        Path(db_path),
        version,
        run_id,
        counts,
        merger.seconds,
        sources.skipped,
        incidents=incidents,
        formats=formats,
        wall_seconds=clock.seconds(),
    )


def _run(
    chunks: Iterator[Chunk],
    replay: Replayer,
    workers: int,
    merger: Merger,
    line_timeout: float = LINE_TIMEOUT_S,
    incidents: list[Incident] | None = None,
) -> Iterator[tuple[Batch, list[Known]]]:
    """Batches in chunk order, from a bounded window of in-flight chunks, each with the lines
    of its chunk that were already stored as they are (sifted out here, never replayed)."""
    if workers <= 0:
        for chunk in chunks:
            lines, known = merger.sift(chunk.file, chunk.lines)
            yield replay_chunk(replace(chunk, lines=lines), replay), known
        return
    flights = _Flights(_Workers(workers, line_timeout), replay, incidents)
    try:
        for chunk in chunks:
            lines, known = merger.sift(chunk.file, chunk.lines)
            flights.send(replace(chunk, lines=lines), known)
            if len(flights.window) >= 2 * workers:
                yield flights.collect()
        while flights.window:
            yield flights.collect()
    finally:
        flights.close()


class _Hung(Exception):
    """The worker on a chunk has spent longer than the line timeout on `line`."""

    def __init__(self, line: int, seconds: float) -> None:
        super().__init__(line, seconds)
        self.line = line
        self.seconds = seconds


class _Flight:
    """A chunk in flight: its future, the tag its worker's beats carry, its stored lines."""

    __slots__ = ("chunk", "future", "known", "tag")

    def __init__(self, chunk: Chunk, known: list[Known], future: Future[Batch], tag: int) -> None:
        self.chunk = chunk
        self.known = known
        self.future = future
        self.tag = tag


class _Flights:
    """The window of chunks in flight, collected oldest first. Only the oldest chunk is waited
    on, so only its worker is timed: the others are timed when their turn comes (a worker runs
    its chunks in the order they were sent, so the oldest chunk is always the one running)."""

    def __init__(self, pool: _Workers, replay: Replayer, incidents: list[Incident] | None) -> None:
        self.pool = pool
        self.replay = replay
        self.incidents = incidents if incidents is not None else []
        self.window: deque[_Flight] = deque()
        self.tags = 0

    def _submit(self, chunk: Chunk) -> tuple[Future[Batch], int]:
        if not chunk.lines:  # nothing to replay: keep its place in the order without a round trip
            done: Future[Batch] = Future()
            done.set_result(replay_chunk(chunk, self.replay))
            return done, 0
        self.tags += 1
        return self.pool.submit(replay_chunk, chunk, self.replay, self.tags), self.tags

    def send(self, chunk: Chunk, known: list[Known]) -> None:
        self.window.append(_Flight(chunk, known, *self._submit(chunk)))

    def restart(self, why: str, skip: _Flight | None = None) -> None:
        """Stop every worker, start new ones and send every chunk in flight again (except `skip`,
        which the caller handles): a retry of each, reported."""
        self.pool.restart()
        for flight in self.window:
            if flight is skip:
                continue
            f = flight.future
            if f.done() and not f.cancelled() and f.exception() is None:
                continue  # its batch came back before the workers were stopped
            flight.future, flight.tag = self._submit(flight.chunk)
            if flight.chunk.lines:
                self._report("retry", flight.chunk, why)

    def _report(self, kind: str, chunk: Chunk, why: str, line: int = 0) -> None:
        first = chunk.lines[0][0] if chunk.lines else line
        lines = 0 if kind == "timeout" else len(chunk.lines)
        self.incidents.append(Incident(kind, chunk.file, line or first, lines, why))

    def collect(self) -> tuple[Batch, list[Known]]:
        """The oldest chunk's batch. A line on which its worker hangs is rejected and the chunk
        sent again without it (with the others in flight, whose workers were stopped too); a
        chunk whose worker failed otherwise is replayed again a line at a time."""
        head = self.window[0]
        while True:
            try:
                batch = self.pool.wait(head.future, head.tag)
            except _Hung as hung:
                chunk = head.chunk
                text = next((t for n, t in chunk.lines if n == hung.line), "")
                why = (
                    f"the replay of this line did not finish within {self.pool.line_timeout:g} s "
                    "(taken as hung: its worker was stopped, the line not tried again)"
                )
                self._report("timeout", chunk, why, hung.line)
                if not text:  # hung while building the batch, not on a line: one line at a time
                    self.window.popleft()
                    self.restart(f"a worker hung on {chunk.file} building a batch")
                    return self._one_by_one(chunk, why), head.known
                head.chunk = replace(
                    chunk,
                    lines=[(n, t) for n, t in chunk.lines if n != hung.line],
                    hung=(*chunk.hung, (hung.line, text, why)),
                )
                self.restart(
                    f"the workers were stopped for a hang on {chunk.file}:{hung.line}", skip=head
                )
                head.future, head.tag = self._submit(head.chunk)
                if head.chunk.lines:
                    self._report("retry", head.chunk, f"its line {hung.line} hung")
                continue
            except Exception as e:
                failure = f"{type(e).__name__}: {e}"
                self.window.popleft()
                if isinstance(e, BrokenProcessPool):
                    self.restart(f"a worker died ({failure})")
                self._report("one_by_one", head.chunk, f"its worker failed ({failure})")
                return self._one_by_one(head.chunk, failure), head.known
            self.window.popleft()
            return batch, head.known

    def _one_by_one(self, chunk: Chunk, failure: str) -> Batch:
        """The chunk's lines replayed again one at a time, each timed; a line that fails again is
        rejected as `internal`: one line never takes the run down."""
        builder = BatchBuilder(chunk.file, chunk.run_id)
        for number, head, size in chunk.too_long:
            finding = Finding("line_too_long", too_long_reason(size, chunk.limit), line=number)
            builder.add(HandReplay("", "", "rejected", (finding,), number), head, number)
        for number, text, reason in chunk.hung:
            builder.internal(number, text, reason)
        _add_faults(builder, chunk)
        notes = {n.line: n.reasons for n in chunk.notes}
        for number, text in chunk.lines:
            self.tags += 1
            tag = self.tags
            try:
                future = self.pool.submit(replay_one, text, number, chunk.file, self.replay, tag)
                result = self.pool.wait(future, tag)
            except _Hung:
                builder.internal(
                    number,
                    text,
                    f"the worker did not finish this line within {self.pool.line_timeout:g} s "
                    f"(its chunk had failed with {failure})",
                )
                self.incidents.append(
                    Incident("timeout", chunk.file, number, 0, "replayed alone after a failure")
                )
                self.restart(f"the workers were stopped for a hang on {chunk.file}:{number}")
                continue
            except Exception as e:
                builder.internal(
                    number,
                    text,
                    f"the worker failed on this line: {type(e).__name__}: {e} "
                    f"(its chunk had failed with {failure})",
                )
                if isinstance(e, BrokenProcessPool):
                    self.restart(f"a worker died on {chunk.file}:{number}")
                continue
            builder.add(_noted(result, notes.get(number)), text, number)
        if chunk.error is not None:
            builder.file_error(*chunk.error)
        return builder.finish()

    def close(self) -> None:
        for flight in self.window:
            flight.future.cancel()
        self.pool.close()


class _Workers:
    """The replay processes and the beats they write (which line each is on, since when); a new
    pool replaces one that broke (a worker that died) or that hung (`restart`)."""

    def __init__(self, n: int, line_timeout: float = LINE_TIMEOUT_S) -> None:
        self.n = n
        self.line_timeout = line_timeout
        self.poll = min(POLL_S, line_timeout / 4)
        self.pool = self._start()

    def restart(self) -> None:
        """Kill every worker (one is hung or died; the others' chunks are sent again by the
        caller) and start a new pool."""
        processes = getattr(self.pool, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._start()
        # Start the new workers before timing them again: on a busy machine starting a process
        # (and its imports) can take longer than a line is allowed. (The beats time lines only,
        # so this is for the hang guard's own tests, whose line timeouts are tiny.)
        for ready in [self.pool.submit(_warm) for _ in range(self.n)]:
            with contextlib.suppress(Exception):  # a pool that broke again is replaced by submit
                ready.result()

    def _start(self) -> ProcessPoolExecutor:
        ctx = get_context("spawn")
        # One slot per worker, claimed by each as it starts (a pool starts at most n workers).
        self.beats = ctx.RawArray("d", BEAT_FIELDS * self.n)
        claims = ctx.Value("i", 0)
        # spawn, not fork: this process holds DuckDB's threads and locks, which a fork would copy.
        return ProcessPoolExecutor(
            max_workers=self.n,
            mp_context=ctx,
            initializer=start_worker,
            initargs=(os.getpid(), self.beats, claims),
        )

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        try:
            return self.pool.submit(fn, *args)
        except BrokenProcessPool:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._start()
            return self.pool.submit(fn, *args)

    def stuck(self, tag: int, now: float | None = None) -> tuple[int, float] | None:
        """(line, seconds) when the worker on the chunk `tag` has been on one line longer than
        the line timeout."""
        if not tag:
            return None
        now = time.monotonic() if now is None else now
        beats = self.beats
        for i in range(0, len(beats), BEAT_FIELDS):
            if beats[i] == tag:
                spent = now - beats[i + 2]
                if spent > self.line_timeout:
                    return int(beats[i + 1]), spent
        return None

    def wait(self, future: Future[T], tag: int) -> T:
        """The future's result; raises _Hung when its worker stays on one line too long."""
        while True:
            try:
                return future.result(timeout=self.poll)
            except TimeoutError:
                pass
            found = self.stuck(tag)
            if found is not None:
                raise _Hung(*found)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _warm() -> None:
    from . import decode  # noqa: F401  # the replay engine's imports, done once per worker


def start_worker(parent: int, beats: Any = None, claims: Any = None) -> None:
    """Worker initializer: watch the parent, claim a slot in the beats, and keep pandas out.
    pyarrow imports pandas, when it can, the first time it converts Python values, only to
    recognise pandas objects (a worker has none): 54 MB of memory and half a second of CPU in
    every worker (measured)."""
    global _BEATS, _SLOT
    if "pandas" not in sys.modules:
        sys.meta_path.insert(0, _NoPandas())
    if beats is not None and claims is not None:
        with claims.get_lock():
            slot = claims.value
            claims.value += 1
        if slot < len(beats) // BEAT_FIELDS:
            _BEATS, _SLOT = beats, slot
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


def replay_one(text: str, number: int, file: str, replay: Replayer, tag: int = 0) -> HandReplay:
    """Worker side of a retry: one line's replay, a program error in it made a rejected replay."""
    if tag:
        _beat(tag, number)
    try:
        return replay(text, line=number, file=file, strict=False)
    except Exception as e:
        return _internal(number, e)
    finally:
        _beat(0, 0)


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


def _publishing(result: IngestResult) -> str:
    """The time publishing took after the run's row was written: told apart, so the run's seconds
    and speed are the ones its `ingest_runs` row stores (the Audit page's)."""
    more = result.wall_seconds - result.seconds
    return f" (then {more:.1f} s to publish the version)" if more >= 0.05 else ""


def summary(result: IngestResult) -> str:
    """The closing report of `shengji ingest`."""
    c = result.counts
    lines = [
        f"ingested {len(c.files)} file(s), {c.lines_read:,} lines into {result.db_path} "
        f"(version {result.version}, run {result.run_id}) in {result.seconds:.1f} s — "
        f"{result.hands_per_s:,.0f} hands/s" + _publishing(result),
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
    lines += _incident_lines(result.incidents)
    if not c.adds_up():
        lines.append("  WARNING: line counts do not add up (a bug): please report")
    return "\n".join(lines)


INCIDENTS_SHOWN = 10
"""Incidents of each kind the summary names one by one; the rest are counted."""


def _incident_lines(incidents: list[Incident]) -> list[str]:
    """The summary's lines on retries and timeouts: a count of each kind, then each one."""
    if not incidents:
        return []
    timeouts = [i for i in incidents if i.kind == "timeout"]
    retries = [i for i in incidents if i.kind != "timeout"]
    out = [
        f"  timeouts: {len(timeouts):,} line(s) taken as hung · retries: {len(retries):,} "
        f"chunk(s), {sum(i.lines for i in retries):,} line(s) replayed again"
    ]
    for group in (timeouts, retries):
        for i in group[:INCIDENTS_SHOWN]:
            if i.kind == "timeout":
                out.append(f"    timeout {clean_text(i.file)}:{i.line}: {i.why}")
            else:
                how = "a line at a time" if i.kind == "one_by_one" else "whole"
                out.append(
                    f"    retry {clean_text(i.file)} from line {i.line}: {i.lines:,} line(s) "
                    f"replayed again {how}: {clean_text(i.why)}"
                )
        if len(group) > INCIDENTS_SHOWN:
            out.append(f"    … and {len(group) - INCIDENTS_SHOWN:,} more")
    return out
