"""Ingest end to end: `shengji ingest` of a generated corpus into a fresh database, as a subprocess.

The corpus is cached under data/bench/ingest/ (ignored by git): a base of simulated hands
(`shengji simulate`, with a few corrupted ones), replicated under new hand ids until it holds
`HANDS` lines in `FILES` gzip files. Replicas replay exactly like their originals, so throughput is
that of the simulated mix; generating 100,000 distinct hands would take the simulator about an hour.

Measured: wall time and hands/s; CPU seconds of the ingest and its workers (hands per CPU-second
depends less than hands/s on what else the machine is doing); peak resident memory (VmHWM) of the
ingest process and of each worker, read from /proc while it runs; database size per 1,000 hands; a
no-op re-ingest; and where the CPU of one hand goes, stage by stage, in one process, beside the
decode rate of the same lines with `json` and orjson.

Environment: SHENGJI_BENCH_HANDS (default 100000) sets the corpus size; SHENGJI_BENCH_MILLION=1
adds a run on 1,000,000 hands (its corpus takes ~4 GB of text, ~600 MB gzipped, and the run hours
of CPU at today's review cost), so that peak memory is reported at both sizes;
SHENGJI_BENCH_PURE=1 adds a run of the same files with the pure-Python core, side by side.

Every run uses the core users run: the checkout's compiled build when it is current (`make bench`
builds it), else the pure modules; the section says which. The stage costs are measured in this
process, which imports the same core, so the end-to-end and the stage figures are of one build.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import compiled, worker_profile
from shengji.cli import core_build

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "data" / "bench" / "ingest"
HANDS = int(os.environ.get("SHENGJI_BENCH_HANDS", "100000"))
MILLION = os.environ.get("SHENGJI_BENCH_MILLION") == "1"
WITH_PURE = os.environ.get("SHENGJI_BENCH_PURE") == "1"
RUNS = 3
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


INCREMENT_HANDS = 1000
INCREMENT_COPY = 10**6
"""The replica number of the increment's hands: far past the corpus's copies, so all are new."""


def increment_file() -> Path:
    """`INCREMENT_HANDS` lines of the base corpus under new keys (`_renamed`), one file."""
    path = CACHE / f"increment-{INCREMENT_HANDS}.jsonl.gz"
    if not path.exists():
        with gzip.open(base_corpus(), "rt", encoding="utf-8") as fh:
            base = [line.rstrip("\n") for line in fh if line.strip()]
        tmp = path.with_name("tmp-" + path.name)
        with gzip.open(tmp, "wt", encoding="utf-8") as out:
            for line in base[:INCREMENT_HANDS]:
                out.write(_renamed(line, INCREMENT_COPY) + "\n")
        tmp.replace(path)
    return path


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
    parent_mb: float = 0.0
    """Peak resident memory (VmHWM) of the ingest process itself."""
    worker_mb: list[float] = field(default_factory=list)
    """Peak resident memory of each replay worker, largest first."""
    worker_cpu: float = 0.0
    """CPU seconds of the replay workers (their last readings: a worker's last quarter second
    may be counted with the ingest process instead)."""

    @property
    def parent_cpu(self) -> float:
        """CPU seconds of the ingest process itself: reading, merging, the run's end, publishing."""
        return self.cpu - self.worker_cpu

    @property
    def per_s(self) -> float:
        return self.hands / self.wall

    @property
    def per_cpu_s(self) -> float:
        return self.hands / self.cpu


def run_ingest(
    files: list[Path], db: Path, *, fresh: bool, env: dict[str, str] | None = None
) -> Run:
    """One `shengji ingest` in a child process, measured from outside it; `env` (default: the
    core users run, `core_environment`) is the process's, and so its spawned workers'."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    args = ["ingest", *map(str, files), "--db", str(db), *(["--fresh"] if fresh else [])]
    env = env if env is not None else core_environment()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "analytics.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    watch = PeakWatch(proc.pid)
    watch.start()
    stdout, stderr = proc.communicate()
    watch.stop()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args, stdout, stderr)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    first = stdout.splitlines()[0]
    hands = int(first.split(" lines into ")[0].split(", ")[-1].replace(",", ""))
    return Run(
        hands=hands,
        wall=wall,
        cpu=cpu,
        # ru_maxrss of children is the largest waited-for descendant's peak, in KiB on Linux
        peak_mb=after.ru_maxrss / 1024,
        db_mb=db.resolve().stat().st_size / 1e6,
        report=stdout,
        parent_mb=watch.peaks.get(proc.pid, 0.0),
        worker_mb=sorted(
            (mb for pid, mb in watch.peaks.items() if pid in watch.workers), reverse=True
        ),
        worker_cpu=sum(s for pid, s in watch.cpu.items() if pid in watch.workers),
    )


def cpu_seconds(stat: str) -> float:
    """User plus system CPU seconds from the text of /proc/PID/stat (fields 14 and 15; counted
    after the command's closing parenthesis, since the command may hold spaces)."""
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class PeakWatch(threading.Thread):
    """Reads the peak resident memory (VmHWM) and the CPU time of a process and of its replay
    workers from /proc every `every` seconds while it runs. Both only grow, so the last reading
    before a process ends is its figure up to then (a worker's last fraction of a second may be
    missed)."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.every = every
        self.peaks: dict[int, float] = {}
        self.cpu: dict[int, float] = {}
        self.workers: set[int] = set()
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self._read()
            self._done.wait(self.every)

    def stop(self) -> None:
        self._done.set()
        self.join()

    def _read(self) -> None:
        for pid in (self.pid, *self._children(self.pid)):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                self.cpu[pid] = cpu_seconds(Path(f"/proc/{pid}/stat").read_text())
            except OSError:  # it ended between listing and reading
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    mb = int(line.split()[1]) / 1024
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), mb)
            # spawn's workers run `multiprocessing.spawn`; its resource tracker is not a worker
            if pid != self.pid and b"spawn_main" in cmdline:
                self.workers.add(pid)

    @staticmethod
    def _children(pid: int) -> list[int]:
        out: list[int] = []
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return out
        for task in tasks:
            try:
                out += [
                    int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                ]
            except OSError:
                continue
        return out


def stage_costs(lines: list[str]) -> dict[str, float]:
    """CPU milliseconds per line of each ingest stage, in this process, median of RUNS: decoding,
    replay (with the decoding), the coaching review, building rows (the review's results given),
    Arrow tables, the worker-to-parent transfer (pickle both ways), the merge into a store, the
    run's end (its rejects and the rollups) and publishing (the checkpoint), the last two paid
    once a run and measured here over the base corpus alone."""
    import statistics

    runs: dict[str, list[float]] = {}
    for _ in range(RUNS):
        for k, v in _stage_run(lines).items():
            runs.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in runs.items()}


def _stage_run(lines: list[str]) -> dict[str, float]:
    import pickle
    import tempfile

    import orjson

    from ingest import rows
    from ingest.decode import replay_text
    from ingest.merge import Merger, RunClock, next_run_id
    from ingest.pipeline import collector_paused
    from ingest.store import Publication
    from shengji.coach.review import NOTHING_STORED, review_for_store

    t: dict[str, float] = {}
    clock = time.process_time

    def took(start: float) -> float:
        return (clock() - start) * 1000 / len(lines)

    # The worker's stages run as a worker runs them: with the cycle collector paused.
    with collector_paused():
        start = clock()
        for x in lines:
            _try(orjson.loads, x)
        t["decode (orjson)"] = took(start)
        start = clock()
        out = [replay_text(x, line=i, strict=False) for i, x in enumerate(lines)]
        t["replay, decode included"] = took(start)
        start = clock()
        reviewed = {id(r): review_for_store(r) for r in out if r.status != "rejected"}
        t["coaching review"] = took(start)
        builder = rows.BatchBuilder("bench.jsonl", 1)
        real = rows.review_for_store
        rows.review_for_store = lambda r, **_: reviewed.get(id(r), NOTHING_STORED)  # type: ignore[assignment]
        try:
            start = clock()
            for i, (r, x) in enumerate(zip(out, lines, strict=True)):
                builder.add(r, x, i)
            t["rows"] = took(start)
        finally:
            rows.review_for_store = real
        start = clock()
        batch = builder.finish()
        t["Arrow tables"] = took(start)
    start = clock()
    pickle.loads(pickle.dumps(batch, protocol=5))
    t["to the parent (pickle, unpickle)"] = took(start)
    with tempfile.TemporaryDirectory() as tmp, Publication(Path(tmp) / "s.duckdb") as pub:
        assert pub.con is not None
        merger = Merger(pub.con, next_run_id(pub.con))
        start = clock()
        merger.apply(batch)
        t["merge into the store"] = took(start)
        start = clock()
        merger.finish(clock=RunClock.start(), version="bench")
        t["end of the run: rejects, rollups"] = took(start)
        start = clock()
        pub.publish()
        t["publish: checkpoint, swap"] = took(start)
    return t


def _try(fn: object, x: str) -> object:
    try:
        return fn(x)  # type: ignore[operator]
    except ValueError:
        return None


def decode_rates(lines: list[str]) -> tuple[float, float]:
    """Lines per CPU-second decoded by `json.loads` and by `orjson.loads`, median of RUNS."""
    import statistics

    import orjson

    def rate(fn: object) -> float:
        out = []
        for _ in range(RUNS):
            start = time.process_time()
            for x in lines:
                _try(fn, x)
            out.append(len(lines) / max(time.process_time() - start, 1e-9))
        return statistics.median(out)

    return rate(json.loads), rate(orjson.loads)


def core_environment() -> tuple[str, dict[str, str]]:
    """Which core the runs use, in words, and the environment that selects it: the checkout's
    compiled build when it matches the sources, else the pure modules."""
    if compiled.current() is not None:
        return "the compiled core", compiled.environment()
    return "the pure-Python core (no current compiled build)", compiled.pure_environment()


def _mb(run: Run) -> str:
    workers = " / ".join(f"{mb:,.0f}" for mb in run.worker_mb) or "none seen"
    return f"{run.parent_mb:,.0f} MB (ingest) · {workers} MB (workers)"


def main() -> str:
    files = corpus()
    db = CACHE / "db" / "full.duckdb"
    shutil.rmtree(db.parent, ignore_errors=True)
    db.parent.mkdir(parents=True)
    full = run_ingest(files, db, fresh=True)
    again = run_ingest(files, db, fresh=False)
    extra = increment_file()
    added = run_ingest([extra], db, fresh=False)
    alone = run_ingest([extra], CACHE / "db" / "increment.duckdb", fresh=True)
    million = None
    if MILLION:
        million = run_ingest(corpus(1_000_000), CACHE / "db" / "million.duckdb", fresh=True)
    core, _ = core_environment()
    pure = (
        run_ingest(files, CACHE / "db" / "pure.duckdb", fresh=True, env=compiled.pure_environment())
        if WITH_PURE
        else None
    )
    shutil.rmtree(db.parent, ignore_errors=True)
    with gzip.open(base_corpus(), "rt", encoding="utf-8") as fh:
        base = [line.rstrip("\n") for line in fh if line.strip()]
    # Every line of the base, which the corpus replicates: the stage shares are the corpus's.
    stages = stage_costs(base)
    stdlib_rate, orjson_rate = decode_rates(base)
    per_hand = 1000 / full.per_cpu_s
    runs = [("", full)] + ([("", million)] if million is not None else [])
    head = "| | " + " | ".join(f"{r.hands:,} hands" for _, r in runs) + " |"
    rows = [
        ("wall time", [f"{r.wall:,.1f} s" for _, r in runs]),
        ("hands/s (wall)", [f"{r.per_s:,.0f}" for _, r in runs]),
        ("CPU time, all processes", [f"{r.cpu:,.1f} s" for _, r in runs]),
        ("hands per CPU-second", [f"{r.per_cpu_s:,.0f}" for _, r in runs]),
        (
            "CPU time: ingest process · replay workers",
            [f"{r.parent_cpu:,.1f} s · {r.worker_cpu:,.1f} s" for _, r in runs],
        ),
        (
            "CPU ms a hand: ingest process · replay workers",
            [
                f"{r.parent_cpu / r.hands * 1000:,.2f} · {r.worker_cpu / r.hands * 1000:,.2f}"
                for _, r in runs
            ],
        ),
        ("peak memory (VmHWM)", [_mb(r) for _, r in runs]),
        ("database size", [f"{r.db_mb:,.1f} MB" for _, r in runs]),
        ("database size per 1,000 hands", [f"{r.db_mb / r.hands * 1000:,.2f} MB" for _, r in runs]),
    ]
    total = sum(v for k, v in stages.items() if k != "decode (orjson)")
    lines = [
        "## Ingest (`shengji ingest`, end to end)",
        "",
        f"A corpus of {full.hands:,} hands in {FILES} `.jsonl.gz` files: "
        f"{BASE_MATCHES} simulated matches (`shengji simulate --faults 0.02`), replicated under "
        "new hand ids. Each figure is one run of `shengji ingest --fresh` in a child process "
        f"with one replay worker per core ({os.cpu_count()}), running {core}. Peak memory is "
        "each process's "
        "VmHWM read from /proc every 0.25 s, and so is the workers' CPU time (the rest of "
        "the run's is the ingest process's). Goals: 4,000 hands/s on 2 cores, 2,000 hands per "
        "CPU-second; peak memory flat with corpus size.",
        "",
        head,
        "|---|" + "---:|" * len(runs),
        *[f"| {name} | " + " | ".join(vals) + " |" for name, vals in rows],
        "",
        *(
            []
            if million is not None
            else [
                "The 1,000,000-hand run is opt-in (`SHENGJI_BENCH_MILLION=1`): at today's CPU per "
                f"hand ({per_hand:.1f} ms) it needs about {per_hand * 1000:,.0f} CPU-seconds.",
                "",
            ]
        ),
        f"Re-ingesting the same {FILES} files unchanged (a no-op: lines stored as they are "
        "are counted from the store, not replayed; only the rejected ones are replayed again): "
        f"{again.wall:.1f} s, {again.per_s:,.0f} hands/s.",
        "",
        f"Adding {added.hands:,} new hands (the base's first, under keys the corpus does not "
        f"hold) to that {full.hands:,}-hand store, as a daily ingest does: {added.wall:.1f} s "
        f"wall, {added.cpu:.1f} CPU-seconds; the same file into a new store: {alone.wall:.1f} s, "
        f"{alone.cpu:.1f} CPU-seconds. The difference grows with the store: its file is copied "
        "into the new version (readers keep the old one; by `copy_file_range`, which on XFS or "
        "btrfs shares the blocks instead), the run's keys are looked up among the "
        "stored hands and the rollup tables are rewritten in their order; the rollups' sums read "
        "only the run's own rows (ingest/merge.py).",
        "",
        *(
            [
                f"The same files with the pure-Python core: {pure.wall:.1f} s, {pure.per_s:,.0f} "
                f"hands/s, {pure.per_cpu_s:,.0f} hands per CPU-second "
                f"({full.per_cpu_s / pure.per_cpu_s:.2f}× fewer CPU-seconds with {core}), "
                f"peak {_mb(pure)}.",
                "",
            ]
            if pure is not None
            else []
        ),
        f"Where one hand's CPU goes (the {len(base):,} lines of the base corpus, which the corpus "
        "replicates, one process, rules "
        f"core {core_build()}, "
        f"median of {RUNS} runs, the workers' stages with the cycle collector paused as in a "
        f"worker; the end-to-end run above spent {per_hand:.2f} ms a hand, "
        "reading and gzip, process start-up and workers' cold caches included; the last two rows "
        "are paid once a run, here over the base corpus alone):",
        "",
        "| stage | CPU ms a hand | share |",
        "|---|---:|---:|",
        *[
            f"| {k} | {v:.3f} | {'' if k == 'decode (orjson)' else f'{v / total:.0%}'} |"
            for k, v in stages.items()
        ],
        f"| total (decode counted in the replay) | {total:.3f} | 100% |",
        "",
        *worker_profile.table(worker_profile.measure(core_environment()[1], ROOT)),
        f"Decoding the same {len(base):,} lines alone: `json.loads` {stdlib_rate:,.0f} and "
        f"`orjson.loads` {orjson_rate:,.0f} lines per CPU-second; ingest handles "
        f"{full.per_cpu_s:,.0f} hands per CPU-second, {orjson_rate / full.per_cpu_s:,.0f}× fewer "
        "than orjson decodes (the peers section sets the replay beside pokerkit and python-chess).",
        "",
        "Closing report of the full run:",
        "",
        "```",
        full.report.strip(),
        "```",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
