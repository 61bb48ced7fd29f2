"""The Import page: where uploads are saved and what the page says."""

from __future__ import annotations

import os
import time
from pathlib import Path

import duckdb
import pytest
from analytics_testdb import corpus_lines
from streamlit.testing.v1 import AppTest

from dashboard import uploads
from dashboard.uploads import MAX_NAME, Outcome, expire, stored_name, verdict

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


def test_names_that_clean_alike_stay_apart() -> None:
    a, b = stored_name("ü.jsonl", b"one"), stored_name("ö.jsonl", b"two")
    assert a and b and a != b
    assert a.endswith(".jsonl") and a.isascii()
    # The same content under the same name keeps one name: uploading it again changes nothing.
    assert stored_name("ü.jsonl", b"one") == a


def test_the_suffix_is_checked_before_a_long_name_is_cut() -> None:
    for suffix in (".jsonl", ".jsonl.gz", ".JSONL.GZ"):
        name = stored_name("n" * 300 + suffix, b"x")
        assert name is not None and len(name) <= MAX_NAME
        assert name.endswith(suffix.lower())
    assert stored_name("README.md", b"x") is None
    assert stored_name("hands.gz", b"x") is None
    assert stored_name("../../etc/x.jsonl", b"x") == stored_name("etc_x.jsonl", b"x")


def _lines(prefix: str, seed: int) -> bytes:
    lines = corpus_lines(2, seed=seed)[:2]
    return (
        "\n".join(line.replace('"hand_id":"g', f'"hand_id":"{prefix}') for line in lines) + "\n"
    ).encode()


def test_two_uploads_whose_names_clean_alike_are_both_ingested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "db" / "tractor.duckdb"
    monkeypatch.setenv("SHENGJI_DB", str(target))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("views/import_files.py").run()
    at.file_uploader(key="im_files").set_value(
        [
            ("ü.jsonl", _lines("u", 5), "application/json"),
            ("ö.jsonl", _lines("o", 6), "application/json"),
        ]
    )
    at.run()
    at.button(key="im_go").click().run()
    _finish(at)
    assert not at.exception and not at.error
    assert at.success and "ingested 2 file(s)" in at.code[0].value
    saved = sorted(p.name for p in (target.parent / "uploads").rglob("*.jsonl"))
    assert len(saved) == 2, saved
    con = duckdb.connect(str(target.resolve()), read_only=True)
    try:
        ids = sorted(h for (h,) in con.sql("SELECT hand_id FROM hands").fetchall())
        files = {f for (f,) in con.sql("SELECT DISTINCT file FROM hands").fetchall()}
    finally:
        con.close()
    assert [i[0] for i in ids] == ["o", "o", "u", "u"], ids
    assert len(files) == 2


def test_no_stray_text_above_the_title(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(tmp_path / "none.duckdb"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("views/import_files.py").run()
    assert not at.exception
    main = [m.value for m in at.main.markdown]
    assert not any("club night" in m for m in main), main
    assert at.title[0].value == "Import"


def _finish(at: AppTest, limit_s: float = 300) -> None:
    """Rerun the page until the import it started has finished (the page polls it every second in
    a browser; AppTest does not run timers). The limit only stops a broken test from hanging."""
    deadline = time.monotonic() + limit_s
    while _has_cancel(at):
        assert time.monotonic() < deadline, "the import did not finish"
        time.sleep(0.2)
        at.run()


def _has_cancel(at: AppTest) -> bool:
    return any(b.key == "im_cancel" for b in at.button)


def _import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: list[tuple[str, bytes]]):
    target = tmp_path / "db" / "tractor.duckdb"
    monkeypatch.setenv("SHENGJI_DB", str(target))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("views/import_files.py").run()
    at.file_uploader(key="im_files").set_value(
        [(name, data, "application/json") for name, data in files]
    )
    at.run()
    at.button(key="im_go").click().run()
    return at, target


def test_a_garbage_file_is_an_error_naming_what_was_rejected_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at, _ = _import(tmp_path, monkeypatch, [("junk.jsonl", b"not json\n{also not\n")])
    _finish(at)
    assert not at.exception
    assert not at.success, [s.value for s in at.success]
    (error,) = at.error
    assert error.value == "Nothing stored: 2 line(s) rejected (could not be replayed)."
    assert any("`bad_json` 2" in m.value for m in at.markdown)
    (frame,) = at.dataframe
    table = frame.value
    assert list(table["line"]) == [1, 2] and set(table["code"]) == {"bad_json"}
    assert "0 ok · 0 flagged · 2 rejected" in at.code[0].value


def test_some_hands_stored_and_some_rejected_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # corpus_lines: 3 legal hands, one flagged, one rejected with its key, one line not JSON
    data = ("\n".join(corpus_lines(3, seed=8)) + "\n").encode()
    at, _ = _import(tmp_path, monkeypatch, [("mixed.jsonl", data)])
    _finish(at)
    assert not at.exception and not at.success and not at.error
    (warning,) = at.warning
    assert warning.value.startswith("4 hand(s) stored, 1 of them flagged")
    assert "But 2 line(s) rejected" in warning.value
    # Imported again: nothing new, still said so, still not green.
    at.file_uploader(key="im_files").set_value([("mixed.jsonl", data, "application/json")])
    at.run()
    at.button(key="im_go").click().run()
    _finish(at)
    assert not at.success
    assert "Nothing changed" in at.warning[0].value


def test_the_import_runs_in_its_own_bounded_process_and_can_be_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = ("\n".join(corpus_lines(300, seed=9)) + "\n").encode()
    at, target = _import(tmp_path, monkeypatch, [("big.jsonl", data)])
    # The page's run has returned while the import goes on elsewhere: a progress bar and Cancel.
    assert not at.exception and _has_cancel(at)
    assert at.get("progress")
    (folder,) = [Path(f) for f in uploads._CHILDREN if f.startswith(str(tmp_path))]
    child = uploads._CHILDREN[str(folder)]
    assert child.pid != os.getpid()
    # Popen returns once the child is forked, before `nice` has run in it: ask until it has.
    deadline = time.monotonic() + 30
    while (
        os.getpriority(os.PRIO_PROCESS, child.pid) < uploads.JOB_NICE
        and child.poll() is None
        and time.monotonic() < deadline
    ):
        time.sleep(0.01)
    assert os.getpriority(os.PRIO_PROCESS, child.pid) >= uploads.JOB_NICE
    at.button(key="im_cancel").click().run()
    assert not at.exception and not _has_cancel(at)
    assert "Import cancelled" in at.warning[0].value
    assert child.poll() is not None
    assert uploads.read_status(folder)["state"] == "cancelled"
    # The store is as it was: nothing was published.
    assert not target.exists()


def test_a_job_that_dies_is_reported_with_its_log(tmp_path: Path) -> None:
    folder = tmp_path / "job"
    folder.mkdir()
    uploads.start(folder, [folder / "missing.jsonl"], tmp_path / "t.duckdb")
    child = uploads._CHILDREN[str(folder)]
    child.wait()
    status = uploads.status(folder)
    assert status["state"] == "error" and "missing.jsonl" in status["message"]
    # killed from outside before it wrote an outcome: failed, with its exit status
    uploads.write_status(folder, {"state": "running"})
    uploads.start(folder, [folder / "missing.jsonl"], tmp_path / "t.duckdb")
    child = uploads._CHILDREN[str(folder)]
    child.kill()
    child.wait()
    uploads.write_status(folder, {"state": "running"})
    status = uploads.status(folder)
    assert status["state"] == "failed" and "exit status -9" in status["message"]


def test_the_verdict_is_green_only_when_hands_were_stored_without_rejects() -> None:
    new = {"inserted": 5, "lines": 5}
    assert verdict(Outcome(ok=5, **new)) == (
        "success",
        "5 hand(s) stored. Every page now shows the new data.",
    )
    assert verdict(Outcome(ok=3, flagged=2, **new)) == (
        "success",
        "5 hand(s) stored, 2 of them flagged (replayed, with findings). Every page now shows the "
        "new data.",
    )
    assert verdict(Outcome(ok=5, rejected=1, **new))[0] == "warning"
    assert verdict(Outcome(ok=5, file_errors=1, **new))[0] == "warning"
    assert verdict(Outcome(ok=5, timeouts=1, **new))[0] == "warning"
    assert verdict(Outcome(ok=5, unchanged=5, lines=5)) == (
        "info",
        "5 hand(s) stored. Nothing changed: every hand was stored already as it is.",
    )
    assert verdict(Outcome(rejected=2, lines=2)) == (
        "error",
        "Nothing stored: 2 line(s) rejected (could not be replayed).",
    )
    assert verdict(Outcome()) == ("error", "Nothing stored: the files hold no line.")


def test_saved_uploads_expire_by_age_then_by_size_and_never_during_an_import(
    tmp_path: Path,
) -> None:
    root = tmp_path / "uploads"
    (root / "jobs").mkdir(parents=True)
    now = 1_000_000_000.0
    day = 86400

    def aged(path: Path, days: float) -> Path:
        os.utime(path, (now - days * day, now - days * day))
        return path

    def upload(name: str, days: float, mb: float) -> Path:
        path = root / name
        path.write_bytes(b"x" * int(mb * 2**20))
        return aged(path, days)

    def job(name: str, days: float, state: str) -> Path:
        folder = root / "jobs" / name
        folder.mkdir()
        uploads.write_status(folder, {"state": state})
        return aged(folder, days)

    old = upload("old.jsonl", 40, 0.1)
    big = upload("big.jsonl.gz", 10, 2)
    mid = upload("mid.jsonl", 5, 1)
    new = upload("new.jsonl", 1, 1)
    old_job = job("old", 40, "done")
    running = job("now", 0, "running")
    assert expire(root, now=now, keep_days=30, keep_mb=2.5) == []  # an import is running
    uploads.write_status(running, {"state": "done"})
    aged(running, 0)
    assert expire(root, now=now, keep_days=30, keep_mb=2.5) == [old_job, old, big]
    assert mid.exists() and new.exists() and running.exists()
