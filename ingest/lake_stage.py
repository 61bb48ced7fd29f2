"""Worker side of a lake ingest: one chunk of lines → its Parquet files in the run's staging area.

The chunk is replayed by the same code as the local ingest (`pipeline.replay_chunk`, which builds
the Arrow batch with `rows.BatchBuilder`). Its rows are then written, one file per table and
partition, under `<staging>/<chunk_id>/`, with:

- `keys.parquet`: every keyed line of the chunk (line, key, content hash, status) — what the
  publisher needs to decide, over the whole run, which hands are new, changed, unchanged or
  duplicates, without reading the rows themselves;
- `rejects.parquet`: the chunk's `rejects` rows;
- `meta.json`: the chunk's counts, written last.

The folder is written under a temporary name and renamed when complete, so `<chunk_id>/meta.json`
existing means the whole chunk is staged: a re-run after a crash takes it as done. A key met twice
in the chunk keeps only its first line's rows here (the local ingest's "first line wins"); the
later line is still listed in `keys.parquet`, where the publisher counts it as a duplicate.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .lake import PARTITIONED, partition_dir
from .pipeline import Chunk, Replayer, replay_chunk
from .rows import SEQ

META = "meta.json"
KEYS = "keys.parquet"
REJECTS = "rejects.parquet"
KEY_SCHEMA = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("file", pa.string(), nullable=False),
        pa.field("line", pa.int32(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("hand_id", pa.string(), nullable=False),
        pa.field("content_hash", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("staged", pa.bool_(), nullable=False),
    ]
)
"""`staged`: the line's rows are in the chunk's files (false for a repeat of a key in the chunk)."""


def read_meta(folder: Path) -> dict[str, Any] | None:
    """The counts of a completely staged chunk, or None when it is not (yet) staged."""
    try:
        data: dict[str, Any] = json.loads((folder / META).read_text())
    except (OSError, ValueError):
        return None
    return data


def stage_chunk(
    chunk: Chunk, staging: str, chunk_id: str, replay: Replayer | None = None
) -> dict[str, Any]:
    """Replay `chunk` and stage its rows under `staging/chunk_id/`; returns its counts.

    Idempotent: a chunk already staged (a retried task, a re-run) is not replayed again."""
    final = Path(staging) / chunk_id
    done = read_meta(final)
    if done is not None:
        return done
    batch = replay_chunk(chunk, replay)
    hands = batch.tables["hands"]
    first = _first_of_each_key(hands)
    tmp = Path(staging) / f".{chunk_id}.{uuid.uuid4().hex}.tmp"
    tmp.mkdir(parents=True)
    try:
        files = _write_partitions(batch.tables, first, tmp, chunk_id)
        keys = pa.table(
            {
                "chunk_id": pa.array([chunk_id] * hands.num_rows, pa.string()),
                "file": pa.array([chunk.file] * hands.num_rows, pa.string()),
                "line": hands["line"],
                "source": hands["source"],
                "hand_id": hands["hand_id"],
                "content_hash": hands["content_hash"],
                "status": hands["status"],
                "staged": pa.array(first, pa.bool_()),
            },
            schema=KEY_SCHEMA,
        )
        _write(keys, tmp / KEYS)
        _write(batch.tables["rejects"], tmp / REJECTS)
        meta = {
            "chunk_id": chunk_id,
            "file": chunk.file,
            "lines": batch.lines,
            "status": dict(batch.status),
            "findings": dict(batch.findings),
            "files": files,
        }
        with open(tmp / META, "w") as fh:
            json.dump(meta, fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.rename(tmp, final)
        except OSError:  # another attempt of the same task staged it first: theirs stands
            if read_meta(final) is None:
                raise
            shutil.rmtree(tmp, ignore_errors=True)
            return read_meta(final) or meta
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return meta


def _first_of_each_key(hands: pa.Table) -> list[bool]:
    """Per hands row (in line order), whether it is the first of its key in the chunk."""
    seen: set[tuple[str, str]] = set()
    out = []
    for source, hand_id in zip(
        hands["source"].to_pylist(), hands["hand_id"].to_pylist(), strict=True
    ):
        key = (source, hand_id)
        out.append(key not in seen)
        seen.add(key)
    return out


def _write_partitions(
    tables: dict[str, pa.Table], first: list[bool], folder: Path, chunk_id: str
) -> list[str]:
    """Each hand table's rows (first lines only) in `<table>/source=…/month=…/<chunk_id>.parquet`;
    returns the files written, relative to `folder`."""
    hands = tables["hands"]
    month = pc.fill_null(pc.strftime(hands["played_at"], format="%Y-%m"), "unknown")
    part_of_seq = [
        partition_dir(s, m)
        for s, m in zip(hands["source"].to_pylist(), month.to_pylist(), strict=True)
    ]
    names = sorted(set(part_of_seq))
    index = {name: i for i, name in enumerate(names)}
    seq_part = pa.array([index[p] for p in part_of_seq], pa.int32())
    keep = pa.array(first, pa.bool_())
    written: list[str] = []
    for table in PARTITIONED:
        rows = tables[table.name]
        if rows.num_rows == 0:
            continue
        rows = rows.filter(pc.take(keep, rows[SEQ]))
        parts = pc.take(seq_part, rows[SEQ])
        rows = rows.drop_columns([SEQ])
        for i, name in enumerate(names):
            picked = rows.filter(pc.equal(parts, i))
            if picked.num_rows == 0:
                continue
            rel = f"{table.name}/{name}/{chunk_id}.parquet"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            _write(picked.cast(table.arrow_schema), folder / rel)
            written.append(rel)
    return written


def _write(table: pa.Table, path: Path) -> None:
    pq.write_table(table, path, compression="zstd")
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
