"""The ingest pipeline: counts add up, re-ingest is a no-op, changed hands replace their rows whole.

These tests use `store_factory.fake_replay_line` (small JSON lines whose outcome the test chooses)
so that each scenario is exact and fast; tests/test_ingest_cli.py runs the real replayer.
"""

from __future__ import annotations

import gc
import gzip
import json
from pathlib import Path

import pytest
from store_factory import (
    duplicate_keys,
    fake_replay_line,
    hand_line,
    orphans,
    snapshot,
)

from ingest.pipeline import Chunk, ingest, replay_chunk, summary
from ingest.sources import SourceError
from ingest.store import current_version, open_reader
from shengji.results import HandReplay


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(line + "\n" for line in lines)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(data.encode()))
    else:
        path.write_text(data)
    return path


def _run(paths, db, **kw):
    kw.setdefault("workers", 0)
    kw.setdefault("replay", fake_replay_line)
    return ingest(paths, db, **kw)


def _query(db, sql):
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    _write(
        tmp_path / "in" / "a.jsonl",
        [hand_line(f"a{i}", tricks=4) for i in range(30)]
        + ["", "   ", "not json at all", hand_line("ra", status="rejected", tricks=2)],
    )
    _write(
        tmp_path / "in" / "b.jsonl.gz",
        [hand_line(f"b{i}", tricks=3, status="flagged" if i % 5 == 0 else "ok") for i in range(25)],
    )
    return tmp_path / "in"


def test_counts_add_up_and_every_line_lands(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    result = _run([corpus], db, chunk_lines=7)
    c = result.counts
    assert c.lines_read == 34 + 25
    assert c.blank_lines == 2
    assert (c.status["ok"], c.status["flagged"], c.status["rejected"]) == (50, 5, 2)
    assert c.duplicates == 0 and c.adds_up()
    assert c.inserted == 56  # the bad-JSON line has no key: a rejects row only
    assert c.findings == {"illegal-follow": 5, "bad-json": 1, "not-in-hand": 1}
    assert _query(db, "SELECT status, count(*) FROM hands GROUP BY ALL ORDER BY 1") == [
        ("flagged", 5),
        ("ok", 50),
        ("rejected", 1),
    ]
    assert _query(db, "SELECT line, code, raw FROM rejects ORDER BY line") == [
        (33, "bad-json", "not json at all"),
        (34, "not-in-hand", hand_line("ra", status="rejected", tricks=2)),
    ]
    (run,) = _query(
        db,
        "SELECT lines_read, blank_lines, hands_ok, hands_flagged, hands_rejected, duplicates, "
        "inserted, files FROM ingest_runs",
    )
    assert run == (59, 2, 50, 5, 2, 0, 56, 2)
    assert "50 ok · 5 flagged · 2 rejected" in summary(result)


def test_no_orphans_no_duplicate_keys_and_child_counts(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    _run([corpus], db)
    con = open_reader(db)
    try:
        assert all(n == 0 for n in orphans(con).values()), orphans(con)
        assert all(n == 0 for n in duplicate_keys(con).values())
        # every keyed hand that reached the deal has 4 seats; every trick 4 plays
        assert con.execute("SELECT count(*) FROM seats").fetchall()[0] == (56 * 4,)
        assert con.execute(
            "SELECT count(*) FROM tricks t ANTI JOIN (SELECT source, hand_id, trick FROM plays "
            "GROUP BY ALL HAVING count(*) = 4) p USING (source, hand_id, trick)"
        ).fetchall()[0] == (0,)
    finally:
        con.close()


def test_reingest_changes_nothing(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    _run([corpus], db)
    before = snapshot(db)
    again = _run([corpus / "b.jsonl.gz", corpus], db, workers=2, chunk_lines=4)
    assert snapshot(db) == before
    assert (again.counts.inserted, again.counts.replaced, again.counts.unchanged) == (0, 0, 56)
    assert again.counts.adds_up()
    assert _query(db, "SELECT DISTINCT ingest_run FROM hands") == [(1,)]
    assert _query(db, "SELECT run_id, unchanged FROM ingest_runs ORDER BY 1") == [(1, 0), (2, 56)]


def test_changed_hand_replaces_its_rows_whole(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    path = _write(tmp_path / "a.jsonl", [hand_line("h1", tricks=6), hand_line("h2", tricks=2)])
    _run([path], db)
    assert _query(db, "SELECT count(*) FROM plays WHERE hand_id = 'h1'") == [(24,)]
    _write(path, [hand_line("h1", tricks=2, status="flagged"), hand_line("h2", tricks=2)])
    result = _run([path], db)
    assert (result.counts.replaced, result.counts.unchanged) == (1, 1)
    assert _query(db, "SELECT status, n_tricks, ingest_run FROM hands WHERE hand_id = 'h1'") == [
        ("flagged", 2, 2)
    ]
    # stale tricks 3..6 and their plays are gone, not left behind
    assert _query(db, "SELECT max(trick), count(*) FROM plays WHERE hand_id = 'h1'") == [(2, 8)]
    assert _query(db, "SELECT count(*) FROM findings WHERE hand_id = 'h1'") == [(1,)]
    assert _query(db, "SELECT ingest_run FROM hands WHERE hand_id = 'h2'") == [(1,)]
    con = open_reader(db)
    try:
        assert all(n == 0 for n in orphans(con).values())
        assert all(n == 0 for n in duplicate_keys(con).values())
    finally:
        con.close()


def test_fixed_rejected_line_leaves_rejects(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    path = _write(tmp_path / "a.jsonl", ["{broken", hand_line("h1", status="rejected")])
    _run([path], db)
    assert _query(db, "SELECT count(*) FROM rejects") == [(2,)]
    _write(path, [hand_line("h0"), hand_line("h1")])
    _run([path], db)
    assert _query(db, "SELECT count(*) FROM rejects") == [(0,)]
    assert _query(db, "SELECT hand_id, status FROM hands ORDER BY 1") == [
        ("h0", "ok"),
        ("h1", "ok"),
    ]


def test_same_key_twice_is_stored_once_first_line_wins(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    a = _write(tmp_path / "a.jsonl", [hand_line("h1", tricks=2), hand_line("h2")])
    b = _write(tmp_path / "b.jsonl", [hand_line("h1", tricks=2), hand_line("h1", tricks=5)])
    for workers, chunk in ((0, 1), (2, 1), (0, 100)):
        result = _run([b, a], db, workers=workers, chunk_lines=chunk, fresh=True)
        c = result.counts
        assert (c.duplicates, c.conflicts, c.inserted) == (2, 1, 2)
        assert c.adds_up() and sum(c.status.values()) == 2
        assert _query(db, "SELECT file, line, n_tricks FROM hands WHERE hand_id = 'h1'") == [
            (str(a), 1, 2)
        ]
        assert "1 with different content" in summary(result)


def test_bad_file_in_a_batch_does_not_stop_the_others(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    good = _write(tmp_path / "in" / "a.jsonl", [hand_line(f"a{i}") for i in range(5)])
    # a gzip stream cut short after its first lines: those load, the file gets a file_error row
    whole = gzip.compress("".join(hand_line(f"c{i}") + "\n" for i in range(400)).encode())
    (tmp_path / "in" / "c.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "in" / "d.jsonl").write_bytes(b"\xff\xfe not utf-8\n" + hand_line("d1").encode())
    last = _write(tmp_path / "in" / "z.jsonl.gz", [hand_line(f"z{i}") for i in range(5)])
    result = _run([tmp_path / "in"], db, workers=2, chunk_lines=50)
    c = result.counts
    assert c.file_errors == 1 and c.adds_up()
    loaded = {row[0] for row in _query(db, "SELECT DISTINCT file FROM hands")}
    assert {str(good), str(last)} <= loaded
    assert _query(db, "SELECT count(*) FROM hands WHERE hand_id LIKE 'c%'")[0][0] > 0
    assert _query(db, "SELECT count(*) FROM hands WHERE hand_id = 'd1'") == [(1,)]
    codes = dict(_query(db, "SELECT code, count(*) FROM rejects GROUP BY ALL"))
    assert codes["file_error"] == 1 and codes["bad-json"] == 1
    assert "could not be read to the end: 1" in summary(result)


def test_a_replayer_bug_rejects_the_hand_not_the_run(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    path = _write(tmp_path / "a.jsonl", [hand_line("h1"), json.dumps({"boom": 1}), hand_line("h2")])
    result = _run([path], db)
    assert result.counts.status == {"ok": 2, "rejected": 1}
    assert _query(db, "SELECT line, code FROM rejects") == [(2, "internal")]


def test_workers_do_not_change_the_result(corpus: Path, tmp_path: Path) -> None:
    inline = tmp_path / "one.duckdb"
    pooled = tmp_path / "two.duckdb"
    _run([corpus], inline, workers=0)
    _run([corpus], pooled, workers=2, chunk_lines=3)
    tables = ("seats", "bids", "tricks", "plays", "findings")  # hands/rejects carry the run times
    assert snapshot(inline, tables) == snapshot(pooled, tables)
    q = "SELECT count(*), sum(hash(source, hand_id, status, content_hash, line)) FROM hands"
    assert _query(inline, q) == _query(pooled, q)


def test_a_path_naming_nothing_is_an_error_and_publishes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    with pytest.raises(SourceError, match="nope"):
        _run([tmp_path / "nope"], db)
    assert current_version(db) is None and not db.exists()


def test_empty_file_publishes_an_empty_run(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    path = _write(tmp_path / "e.jsonl", [])
    result = _run([path], db)
    assert result.counts.lines_read == 0 and result.version == 1
    assert _query(db, "SELECT count(*) FROM hands") == [(0,)]
    assert _query(db, "SELECT files, lines_read FROM ingest_runs") == [(1, 0)]


def _must_not_replay(text: str, **_) -> None:
    raise AssertionError(f"replayed a line that is stored as it is: {text[:40]}")


def test_reingest_replays_only_what_is_not_stored_as_it_is(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    first = _run([corpus], db)
    # only the rejected and unreadable lines reach the replayer again: keep those replayable
    (corpus / "a.jsonl").write_text(
        "".join(hand_line(f"a{i}", tricks=4) + "\n" for i in range(30)) + "\n   \n"
    )
    _run([corpus / "a.jsonl"], db, fresh=True)
    again = _run([corpus / "a.jsonl"], db, replay=_must_not_replay)
    assert (again.counts.unchanged, again.counts.status["ok"]) == (30, 30)
    assert again.counts.adds_up() and again.counts.blank_lines == 2
    # flagged hands known from the store report their findings as a replay would
    _run([corpus], db, fresh=True)
    flagged = _run([corpus / "b.jsonl.gz"], db, replay=_must_not_replay)
    assert flagged.counts.findings == {"illegal-follow": 5}
    assert flagged.counts.status == {"ok": 20, "flagged": 5}
    assert first.counts.status["flagged"] == 5


def test_the_same_hand_read_from_another_place_is_rewritten(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    a = _write(tmp_path / "a.jsonl", [hand_line("h1"), hand_line("h2")])
    _run([a], db)
    moved = _write(tmp_path / "moved" / "a.jsonl", ["", hand_line("h1"), hand_line("h2")])
    result = _run([moved], db)
    assert (result.counts.replaced, result.counts.unchanged) == (2, 0)
    assert _query(db, "SELECT file, line FROM hands ORDER BY hand_id") == [
        (str(moved), 2),
        (str(moved), 3),
    ]


def test_first_line_wins_against_a_stored_line_later_in_the_file(tmp_path: Path) -> None:
    for workers, chunk in ((0, 1), (2, 1), (0, 10)):
        db = tmp_path / f"t{workers}{chunk}.duckdb"
        path = _write(tmp_path / "a.jsonl", [hand_line("x"), hand_line("h1", tricks=2)])
        _run([path], db)
        # line 1 now holds a new version of h1; line 2 is still the stored one, byte for byte
        _write(path, [hand_line("h1", tricks=5), hand_line("h1", tricks=2)])
        c = _run([path], db, workers=workers, chunk_lines=chunk).counts
        assert (c.replaced, c.unchanged, c.duplicates, c.conflicts) == (1, 0, 1, 1)
        assert _query(db, "SELECT line, n_tricks FROM hands WHERE hand_id = 'h1'") == [(1, 5)]
        assert c.adds_up()
        # and once more: line 1 is now the stored one, line 2 the duplicate
        c = _run([path], db, workers=workers, chunk_lines=chunk).counts
        assert (c.replaced, c.unchanged, c.duplicates, c.conflicts) == (0, 1, 1, 1)


def test_progress_line_on_request_and_silence_otherwise(
    corpus: Path, tmp_path: Path, capsys
) -> None:
    _run([corpus], tmp_path / "a.duckdb", progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\r") and err.endswith("\n")
    assert "2/2 files · 57 hands · 2 rejected ·" in err
    _run([corpus], tmp_path / "b.duckdb", progress=False)
    assert capsys.readouterr().err == ""


def test_a_chunk_is_replayed_with_the_cycle_collector_paused_and_resumed_after() -> None:
    """`replay_chunk` turns the collector off while it replays (a sixteenth of a worker's
    instructions) and back on after, also when a replay raises; left off if it was off."""
    seen: list[bool] = []

    def replay(text: str, **_: object) -> HandReplay:
        seen.append(gc.isenabled())
        if text == "boom":
            raise RuntimeError("a bug in the replayer")
        return HandReplay("h", "s", "ok", (), 1)

    chunk = Chunk("f.jsonl", 1, [(1, "x"), (2, "boom")])
    assert gc.isenabled()
    batch = replay_chunk(chunk, replay)
    assert seen == [False, False]
    assert gc.isenabled()
    assert batch.status == {"ok": 1, "rejected": 1}
    gc.disable()
    try:
        replay_chunk(chunk, replay)
        assert not gc.isenabled()
    finally:
        gc.enable()
