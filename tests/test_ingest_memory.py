"""The writer's memory does not grow with the corpus: what it keeps for a run is bounded by a batch.

An ingest holds one run's state in the writing process (counts, temp tables in DuckDB). Anything
kept per hand there grows with the corpus: a million-hand run once kept every key it met in a temp
table (0.1 KB a hand). These tests ingest a corpus batch by batch and look at that state after each
batch: the rows of the run's temp tables and the Python heap (tracemalloc), which must be the same
after the last batch as after the first ones. Duplicate detection across batches, which that table
served, is checked by tests/test_ingest_pipeline.py and here where `hands` cannot serve it.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path
from typing import Any

import duckdb
import pytest
from store_factory import fake_replay_line, hand_line

from ingest import merge
from ingest.pipeline import ingest
from ingest.store import open_reader

HANDS = 2400
CHUNK = 120
"""Batches of 120 hands: the writer's heap also grows a little per batch, not per hand (DuckDB's
Python layer registering and binding each batch's Arrow tables, pyarrow's struct types: 0.4 to
1.1 KB a batch, measured with tracemalloc), which batches of 50 made look like 9 to 22 bytes a
hand, at the bound of 20; the key kept per hand that this test was written against cost 100."""


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _temp_rows(con: duckdb.DuckDBPyConnection) -> int:
    """Rows held in the connection's temp tables (the run's own state)."""
    tables = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE temporary ORDER BY 1"
    ).fetchall()
    return sum(
        int(con.execute(f'SELECT count(*) FROM temp.main."{name}"').fetchall()[0][0])
        for (name,) in tables
    )


def _watched(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """(hands merged, temp-table rows, Python heap bytes) after every batch the writer merges."""
    seen: list[tuple[int, int, int]] = []
    apply = merge.Merger.apply

    def watched(self: merge.Merger, *args: Any, **kw: Any) -> None:
        apply(self, *args, **kw)
        gc.collect()
        seen.append((self.counts.hands, _temp_rows(self.con), tracemalloc.get_traced_memory()[0]))

    monkeypatch.setattr(merge.Merger, "apply", watched)
    return seen


def test_a_fresh_run_keeps_nothing_per_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # keys met again batches later: the same line twice, a changed one (a conflict), and the
    # last line repeating one of the first batch
    lines = [hand_line(f"h{i}", tricks=2) for i in range(HANDS)]
    lines[100] = hand_line("h3", tricks=2)
    lines[150] = hand_line("h7", tricks=3)
    lines[-1] = hand_line("h9", tricks=2)
    path = _write(tmp_path / "in" / "a.jsonl", lines)
    seen = _watched(monkeypatch)
    tracemalloc.start()
    try:
        result = ingest(
            [path], tmp_path / "t.duckdb", workers=0, replay=fake_replay_line, chunk_lines=CHUNK
        )
    finally:
        tracemalloc.stop()
    c = result.counts
    assert (c.inserted, c.duplicates, c.conflicts) == (HANDS - 3, 3, 1) and c.adds_up()
    assert len(seen) >= 20
    quarter = next(s for s in seen if s[0] >= HANDS // 4)
    last = seen[-1]
    # no temp-table row per hand: the same rows after 2,400 hands as after 600
    assert last[1] <= quarter[1], (quarter, last)
    # and no Python object per hand: 1,800 more hands add less than 20 bytes each
    assert last[2] - quarter[2] < 20 * (last[0] - quarter[0]), (quarter, last)


def test_duplicates_are_found_when_stored_rows_carry_this_runs_number(tmp_path: Path) -> None:
    """A store holding rows of a run cut short (no `ingest_runs` row: the next run takes its
    number) cannot tell this run's rows by their run: every key met is then kept, and the same
    lines come out unchanged, not as duplicates of themselves."""
    lines = [hand_line(f"h{i}", tricks=2) for i in range(120)] + [hand_line("h5", tricks=4)]
    path = _write(tmp_path / "in" / "a.jsonl", lines)
    db = tmp_path / "t.duckdb"
    first = ingest([path], db, workers=0, replay=fake_replay_line, chunk_lines=20)
    assert (first.counts.inserted, first.counts.duplicates) == (120, 1)
    con = duckdb.connect(str(db.resolve()))
    try:
        con.execute("DELETE FROM ingest_runs")
    finally:
        con.close()
    again = ingest([path], db, workers=0, replay=fake_replay_line, chunk_lines=20)
    c = again.counts
    assert again.run_id == first.run_id
    assert (c.unchanged, c.inserted, c.replaced, c.duplicates, c.conflicts) == (120, 0, 0, 1, 1)
    reader = open_reader(db)
    try:
        assert reader.execute("SELECT count(*) FROM hands").fetchall() == [(120,)]
    finally:
        reader.close()
