"""The store against hostile paths and failing writes (issue 34's second campaign): long keys,
a batch DuckDB cannot take, foreign database files, linked stores, a full disk, a read-only file
system, and readers of a store of another schema."""

from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest
from store_factory import fake_replay_line, hand_line, snapshot

from bench.campaign import sample_lines
from ingest import merge, store
from ingest.pipeline import ingest
from ingest.schema import MAX_ID_CHARS, MAX_TEXT_CHARS, SCHEMA_VERSION
from ingest.store import (
    StoreError,
    check_file,
    connect,
    current_version,
    open_reader,
    resolve_pointer,
)

ROOT = Path(__file__).resolve().parent.parent


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _fake_store(tmp_path: Path, n: int = 6, name: str = "t.duckdb") -> Path:
    db = tmp_path / name
    src = _write(tmp_path / f"in-{name}" / "a.jsonl", [hand_line(f"h{i}") for i in range(n)])
    ingest([src], db, workers=0, replay=fake_replay_line)
    return db


# --- 1. long keys, and a batch DuckDB cannot take -----------------------------------------------


def _long_key_line(text: str, field: str, size: int) -> str:
    h = json.loads(text)
    if field == "players":
        h["players"][1] = "p" * size
    else:
        h[field] = "k" * size
    return json.dumps(h, separators=(",", ":"))


def test_long_keys_are_rejected_naming_the_field_and_the_run_keeps_the_rest(
    tmp_path: Path,
) -> None:
    """Three sample hands whose hand_id is 1,020,000 characters (each line just under the 1 MiB
    line limit) made the writer fail ("failed to pin block") and store nothing."""
    good = sample_lines()[:40]
    lines = good[:20] + [_long_key_line(t, "hand_id", 1_020_000) for t in good[20:23]]
    lines += [_long_key_line(good[23], "match_id", MAX_ID_CHARS + 1)]
    lines += [_long_key_line(good[24], "players", 5_000), _long_key_line(good[25], "source", 300)]
    lines += good[26:]
    db = tmp_path / "t.duckdb"
    result = ingest([_write(tmp_path / "in" / "a.jsonl", lines)], db, workers=0)
    assert result.counts.adds_up()
    stored = {h for (h,) in _rows(db, "SELECT hand_id FROM hands")}
    assert stored == {json.loads(t)["hand_id"] for t in good[:20] + good[26:]}
    rejects = _rows(db, "SELECT line, code, reason, hand_id FROM rejects ORDER BY line")
    assert [(line, code) for line, code, _, _ in rejects] == [
        (n, "bad_record") for n in range(21, 27)
    ]
    fields = [reason.split(":")[0] for _, _, reason, _ in rejects]
    assert fields == ["hand_id"] * 3 + ["match_id", "players[1]", "source"]
    assert "1,020,000 characters" in rejects[0][2]
    assert all(len(reason) < 200 and hand_id is None for _, _, reason, hand_id in rejects)


def test_a_long_reason_is_stored_cut(tmp_path: Path) -> None:
    h = json.loads(sample_lines()[0])
    h["plays"][0]["cards"] = "Z" * 300_000
    db = tmp_path / "t.duckdb"
    ingest([_write(tmp_path / "in" / "a.jsonl", [json.dumps(h)])], db, workers=0)
    ((reason,),) = _rows(db, "SELECT reason FROM rejects")
    assert len(reason) <= MAX_TEXT_CHARS and reason.endswith("(cut: 300,031 characters)")


class _Poisoned:
    """A connection on which DuckDB fails whenever a batch holds a hand whose id starts with
    `poison` (`times` times at most), as it did with the long keys."""

    def __init__(self, con: duckdb.DuckDBPyConnection, times: int) -> None:
        self.con = con
        self.left = times

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)

    def from_arrow(self, table: Any) -> Any:
        if (
            self.left
            and "hand_id" in table.column_names
            and any(str(h).startswith("poison") for h in table["hand_id"].to_pylist())
        ):
            self.left -= 1
            raise duckdb.OutOfMemoryException("failed to pin block of size 256.0 KiB")
        return self.con.from_arrow(table)


def _poison(monkeypatch: pytest.MonkeyPatch, times: int) -> None:
    real = merge.Merger.__init__

    def init(self: merge.Merger, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        real(self, con, run_id)
        self.con = _Poisoned(con, times)  # type: ignore[assignment]

    monkeypatch.setattr(merge.Merger, "__init__", init)


def _three_files(tmp_path: Path) -> list[Path]:
    a = _write(tmp_path / "in" / "a.jsonl", [hand_line(f"a{i}") for i in range(12)])
    b = _write(
        tmp_path / "in" / "b.jsonl", [hand_line(f"poison{i}") for i in range(3)] + ["not json"]
    )
    c = _write(tmp_path / "in" / "c.jsonl", [hand_line(f"c{i}") for i in range(12)])
    return [a, b, c]


def test_a_batch_duckdb_cannot_take_loses_none_of_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _poison(monkeypatch, times=1_000)
    db = tmp_path / "t.duckdb"
    result = ingest(_three_files(tmp_path), db, workers=0, replay=fake_replay_line)
    assert result.counts.adds_up() and result.counts.findings["internal"] == 4
    assert {h for (h,) in _rows(db, "SELECT hand_id FROM hands")} == {
        *(f"a{i}" for i in range(12)),
        *(f"c{i}" for i in range(12)),
    }
    rejects = _rows(db, "SELECT file, line, code, reason FROM rejects ORDER BY line")
    assert [(Path(f).name, n, code) for f, n, code, _ in rejects] == [
        ("b.jsonl", n, "internal") for n in (1, 2, 3, 4)
    ]
    assert "failed to pin block" in rejects[0][3]


def test_a_batch_that_failed_once_is_stored_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _poison(monkeypatch, times=1)
    db = tmp_path / "t.duckdb"
    result = ingest(_three_files(tmp_path), db, workers=0, replay=fake_replay_line)
    assert result.counts.adds_up() and result.counts.inserted == 27
    assert _rows(db, "SELECT count(*) FROM hands") == [(27,)]
    assert _rows(db, "SELECT line, code FROM rejects") == [(4, "bad-json")]  # fake_replay_line


def test_no_room_to_keep_batches_aside_commits_them_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: Any, **kw: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(merge.pickle, "dump", full)
    db = tmp_path / "t.duckdb"
    result = ingest(_three_files(tmp_path)[::2], db, workers=0, replay=fake_replay_line)
    assert result.counts.inserted == 24 and _rows(db, "SELECT count(*) FROM hands") == [(24,)]


class _CommitEndsTransaction:
    """A commit that fails after DuckDB has ended the transaction: a rollback then fails too."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)

    def commit(self) -> None:
        self.con.rollback()
        raise duckdb.OutOfMemoryException("failed to pin block: 243.2/244.1 MiB used")


def test_the_first_error_is_reported_not_the_rollbacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _fake_store(tmp_path)
    before = snapshot(db)
    monkeypatch.setattr(merge, "COMMIT_BYTES", 1)
    real = merge.Merger.__init__

    def init(self: merge.Merger, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        real(self, con, run_id)
        self.con = _CommitEndsTransaction(con)  # type: ignore[assignment]

    monkeypatch.setattr(merge.Merger, "__init__", init)
    src = _write(tmp_path / "in2" / "b.jsonl", [hand_line(f"b{i}") for i in range(5)])
    with pytest.raises(StoreError) as e:
        ingest([src], db, workers=0, replay=fake_replay_line)
    assert "failed to pin block" in str(e.value)
    assert "rollback" not in str(e.value)
    assert snapshot(db) == before and current_version(db) == 1


# --- 3. foreign database files: checked before DuckDB opens them, no extension fetched ----------


def _sqlite(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE hands (hand_id TEXT)")
    con.commit()
    con.close()
    return path


def test_every_connection_refuses_to_install_or_load_extensions(tmp_path: Path) -> None:
    con = connect()
    try:
        assert con.execute(
            "SELECT current_setting('autoinstall_known_extensions'), "
            "current_setting('autoload_known_extensions')"
        ).fetchall() == [(False, False)]
        with pytest.raises(duckdb.Error, match=r"(?i)install"):
            con.execute(f"ATTACH '{_sqlite(tmp_path / 'x.db')}' AS s (TYPE sqlite)")
    finally:
        con.close()


def test_no_module_opens_duckdb_but_through_store_connect() -> None:
    """`duckdb.connect(` (or the module's default connection) anywhere else would open a
    connection that may fetch extensions."""
    offenders = []
    for folder in ("ingest", "analytics", "dashboard", "bench", "shengji"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text()
            opens = re.search(r"duckdb\.(connect|sql|query|execute|read_\w+|from_\w+)\(", text)
            if opens and path != ROOT / "ingest" / "store.py":
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: _sqlite(p), "is not a DuckDB store (a SQLite database)"),
        (lambda p: p.write_text("hand_id,player\nh1,ann\n"), "is not a DuckDB store (a text file)"),
        (lambda p: p.write_bytes(b""), "is not a DuckDB store (an empty file)"),
        (lambda p: p.write_bytes(bytes(range(256))), "is not a DuckDB store (of unknown content)"),
        (lambda p: p.mkdir(), "is a directory, not a DuckDB store"),
    ],
)
def test_a_path_that_is_not_a_store_is_named_for_what_it_is(
    tmp_path: Path, make: Any, words: str
) -> None:
    path = tmp_path / "x.duckdb"
    make(path)
    with pytest.raises(StoreError, match=words.replace("(", r"\(").replace(")", r"\)")):
        check_file(path)
    with pytest.raises(StoreError, match="not a DuckDB store"):
        open_reader(path)
    src = _write(tmp_path / "in" / "a.jsonl", [hand_line("h1")])
    with pytest.raises(StoreError, match="not a DuckDB store"):
        ingest([src], path, workers=0, replay=fake_replay_line)
    with pytest.raises(StoreError, match="not a DuckDB store"):
        ingest([src], path, workers=0, replay=fake_replay_line, fresh=True)
    assert path.exists() and not path.is_symlink()
    assert not (tmp_path / "db").exists()  # nothing written, not even the writer's lock


# --- 4. file system errors while writing: exit 3 with the reason, the store intact --------------


def test_a_full_disk_during_the_version_copy_is_a_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _fake_store(tmp_path)
    before = snapshot(db)

    def full(source: Path, target: Path) -> None:
        target.write_bytes(b"partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store, "copy_version", full)
    src = _write(tmp_path / "in2" / "b.jsonl", [hand_line("b1")])
    with pytest.raises(StoreError, match="No space left on device"):
        ingest([src], db, workers=0, replay=fake_replay_line)
    assert snapshot(db) == before and current_version(db) == 1
    assert sorted(p.name for p in (tmp_path / "db").glob("*.duckdb")) == ["t.000001.duckdb"]


def test_a_read_only_file_system_is_a_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _fake_store(tmp_path)
    before = snapshot(db)
    real_open = open

    def read_only(file: Any, mode: str = "r", *args: Any, **kw: Any) -> Any:
        if str(file).endswith(".lock"):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(file))
        return real_open(file, mode, *args, **kw)

    monkeypatch.setattr("builtins.open", read_only)
    src = _write(tmp_path / "in2" / "b.jsonl", [hand_line("b1")])
    with pytest.raises(StoreError, match="Read-only file system"):
        ingest([src], db, workers=0, replay=fake_replay_line)
    monkeypatch.undo()
    assert snapshot(db) == before and current_version(db) == 1


def test_a_failure_to_switch_the_pointer_is_a_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _fake_store(tmp_path)
    before = snapshot(db)

    def no_room(*args: Any, **kw: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store.os, "symlink", no_room)
    src = _write(tmp_path / "in2" / "b.jsonl", [hand_line("b1")])
    with pytest.raises(StoreError, match="No space left on device"):
        ingest([src], db, workers=0, replay=fake_replay_line)
    monkeypatch.undo()
    assert snapshot(db) == before and current_version(db) == 1


# --- 8. a store behind a symbolic link of the user's ---------------------------------------------


def test_a_linked_store_is_written_where_the_link_leads_and_the_link_kept(tmp_path: Path) -> None:
    real = _fake_store(tmp_path / "other", n=6, name="real.duckdb")
    link = tmp_path / "lnk.duckdb"
    link.symlink_to(os.path.relpath(real, tmp_path))
    assert resolve_pointer(link) == link.parent / os.readlink(link)
    assert current_version(link) == 1
    src = _write(tmp_path / "in" / "b.jsonl", [hand_line(f"b{i}") for i in range(4)])
    result = ingest([src], link, workers=0, replay=fake_replay_line)
    assert result.version == 2 and result.counts.inserted == 4
    assert os.readlink(link) == os.path.relpath(real, tmp_path)  # the user's link as it was
    assert _rows(link, "SELECT count(*) FROM hands") == [(10,)]
    assert _rows(real, "SELECT count(*) FROM hands") == [(10,)]
    assert current_version(link) == current_version(real) == 2


def test_a_link_to_a_plain_store_file_is_followed(tmp_path: Path) -> None:
    made = _fake_store(tmp_path / "a")
    plain = tmp_path / "plain.duckdb"
    plain.write_bytes(made.resolve().read_bytes())
    link = tmp_path / "lnk.duckdb"
    link.symlink_to(plain)
    src = _write(tmp_path / "in" / "b.jsonl", [hand_line("b1")])
    ingest([src], link, workers=0, replay=fake_replay_line)
    assert link.is_symlink() and os.readlink(link) == str(plain)
    assert _rows(link, "SELECT count(*) FROM hands") == [(7,)]


def test_a_link_into_another_stores_versions_is_refused(tmp_path: Path) -> None:
    db = _fake_store(tmp_path)
    before = snapshot(db)
    link = tmp_path / "lnk.duckdb"
    link.symlink_to(db.resolve())
    src = _write(tmp_path / "in" / "b.jsonl", [hand_line("b1")])
    with pytest.raises(StoreError, match="a published version of the store"):
        ingest([src], link, workers=0, replay=fake_replay_line)
    assert snapshot(db) == before and link.is_symlink()


def test_a_link_loop_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    a.symlink_to(b)
    b.symlink_to(a)
    src = _write(tmp_path / "in" / "b.jsonl", [hand_line("b1")])
    with pytest.raises(StoreError, match="symbolic links"):
        ingest([src], a, workers=0, replay=fake_replay_line)


# --- 9. readers check the schema ---------------------------------------------------------------


def _set_schema_version(db: Path, version: int, drop: str | None = None) -> Path:
    """A copy of the store as a plain file, with its runs' schema version changed."""
    plain = db.parent / f"v{version}.duckdb"
    plain.write_bytes(db.resolve().read_bytes())
    con = duckdb.connect(str(plain))
    try:
        con.execute(f"UPDATE ingest_runs SET schema_version = {version}")
        if drop:
            con.execute(f"DROP TABLE {drop}")
    finally:
        con.close()
    return plain


@pytest.mark.parametrize(
    ("version", "drop", "words"),
    [
        (SCHEMA_VERSION - 4, "seat_totals", "older than the"),
        (SCHEMA_VERSION + 1, None, "newer shengji"),
        (SCHEMA_VERSION, "seat_totals", "lacks the table(s) seat_totals"),
    ],
)
def test_a_reader_says_what_to_do_with_a_store_of_another_schema(
    tmp_path: Path, version: int, drop: str | None, words: str
) -> None:
    plain = _set_schema_version(_fake_store(tmp_path), version, drop)
    with pytest.raises(StoreError) as e:
        open_reader(plain)
    assert words in str(e.value) and "--fresh" in str(e.value)
    open_reader(plain, check=False).close()


def test_a_duckdb_file_that_is_no_hand_store_is_named(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    with pytest.raises(StoreError, match="not a hand store"):
        open_reader(path)


# --- the commands: exit 3 with the reason, never "internal error" ------------------------------


def _main(*args: str) -> int:
    from analytics.cli import main

    return main(list(args))


@pytest.mark.parametrize("command", ["report", "export", "ingest"])
def test_a_foreign_file_or_a_directory_as_db_exits_3_with_the_reason(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path / "in" / "a.jsonl", [hand_line("h1")])
    extra = {
        "report": [],
        "export": ["--parquet", str(tmp_path / "out")],
        "ingest": [str(src), "--workers", "0"],
    }[command]
    folder = tmp_path / "folder"
    folder.mkdir()
    for path, words in [
        (_sqlite(tmp_path / "s.db"), "is not a DuckDB store (a SQLite database)"),
        (folder, "is a directory, not a DuckDB store"),
    ]:
        assert _main(command, *extra, "--db", str(path)) == 3
        err = capsys.readouterr().err
        assert words in err and "internal error" not in err


def test_a_full_disk_and_a_read_only_file_system_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _fake_store(tmp_path)
    before = snapshot(db)
    src = _write(tmp_path / "in2" / "b.jsonl", [hand_line("b1")])

    def full(source: Path, target: Path) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store, "copy_version", full)
    assert _main("ingest", str(src), "--db", str(db), "--workers", "0") == 3
    err = capsys.readouterr().err
    assert "No space left on device" in err and "internal error" not in err
    monkeypatch.undo()

    def read_only(path: Any, *args: Any, **kw: Any) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(store.Path, "mkdir", read_only)
    assert _main("ingest", str(src), "--db", str(db), "--workers", "0") == 3
    err = capsys.readouterr().err
    assert "Read-only file system" in err and "internal error" not in err
    monkeypatch.undo()
    assert snapshot(db) == before and current_version(db) == 1


def test_report_and_export_name_a_store_of_another_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _set_schema_version(_fake_store(tmp_path), 9, drop="seat_totals")
    assert _main("report", "--db", str(old)) == 3
    assert "schema version 9" in capsys.readouterr().err
    assert _main("export", "--parquet", str(tmp_path / "out"), "--db", str(old)) == 3
    err = capsys.readouterr().err
    assert "schema version 9" in err and "Catalog Error" not in err
