"""The ingest's writing process alone, up to a million hands: does its memory grow with the corpus?

The replay workers' memory does not depend on the corpus (a chunk at a time); the writing process
(the `shengji ingest` process itself: reading, merging batches into DuckDB, the rollups and the
final checkpoint) holds the run's state. Replaying a million hands takes an hour of CPU, so this
section feeds the writer real worker batches instead: the first 4,000 lines of the ingest
corpus (faults included) replayed once into four batches, then merged over and over, each copy
under new hand ids and a new file name, exactly as `shengji ingest` merges the batches its
workers return (`Merger.apply`, then `finish`: rejects and rollups, then the checkpoint). The
replays repeat; the store, its indexes, the run's temp tables and the rollup update grow as in a
real run of that many hands.

Measured in a child process: resident memory (VmRSS) and its peak (VmHWM) at every tenth of the run,
DuckDB's own account of its memory (`duckdb_memory()`), and the peak through the end of the run.
`SHENGJI_BENCH_MILLION=1` runs 1,000,000 hands (about an hour on a quiet machine), else
SHENGJI_BENCH_HANDS (default 100,000).
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import Any

from bench.ingest import CACHE, HANDS, MILLION, core_environment, corpus

BATCH_LINES = 1000
BASE_BATCHES = 4
SAMPLES = 10


def base_batches(path: Path) -> Path:
    """The first BASE_BATCHES × BATCH_LINES lines of the bench corpus as worker batches, pickled."""
    from ingest.pipeline import Chunk, replay_chunk

    if path.exists():
        return path
    with gzip.open(corpus()[0], "rt", encoding="utf-8") as fh:
        lines = [line.rstrip("\n") for line in islice(fh, BASE_BATCHES * BATCH_LINES)]
    batches = [
        replay_chunk(
            Chunk("part-00", 1, [(n + 1, t) for n, t in enumerate(lines[i : i + BATCH_LINES], i)])
        )
        for i in range(0, len(lines), BATCH_LINES)
    ]
    tmp = path.with_name("tmp-" + path.name)
    tmp.write_bytes(pickle.dumps(batches, protocol=5))
    os.replace(tmp, path)
    return path


def _renamed(batch: Any, copy: int) -> Any:
    """A batch's rows under hand ids suffixed `~w<copy>` and a file of their own."""
    import pyarrow as pa
    import pyarrow.compute as pc

    file = f"copy-{copy:04d}.jsonl.gz"
    tables = {}
    for name, t in batch.tables.items():
        if "hand_id" in t.column_names:
            h = t["hand_id"]
            suffixed = pc.binary_join_element_wise(h, pa.scalar(f"~w{copy}"), "")
            keyless = pc.or_(pc.is_null(h), pc.equal(h, ""))
            t = t.set_column(
                t.column_names.index("hand_id"), "hand_id", pc.if_else(keyless, h, suffixed)
            )
        if "file" in t.column_names:
            column = pa.array([file] * t.num_rows, t.schema.field("file").type)
            t = t.set_column(t.column_names.index("file"), "file", column)
        tables[name] = t
    return replace(batch, file=file, tables=tables)


def _memory() -> dict[str, float]:
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            out[line[:5]] = int(line.split()[1]) / 1024
    return out


def writer(batches_path: Path, hands: int, db: Path, out: Path) -> None:
    """Child process: merge `hands` hands of renamed batches into a fresh store; write the samples."""
    from ingest import rollups
    from ingest.merge import Merger, RunClock, next_run_id
    from ingest.store import Publication

    update = rollups.update
    timed = {"rollups_s": 0.0}

    def timed_update(*args: Any, **kwargs: Any) -> None:
        t = time.monotonic()
        update(*args, **kwargs)
        timed["rollups_s"] += time.monotonic() - t

    rollups.update = timed_update  # the run's end calls it as `rollups.update`
    base = pickle.loads(batches_path.read_bytes())
    every = max(hands // SAMPLES, BATCH_LINES)
    samples: list[dict[str, Any]] = [{"hands": 0, **_memory()}]
    start = time.monotonic()
    with Publication(db, fresh=True) as pub:
        con = pub.con
        assert con is not None
        merger = Merger(con, next_run_id(con))
        copy = 0
        while merger.counts.hands < hands:
            batch = base[copy % len(base)]
            merger.counts.files.append(f"copy-{copy:04d}.jsonl.gz")
            merger.apply(_renamed(batch, copy))
            copy += 1
            if merger.counts.hands // every > samples[-1]["hands"] // every:
                duck = con.execute(
                    "SELECT sum(memory_usage_bytes), sum(temporary_storage_bytes) "
                    "FROM duckdb_memory()"
                ).fetchall()[0]
                samples.append(
                    {
                        "hands": merger.counts.hands,
                        **_memory(),
                        "duckdb": duck[0] / 2**20,
                        "spilled": duck[1] / 2**20,
                        "s": time.monotonic() - start,
                    }
                )
        merged = _memory()
        finish = time.monotonic()
        merger.finish(clock=RunClock.start(), version="bench")
        finished = _memory()
        finish_s = time.monotonic() - finish
        pub.publish()
    result = {
        "hands": merger.counts.hands,
        "inserted": merger.counts.inserted,
        "duplicates": merger.counts.duplicates,
        "rejected": merger.counts.status["rejected"],
        "samples": samples,
        "merged": merged,
        "finished": finished,
        "finish_s": finish_s,
        "rollups_s": timed["rollups_s"],
        "published": _memory(),
        "seconds": time.monotonic() - start,
        "db_mb": db.resolve().stat().st_size / 1e6,
    }
    out.write_text(json.dumps(result))


def main() -> str:
    hands = 1_000_000 if MILLION else HANDS
    folder = CACHE / "writer"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    batches = base_batches(CACHE / f"writer-batches-{BASE_BATCHES}x{BATCH_LINES}.pkl")
    out = folder / "result.json"
    core, env = core_environment()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.ingest_memory",
            str(batches),
            str(hands),
            str(folder / "w.duckdb"),
            str(out),
        ],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        check=True,
    )
    r = json.loads(out.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    rows = [
        f"| {s['hands']:,} | {s['VmRSS']:,.0f} | {s['VmHWM']:,.0f} | {s['duckdb']:,.0f} | "
        f"{s['spilled']:,.0f} | {s['s']:,.0f} |"
        for s in r["samples"][1:]
    ]
    first = r["samples"][1]
    lines = [
        f"## Ingest memory (the writing process, up to {r['hands']:,} hands)",
        "",
        f"The writing process of `shengji ingest` merging {r['hands']:,} hands into a fresh store: "
        f"real worker batches (the first {BASE_BATCHES * BATCH_LINES:,} lines of the ingest "
        f"corpus, faults included, replayed once by {core}) merged over and over, each copy "
        "under new hand ids, then the run's end (rejects, rollups) and the checkpoint. The "
        "replays repeat; the store and the run's state grow as in a real run. Resident memory "
        "(VmRSS) and its peak (VmHWM) in MB at every tenth of the run, with DuckDB's own count of its memory (`duckdb_memory()`; "
        "its limit in the writer is 256 MB) and what it spilled to disk:",
        "",
        "| hands merged | RSS | peak | DuckDB | spilled | seconds |",
        "|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"Before merging (imports and the batches loaded): {r['samples'][0]['VmRSS']:,.0f} MB. "
        f"Peak after {first['hands']:,} hands: {first['VmHWM']:,.0f} MB; after all "
        f"{r['hands']:,}: {r['merged']['VmHWM']:,.0f} MB; through the run's end "
        f"({r['finish_s']:,.0f} s: rejects, and the rollups' update {r['rollups_s']:,.0f} s) "
        f"{r['finished']['VmHWM']:,.0f} MB and "
        f"the checkpoint {r['published']['VmHWM']:,.0f} MB. "
        f"{r['inserted']:,} hands inserted, {r['duplicates']:,} duplicates, "
        f"{r['rejected']:,} rejected; store {r['db_mb']:,.0f} MB; {r['seconds']:,.0f} s in all.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) == 5:
        writer(Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        print(main())
