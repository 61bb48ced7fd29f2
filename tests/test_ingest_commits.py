"""The writer commits several batches at once (merge.COMMIT_BYTES), with the same rows stored.

A transaction that appends a DuckDB row group or more to a table writes it to the file once,
compressed, instead of to the WAL and again at the checkpoint; a 1,000-hand batch appends fewer
plays than that, so the writer gathers batches before it commits. Whether it commits after every
batch or once for the run, every table must hold the same rows, duplicates across batches must be
found in rows not yet committed, and a failure must leave the store as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from store_factory import fake_replay_line, hand_line, snapshot

from ingest import merge
from ingest.pipeline import ingest
from ingest.schema import create_all
from ingest.store import StoreError, current_version

ROLLUPS = ("seat_totals", "hand_totals", "finding_totals", "review_worst")


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _corpus(tmp_path: Path) -> Path:
    lines = [hand_line(f"h{i}", tricks=3 + i % 4) for i in range(40)]
    lines += [hand_line("h3", tricks=9), "not json", hand_line("h7", tricks=7)]  # two duplicates
    return _write(tmp_path / "in" / "a.jsonl", lines)


class _Counting:
    """A connection that counts the transactions it commits."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.commits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)

    def commit(self) -> None:
        self.commits += 1
        self.con.commit()


def _ingest(src: Path, db: Path, monkeypatch: pytest.MonkeyPatch, commit_bytes: int) -> int:
    """Ingest `src` in 5-line chunks with `COMMIT_BYTES` at `commit_bytes`; the commits made."""
    monkeypatch.setattr(merge, "COMMIT_BYTES", commit_bytes)
    made: list[_Counting] = []
    real = merge.Merger.__init__

    def counted(self: merge.Merger, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        made.append(_Counting(con))
        real(self, made[-1], run_id)  # type: ignore[arg-type]

    monkeypatch.setattr(merge.Merger, "__init__", counted)
    result = ingest([src], db, workers=0, chunk_lines=5, replay=fake_replay_line)
    assert result.counts.duplicates == 2 and result.counts.inserted == 40
    return made[0].commits


def test_one_commit_or_one_per_batch_store_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _corpus(tmp_path)
    each, once = tmp_path / "each.duckdb", tmp_path / "once.duckdb"
    batches = len(range(0, 43, 5))
    assert _ingest(src, each, monkeypatch, 0) == batches + 1  # and the run's end
    assert _ingest(src, once, monkeypatch, 1 << 40) == 1
    tables = ("hands", "seats", "tricks", "plays", "findings", "rejects", *ROLLUPS)
    assert snapshot(each, tables) == snapshot(once, tables)
    assert snapshot(once, ("hands",))["hands"][0] == 40


def test_a_failure_in_a_batch_not_yet_committed_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _corpus(tmp_path)
    db = tmp_path / "t.duckdb"
    _ingest(src, db, monkeypatch, 1 << 40)
    before = snapshot(db)
    applied = 0
    apply = merge.Merger.apply

    def fails_third(self: merge.Merger, *args: Any, **kw: Any) -> None:
        nonlocal applied
        applied += 1
        if applied == 3:
            raise duckdb.IOException("no space left on device")
        apply(self, *args, **kw)

    monkeypatch.setattr(merge.Merger, "apply", fails_third)
    other = _write(tmp_path / "in2" / "b.jsonl", [hand_line(f"b{i}") for i in range(20)])
    with pytest.raises(StoreError, match="no space left"):
        ingest([other], db, workers=0, chunk_lines=5, replay=fake_replay_line)
    assert snapshot(db) == before and current_version(db) == 1


def test_the_writer_merges_on_one_duckdb_thread(tmp_path: Path) -> None:
    """The replay workers keep the cores busy: a second DuckDB thread in the writer cost CPU."""
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    try:
        con.execute("SET threads = 4")
        create_all(con)
        merge.Merger(con, 1)
        assert con.execute("SELECT current_setting('threads')").fetchall() == [(1,)]
    finally:
        con.close()
