"""The dashboard names a database it cannot read for what it is (a SQLite or text file, a
directory, a store of another schema or missing a table) and says what to do, on every page; it
never calls such a file "missing or empty"."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from analytics_testdb import ingested_db
from hostile_store import PAGES
from streamlit.testing.v1 import AppTest

from ingest.schema import SCHEMA_VERSION
from ingest.store import connect

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


def _sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE hands (hand_id TEXT)")
    con.commit()
    con.close()


def _store_with(version: int, drop: str | None) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        made = ingested_db(path.parent / "made", n_hands=4)
        path.write_bytes(made.resolve().read_bytes())
        con = connect(path)
        try:
            con.execute(f"UPDATE ingest_runs SET schema_version = {version}")
            if drop:
                con.execute(f"DROP TABLE {drop}")
        finally:
            con.close()

    return make


CASES: dict[str, tuple[Callable[[Path], object], str]] = {
    "sqlite": (_sqlite, "not a DuckDB store (a SQLite database)"),
    "text": (
        lambda p: p.write_text("hand_id,player\nh1,ann\n"),
        "not a DuckDB store (a text file)",
    ),
    "directory": (lambda p: p.mkdir(), "is a directory, not a DuckDB store"),
    "older": (_store_with(SCHEMA_VERSION - 1, None), "older than the"),
    "newer": (_store_with(SCHEMA_VERSION + 1, None), "newer shengji"),
    "no table": (_store_with(SCHEMA_VERSION, "hand_totals"), "lacks the table(s) hand_totals"),
}


def _plain(text: str) -> str:
    """Markdown as shown: the escapes of `ui.md` removed."""
    return text.replace("\\", "")


@pytest.mark.parametrize("case", list(CASES))
def test_an_unreadable_database_is_a_warning_saying_what_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    make, words = CASES[case]
    path = tmp_path / "x.duckdb"
    make(path)
    monkeypatch.setenv("SHENGJI_DB", str(path))
    for page in PAGES[:-1]:  # the Import page writes; it does not read the store
        at = AppTest.from_file(APP, default_timeout=60)
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        warnings = [_plain(w.value) for w in at.warning]
        assert any(words in w for w in warnings), (page, warnings)
        assert not any("missing or empty" in i.value for i in at.info), page
        if case not in ("sqlite", "text", "directory"):
            assert any("fresh" in w or "upgrade" in w for w in warnings)
