"""The rollups (ingest/rollups.py) give the same figures as the full queries, under every filter.

Each figure is asked twice of a store ingested by the real pipeline under the same filters: once
as the dashboard asks it (the rollups answer), once with the rollups ruled out (the hand tables
answer, as they do under a date filter). Both must agree to the last count. Then the rollups must
follow the hands through a re-ingest that replaces one.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from analytics_testdb import ingested_db
from polars.testing import assert_frame_equal

from analytics import (
    bottom,
    coaching,
    coverage,
    explorer,
    handfinder,
    overview,
    players,
    rollup,
    throws,
    trump_length,
)
from analytics.filters import Filters
from analytics.query import count_hands
from ingest import rollups
from ingest.pipeline import ingest
from ingest.schema import HAND_TABLES, ROLLUP_TABLES, WORST_KEPT, create_all
from ingest.store import open_reader

HAND_SOURCES = ("hands", "seats", "tricks", "decisions", "findings")
"""The hand tables the rollups read."""
EVERY_DAY = {"date_from": dt.date(1970, 1, 1), "date_to": dt.date(2100, 1, 1)}


def _full(figure: Callable[..., Any], *args: Any) -> Any:
    """`figure(*args)` from the hand tables: the rollups ruled out."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rollup, "usable", lambda f: False)
        mp.setattr(rollup, "usable_for_hands", lambda f: False)
        return figure(*args)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("rollups")), n_hands=48)


@pytest.fixture(scope="module")
def con(store: Path) -> duckdb.DuckDBPyConnection:
    c = open_reader(store)
    yield c
    c.close()


def _filters(con: duckdb.DuckDBPyConnection) -> list[Filters]:
    names = players.players(con, Filters())
    assert len(names) >= 4
    sources = overview.filter_options(con)["sources"]
    out = [
        Filters(),
        Filters(include_flagged=False),
        Filters(sources=(sources[0],)),
        Filters(presets=("four-deck",)),
        Filters(levels=("2", "3", "4")),
        Filters(players=(names[0], names[1])),
    ]
    for role in ("any", "banker", "banker_partner", "banker_team", "attacker"):
        out.append(Filters(role=role))
        out.append(Filters(players=(names[0],), role=role))
    return out


def _explore(metric: str, dimension: str) -> Callable[[duckdb.DuckDBPyConnection, Filters], Any]:
    return lambda con, f: explorer.explore(con, f, metric, dimension)


def _top_player(con: duckdb.DuckDBPyConnection, f: Filters) -> str:
    return (f.players or tuple(players.players(con, Filters())))[0]


FIGURES: dict[str, Callable[[duckdb.DuckDBPyConnection, Filters], Any]] = {
    "headline": overview.headline,
    "outcomes": overview.outcomes,
    "points histogram": overview.points_histogram,
    "simulated": overview.simulated,
    **{
        f"hands by {period}": (lambda p: lambda con, f: overview.hands_over_time(con, f, p))(period)
        for period in ("week", "month")
    },
    "bottom summary": bottom.summary,
    **{
        f"captures by {dim}": (lambda d: lambda con, f: bottom.capture_by(con, f, d))(dim)
        for dim in bottom.DIMENSIONS
    },
    "bottom by multiplier": bottom.by_multiplier,
    "buried vs added": bottom.buried_vs_added,
    "buried points": bottom.buried_points,
    "outcome changes": bottom.outcome_changes,
    "status": coverage.by_status,
    "findings by code": coverage.findings_by_code,
    **{
        f"leaks by {by}": (lambda b: lambda con, f: coaching.leak_table(con, f, b))(by)
        for by in coaching.GROUPS
    },
    "codes of everyone": lambda con, f: coaching.by_code(con, f, "player"),
    "codes of a player": lambda con, f: coaching.by_code(con, f, "player", _top_player(con, f)),
    "costliest": lambda con, f: coaching.costliest(con, f, _top_player(con, f), 25),
    "costliest few": lambda con, f: coaching.costliest(con, f, _top_player(con, f), 3),
    **{
        f"explore {m.name} by {d}": _explore(m.name, d)
        for m in explorer.METRICS
        if m.level == "hand"
        for d in explorer.ROLLUP_DIMENSIONS
    },
    "bottom by player": bottom.by_player,
    "throw outcomes": throws.outcomes,
    "throw rate by player": throws.throw_rate_by_player,
    "player table": players.player_table,
    "players": players.players,
    "hands counted": count_hands,
    "date span": players.date_span,
    "decks": trump_length.decks_in_scope,
    **{
        f"hands found with {event}": (
            lambda e: lambda con, f: handfinder.count(con, f, handfinder.HandQuery(event=e))
        )(event)
        for event in handfinder.EVENTS
    },
    "throw curve": lambda con, f: trump_length.throw_curve(con, f, 4, "all"),
    "seat distribution": lambda con, f: trump_length.seat_distribution(con, f, 4, "suit"),
    **{
        f"failures by {dim}": (lambda d: lambda con, f: throws.failure_by(con, f, d))(dim)
        for dim in throws.DIMENSIONS
    },
    **{
        f"hand trumps ({kind})": (lambda k: lambda con, f: trump_length.hand_trumps(con, f, 4, k))(
            kind
        )
        for kind in trump_length.KINDS
    },
}


def _same(a: Any, b: Any, what: str) -> None:
    if isinstance(a, pl.DataFrame):
        assert a.columns == b.columns, what
        key = [c for c in a.columns if a[c].dtype != pl.Float64]
        try:
            assert_frame_equal(
                a.sort(key, nulls_last=True),
                b.sort(key, nulls_last=True),
                check_dtypes=False,
                rel_tol=1e-9,
            )
        except AssertionError as e:
            raise AssertionError(f"{what}: {e}") from e
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), what
        for k in a:
            _same(a[k], b[k], f"{what}: {k}")
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-9), what
    else:
        assert a == b, what


def test_every_figure_is_the_same_from_the_rollups(con: duckdb.DuckDBPyConnection) -> None:
    # Throws, flagged hands and several sources, or the comparison proves little.
    assert throws.summary(con, Filters())["n"] > 10
    assert overview.headline(con, Filters())["flagged"].hits > 0
    assert len(overview.filter_options(con)["sources"]) == 2
    checked = 0
    for f in _filters(con):
        for name, figure in FIGURES.items():
            fast = figure(con, f)
            full = _full(figure, con, f)
            _same(fast, full, f"{name} under {f.describe()}")
            checked += 1
    assert checked > 200


def test_a_date_filter_keeping_every_hand_changes_nothing(con: duckdb.DuckDBPyConnection) -> None:
    """Dates are answered by the hand tables; dates that keep every replayed hand give the figures
    of no filter (the Audit's counts differ: a rejected hand may have no date)."""
    name = players.players(con, Filters())[0]
    for f in (Filters(), Filters(players=(name,), role="attacker")):
        for what, figure in FIGURES.items():
            if what in ("status", "findings by code"):
                continue
            _same(figure(con, f), figure(con, f.with_(**EVERY_DAY)), f"{what} with dates")


def test_the_trends_are_the_same_from_the_rollups(con: duckdb.DuckDBPyConnection) -> None:
    name = players.players(con, Filters())[0]
    for f in (Filters(), Filters(role="attacker"), Filters(include_flagged=False)):
        for period in ("week", "month"):
            fast = players.trend(con, f, name, period)
            assert fast.height > 0
            _same(fast, _full(players.trend, con, f, name, period), period)


def test_curves_are_drawn_from_the_counted_hands(con: duckdb.DuckDBPyConnection) -> None:
    """The trump curves read counted rows; a hand counted once must weigh once: the team curve's
    hands add up to the replayed four-deck suit hands."""
    ht = trump_length.hand_trumps(con, Filters())
    total = trump_length.hands_in_scope(con, Filters())
    assert int(ht["n"].sum()) == total
    curves = trump_length.team_curves(ht)
    for team in ("banker team", "attackers"):
        assert curves.filter(pl.col("team") == team)["n"].sum() == total


def _snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for table in ROLLUP_TABLES:
        rows = con.execute(f"SELECT * FROM {table.name}").fetchall()
        out[table.name] = sorted(rows, key=repr)
    return out


def _rebuilt(store: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The rollups a rebuild from the store's hand tables as they are gives, in a scratch copy."""
    fresh = duckdb.connect()
    fresh.execute(f"ATTACH '{Path(store).resolve()}' AS s (READ_ONLY)")
    try:
        fresh.execute("ATTACH ':memory:' AS scratch")
        for table in (*HAND_SOURCES, *(t.name for t in ROLLUP_TABLES)):
            fresh.execute(f"CREATE TABLE scratch.{table} AS SELECT * FROM s.{table} LIMIT 0")
            if table in HAND_SOURCES:
                fresh.execute(f"INSERT INTO scratch.{table} SELECT * FROM s.{table}")
        fresh.execute("USE scratch")
        rollups.refresh(fresh)
        return _snapshot(fresh)
    finally:
        fresh.close()


def _stored(store: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = open_reader(store)
    try:
        return _snapshot(con)
    finally:
        con.close()


def _assert_same_rollups(
    got: dict[str, list[tuple[Any, ...]]], want: dict[str, list[tuple[Any, ...]]]
) -> None:
    """Every rollup row alike, to the last count; sums of costs (DOUBLE) added run by run to
    within rounding of the sum made at once."""
    for table in ROLLUP_TABLES:
        names = table.column_names
        keys = [names.index(k) for k in table.key]
        by_key = {
            side: sorted(rows[table.name], key=lambda r: repr([r[i] for i in keys]))
            for side, rows in (("got", got), ("want", want))
        }
        assert len(by_key["got"]) == len(by_key["want"]), table.name
        doubles = {i for i, c in enumerate(table.columns) if c.sql == "DOUBLE"}
        for g, w in zip(by_key["got"], by_key["want"], strict=True):
            for i, (x, y) in enumerate(zip(g, w, strict=True)):
                if i in doubles and x is not None and y is not None:
                    assert x == pytest.approx(y, rel=1e-12, abs=1e-9), (table.name, names[i], g)
                else:
                    assert x == y, (table.name, names[i], g, w)


def _three_runs(tmp_path: Path, lines: list[str], check: Callable[[Path, int], None]) -> Path:
    """Three ingest runs of `lines` (40 of them) into one store: the first 16, the next 14, then
    the first 16 again with three changed (another player in seat 0, a hand now rejected, one now
    flagged: hands move between partitions) and the last 10. After each of the first two runs,
    `check(store, run)` and the rollups must equal a rebuild; the caller checks the third."""
    a, b, c = (tmp_path / f"{n}.jsonl" for n in "abc")
    a.write_text("\n".join(lines[:16]) + "\n")
    b.write_text("\n".join(lines[16:30]) + "\n")
    c.write_text("\n".join(lines[30:]) + "\n")
    store = tmp_path / "tractor.duckdb"
    for run, files in enumerate(([a], [b]), 1):
        ingest(files, store, workers=0, progress=False)
        check(store, run)
        _assert_same_rollups(_stored(store), _rebuilt(store))
    changed = lines[:16]
    edits = [
        {"players": ["zed", *json.loads(changed[0])["players"][1:]]},
        {"shuffle_seed": 1},  # an unknown field: now rejected
        {"claimed": {"attackers_points": 5}},  # a wrong claimed score: now flagged
    ]
    for i, edit in enumerate(edits):
        changed[i] = json.dumps(json.loads(changed[i]) | edit, separators=(",", ":"))
    a.write_text("\n".join(changed) + "\n")
    ingest([a, c], store, workers=0, progress=False)
    return store


def _last_run(store: Path) -> tuple[int, int]:
    """The hands the store's last ingest run replaced and inserted."""
    con = open_reader(store)
    try:
        ((replaced, inserted),) = con.execute(
            "SELECT replaced, inserted FROM ingest_runs ORDER BY run_id DESC LIMIT 1"
        ).fetchall()
    finally:
        con.close()
    return int(replaced), int(inserted)


@pytest.mark.parametrize("slice_hands", [rollups.SLICE_HANDS, 5])
def test_rollups_after_several_ingests_equal_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slice_hands: int
) -> None:
    """Each run adds what it wrote and rebuilds the partitions of the hands it replaced: after new
    files, and a re-ingest of a changed file (another player, a hand now rejected, one now
    flagged, so hands move between partitions), the rollups are those of a rebuild; also when
    a run sums its hands in slices of 5 (a big run's are of SLICE_HANDS)."""
    from analytics_testdb import corpus_lines

    monkeypatch.setattr(rollups, "SLICE_HANDS", slice_hands)

    store = _three_runs(tmp_path, corpus_lines(40), lambda store, run: None)
    replaced, inserted = _last_run(store)
    con = open_reader(store)
    try:
        statuses = dict(
            con.execute(
                "SELECT hand_id, status FROM hands WHERE hand_id IN ('g0001', 'g0002')"
            ).fetchall()
        )
    finally:
        con.close()
    assert replaced == 3 and inserted > 0
    assert statuses == {"g0001": "rejected", "g0002": "flagged"}
    _assert_same_rollups(_stored(store), _rebuilt(store))


@pytest.mark.parametrize("slice_hands", [rollups.SLICE_HANDS, 5])
def test_a_runs_rollups_read_its_own_rows_not_the_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slice_hands: int
) -> None:
    """Into a store holding hands, a run's rollups read the rows it kept aside (the store's
    tables would be scanned whole, a cost growing with the store); a run of more than
    SLICE_HANDS hands keeps nothing and is summed in slices of the store's rows. Either way the
    rollups equal a rebuild."""
    from analytics_testdb import corpus_lines

    monkeypatch.setattr(rollups, "SLICE_HANDS", slice_hands)
    lines = corpus_lines(24)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(lines[:12]) + "\n")
    b.write_text("\n".join(lines[12:]) + "\n")
    store = tmp_path / "tractor.duckdb"
    read: list[dict[str, str] | None] = []
    real_add = rollups.add

    def spy(con: Any, rows: dict[str, str] | None, **kw: Any) -> None:
        read.append(None if rows is None else dict(rows))
        real_add(con, rows, **kw)

    monkeypatch.setattr(rollups, "add", spy)
    ingest([a], store, workers=0, progress=False)
    first = list(read)
    read.clear()
    ingest([b], store, workers=0, progress=False)
    # A new store's tables hold only the run's rows: nothing kept aside, and within a slice the
    # tables are read as they are (None).
    if slice_hands == 5:
        assert first and all(
            rows is not None and not any("run_new_" in sql for sql in rows.values())
            for rows in first
        )
    else:
        assert first == [None]
    assert read
    for rows in read:
        assert rows is not None
        kept = {name for name, sql in rows.items() if "run_new_" in sql}
        if slice_hands == 5:  # 12 hands: more than a slice, summed from the store's rows
            assert not kept
        else:
            assert kept == {"hands", *(t.name for t in HAND_TABLES if rollups.reads(t.name))}
    _assert_same_rollups(_stored(store), _rebuilt(store))


def test_rollups_added_piece_by_piece_equal_a_rebuild(store: Path) -> None:
    """As the query benchmark builds its store: hands added in pieces, each piece's rows given
    (not read from the store), the touched rows replaced out of order, then put back in order."""
    con = duckdb.connect()
    con.execute(f"ATTACH '{Path(store).resolve()}' AS s (READ_ONLY)")
    try:
        con.execute("ATTACH ':memory:' AS scratch")
        con.execute("USE scratch")
        create_all(con)
        ids = [i for (i,) in con.execute("SELECT hand_id FROM s.hands ORDER BY 1").fetchall()]
        assert len(ids) > 20
        for lo, hi in ((0, 5), (5, 6), (6, len(ids))):
            piece = ", ".join(f"'{i}'" for i in ids[lo:hi])
            rows = {
                t.name: f"SELECT * FROM s.{t.name} WHERE hand_id IN ({piece})" for t in HAND_TABLES
            }
            rollups.add(con, rows, in_order=False)
            for t in HAND_TABLES:
                con.execute(f"INSERT INTO {t.name} {rows[t.name]}")
        rollups.compact(con)
        added = _snapshot(con)
        rollups.refresh(con)
        _assert_same_rollups(added, _snapshot(con))
    finally:
        con.close()


def test_a_run_cut_short_is_counted_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that stored hands but died before its end (rollups untouched, no `ingest_runs` row)
    leaves hands the rollups do not count: the next run rebuilds them."""
    from analytics_testdb import corpus_lines

    lines = corpus_lines(20)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(lines[:10]) + "\n")
    b.write_text("\n".join(lines[10:]) + "\n")
    store = tmp_path / "tractor.duckdb"
    ingest([a], store, workers=0, progress=False)

    def cut(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as mp:
        mp.setattr(rollups, "update", cut)
        with pytest.raises(KeyboardInterrupt):
            ingest([b], store, workers=0, progress=False)
    ingest([b], store, workers=0, progress=False)
    con = open_reader(store)
    try:
        ((n,),) = con.execute("SELECT sum(n) FROM hand_totals WHERE player IS NULL").fetchall()
        ((hands,),) = con.execute("SELECT count(*) FROM hands").fetchall()
    finally:
        con.close()
    assert n == hands
    _assert_same_rollups(_stored(store), _rebuilt(store))


def test_rollups_follow_a_replaced_hand(tmp_path: Path) -> None:
    store = ingested_db(tmp_path / "store", n_hands=12)
    source = tmp_path / "store" / "corpus.jsonl"
    lines = source.read_text().splitlines()
    first = json.loads(lines[0])
    first["players"] = ["zed", *first["players"][1:]]  # the same hand, another player in seat 0
    lines[0] = json.dumps(first, separators=(",", ":"))
    source.write_text("\n".join(lines) + "\n")
    ingest([source], store, progress=False)
    con = open_reader(store)
    try:
        stored = _snapshot(con)
        assert "zed" in players.players(con, Filters())
    finally:
        con.close()
    assert _stored(store) == stored == _rebuilt(store)


@pytest.mark.parametrize("name", ["club-2024.duckdb", "9lives.duckdb", 'say "select".duckdb'])
def test_rollups_are_kept_in_a_store_whatever_its_file_name(tmp_path: Path, name: str) -> None:
    """DuckDB names the store's catalog after its file: a name with `-`, a leading digit or a
    quote must not break the SQL that names the store's tables in full."""
    from analytics_testdb import corpus_lines

    lines = corpus_lines(12)
    a = tmp_path / "a.jsonl"
    a.write_text("\n".join(lines[:8]) + "\n")
    store = tmp_path / name
    ingest([a], store, workers=0, progress=False)
    changed = lines[:8]
    obj = json.loads(changed[0]) | {"players": ["zed", *json.loads(changed[0])["players"][1:]]}
    changed[0] = json.dumps(obj, separators=(",", ":"))
    a.write_text("\n".join(changed + lines[8:]) + "\n")
    ingest([a], store, workers=0, progress=False)
    replaced, inserted = _last_run(store)
    assert replaced == 1 and inserted > 0
    _assert_same_rollups(_stored(store), _rebuilt(store))


def _random_ids(lines: list[str], seed: int) -> list[str]:
    """`lines` with every hand id replaced by a random UUID: ids in no relation to the order the
    hands are stored in."""
    rng = random.Random(seed)
    out = []
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        obj["hand_id"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        out.append(json.dumps(obj, separators=(",", ":")))
    return out


def _slice_ranges(store: Path, run: int) -> list[dict[str, tuple[int, int] | None]]:
    """The slices a sliced update of run `run`'s hands reads, with each table's rowids."""
    con = open_reader(store)
    try:
        hands = f"{rollups._catalog(con)}.main.hands"
        return rollups._slices(con, hands, f"h.ingest_run = {run}")
    finally:
        con.close()


def _in_storage_order(slices: list[dict[str, tuple[int, int] | None]]) -> None:
    """Each table's rows of one slice lie after those of the slice before, none shared: each
    slice's scans read row groups of their own."""
    assert len(slices) > 2
    assert all(s["hands"] and s["seats"] and s["tricks"] for s in slices)
    for table in slices[0]:
        spans = [s[table] for s in slices if s[table] is not None]
        for (_, last), (first, _) in itertools.pairwise(spans):
            assert last < first, (table, spans)


def test_a_sliced_update_in_storage_order_equals_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hands with random ids, summed 4 at a time: the slices follow the order the hands were
    stored in (not their ids), each table's rows of a slice apart from the others', and after new
    files and a re-ingest that replaces hands (one now rejected, one flagged, one with another
    player) the rollups equal a rebuild."""
    from analytics_testdb import corpus_lines

    monkeypatch.setattr(rollups, "SLICE_HANDS", 4)
    lines = _random_ids(corpus_lines(40), seed=3)
    ids = [json.loads(line)["hand_id"] for line in lines[:16]]
    assert ids != sorted(ids)
    store = _three_runs(
        tmp_path, lines, lambda store, run: _in_storage_order(_slice_ranges(store, run))
    )
    replaced, inserted = _last_run(store)
    assert replaced == 3 and inserted > 8
    _in_storage_order(_slice_ranges(store, 3))
    _assert_same_rollups(_stored(store), _rebuilt(store))


def test_a_sliced_update_does_not_rely_on_the_storage_order(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each table's rows stored in an order of their own (hands by id, seats the other way,
    tricks and decisions shuffled): slices overlap in the tables, and still every hand is summed
    once, as a rebuild sums it."""
    monkeypatch.setattr(rollups, "SLICE_HANDS", 5)
    con = duckdb.connect()
    con.execute(f"ATTACH '{Path(store).resolve()}' AS s (READ_ONLY)")
    try:
        con.execute("ATTACH ':memory:' AS scratch")
        con.execute("USE scratch")
        create_all(con)
        order = {"hands": "hand_id", "seats": "hand_id DESC, seat", "findings": "hand_id DESC"}
        for t in HAND_TABLES:
            by = order.get(t.name, "hash(hand_id || rowid::VARCHAR)")
            con.execute(f"INSERT INTO {t.name} SELECT * FROM s.{t.name} ORDER BY {by}")
        slices = rollups._slices(con, "scratch.main.hands", "true")
        assert len(slices) > 2
        spans = [s["seats"] for s in slices]
        assert any(x and y and x[0] > y[1] for x, y in itertools.pairwise(spans))
        rollups.update(con, "true")
        updated = _snapshot(con)
        rollups.refresh(con)
        _assert_same_rollups(updated, _snapshot(con))
    finally:
        con.close()


def test_a_new_stores_rollups_are_stored_in_their_order(tmp_path: Path) -> None:
    """A new store's rollups are written straight from their SQL, whose ORDER BY must be the
    order `rollups.SORT` keeps them in (a player filter skips other players' row groups)."""
    from analytics_testdb import corpus_lines

    src = tmp_path / "a.jsonl"
    src.write_text("\n".join(corpus_lines(40)) + "\n")
    ingest([src], tmp_path / "t.duckdb", workers=0, progress=False)
    con = open_reader(tmp_path / "t.duckdb")
    try:
        for name, order in rollups.SORT.items():
            assert rollups.SQL[name].rstrip().endswith(f"ORDER BY {order}"), name
            cols = ", ".join(c.split()[0] for c in order.split(","))
            stored = con.execute(f"SELECT {cols} FROM {name} ORDER BY rowid").fetchall()
            assert len(stored) > 1, name
            assert stored == con.execute(f"SELECT {cols} FROM {name} ORDER BY {order}").fetchall()
    finally:
        con.close()


_WORST_BY_WINDOW = """
SELECT * EXCLUDE (rank) FROM (
    SELECT s.source, h.rules_preset, h.level, h.status, s.player, s.role, d.hand_id,
           d.decision_no, h.played_at, d.trick, d.seat, d.kind, d.code, d.severity, d.cost,
           d.play, d.better, d.p_fail, d.p_error, d.outcome, d.reason,
           row_number() OVER (
               PARTITION BY s.source, h.rules_preset, h.level, h.status, s.player, s.role
               ORDER BY d.cost DESC, d.hand_id, d.decision_no
           ) AS rank
    FROM decisions d
    JOIN seats s ON s.source = d.source AND s.hand_id = d.hand_id AND s.seat = d.seat
    JOIN hands h ON h.source = d.source AND h.hand_id = d.hand_id
    WHERE d.is_mistake AND s.player IS NOT NULL
) WHERE rank <= {kept}
"""


def test_review_worst_keeps_what_a_window_ranks_first() -> None:
    """`review_worst` ranks by a bounded top-N: the same rows as ranking every mistake by cost
    descending (ORDER BY's: NaN first, -0.0 equal to 0.0), hand id and decision, ties included."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE hands (source VARCHAR, hand_id VARCHAR, rules_preset VARCHAR, "
        "level VARCHAR, status VARCHAR, played_at TIMESTAMP)"
    )
    con.execute(
        "CREATE TABLE seats (source VARCHAR, hand_id VARCHAR, seat INTEGER, player VARCHAR, "
        "role VARCHAR, style VARCHAR, persona VARCHAR, last_seat_ok INTEGER, "
        "last_seat_skipped INTEGER)"
    )
    con.execute(
        "CREATE TABLE decisions (source VARCHAR, hand_id VARCHAR, decision_no INTEGER, "
        "trick INTEGER, seat INTEGER, kind VARCHAR, code VARCHAR, severity VARCHAR, "
        "is_mistake BOOLEAN, cost DOUBLE, play VARCHAR, better VARCHAR, p_fail DOUBLE, "
        "p_error DOUBLE, outcome VARCHAR, reason VARCHAR)"
    )
    rng = random.Random(1)
    costs = [float("nan"), float("inf"), 0.0, -0.0, 1.0, 2.5, 10.0, 30.0, 0.1 + 0.2, 0.3]
    hands, seats, decisions = [], [], []
    for i in range(1500):
        source, hand_id = rng.choice("ab"), f"h{i:05d}"
        hands.append((source, hand_id, rng.choice("23"), dt.datetime(2026, 1, 1 + i % 28)))
        for seat in range(4):
            seats.append((source, hand_id, seat, rng.choice(["p1", "p2", "p3", None]), seat % 2))
        for no in range(1, rng.randint(1, 12)):
            mistake = rng.random() < 0.8
            decisions.append((source, hand_id, no, rng.randrange(4), mistake, rng.choice(costs)))
    con.executemany("INSERT INTO hands VALUES (?, ?, 'four-deck', ?, 'ok', ?)", hands)
    con.executemany(
        "INSERT INTO seats VALUES (?, ?, ?, ?, ['banker', 'attacker'][? + 1], NULL, NULL, 0, 0)",
        seats,
    )
    con.executemany(
        "INSERT INTO decisions VALUES (?, ?, ?, 1, ?, 'k', 'c', 's', ?, ?, 'x', NULL, NULL, "
        "NULL, NULL, 'r')",
        decisions,
    )
    rollups.make_shared(con)
    got = con.execute(rollups.SQL["review_worst"]).fetchall()
    want = con.execute(_WORST_BY_WINDOW.format(kept=WORST_KEPT)).fetchall()
    assert len(got) == len(want) and len(want) < sum(d[4] for d in decisions)
    assert sorted(map(repr, got)) == sorted(map(repr, want))
