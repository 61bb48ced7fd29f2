"""The analysis pages under AppTest (Overview, Bottom capture, Throws, Trump length, Players,
Explorer, Audit), against a store made by the real ingest from legal random hands plus an
unreadable line and a hand broken at trick 4: page choices live in the URL, no table shows
`None`, the counts say what the CLI says, every table and chart opens the hands it counts."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import duckdb
import pytest
from analytics_testdb import corpus_lines
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ingest.pipeline import ingest

    folder = Path(tmp_path_factory.mktemp("analysis"))
    lines = corpus_lines(40)
    broken = json.loads(lines[1])
    broken["hand_id"] = "broken-1"
    broken["plays"][12]["seat"] = (broken["plays"][12]["seat"] + 1) % 4
    src = folder / "corpus.jsonl"
    src.write_text("\n".join([*lines, json.dumps(broken), "{not json"]) + "\n")
    db = folder / "tractor.duckdb"
    ingest([src], db, workers=0, progress=False)
    return db


def _sql(store: Path, q: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        return con.sql(q).fetchall()
    finally:
        con.close()


def _app(store: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    return at


def _open(store: Path, monkeypatch: pytest.MonkeyPatch, page: str, **params: str) -> AppTest:
    at = _app(store, monkeypatch, **params)
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


CHOICES = [
    ("explorer", "ex_metric", "metric", "selectbox"),
    ("explorer", "ex_dim", "split", "selectbox"),
    ("bottom", "bc_dim", "by", "selectbox"),
    ("throws", "th_dim", "by", "selectbox"),
    ("trump_length", "tl_kind", "trump", "segmented_control"),
    ("overview", "ov_period", "per", "segmented_control"),
    ("audit", "au_code", "code", "selectbox"),
]


@pytest.mark.parametrize(("page", "key", "param", "widget"), CHOICES)
def test_a_pages_choice_lives_in_its_url(
    store: Path, monkeypatch: pytest.MonkeyPatch, page: str, key: str, param: str, widget: str
) -> None:
    """Choosing sets the URL; the URL (a shared link) opens the page with that choice."""
    at = _open(store, monkeypatch, page)
    element = at.get(widget)
    control = next(e for e in element if e.key == key)
    options = [str(o) for o in control.options]
    first = str(control.value)
    other = next(o for o in options if o != first)
    control.set_value(other).run()
    assert at.query_params[param] == other
    shared = _open(store, monkeypatch, page, **{param: other})
    assert str(next(e for e in shared.get(widget) if e.key == key).value) == other
    # Back to the default: the URL no longer names it.
    next(e for e in at.get(widget) if e.key == key).set_value(first).run()
    assert param not in at.query_params
