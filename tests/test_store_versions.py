"""The versioned store with real processes: a killed ingest changes nothing, readers never fail."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest
from store_factory import fake_replay_line, hand_line, snapshot

from ingest import store
from ingest.pipeline import ingest
from ingest.schema import HAND_TABLES, ROLLUP_TABLES
from ingest.store import (
    Layout,
    Publication,
    StoreError,
    copy_version,
    current_version,
    open_reader,
)

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _write(path: Path, ids: range, prefix: str = "h", **fields) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(hand_line(f"{prefix}{i}", **fields) + "\n" for i in ids))
    return path


def _ingest(paths, db, **kw):
    return ingest(paths, db, workers=0, replay=fake_replay_line, **kw)


def _count(db) -> int:
    con = open_reader(db)
    try:
        return con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
    finally:
        con.close()


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


INGEST_SCRIPT = textwrap.dedent(
    """
    import sys
    from store_factory import fake_replay_line
    from ingest.pipeline import ingest
    ingest([sys.argv[1]], sys.argv[2], workers=int(sys.argv[3]), replay=fake_replay_line,
           chunk_lines=5)
    """
)


def test_publish_swaps_the_pointer_and_keeps_one_previous_version(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    layout = Layout(db)
    for n in range(1, 5):
        _ingest([_write(tmp_path / f"in{n}.jsonl", range(n * 10, n * 10 + 3))], db)
        assert current_version(db) == n
        assert os.readlink(db) == f"db/x.{n:06d}.duckdb"  # relative: the folder can move
        assert sorted(layout.versions()) == ([n - 1, n] if n > 1 else [1])
    assert _count(db) == 12


@pytest.mark.parametrize("refused", ["no", "raises", "copies nothing"])
def test_a_version_is_copied_byte_for_byte_and_written_over_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """The next version starts as a copy of the current one (`copy_version`): by
    `copy_file_range` (a reflink where the file system shares blocks), or by `shutil.copyfile`
    where the kernel refuses it or copies nothing, even half-way through, when the copy starts
    afresh."""
    source = tmp_path / "a.bin"
    data = os.urandom(3 * 2**20 + 17)
    source.write_bytes(data)
    calls: list[int] = []
    real = os.copy_file_range

    def copy_range(src: int, dst: int, count: int) -> int:
        calls.append(count)
        if refused == "raises" and len(calls) > 1:
            raise OSError(18, "Invalid cross-device link")
        if refused == "copies nothing" and len(calls) > 1:
            return 0
        return real(src, dst, min(count, 2**20))  # in pieces, as the kernel may

    monkeypatch.setattr(store.os, "copy_file_range", copy_range)
    target = tmp_path / "b.bin"
    target.write_bytes(b"stale bytes of a killed writer" * 10**5)
    copy_version(source, target)
    assert target.read_bytes() == data
    assert len(calls) == (4 if refused == "no" else 2)
    # The copy is a file of its own: writing over it leaves the version it came from unchanged.
    with open(target, "r+b") as fh:
        fh.write(b"x" * 4096)
    assert source.read_bytes() == data


def test_a_store_is_versioned_where_copy_file_range_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(store.os, "copy_file_range")
    db = tmp_path / "x.duckdb"
    for n in range(1, 3):
        _ingest([_write(tmp_path / f"in{n}.jsonl", range(n * 10, n * 10 + 3))], db)
    assert current_version(db) == 2 and _count(db) == 6


def _blocks(db: Path) -> tuple[int, int]:
    con = open_reader(db)
    try:
        total, free = con.execute(
            "SELECT total_blocks, free_blocks FROM pragma_database_size() "
            "WHERE database_name = current_database()"
        ).fetchall()[0]
        return int(total), int(free)
    finally:
        con.close()


def test_a_version_with_many_free_blocks_is_compacted_with_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs into a store leave freed blocks behind (each rewrites the rollups): a version with
    `COMPACT_FREE` of its blocks free is rewritten without them before it is published, every
    table's rows the same as in the version that was not."""
    tables = (*(t.name for t in (*HAND_TABLES, *ROLLUP_TABLES)), "rejects")
    stores = {}
    for share in (2.0, 0.0):  # never, then always
        monkeypatch.setattr(store, "COMPACT_FREE", share)
        db = tmp_path / f"s{int(share)}" / "x.duckdb"
        db.parent.mkdir()
        for n in range(4):
            _ingest([_write(tmp_path / f"in{n}.jsonl", range(n * 10, n * 10 + 8))], db)
        stores[share] = db
    grown, compacted = stores[2.0], stores[0.0]
    assert snapshot(grown, tables) == snapshot(compacted, tables)
    assert _blocks(grown)[1] > 0 and _blocks(compacted)[1] == 0
    assert compacted.resolve().stat().st_size < grown.resolve().stat().st_size
    assert current_version(compacted) == 4 and sorted(Layout(compacted).versions()) == [3, 4]


def test_a_failed_compaction_publishes_the_version_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(5))], db)
    monkeypatch.setattr(store, "COMPACT_FREE", 0.0)
    connect = duckdb.connect

    def refused(path: str, *args: object, **kw: object) -> duckdb.DuckDBPyConnection:
        if str(path).endswith(store.COMPACT_SUFFIX):
            raise duckdb.IOException("disk full")
        return connect(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store.duckdb, "connect", refused)
    _ingest([_write(tmp_path / "b.jsonl", range(10, 13))], db)
    assert current_version(db) == 2 and _count(db) == 8


def test_a_killed_writers_compacted_copy_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No compaction in this run: its own clean-up must not be what removes the copy.
    monkeypatch.setattr(store, "COMPACT_FREE", 2.0)
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(5))], db)
    layout = Layout(db)
    left = [layout.version_path(2), Path(str(layout.version_path(2)) + ".compact")]
    for p in left:
        p.write_bytes(b"half-written")
    _ingest([_write(tmp_path / "b.jsonl", range(10, 13))], db)
    assert current_version(db) == 2 and _count(db) == 8
    assert not Path(str(layout.version_path(2)) + ".compact").exists()


def test_a_reader_keeps_its_version_while_newer_ones_are_published(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(5))], db)
    con = open_reader(db)
    try:
        for n in range(3):  # the reader's version is deleted after the second publication
            _ingest([_write(tmp_path / f"b{n}.jsonl", range(100 + 10 * n, 110 + 10 * n))], db)
        assert con.execute("SELECT count(*) FROM plays").fetchall()[0] == (5 * 3 * 4,)
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0] == (5,)
    finally:
        con.close()
    assert _count(db) == 35


def test_a_failed_write_leaves_the_database_as_before(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(5))], db)
    before = snapshot(db)
    with pytest.raises(RuntimeError, match="half-way"), Publication(db) as pub:
        pub.con.execute("DELETE FROM hands")
        raise RuntimeError("half-way")
    assert snapshot(db) == before and current_version(db) == 1
    assert sorted(Layout(db).versions()) == [1]


def test_a_plain_database_file_is_taken_over(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(5))], db)
    plain = tmp_path / "plain.duckdb"
    plain.write_bytes(db.resolve().read_bytes())
    db.unlink()
    os.replace(plain, db)
    assert current_version(db) == 0 and _count(db) == 5
    _ingest([_write(tmp_path / "b.jsonl", range(10, 13))], db)
    assert db.is_symlink() and current_version(db) == 1 and _count(db) == 8


def test_open_reader_without_a_database_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="shengji ingest"):
        open_reader(tmp_path / "none.duckdb")
    assert current_version(tmp_path / "none.duckdb") is None


def test_killed_ingest_leaves_the_database_as_before_and_a_rerun_completes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(20))], db)
    before = snapshot(db)
    big = _write(tmp_path / "big.jsonl", range(1000, 1400), tricks=2)
    proc = subprocess.Popen(
        [sys.executable, "-c", INGEST_SCRIPT, str(big), str(db), "1"],
        env=_env(STORE_TEST_REPLAY_DELAY="0.01"),  # ~4 s of replay: killed well before the end
        cwd=tmp_path,
        start_new_session=True,
        stderr=subprocess.PIPE,
    )
    try:
        pending = Layout(db).version_path(2)
        deadline = time.monotonic() + 60
        while not pending.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pending.exists(), proc.stderr.read() if proc.poll() is not None else "no writer"
        time.sleep(1.0)  # let it merge some batches into the new version
        assert proc.poll() is None, "the ingest finished before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the ingest and its worker processes
        proc.wait()
        proc.stderr.close()
    assert current_version(db) == 1
    assert snapshot(db) == before
    result = _ingest([big], db)
    assert result.version == 2 and result.counts.inserted == 400
    assert _count(db) == 420
    assert sorted(Layout(db).versions()) == [1, 2]


READER_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from ingest.store import current_version, open_reader
    db, stop = sys.argv[1], Path(sys.argv[2])
    seen, counts, errors, queries = set(), [], [], 0
    print("ready", flush=True)
    while not stop.exists():
        try:
            con = open_reader(db)
            try:
                n = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
                con.execute("SELECT count(*) FROM plays p JOIN hands h USING (source, hand_id)").fetchall()
            finally:
                con.close()
            counts.append(n)
            seen.add(current_version(db))
            queries += 1
        except Exception as e:
            errors.append(repr(e))
    print(json.dumps({"queries": queries, "versions": sorted(seen), "counts": counts,
                      "errors": errors[:5]}))
    """
)


def test_a_reader_querying_in_a_loop_never_fails_while_ingests_publish(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(10))], db)
    stop = tmp_path / "stop"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER_SCRIPT, str(db), str(stop)],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout.readline().strip() == "ready"
        for n in range(4):
            path = _write(tmp_path / f"b{n}.jsonl", range(100 * (n + 1), 100 * (n + 1) + 50))
            proc = subprocess.run(
                [sys.executable, "-c", INGEST_SCRIPT, str(path), str(db), "1"],
                env=_env(),
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert proc.returncode == 0, proc.stderr
    finally:
        stop.touch()
        out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["errors"] == [], report["errors"]
    assert report["queries"] > 0
    assert report["counts"] == sorted(report["counts"])  # never a half state, never going back
    assert set(report["counts"]) <= {10, 60, 110, 160, 210}


def test_two_writers_take_turns(tmp_path: Path) -> None:
    """A second ingest waits for the first (flock) instead of losing its rows to a race."""
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(3))], db)
    paths = [_write(tmp_path / f"w{n}.jsonl", range(100 * n, 100 * n + 40)) for n in (1, 2)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", INGEST_SCRIPT, str(p), str(db), "0"],
            env=_env(STORE_TEST_REPLAY_DELAY="0.005"),
            cwd=tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in paths
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert _count(db) == 83 and current_version(db) == 3


def test_duckdb_refuses_a_second_process_on_a_written_file(tmp_path: Path) -> None:
    """Why the store is versioned at all: with a writer holding a file, nobody else may open it."""
    path = tmp_path / "plain.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (x INTEGER)")
    try:
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import duckdb; duckdb.connect({str(path)!r}, read_only=True)",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert probe.returncode != 0 and "lock" in probe.stderr.lower()
    finally:
        con.close()


def test_a_store_error_mid_run_is_reported_and_publishes_nothing(
    tmp_path: Path, monkeypatch
) -> None:
    db = tmp_path / "x.duckdb"
    _ingest([_write(tmp_path / "a.jsonl", range(5))], db)
    before = snapshot(db)

    def disk_full(self, batch, known=None):
        raise duckdb.IOException("no space left on device")

    monkeypatch.setattr("ingest.merge.Merger.apply", disk_full)
    with pytest.raises(StoreError, match="no space left"):
        _ingest([_write(tmp_path / "b.jsonl", range(10, 20))], db)
    assert snapshot(db) == before and current_version(db) == 1
    assert sorted(Layout(db).versions()) == [1]


def test_a_database_of_another_schema_version_asks_for_fresh(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    src = _write(tmp_path / "a.jsonl", range(3))
    _ingest([src], db)
    con = duckdb.connect(str(db.resolve()))  # only a test may write a published version
    con.execute("UPDATE ingest_runs SET schema_version = schema_version - 1")
    con.close()
    with pytest.raises(StoreError, match="--fresh"):
        _ingest([src], db)
    assert current_version(db) == 1 and sorted(Layout(db).versions()) == [1]
    assert _ingest([src], db, fresh=True).counts.inserted == 3
