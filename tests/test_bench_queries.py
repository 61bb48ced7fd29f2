"""The query benchmark's store build (bench/queries.py): a build cut short resumes where it
stopped and ends with the store a build in one go makes, and the part built so far can be measured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from analytics_testdb import ingested_db

from bench import queries
from ingest import rollups
from ingest.schema import HAND_TABLES, ROLLUP_TABLES

TABLES = [t.name for t in (*HAND_TABLES, *ROLLUP_TABLES)] + ["rejects", "ingest_runs"]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("base")), n_hands=10)


def _setup(mp: pytest.MonkeyPatch, cache: Path, base: Path) -> None:
    mp.setattr(queries, "CACHE", cache)
    mp.setattr(queries, "_base_store", lambda: base)
    mp.setattr(queries, "REPLICA_CHUNK", 1)


def _rows(store: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return {
            t: sorted(con.sql(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in TABLES
            if t != "ingest_runs"
        } | {"ingest_runs": con.sql("SELECT count(*) FROM ingest_runs").fetchall()}
    finally:
        con.close()


def _n_base(base: Path) -> int:
    con = duckdb.connect(str(base), read_only=True)
    try:
        return int(con.sql("SELECT count(*) FROM hands").fetchall()[0][0])
    finally:
        con.close()


def _cut_after(mp: pytest.MonkeyPatch, chunks: int) -> None:
    """The build dies while adding chunk `chunks + 1`, before that chunk commits."""
    calls = {"n": 0}
    add = rollups.add

    def cut(*args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] > chunks:
            raise KeyboardInterrupt
        add(*args, **kwargs)

    mp.setattr(rollups, "add", cut)


def test_a_build_cut_short_resumes_and_ends_as_one_in_one_go(
    tmp_path: Path, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = _n_base(base)
    hands = 4 * n
    _setup(monkeypatch, tmp_path / "whole", base)
    whole = queries.build_store(hands)

    _setup(monkeypatch, tmp_path / "cut", base)
    with monkeypatch.context() as mp:
        _cut_after(mp, 2)
        with pytest.raises(KeyboardInterrupt):
            queries.build_store(hands)
    tmp = tmp_path / "cut" / f"tmp-tractor-{hands}.duckdb"
    progress = json.loads(tmp.with_suffix(".json").read_text())
    assert progress["copies_done"] == 2 and progress["copies"] == 4
    assert not (tmp_path / "cut" / f"tractor-{hands}.duckdb").exists()

    # The part built so far, finished on a copy, is the whole build of that many copies.
    _setup(monkeypatch, tmp_path / "two", base)
    two = queries.build_store(2 * n)
    _setup(monkeypatch, tmp_path / "cut", base)
    partial, stats = queries.partial_store(hands)
    assert stats["copies_done"] == 2
    assert _rows(partial) == _rows(two)
    assert tmp.exists()

    resumed = queries.build_store(hands)
    assert _rows(resumed) == _rows(whole)
    assert not tmp.exists() and not tmp.with_suffix(".json").exists()
    done = json.loads(resumed.with_suffix(".json").read_text())
    assert done["copies_done"] == 4 and done["build_s"] > 0


def test_a_build_of_other_tables_is_not_resumed(
    tmp_path: Path, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cut-short build whose hand tables another schema made starts again from nothing."""
    n = _n_base(base)
    _setup(monkeypatch, tmp_path, base)
    with monkeypatch.context() as mp:
        _cut_after(mp, 1)
        with pytest.raises(KeyboardInterrupt):
            queries.build_store(3 * n)
    tmp = tmp_path / f"tmp-tractor-{3 * n}.duckdb"
    progress = json.loads(tmp.with_suffix(".json").read_text())
    progress["hand_tables"] = "another schema"
    tmp.with_suffix(".json").write_text(json.dumps(progress))
    with pytest.raises(SystemExit, match="no resumable build"):
        queries.partial_store(3 * n)
    store = queries.build_store(3 * n)
    assert len(_rows(store)["hands"]) == 3 * n


def test_a_changed_rollup_alone_is_rebuilt(
    tmp_path: Path, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When one rollup's SQL changes, the cached store rebuilds that rollup only, and ends as a
    build from nothing with the new SQL."""
    n = _n_base(base)
    _setup(monkeypatch, tmp_path / "old", base)
    queries.build_store(2 * n)
    # A different SQL for hand_totals (same rows, in reverse order).
    monkeypatch.setitem(
        rollups.SQL,
        "hand_totals",
        rollups.SQL["hand_totals"].replace("ORDER BY player NULLS FIRST", "ORDER BY player DESC"),
    )
    rebuilt = queries.build_store(2 * n)
    stats = json.loads(rebuilt.with_suffix(".json").read_text())
    assert stats["rederived"]["tables"] == ["hand_totals"]
    _setup(monkeypatch, tmp_path / "new", base)
    assert _rows(rebuilt) == _rows(queries.build_store(2 * n))
    # Unchanged, the next visit rebuilds nothing.
    _setup(monkeypatch, tmp_path / "old", base)
    queries.build_store(2 * n)
    again = json.loads(rebuilt.with_suffix(".json").read_text())
    assert again["rederived"] == stats["rederived"]
