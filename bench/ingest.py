"""Ingest end to end: `shengji ingest` of a generated corpus into a fresh database, as a subprocess.

The corpus is cached under data/bench/ingest/ (ignored by git): a base of simulated hands
(`shengji simulate`, with a few corrupted ones), replicated under new hand ids until it holds
`HANDS` lines in `FILES` gzip files. Replicas replay exactly like their originals, so throughput is
that of the simulated mix; generating 100,000 distinct hands would take the simulator about an hour.

Measured: wall time and hands/s; CPU seconds of the ingest and its workers (hands per CPU-second
does not depend on what else the machine is doing); peak resident memory of the largest process
(getrusage of the waited-for children) on a quarter of the corpus and on all of it, which shows
whether memory grows with the corpus; database size per 1,000 hands; and a no-op re-ingest.
Environment: SHENGJI_BENCH_HANDS (default 100000) scales the corpus down for a quick look.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench import compiled

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "data" / "bench" / "ingest"
HANDS = int(os.environ.get("SHENGJI_BENCH_HANDS", "100000"))
FILES = 20
BASE_MATCHES = 50  # up to 40 hands each: ~2,000 simulated hands
SEED = 5


def _shengji(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "analytics.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )


def base_corpus() -> Path:
    base = CACHE / f"base-{BASE_MATCHES}x40-seed{SEED}.jsonl.gz"
    if not base.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = base.with_name("tmp-" + base.name)
        _shengji(
            "simulate",
            "--matches",
            str(BASE_MATCHES),
            "--hands",
            "40",
            "--seed",
            str(SEED),
            "--faults",
            "0.02",
            "--jobs",
            str(os.cpu_count() or 1),
            "--source",
            "bench",
            "-o",
            str(tmp),
        )
        os.replace(tmp, base)
        truth = tmp.with_name(tmp.name.removesuffix(".jsonl.gz") + ".truth.jsonl")
        truth.unlink(missing_ok=True)
    return base


def corpus(hands: int = HANDS) -> list[Path]:
    """`FILES` files holding `hands` lines between them: the base, then renamed replicas."""
    folder = CACHE / f"corpus-{hands}"
    files = [folder / f"part-{i:02d}.jsonl.gz" for i in range(FILES)]
    if all(f.exists() for f in files):
        return files
    with gzip.open(base_corpus(), "rt", encoding="utf-8") as fh:
        base = [line.rstrip("\n") for line in fh if line.strip()]
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    per_file = -(-hands // FILES)
    n = 0
    for path in files:
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as out:
            for _ in range(min(per_file, hands - n)):
                line = base[n % len(base)]
                copy = n // len(base)
                if copy:
                    line = _renamed(line, copy)
                out.write(line + "\n")
                n += 1
    return files


def _renamed(line: str, copy: int) -> str:
    """A replica under a new key; a line corrupted into bad JSON stays as it is (no key)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return line
    if not isinstance(obj, dict):
        return line
    obj["hand_id"] = f"{obj.get('hand_id')}~{copy}"
    if isinstance(obj.get("match_id"), str):
        obj["match_id"] = f"{obj['match_id']}~{copy}"
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Run:
    hands: int
    wall: float
    cpu: float
    peak_mb: float
    db_mb: float
    report: str

    @property
    def per_s(self) -> float:
        return self.hands / self.wall

    @property
    def per_cpu_s(self) -> float:
        return self.hands / self.cpu


def run_ingest(
    files: list[Path], db: Path, *, fresh: bool, env: dict[str, str] | None = None
) -> Run:
    """One `shengji ingest` in a child process, measured from outside it; `env` may point the
    process (and so its spawned workers, which inherit its import path) at the compiled core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    args = ["ingest", *map(str, files), "--db", str(db)]
    # The checkout's compiled core is the default now: the runs without `env` stay pure.
    env = env if env is not None else compiled.pure_environment()
    done = _shengji(*args, *(["--fresh"] if fresh else []), env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    first = done.stdout.splitlines()[0]
    hands = int(first.split(" lines into ")[0].split(", ")[-1].replace(",", ""))
    return Run(
        hands=hands,
        wall=wall,
        cpu=cpu,
        # ru_maxrss of children is the largest waited-for descendant's peak, in KiB on Linux
        peak_mb=after.ru_maxrss / 1024,
        db_mb=db.resolve().stat().st_size / 1e6,
        report=done.stdout,
    )


def main() -> str:
    files = corpus()
    db = CACHE / "db" / "bench.duckdb"
    shutil.rmtree(db.parent, ignore_errors=True)
    db.parent.mkdir(parents=True)
    quarter = run_ingest(files[: FILES // 4], db, fresh=True)
    again = run_ingest(files[: FILES // 4], db, fresh=False)
    full = run_ingest(files, CACHE / "db" / "full.duckdb", fresh=True)
    build = compiled.current()
    fast = (
        run_ingest(files, CACHE / "db" / "fast.duckdb", fresh=True, env=compiled.environment(build))
        if build is not None
        else None
    )
    shutil.rmtree(db.parent, ignore_errors=True)
    rows = [
        ("hands", f"{quarter.hands:,}", f"{full.hands:,}"),
        ("wall time", f"{quarter.wall:.1f} s", f"{full.wall:.1f} s"),
        ("hands/s (wall)", f"{quarter.per_s:,.0f}", f"{full.per_s:,.0f}"),
        ("CPU time, all processes", f"{quarter.cpu:.1f} s", f"{full.cpu:.1f} s"),
        ("hands per CPU-second", f"{quarter.per_cpu_s:,.0f}", f"{full.per_cpu_s:,.0f}"),
        ("peak memory, largest process", f"{quarter.peak_mb:,.0f} MB", f"{full.peak_mb:,.0f} MB"),
        ("database size", f"{quarter.db_mb:,.1f} MB", f"{full.db_mb:,.1f} MB"),
        (
            "database size per 1,000 hands",
            f"{quarter.db_mb / quarter.hands * 1000:,.2f} MB",
            f"{full.db_mb / full.hands * 1000:,.2f} MB",
        ),
    ]
    lines = [
        "## Ingest (`shengji ingest`, end to end)",
        "",
        f"A corpus of {full.hands:,} hands in {FILES} `.jsonl.gz` files: "
        f"{BASE_MATCHES} simulated matches (`shengji simulate --faults 0.02`), replicated under "
        "new hand ids. Each figure is one run of `shengji ingest --fresh` in a child process "
        f"with one replay worker per core ({os.cpu_count()}); peak memory is getrusage of the "
        "children (the largest of the ingest process and its workers).",
        "",
        f"| | first {FILES // 4} files | all {FILES} files |",
        "|---|---:|---:|",
        *[f"| {name} | {a} | {b} |" for name, a, b in rows],
        "",
        f"Re-ingesting the first {FILES // 4} files unchanged (a no-op: lines stored as they are "
        "are counted from the store, not replayed; only the rejected ones are replayed again): "
        f"{again.wall:.1f} s, {again.per_s:,.0f} hands/s.",
        "",
        *(
            [
                f"The same {FILES} files with the compiled core (`make compiled`; the workers "
                f"import it): {fast.wall:.1f} s, {fast.per_s:,.0f} hands/s, "
                f"{fast.per_cpu_s:,.0f} hands per CPU-second, peak {fast.peak_mb:,.0f} MB "
                f"({fast.per_s / full.per_s:.2f}× the pure run's hands/s).",
                "",
            ]
            if fast is not None
            else ["No compiled build was current, so the compiled core was not measured.", ""]
        ),
        "Closing report of the full run:",
        "",
        "```",
        full.report.strip(),
        "```",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
