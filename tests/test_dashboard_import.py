"""The Import page: where uploads are saved and what the page says."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from analytics_testdb import corpus_lines
from streamlit.testing.v1 import AppTest

from dashboard.uploads import MAX_NAME, stored_name

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
