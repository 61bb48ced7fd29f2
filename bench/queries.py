"""Dashboard queries at scale: every page's analytics calls against a store of a million hands.

The store is built once and cached under data/bench/queries/ (ignored by git): the ingest
benchmark's base corpus of simulated hands (bench/ingest.py, `shengji simulate`) is ingested by the
real pipeline, then its rows are replicated inside DuckDB under new hand ids, each copy a week
later, until the store holds `HANDS` hands, each chunk of copies added to the rollups
(ingest/rollups.py) as an ingest run adds its hands, so the build time grows linearly. That is the ingest benchmark's own recipe (replicas replay exactly like
their originals) without replaying millions of hands first. The build time and size are kept
beside the store (`<store>.json`) and reported.

Measured: for each page, all of its queries together, as the page issues them on a first visit
(Streamlit caches the results afterwards), under four filter sets (`filter_sets`: all open, one
player as attacker, the last 90 days, and all five filters at once); the median of `RUNS` runs
after one warm-up, and the slowest run, on one read-only connection as the dashboard holds it,
DuckDB limited to `THREADS` threads. Goal: 300 ms a page, no run over 1 s. Environment:
SHENGJI_BENCH_QUERY_HANDS (default 1,000,000; the 10,000,000 of the goal takes about ten times as
long to build and 21 GB of disk). A build cut short resumes at its last whole chunk of copies on the
next run (its progress is kept beside it, `tmp-<store>.json`). SHENGJI_BENCH_QUERY_PARTIAL=1
measures a build cut short as far as it got: a copy of it is finished (rollups in order, the base's
rejects and runs) and measured, and the section says how far the build was.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from analytics import (
    bottom,
    coaching,
    coverage,
    explorer,
    handfinder,
    handview,
    overview,
    players,
    throws,
    trump_length,
)
from analytics.filters import Filters
from analytics.query import count_hands
from ingest import rollups
from ingest.schema import HAND_TABLES, ROLLUP_TABLES, SCHEMA_VERSION, create_all
from ingest.store import connect

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "data" / "bench" / "queries"
HANDS = int(os.environ.get("SHENGJI_BENCH_QUERY_HANDS", "1000000"))
PARTIAL = os.environ.get("SHENGJI_BENCH_QUERY_PARTIAL") == "1"
RUNS = 5
GOAL_MS = 300.0
GOAL_MAX_MS = 1000.0
GOAL_MB_PER_1000 = 3.0
THREADS = 2
"""DuckDB threads, for the build and the queries: the machine's two cores."""
BUILD_MEMORY = "6GB"
"""DuckDB's memory limit for the build. What grows with the store is its cache of the blocks just
written (the primary-key indexes stay a few MB: measured at a million hands), which DuckDB evicts
at the limit, so a build of ten million hands stays within it on a shared machine."""

Query = Callable[[duckdb.DuckDBPyConnection, Filters], Any]


def _throws_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    out = throws.outcomes(con, f)
    throws.summary_from(out)
    throws.cost_from(out)
    throws.failure_by(con, f, "components")
    throws.throw_rate_by_player(con, f)


def _players_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    table = players.player_table(con, f.with_(players=()))
    name = table["player"][0]
    players.vs_field_from(table, name)
    players.trend(con, f, name, players.suggested_period(con, f))


def _replay_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    listed = handview.hand_list(con, f)
    source, hand_id = listed.row(0)[:2]
    data = handview.load_hand(con, source, hand_id)
    assert data is not None
    handview.holdings_before(data, max(1, data.tricks.height // 2))


def _explorer_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    explorer.explore(con, f, explorer.METRICS[0].name, explorer.DIMENSIONS[0].name)
    count_hands(con, f)


def _trump_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    decks = trump_length.decks_in_scope(con, f)[-1]
    ht = trump_length.hand_trumps(con, f, decks, "suit")
    trump_length.team_curves(ht)
    trump_length.attackers_points(ht)
    trump_length.banker_curve(ht)
    trump_length.capture_curve(ht)
    trump_length.throw_curve(con, f, decks, "suit")
    trump_length.seat_distribution(con, f, decks, "suit")


def _coaching_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    table = coaching.leak_table(con, f, "player")
    names = players.players(con, f)
    who = table["who"][0] if table.height else (names[0] if names else "")
    coaching.by_code(con, f, "player", who)
    coaching.costliest(con, f, who, 25)


def _finder_page(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    overview.filter_options(con)
    for q in (handfinder.HandQuery(), handfinder.HandQuery(event="failed_throw")):
        if handfinder.count(con, f, q):
            handfinder.find(con, f, q, 1, 50)


PAGES: dict[str, list[Query]] = {
    "sidebar (every page)": [lambda con, f: overview.filter_options(con)],
    "Overview": [
        overview.headline,
        overview.simulated,
        overview.outcomes,
        overview.points_histogram,
        lambda con, f: overview.hands_over_time(con, f, "week"),
    ],
    "Bottom capture": [
        bottom.summary,
        lambda con, f: bottom.capture_by(con, f, "banker seat"),
        bottom.by_multiplier,
        bottom.buried_vs_added,
        bottom.buried_points,
        bottom.outcome_changes,
        bottom.by_player,
    ],
    "Throws": [_throws_page],
    "Trump length": [_trump_page],
    "Players": [_players_page],
    "Coaching": [_coaching_page],
    "Explorer": [_explorer_page],
    "Hand replay": [_replay_page],
    "Hand finder": [_finder_page],
    "Audit": [
        coverage.totals,
        coverage.findings_by_code,
        lambda con, f: coverage.findings(con, f, None),
        coverage.rejects_by_code,
        coverage.rejects,
        lambda con, f: coverage.ingest_runs(con),
    ],
}


def _base_store() -> Path:
    """The ingest benchmark's base corpus, ingested by the real pipeline (cached)."""
    from bench.ingest import base_corpus
    from ingest.pipeline import ingest

    pointer = CACHE / "base" / "tractor.duckdb"
    if pointer.exists() and _schema_version(pointer) == SCHEMA_VERSION:
        return pointer
    if pointer.parent.exists():
        shutil.rmtree(pointer.parent)
    pointer.parent.mkdir(parents=True)
    ingest([base_corpus()], pointer, progress=False)
    return pointer


def _schema_version(path: Path) -> int | None:
    try:
        con = connect(str(path.resolve()), read_only=True)
    except duckdb.Error:
        return None
    try:
        rows = con.sql("SELECT max(schema_version) FROM ingest_runs").fetchall()
        return rows[0][0] if rows else None
    except duckdb.Error:
        return None
    finally:
        con.close()


REPLICA_CHUNK = 10
"""Copies of the base per INSERT, in copy order, so the tables end up in the order an ingest of a
growing history leaves them in (each copy a week later), to within ten copies. Copy k's hand ids
are the base's prefixed with `r{k:05}-`: ids that grow with time, as a server numbers its hands,
which lets DuckDB skip the row groups of other hands by their min/max (docs/scale.md)."""


def _fingerprint(*parts: str) -> str:
    import hashlib

    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _hand_fingerprint() -> str:
    """What the replicated hand tables depend on: their DDL and the replication recipe."""
    return _fingerprint("replica-v4", *(t.ddl() for t in HAND_TABLES))


def _derived_fingerprints() -> dict[str, str]:
    """What each derived table depends on: its DDL and the SQL that builds it."""
    return {t.name: _fingerprint(t.ddl(), rollups.SQL[t.name]) for t in ROLLUP_TABLES}


def _copies_done(con: duckdb.DuckDBPyConnection, n_base: int) -> int:
    """Whole copies of the base in the store: each chunk of copies is one transaction, so a build
    cut short holds a whole number of them."""
    n = con.sql("SELECT count(*) FROM hands").fetchall()[0][0]
    if n % n_base:
        raise RuntimeError(f"{n} hands is not a whole number of copies of {n_base}")
    return int(n // n_base)


def _replicate(
    con: duckdb.DuckDBPyConnection, base: Path, hands: int, progress: Path, stats: dict[str, Any]
) -> None:
    """Fill the store with copies of the base, `REPLICA_CHUNK` copies at a time, each chunk's
    rollups added as an ingest run adds its hands' (`rollups.add`), so the build stays linear in
    the number of hands. Starts after the copies already in the store (a build cut short), and
    after each chunk writes `stats` (seconds replicating and on rollups, copies done) to
    `progress`, so that the figures of a resumed build cover all of it."""
    con.execute(f"ATTACH '{base.resolve()}' AS base (READ_ONLY)")
    n_base = con.sql("SELECT count(*) FROM base.hands").fetchall()[0][0]
    copies = -(-hands // n_base)
    done = _copies_done(con, n_base)
    stats.update(copies=copies, base_hands=n_base)
    staging = {}
    for table in HAND_TABLES:
        select = []
        for c in table.column_names:
            if c == "hand_id":
                select.append("printf('r%05d-', k) || hand_id AS hand_id")
            elif c == "match_id" and table.name == "hands":
                select.append("printf('r%05d-', k) || match_id AS match_id")
            elif c == "played_at":
                select.append("played_at + to_days(CAST(7 * k AS INTEGER)) AS played_at")
            else:
                select.append(c)
        staging[table.name] = (
            f"CREATE TEMP TABLE stage_{table.name} AS "
            f"SELECT {', '.join(select)} FROM range($k0, $k1) AS r(k), base.{table.name}"
        )
    for k0 in range(done, copies, REPLICA_CHUNK):
        k1 = min(copies, k0 + REPLICA_CHUNK)
        chunk_started = time.perf_counter()
        con.execute("BEGIN")
        for sql in staging.values():
            con.execute(sql, {"k0": k0, "k1": k1})
        started = time.perf_counter()
        rollups.add(con, {name: f"SELECT * FROM stage_{name}" for name in staging}, in_order=False)
        chunk_rollups = time.perf_counter() - started
        for name in staging:
            con.execute(f"INSERT INTO {name} SELECT * FROM stage_{name}")
            con.execute(f"DROP TABLE stage_{name}")
        con.execute("COMMIT")
        chunk_s = time.perf_counter() - chunk_started
        stats["rollups_s"] = stats.get("rollups_s", 0.0) + chunk_rollups
        stats["replicate_s"] = stats.get("replicate_s", 0.0) + chunk_s - chunk_rollups
        stats["copies_done"] = k1
        stats["peak_rss_mb"] = max(stats.get("peak_rss_mb", 0.0), _peak_rss_mb())
        progress.write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
        print(f"  replicated {k1:,} of {copies:,} copies", file=sys.stderr, flush=True)
    started = time.perf_counter()
    _finish(con)
    stats["rollups_s"] = stats.get("rollups_s", 0.0) + time.perf_counter() - started
    con.execute("DETACH base")
    con.execute("CHECKPOINT")


def _finish(con: duckdb.DuckDBPyConnection) -> None:
    """What follows the last copy: the rollups rewritten in their order, the base's rejects and
    runs (attached as `base`)."""
    con.execute("BEGIN")
    rollups.compact(con)
    con.execute("COMMIT")
    for name in ("rejects", "ingest_runs"):
        con.execute(f"INSERT INTO {name} SELECT * FROM base.{name}")


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _derive(con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    """(Re)create the derived tables named and build them from the hand tables."""
    for table in ROLLUP_TABLES:
        if table.name in names:
            con.execute(f"DROP TABLE IF EXISTS {table.name}")
            con.execute(table.ddl())
    con.execute("BEGIN")
    rollups.refresh(con, names)
    con.execute("COMMIT")
    con.execute("CHECKPOINT")


def build_store(hands: int = HANDS) -> Path:
    """A plain DuckDB file of at least `hands` hands: the base store's rows, replicated, then its
    rollups built as an ingest run builds them. The build's figures go to `<store>.json`.

    The replicated hand tables are kept while their DDL is unchanged; a change to a derived
    table only rebuilds that table (the replication of ten million hands takes most of the time)."""
    target = CACHE / f"tractor-{hands}.duckdb"
    stats_path = _stats_path(target)
    try:
        stats = json.loads(stats_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stats = {}
    if not (target.exists() and stats.get("hand_tables") == _hand_fingerprint()):
        base = _base_store()
        target.unlink(missing_ok=True)
        tmp = _tmp_path(target)
        tmp.parent.mkdir(parents=True, exist_ok=True)
        progress = _stats_path(tmp)
        stats = _progress(tmp)
        if not stats:
            tmp.unlink(missing_ok=True)
            stats = {"hand_tables": _hand_fingerprint(), "derived": _derived_fingerprints()}
        con = connect(str(tmp))
        try:
            con.execute(f"SET threads = {THREADS}")
            con.execute(f"SET memory_limit = '{BUILD_MEMORY}'")
            con.execute("SET enable_progress_bar = false")
            if stats.get("copies_done") is None:
                create_all(con)
            _replicate(con, base, hands, progress, stats)
        finally:
            con.close()
        stats.update(
            build_s=stats["replicate_s"] + stats["rollups_s"],
            peak_rss_mb=max(stats.get("peak_rss_mb", 0.0), _peak_rss_mb()),
            bytes=tmp.stat().st_size,
            threads=THREADS,
            load_during_build=os.getloadavg()[0],
        )
        os.replace(tmp, target)
        stats_path.write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
        progress.unlink(missing_ok=True)
    want = _derived_fingerprints()
    have = stats.get("derived")
    stale = [n for n, fp in want.items() if not isinstance(have, dict) or have.get(n) != fp]
    if stale:
        started = time.perf_counter()
        con = connect(str(target))
        try:
            con.execute(f"SET threads = {THREADS}")
            con.execute(f"SET memory_limit = '{BUILD_MEMORY}'")
            con.execute("SET enable_progress_bar = false")
            _derive(con, stale)
        finally:
            con.close()
        stats["rederived"] = {"tables": stale, "seconds": time.perf_counter() - started}
        stats["derived"] = want
        stats["bytes"] = target.stat().st_size
        stats_path.write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    return target


def _stats_path(store: Path) -> Path:
    return store.with_suffix(".json")


def _tmp_path(target: Path) -> Path:
    return target.with_name("tmp-" + target.name)


def _progress(tmp: Path) -> dict[str, Any]:
    """The progress of a build cut short at `tmp`, if it can be resumed: same hand tables, at
    least one chunk committed. Empty otherwise."""
    try:
        stats: dict[str, Any] = json.loads(_stats_path(tmp).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not tmp.exists() or stats.get("hand_tables") != _hand_fingerprint():
        return {}
    if stats.get("copies_done") is None:
        return {}
    return stats


def partial_store(hands: int = HANDS) -> tuple[Path, dict[str, Any]]:
    """A finished copy of the build of `hands` hands as far as it got (cut short), and its
    progress. Refuses while the build runs (DuckDB's lock on the file)."""
    target = CACHE / f"tractor-{hands}.duckdb"
    tmp = _tmp_path(target)
    stats = _progress(tmp)
    if not stats:
        raise SystemExit(f"no resumable build of {hands:,} hands to measure ({tmp})")
    # Opening for writing fails while the build runs; a checkpoint moves into the file what a
    # build killed outright left in its write-ahead log, which a copy of the file alone would miss.
    con = connect(str(tmp))
    try:
        con.execute("CHECKPOINT")
    finally:
        con.close()
    partial = target.with_name("partial-" + target.name)
    partial.unlink(missing_ok=True)
    shutil.copyfile(tmp, partial)
    con = connect(str(partial))
    try:
        con.execute(f"SET threads = {THREADS}")
        con.execute(f"SET memory_limit = '{BUILD_MEMORY}'")
        con.execute(f"ATTACH '{_base_store().resolve()}' AS base (READ_ONLY)")
        if _copies_done(con, int(stats["base_hands"])) != stats["copies_done"]:
            raise SystemExit(f"{tmp} does not hold the copies its progress says")
        _finish(con)
        con.execute("DETACH base")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return partial, stats


def _time(con: duckdb.DuckDBPyConnection, queries: list[Query], f: Filters) -> float:
    start = time.perf_counter()
    for q in queries:
        q(con, f)
    return (time.perf_counter() - start) * 1000


def filter_sets(con: duckdb.DuckDBPyConnection) -> dict[str, Filters]:
    """The filters each page is measured under: all open; one player as attacker; the last 90
    days; and everything at once (that player as attacker, those days, one source, one preset)."""
    top = players.players(con, Filters())[0]
    opts = overview.filter_options(con)
    last = opts["dates"][1]
    days = Filters(date_from=last - dt.timedelta(days=89), date_to=last)
    return {
        "all hands": Filters(),
        "one player as attacker": Filters(players=(top,), role="attacker"),
        "last 90 days": days,
        "all five filters": days.with_(
            players=(top,),
            role="attacker",
            sources=(opts["sources"][0],),
            presets=(opts["presets"][0],),
        ),
    }


def measure(path: Path, runs: int = RUNS) -> tuple[list[str], list[tuple[str, list[float], float]]]:
    """The filter sets' names, and per page: the median ms under each set, and the slowest run."""
    con = connect(str(path), read_only=True)
    try:
        con.execute(f"SET threads = {THREADS}")
        sets = filter_sets(con)
        out = []
        for page, queries in PAGES.items():
            row: list[float] = []
            slowest = 0.0
            for f in sets.values():
                _time(con, queries, f)  # warm-up: DuckDB's buffer pool, as a running dashboard
                times = [_time(con, queries, f) for _ in range(runs)]
                row.append(statistics.median(times))
                slowest = max(slowest, *times)
            out.append((page, row, slowest))
        return list(sets), out
    finally:
        con.close()


def main() -> str:
    partial: dict[str, Any] | None = None
    if PARTIAL:
        path, partial = partial_store()
    else:
        path = build_store()
    con = connect(str(path), read_only=True)
    try:
        n_hands = con.sql("SELECT count(*) FROM hands").fetchall()[0][0]
        n_tricks = con.sql("SELECT count(*) FROM tricks").fetchall()[0][0]
        n_plays = con.sql("SELECT count(*) FROM plays").fetchall()[0][0]
        n_rollup = sum(
            con.sql(f"SELECT count(*) FROM {t.name}").fetchall()[0][0] for t in ROLLUP_TABLES
        )
    finally:
        con.close()
    try:
        stats = json.loads(_stats_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stats = {}
    load_before = os.getloadavg()[0]
    names, rows = measure(path)
    load_after = os.getloadavg()[0]
    size_mb = path.stat().st_size / 1e6
    per_1000 = size_mb / n_hands * 1000
    build = ""
    if stats.get("build_s"):
        build = (
            f"Built in {stats['build_s']:,.0f} s with DuckDB threads={stats['threads']} "
            f"(load {stats['load_during_build']:.1f} at its end): {stats['replicate_s']:,.0f} s "
            f"replicating, {stats['rollups_s']:,.0f} s adding each chunk's rollups as an ingest "
            f"run adds its hands'; peak memory {stats['peak_rss_mb']:,.0f} MB. "
        )
        if stats.get("untimed_copies"):
            build += (
                f"(The first {stats['untimed_copies']:,} copies were made by a run that kept no "
                "timings; these figures are the rest's.) "
            )
    if stats.get("rederived"):
        again = stats["rederived"]
        build += (
            f"Rebuilt after the build, as their SQL changed: {', '.join(again['tables'])}, in "
            f"{again['seconds']:,.0f} s. "
        )
    if partial is not None:
        build = (
            f"**The build of {HANDS:,} hands was cut short** at {partial['copies_done']:,} of its "
            f"{partial['copies']:,} copies (it resumes there when run again); this is that part "
            f"of it, finished as the whole would be. "
        )
        if partial.get("replicate_s") is not None and not partial.get("untimed_copies"):
            build += (
                f"The part took {partial['replicate_s']:,.0f} s replicating and "
                f"{partial['rollups_s']:,.0f} s adding rollups; peak memory "
                f"{partial['peak_rss_mb']:,.0f} MB. "
            )
    lines = [
        "## Dashboard queries (`analytics`, every page's first visit)",
        "",
        f"A store of {n_hands:,} hands ({n_tricks:,} tricks, {n_plays:,} plays; "
        f"{n_rollup:,} rollup rows; {size_mb:,.0f} MB, {per_1000:.2f} MB per 1,000 hands, goal "
        f"{GOAL_MB_PER_1000:.0f}): the ingest benchmark's simulated base corpus, ingested, then "
        f"replicated in SQL under new hand ids (growing with time), each copy a week later. "
        f"{build}"
        f"Each figure is the median of {RUNS} runs (after a warm-up) of all of a page's queries "
        f"together, uncached, on one read-only connection with DuckDB threads={THREADS}. Goal: "
        f"{GOAL_MS:.0f} ms a page, no run over {GOAL_MAX_MS:,.0f} ms. Machine load (1-minute "
        f"average) {load_before:.1f} before and {load_after:.1f} after, on {os.cpu_count()} "
        "cores: on a busy machine wall times stretch accordingly.",
        "",
        "| page | " + " | ".join(names) + " | slowest run | goal |",
        "|---|" + "---:|" * (len(names) + 1) + "---|",
    ]
    for page, medians, slowest in rows:
        ok = max(medians) <= GOAL_MS and slowest <= GOAL_MAX_MS
        cells = " | ".join(f"{m:,.0f} ms" for m in medians)
        lines.append(f"| {page} | {cells} | {slowest:,.0f} ms | {'met' if ok else '**missed**'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
