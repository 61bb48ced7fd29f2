"""The coaching review's cost per hand beside the replay's, and what it adds to an ingest.

Corpus: the first `HANDS` hands of the bundled sample (`data/sample`, simulated, fixed seed). All
figures are CPU time of this process (`time.process_time`, which also counts DuckDB's threads),
medians of `RUNS` rounds, the variants of a comparison run alternately in the same rounds so that
load on the machine hits both alike. Goal (docs/review.md): the review adds at most 30% to the
ingest's time per hand.

- replay: `replay_line` per hand; review: `review_hand` on those replays, and by judgement; the
  exhaustive review (`exhaustive=True`: every option listed, the plain sampler) beside it;
- ingest: `ingest.pipeline.ingest(workers=0)` of the same lines into a fresh database, with the
  review and with it replaced by one that judges nothing;
- the same two ingests counted in instructions (valgrind's callgrind, where installed): the
  machine's drift, which moves the timed ratios by several points from one half hour to the
  next, does not move a count.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from itertools import islice
from pathlib import Path

import ingest.rows as rows
from bench.ingest import Run, core_environment, corpus, run_ingest
from ingest.pipeline import ingest
from ingest.store import open_reader
from shengji.coach.review import NOT_JUDGED, NOTHING_STORED, review_hand
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.results import HandReplay

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "hands.jsonl.gz"
HANDS = 1500
"""Hands per run. An ingest has fixed costs (the store, its schema, the rollups' SQL) that 300
hands did not amortise: there the ingest without the review cost 1.95 ms a hand and the review
added +31%; at 1,500 hands, 1.28 ms and +53% (the same code, side by side on a quiet machine).
A real ingest is thousands of hands, so the larger run is the honest one."""
RUNS = 31
"""Rounds: on this shared machine the same ingest's CPU time varies by a quarter from one run to
the next, so the median of the rounds' ratios needs more rounds than the other benches. At 15
rounds its 95% interval spanned 27 points (+10% to +37%, 2026-12-03 14:41 UTC); at 31 it is the
10th to the 22nd round instead of the 4th to the 12th of 15."""
GOAL = 0.30
COUNTED = (1, 300)
"""Hands of the counted ingests: the cost of a hand is the difference of the two counts over the
difference of the hands (start-up, imports and the run's fixed costs cancel). Under callgrind a
run is about 50 times slower: 300 hands take about 100 s."""


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


@contextmanager
def _without_review() -> Iterator[None]:
    saved = rows.review_for_store
    rows.review_for_store = lambda r, **_: NOTHING_STORED  # type: ignore[assignment]
    try:
        yield
    finally:
        rows.review_for_store = saved


E2E_HANDS = 10_000
"""Hands of the end-to-end comparison: the ingest bench's corpus at that size."""
E2E_RUNS = 7
_STARTUP = {
    "with": "import ingest.rows  # bench.review: the start-up of the variant without the review\n",
    "without": (
        "# bench.review: this process and its replay workers store no review\n"
        "import ingest.rows as _rows\n"
        "from shengji.coach.review import NOTHING_STORED as _NOTHING\n"
        "_rows.review_for_store = lambda r, **_: _NOTHING\n"
    ),
}
"""`sitecustomize` of each variant's processes: spawned replay workers do not inherit a patch
made in this process, but every Python process on `PYTHONPATH` imports its `sitecustomize`."""


def variant_env(variant: str, folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`env` for a `shengji ingest` whose processes all run `variant` ("with" or "without" the
    review), its `sitecustomize` written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(_STARTUP[variant], encoding="utf-8")
    paths = [str(folder), *filter(None, [env.get("PYTHONPATH")])]
    return dict(env, PYTHONPATH=os.pathsep.join(paths))


def end_to_end(hands: int = E2E_HANDS, runs: int = E2E_RUNS) -> dict[str, list[Run]]:
    """`shengji ingest --fresh` of the ingest bench's corpus of `hands` hands, in a child process
    with its replay workers, with and without the review, `runs` rounds side by side (which runs
    first alternating). Each store is checked to hold decisions exactly when it should."""
    files = corpus(hands)
    _, env = core_environment()
    out: dict[str, list[Run]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        envs = {v: variant_env(v, root / f"site-{v}", env) for v in out}
        for k in range(runs):
            for variant in ("with", "without") if k % 2 else ("without", "with"):
                db = root / f"{variant}{k}" / "t.duckdb"
                out[variant].append(run_ingest(files, db, fresh=True, env=envs[variant]))
                if (stored_decisions(db) > 0) != (variant == "with"):
                    raise AssertionError(f"the ingest {variant} the review stored otherwise")
                shutil.rmtree(db.parent)
    return out


def stored_decisions(db: Path) -> int:
    con = open_reader(db)
    try:
        return int(con.execute("SELECT count(*) FROM decisions").fetchall()[0][0])
    finally:
        con.close()


def _ingest(path: Path, folder: Path) -> None:
    folder.mkdir()
    ingest([path], folder / "t.duckdb", workers=0, progress=False)


def _review_only(replays: list[HandReplay], judgement: str) -> None:
    for r in replays:
        review_hand(r, judge=(judgement,))


def _parts(replays: list[HandReplay], runs: int) -> dict[str, float]:
    """CPU seconds by judgement: the review making only that judgement less its walk alone (the
    review making none), medians of `runs` rounds. (Timing the walk's methods from outside does
    not work on the compiled build, whose calls between them do not go through the class.)"""
    names = {"last_seat": "fourth seat", "throw": "throws", "bury": "bury"}
    rounds: dict[str, list[float]] = {name: [] for name in ("walk", *names)}
    for _ in range(runs):
        rounds["walk"].append(_cpu(lambda: [review_hand(r, judge=()) for r in replays]))
        for name in names:
            rounds[name].append(_cpu(partial(_review_only, replays, name)))
    walk = statistics.median(rounds["walk"])
    out = {names[name]: max(statistics.median(rounds[name]) - walk, 0.0) for name in names}
    out["walk"] = walk
    return out


def measure(n_hands: int = HANDS, runs: int = RUNS) -> dict[str, float | int | dict[str, float]]:
    lines = [text for _, text in islice(iter_lines(SAMPLE), n_hands)]
    n = len(lines)
    replays = [replay_line(text, line=i) for i, text in enumerate(lines, 1)]
    replay_s, review_s, slow_s, with_s, without_s = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "hands.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        for k in range(runs):
            replay_s.append(_cpu(lambda: [replay_line(t, line=i) for i, t in enumerate(lines)]))
            review_s.append(_cpu(lambda: [review_hand(r) for r in replays]))
            slow_s.append(_cpu(lambda: [review_hand(r, exhaustive=True) for r in replays]))
            plain, judged = folder / f"plain{k}", folder / f"judged{k}"
            # Which ingest runs first alternates: the second of a pair runs on a process the
            # first has just warmed (and filled), and that must not always favour the same one.
            if k % 2:
                with_s.append(_cpu(partial(_ingest, path, judged)))
            with _without_review():
                without_s.append(_cpu(partial(_ingest, path, plain)))
            if not k % 2:
                with_s.append(_cpu(partial(_ingest, path, judged)))
    decisions = [d for r in replays for d in review_hand(r)]
    kinds = Counter(d.kind for d in decisions)
    skipped = sum(1 for d in decisions if d.code in NOT_JUDGED)
    estimated = sum(1 for d in decisions if d.p_error)
    parts = _parts(replays, runs)
    return {
        "hands": n,
        "decisions": len(decisions),
        "skipped": skipped,
        "estimated": estimated,
        "throws": sum(1 for d in decisions if d.kind == "throw"),
        "replay": statistics.median(replay_s) / n,
        "review": statistics.median(review_s) / n,
        "exhaustive": statistics.median(slow_s) / n,
        "ingest_without": statistics.median(without_s) / n,
        "ingest_with": statistics.median(with_s) / n,
        # Each round's two ingests ran side by side: their ratio is steadier than one of medians.
        "added": [w / wo - 1 for w, wo in zip(with_s, without_s, strict=True)],
        "parts": {k: v / n for k, v in parts.items()},
        "kinds": dict(kinds),
    }


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """A distribution-free interval for the median of `values`: the order statistics k and n+1-k
    with the largest k for which Binomial(n, 1/2) leaves at most (1 - level)/2 below k (for 15
    rounds the 4th and the 12th, 96.5%). With too few values for that, their range."""
    xs = sorted(values)
    n = len(xs)
    tail = 0.0
    k = 0
    while k < n // 2:
        tail += math.comb(n, k) / 2**n  # P(Bin(n, 1/2) = k)
        if tail > (1 - level) / 2:
            break
        k += 1
    if k == 0:
        return xs[0], xs[-1]
    return xs[k - 1], xs[n - k]


def main() -> str:
    m = measure()
    replay, review = float(m["replay"]), float(m["review"])  # type: ignore[arg-type]
    slow = float(m["exhaustive"])  # type: ignore[arg-type]
    without, with_ = float(m["ingest_without"]), float(m["ingest_with"])  # type: ignore[arg-type]
    rounds = sorted(m["added"])  # type: ignore[arg-type]
    parts, kinds = m["parts"], m["kinds"]
    assert isinstance(parts, dict) and isinstance(kinds, dict)
    lines = [
        "## Review",
        "",
        f"The coaching review (docs/review.md) on the first {m['hands']:,} hands of the bundled "
        f"sample: {m['decisions']:,} decisions, {m['skipped']:,} of them not judged (too many legal "
        f"plays), {m['estimated']:,} of {m['throws']:,} throw odds estimated by sampling. CPU "
        f"time, medians of {RUNS} rounds, all variants run in each round. The ingests are "
        "`ingest.pipeline.ingest` of the same lines into a fresh store, in one process, with and "
        "without the review; each round's two run side by side, which first alternating.",
        "",
        "| replay | review | review, exhaustive | ingest without review | ingest with review "
        "| review adds to ingest (median of the rounds' ratios; its 95% interval; their range) "
        "| goal |",
        "|---|---|---|---|---|---|---|",
        f"| {1e3 * replay:.2f} ms/hand | {1e3 * review:.2f} ms/hand ({review / replay:.2f}× "
        f"replay) | {1e3 * slow:.2f} ms/hand ({slow / review:.1f}× the review) | "
        f"{1e3 * without:.2f} ms/hand | {1e3 * with_:.2f} ms/hand | {_added(rounds)} |",
        "",
        *_counted_lines(instructions()),
        *_end_to_end_lines(end_to_end()),
        f"By judgement (medians of {RUNS} rounds: the review making only that judgement, less "
        "its walk over the tricks alone, the walk's row):",
        "",
        "| judgement | decisions | ms/hand | µs/decision | vs replay |",
        "|---|---|---|---|---|",
    ]
    count = {"fourth seat": kinds.get("last_seat", 0) + kinds.get("note", 0)}
    count["throws"] = kinds.get("throw", 0)
    count["bury"] = kinds.get("bury", 0)
    hands = int(m["hands"])  # type: ignore[call-overload]
    for name, seconds in sorted(parts.items(), key=lambda kv: -kv[1]):
        k = count.get(name, 0)
        each = f"{1e6 * seconds * hands / k:.0f}" if k else "–"
        judged = f"{k:,}" if name in count else "–"
        lines.append(
            f"| {name} | {judged} | {1e3 * seconds:.2f} | {each} | {seconds / replay:.2f}× |"
        )
    return "\n".join(lines)


def counted_ingest(variant: str, hands: int, folder: Path | None = None) -> None:
    """The ingest that `instructions` counts: the first `hands` sample hands into a fresh store
    (`folder`/db, a temporary folder by default), in this process, with (`variant` "with") or
    without the review."""
    if folder is None:
        with tempfile.TemporaryDirectory() as tmp:
            counted_ingest(variant, hands, Path(tmp))
        return
    lines = [text for _, text in islice(iter_lines(SAMPLE), hands)]
    path = folder / "hands.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if variant == "with":
        _ingest(path, folder / "db")
    else:
        with _without_review():
            _ingest(path, folder / "db")


_COLLECTED = re.compile(r"Collected : (\d+)")


def collected(stderr: str) -> int:
    """The instruction count callgrind reports at its end."""
    found = _COLLECTED.findall(stderr)
    if not found:
        raise ValueError(f"no instruction count in callgrind's report: {stderr[-300:]!r}")
    return int(found[-1])


def per_hand(counts: dict[int, int]) -> float:
    """Instructions of one more hand: the counts' difference over the hands' (fixed costs
    cancel)."""
    (few, a), (many, b) = sorted(counts.items())
    return (b - a) / (many - few)


def instructions() -> dict[str, float] | None:
    """Instructions of one hand ingested with and without the review (`per_hand` of a count at
    each size of `COUNTED`, run two at a time); None where valgrind is not installed."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    _, env = core_environment()

    def count(job: tuple[str, int]) -> int:
        variant, hands = job
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(
                [
                    valgrind,
                    "--tool=callgrind",
                    f"--callgrind-out-file={tmp}/out",
                    sys.executable,
                    "-c",
                    f"from bench.review import counted_ingest; counted_ingest({variant!r}, {hands})",
                ],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
        return collected(done.stderr)

    jobs = [(v, n) for v in ("with", "without") for n in COUNTED]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        found = dict(zip(jobs, pool.map(count, jobs), strict=True))
    return {v: per_hand({n: found[(v, n)] for n in COUNTED}) for v in ("with", "without")}


def _counted_lines(counts: dict[str, float] | None) -> list[str]:
    if counts is None:
        return ["Counted in instructions: not measured (valgrind is not installed).", ""]
    w, wo = counts["with"], counts["without"]
    added = w / wo - 1
    few, many = COUNTED
    return [
        f"Counted in instructions (valgrind's callgrind; the in-process ingests above of the "
        f"first {few:,} and {many:,} hands, a hand's cost the difference over the {many - few:,} "
        "hands between, so start-up and the run's fixed costs cancel; a count does not drift "
        "with the machine's load, but it weighs an instruction that waits on memory like one "
        "that does not):",
        "",
        "| | without the review | with it | review adds | goal |",
        "|---|---:|---:|---:|---|",
        f"| instructions a hand | {wo / 1e6:,.2f} M | {w / 1e6:,.2f} M | {added:+.1%} "
        f"| ≤ {GOAL:.0%}: {_verdict(added)} |",
        "",
    ]


def _verdict(added: float) -> str:
    return "met" if added <= GOAL else "missed"


def _added(ratios: list[float]) -> str:
    """The cells `review adds` and `goal` of sorted per-round ratios: median (its 95% interval;
    their range), and the verdict on the median, saying when the interval holds the goal."""
    median = statistics.median(ratios)
    lo, hi = median_interval(ratios)
    verdict = _verdict(median)
    if lo <= GOAL < hi:
        verdict += ", within the median's interval"
    return (
        f"{median:+.0%} ({lo:+.0%} to {hi:+.0%}; {ratios[0]:+.0%} to {ratios[-1]:+.0%}) | "
        f"≤ {GOAL:.0%}: {verdict}"
    )


def _end_to_end_lines(runs: dict[str, list[Run]]) -> list[str]:
    with_, without = runs["with"], runs["without"]
    wall = sorted(w.wall / wo.wall - 1 for w, wo in zip(with_, without, strict=True))
    cpu = sorted(w.cpu / wo.cpu - 1 for w, wo in zip(with_, without, strict=True))
    n = with_[0].hands

    def row(name: str, ratios: list[float], get: Callable[[Run], float], unit: str) -> str:
        w = statistics.median(get(r) for r in with_)
        wo = statistics.median(get(r) for r in without)
        return f"| {name} | {wo:,.1f} {unit} | {w:,.1f} {unit} | {_added(ratios)} |"

    return [
        f"End to end, as users ingest: `shengji ingest --fresh` of the ingest bench's corpus of "
        f"{n:,} hands in a child process with its {os.cpu_count()} replay workers, with and "
        f"without the review (every process of the latter stores none: a `sitecustomize` on "
        f"its path; each store is checked to hold decisions exactly when it should), "
        f"{len(with_)} rounds side by side, which first alternating. Wall time, and CPU time of "
        "all its processes:",
        "",
        "| | without the review | with it | review adds (median of the rounds' ratios; its 95% "
        "interval; their range) | goal |",
        "|---|---:|---:|---:|---|",
        row("wall time", wall, lambda r: r.wall, "s"),
        row("CPU time, all processes", cpu, lambda r: r.cpu, "s"),
        "",
    ]


if __name__ == "__main__":
    print(main())
