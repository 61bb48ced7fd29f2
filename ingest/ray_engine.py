"""`shengji ingest PATH… --engine ray --lake DIR`: chunks replayed on Ray workers into a Parquet lake.

This process (the driver) reads the files into chunks (`pipeline.read_chunks`, as the local
ingest does), names each chunk by its content, and sends it to a Ray task (`lake_stage.stage_chunk`)
that replays it with the local ingest's worker code and stages its Parquet files. At most two
chunks per CPU of the cluster are in flight, so the driver's memory is bounded by the chunk size.
When every chunk is staged, the run is merged and published as one new version of the lake
(`lake_publish`), under the lake's writer lock.

A run killed at any point leaves the published version as it was. Its staged chunks stay in
`LAKE/_staging/run-<version>-<run>/` and are named by their content (run id, file, line numbers,
the lines' hashes, package and schema version), so the next run over the same files — which gets
the same version and run id, since nothing was published — takes them as done and replays only the
rest. Ray itself is started without its dashboard and usage statistics (nothing is sent outside
the cluster).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from shengji.hhfile import MAX_LINE_BYTES

from .lake import STAGING, Manifest, current_manifest, is_lake, lake_lock
from .lake_publish import Publisher, collect_garbage, publish
from .lake_stage import read_meta, stage_chunk
from .merge import RunClock, RunCounts
from .pipeline import CHUNK_LINES, Chunk, IngestResult, Progress, Replayer, _version, read_chunks
from .rows import line_hash
from .schema import SCHEMA_VERSION
from .sources import LOG_SUFFIXES, find_sources
from .store import StoreError, connect

LAKE_CHUNK_LINES = 4 * CHUNK_LINES
"""Lines per chunk of a lake ingest: each chunk writes a file per table and partition, so larger
chunks mean fewer, larger Parquet files; a task of ~4,000 hands is a few seconds of replay."""

RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",  # no usage report sent anywhere
    "RAY_DISABLE_DOCKER_CPU_WARNING": "1",
    "RAY_DEDUP_LOGS": "0",
}


START_ATTEMPTS = 3
"""Tries at starting a local Ray instance that timed out while starting."""


class EngineError(RuntimeError):
    """Ray could not be started or reached, or a task failed: a message for the CLI."""


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """The `ray` module, connected: to the cluster at `address`, or to a local instance with
    `num_cpus` CPUs (default: all) that lives as long as the block. A process that is already
    connected (a test session, a notebook) is used as it is and left connected."""
    os.environ.update(RAY_ENV)
    import ray  # heavy (~1 s): imported only by the ray engine

    if ray.is_initialized():
        yield ray
        return
    options = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            if address:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=num_cpus, **options)
            break
        except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError, Exception
            ray.shutdown()
            # Ray gives a local node 30 s to register, which a loaded machine can exceed.
            if address or attempt == START_ATTEMPTS or "timed out" not in str(e):
                where = address or "local"
                raise EngineError(f"cannot start or reach Ray ({where}): {e}") from e
    try:
        yield ray
    finally:
        ray.shutdown()


def chunk_id(chunk: Chunk) -> str:
    """A name for the chunk's staged output that changes with anything that changes its rows."""
    h = hashlib.sha256()
    head = (
        f"{chunk.run_id}\0{chunk.file}\0{_version()}\0{SCHEMA_VERSION}\0{chunk.error}\0"
        f"{chunk.limit}\0{[(n, line_hash(t), size) for n, t, size in chunk.too_long]}\0"
        f"{chunk.faults!r}\0{chunk.notes!r}\0"
    )
    h.update(head.encode("utf-8", "surrogateescape"))
    for number, text in chunk.lines:
        h.update(f"{number}:{line_hash(text)}\n".encode())
    return h.hexdigest()[:32]


@dataclass
class LakeResult(IngestResult):
    """What a lake run did; the time spent staging (replay on Ray) and publishing apart."""

    stage_seconds: float = 0.0
    publish_seconds: float = 0.0


def _base(lake: Path, fresh: bool) -> tuple[Manifest, int, int]:
    """The version this run starts from (empty when fresh), the next version number and run id."""
    current = current_manifest(lake)
    if current is not None and current.schema_version != SCHEMA_VERSION and not fresh:
        raise StoreError(
            f"the lake {lake} has schema version {current.schema_version}, this program writes "
            f"{SCHEMA_VERSION}: re-ingest with --fresh to rebuild it from the hand histories"
        )
    next_version = (current.version if current else 0) + 1
    base = Manifest() if fresh or current is None else current
    run_id = 1
    if base.files("ingest_runs"):
        con = connect()
        try:
            files = ", ".join(f"'{lake / f}'" for f in base.files("ingest_runs"))
            (last,) = con.execute(f"SELECT max(run_id) FROM read_parquet([{files}])").fetchall()[0]
            run_id = int(last or 0) + 1
        finally:
            con.close()
    return base, next_version, run_id


def ingest_lake(
    paths: Iterable[str | Path],
    lake: str | Path,
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    chunk_lines: int = LAKE_CHUNK_LINES,
    replay: Replayer | None = None,
    fresh: bool = False,
    progress: bool | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    force: bool = False,
) -> LakeResult:
    """Replay hand histories on Ray and publish them as a new version of the lake at `lake`.

    Raises SourceError for a PATH naming no file, StoreError when the lake cannot be written and
    EngineError when Ray fails; the lake is then as before.
    """
    sources = find_sources(paths, force=force, suffixes=LOG_SUFFIXES)
    files = sources.files
    lake = Path(lake).absolute()
    if lake.exists() and not lake.is_dir():
        raise StoreError(f"{lake} is not a folder")
    if lake.is_dir() and any(lake.iterdir()) and not is_lake(lake):
        raise StoreError(f"{lake} holds files but no lake: give an empty or a new folder")
    clock = RunClock.start()
    (lake / "_manifests").mkdir(parents=True, exist_ok=True)
    with lake_lock(lake):
        base, version, run_id = _base(lake, fresh)
        staging = lake / STAGING / f"run-{version:06d}-{run_id:06d}"
        for old in (lake / STAGING).glob("*") if (lake / STAGING).is_dir() else ():
            if old != staging:  # staged for a base that has changed since: useless
                shutil.rmtree(old, ignore_errors=True)
        staging.mkdir(parents=True, exist_ok=True)
        counts = RunCounts()
        bar = Progress(len(files), progress)
        chunks = read_chunks(
            files, run_id, counts, chunk_lines, max_line_bytes, skipped=sources.skipped
        )
        with ray_session(address, num_cpus) as ray:
            staging_started = time.monotonic()
            metas = _stage_all(ray, chunks, staging, replay, counts, bar)
            stage_seconds = time.monotonic() - staging_started
        bar.close()
        publish_started = time.monotonic()
        publisher = Publisher(lake, base, version, run_id, staging, metas, counts)
        try:
            publisher.decide()
            manifest = publisher.write(clock=clock, version=_version())
        except duckdb.Error as e:
            raise StoreError(f"could not write the lake {lake}: {e}") from e
        finally:
            publisher.close()
        publish(lake, manifest)
        collect_garbage(lake)
        publish_seconds = time.monotonic() - publish_started
    return LakeResult(
        lake,
        version,
        run_id,
        counts,
        publisher.seconds,
        sources.skipped,
        wall_seconds=clock.seconds(),
        stage_seconds=stage_seconds,
        publish_seconds=publish_seconds,
    )


def _stage_all(
    ray: Any,
    chunks: Iterator[Chunk],
    staging: Path,
    replay: Replayer | None,
    counts: RunCounts,
    bar: Progress,
) -> list[dict[str, Any]]:
    """Every chunk staged (by a Ray task, or found staged by an earlier attempt), in input order."""
    task = ray.remote(stage_chunk).options(num_cpus=1, max_retries=2)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: deque[Any] = deque()  # Ray object refs, or the counts of chunks already staged
    metas: list[dict[str, Any]] = []
    shown = RunCounts(files=counts.files)

    def settle(item: Any) -> None:
        if isinstance(item, dict):
            meta = item
        else:
            try:
                meta = ray.get(item)
            except Exception as e:  # a RayTaskError carries the worker's exception
                raise EngineError(f"a replay task failed: {_last_line(e)}") from e
        metas.append(meta)
        shown.status.update(meta["status"])
        bar.update(shown)

    for chunk in chunks:
        cid = chunk_id(chunk)
        staged = read_meta(staging / cid)
        pending.append(
            staged if staged is not None else task.remote(chunk, str(staging), cid, replay)
        )
        while len(pending) > 2 * cpus:
            settle(pending.popleft())
    while pending:
        settle(pending.popleft())
    bar.update(shown, force=True)
    return metas


def _last_line(e: Exception) -> str:
    """The worker's exception line of a RayTaskError (its message ends with it)."""
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__
