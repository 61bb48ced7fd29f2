"""The Ray engine: hands/s of `ingest --engine ray` into a Parquet lake at 1 and 2 Ray workers,
beside the local ingest at 1 and 2 worker processes on the same files, and Ray's start-up cost.

Each figure is the median of `ROUNDS` runs, each in a fresh child process (a fresh Ray instance
with `--num-cpus N`, a fresh lake or database): the rounds interleave the engines, so a change in
the machine's load touches them alike. For the Ray engine the child times Ray's start
(`ray.init` and a first task's round trip) apart from the ingest itself; hands/s are over the
ingest alone, and the wall time with start-up is shown beside them.
Environment: SHENGJI_BENCH_RAY_HANDS (default 10000) sets the corpus size.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.ingest import CACHE, corpus

HANDS = int(os.environ.get("SHENGJI_BENCH_RAY_HANDS", "10000"))
ROUNDS = 3
ROOT = Path(__file__).resolve().parent.parent
WORK = CACHE / "ray"

_RAY_CHILD = """
import json, sys, time
from ingest.ray_engine import ingest_lake, ray_session
cpus, lake, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
t0 = time.perf_counter()
with ray_session(num_cpus=cpus) as ray:
    ray.get(ray.remote(lambda: 1).remote())
    t1 = time.perf_counter()
    result = ingest_lake(files, lake, fresh=True)
    t2 = time.perf_counter()
size = sum(p.stat().st_size for p in __import__("pathlib").Path(lake).rglob("*.parquet"))
print(json.dumps({"start": t1 - t0, "ingest": t2 - t1, "hands": result.counts.hands,
                  "stage": result.stage_seconds, "publish": result.publish_seconds,
                  "bytes": size}))
"""


def _ray(cpus: int, files: list[Path]) -> dict[str, float]:
    lake = WORK / f"lake-{cpus}"
    shutil.rmtree(lake, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _RAY_CHILD, str(cpus), str(lake), *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    out: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def _local(workers: int, files: list[Path]) -> dict[str, float]:
    db = WORK / f"local-{workers}" / "t.duckdb"
    shutil.rmtree(db.parent, ignore_errors=True)
    command = [sys.executable, "-m", "analytics.cli", "ingest", *map(str, files)]
    command += ["--db", str(db), "--workers", str(workers), "--fresh"]
    start = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    first = done.stdout.splitlines()[0]
    hands = int(first.split(" lines into ")[0].split(", ")[-1].replace(",", ""))
    return {"wall": wall, "ingest": wall, "hands": hands}


def driver_rate(files: list[Path]) -> float:
    """Hands/s of the driver's own share: reading, decompressing and naming the chunks."""
    from ingest.merge import RunCounts
    from ingest.pipeline import read_chunks
    from ingest.ray_engine import LAKE_CHUNK_LINES, chunk_id

    counts = RunCounts()
    start = time.perf_counter()
    n = 0
    for chunk in read_chunks(files, 1, counts, LAKE_CHUNK_LINES):
        chunk_id(chunk)
        n += len(chunk.lines)
    return n / (time.perf_counter() - start)


def main() -> str:
    files = corpus(HANDS)
    reading = statistics.median(driver_rate(files) for _ in range(ROUNDS))
    WORK.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(ROUNDS):
        for n in (1, 2):
            runs.setdefault(f"local-{n}", []).append(_local(n, files))
            runs.setdefault(f"ray-{n}", []).append(_ray(n, files))
    shutil.rmtree(WORK, ignore_errors=True)

    def med(name: str, field: str) -> float:
        return statistics.median(r[field] for r in runs[name])

    def rate(name: str) -> float:
        return statistics.median(r["hands"] / r["ingest"] for r in runs[name])

    hands = int(runs["local-1"][0]["hands"])
    rows = []
    for name, label in (
        ("local-1", "local ingest, 1 worker process (DuckDB store)"),
        ("local-2", "local ingest, 2 worker processes (DuckDB store)"),
        ("ray-1", "Ray engine, `--num-cpus 1` (Parquet lake)"),
        ("ray-2", "Ray engine, `--num-cpus 2` (Parquet lake)"),
    ):
        start = f"{med(name, 'start'):.1f} s" if name.startswith("ray") else "—"
        rows.append(f"| {label} | {rate(name):,.0f} | {med(name, 'wall'):.1f} s | {start} |")
    load = os.getloadavg()[0]
    publish = med("ray-2", "publish")
    per_hand = med("ray-2", "bytes") / hands
    return "\n".join(
        [
            "## Ray engine (`shengji ingest --engine ray --lake DIR`)",
            "",
            f"{hands:,} hands in the ingest benchmark's files (the same simulated mix), each "
            f"configuration run {ROUNDS} times in a fresh child process, interleaved; medians. "
            "Hands/s exclude Ray's start-up for the Ray engine (the local figures include the "
            "process pool's start, a fraction of a second); the wall time is the whole child "
            f"process. Machine: {os.cpu_count()} cores, 1-minute load {load:.1f} at the end.",
            "",
            "| configuration | hands/s | wall time | Ray start-up |",
            "|---|---:|---:|---:|",
            *rows,
            "",
            f"Ray engine at 2 CPUs against 1: {rate('ray-2') / rate('ray-1'):.2f}×; "
            f"against the local ingest with 2 workers: {rate('ray-2') / rate('local-2'):.2f}×. "
            f"Of the Ray run at 2 CPUs, publishing (decisions, links, manifest) took "
            f"{publish:.2f} s; the lake holds {per_hand / 1000:.2f} KB of Parquet per hand. "
            f"The driver alone (reading, decompressing, naming chunks) reads {reading:,.0f} "
            f"hands/s on one core: the replay rate of about {reading / rate('ray-1'):.0f} "
            "Ray CPUs, the point where adding workers stops paying.",
        ]
    )


if __name__ == "__main__":
    print(main())
