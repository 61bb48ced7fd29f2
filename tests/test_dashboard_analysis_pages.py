"""The analysis pages under AppTest (Overview, Bottom capture, Throws, Trump length, Players,
Explorer, Audit), against a store made by the real ingest from legal random hands plus an
unreadable line and a hand broken at trick 4: page choices live in the URL, no table shows
`None`, the counts say what the CLI says, every table and chart opens the hands it counts."""

from __future__ import annotations

import json
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


def _shown(at: AppTest) -> list[object]:
    return [t.value for t in at.dataframe]  # type: ignore[attr-defined]


def test_no_analysis_table_shows_none(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing number (conceded per failure where no throw failed) shows as `—`."""
    for page in ("throws", "bottom", "trump_length", "explorer", "audit", "overview"):
        at = _open(store, monkeypatch, page)
        for frame in _shown(at):
            text = frame.astype(str)  # type: ignore[attr-defined]
            assert not text.isin(["None", "nan", "NaN", "<NA>"]).any().any(), (page, text)


def test_throws_says_why_penalties_are_zero(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(store, monkeypatch, "throws")
    ((penalty,),) = _sql(store, "SELECT max(throw_penalty_points) FROM hands")
    captions = " ".join(c.value for c in at.caption)
    assert "ladder points lost, one per failed throw (R7.5)" in captions
    if not penalty:
        assert "charge no trick points for a failed throw" in captions


def test_audit_counts_rejected_lines_as_the_cli_does(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI's summary counts every line the replay could not finish as rejected (the broken
    hand, stored up to its fault, and the unreadable lines alike); Audit says the same number in
    the same word, and how it splits."""
    ((rejected_lines,),) = _sql(store, "SELECT count(*) FROM rejects")
    ((cli_rejected,),) = _sql(store, "SELECT hands_rejected FROM ingest_runs")
    ((stored,),) = _sql(store, "SELECT count(*) FROM hands WHERE status = 'rejected'")
    assert rejected_lines == cli_rejected > stored > 0
    at = _open(store, monkeypatch, "audit")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["rejected"] == f"{cli_rejected:,}"
    assert "Rejected lines" not in metrics
    unreadable = int(str(cli_rejected)) - int(str(stored))
    captions = " ".join(c.value for c in at.caption)
    assert f"{stored} stored up to the fault · {unreadable} lines without a readable hand" in (
        captions
    )


def test_a_rate_curve_joins_only_bins_with_enough_opportunities() -> None:
    import polars as pl

    from analytics import charts
    from analytics.stats import SMALL_SAMPLE, with_wilson

    df = with_wilson(
        pl.DataFrame(
            {"x": [40, 50, 60, 70, 80], "hits": [50, 2, 0, 40, 45], "n": [100, 2, 1, 90, 90]}
        ),
        "hits",
        "n",
    )
    spec = charts.rate_chart(df, "x", title="t", counts="c", hands=10).to_dict()
    line, _bars, points = spec["layer"]
    assert line["mark"]["type"] == "line"
    assert line["transform"] == [{"filter": "datum._dense"}]
    assert line["encoding"]["detail"]["field"] == "_segment"
    rows = {r["x"]: r for r in spec["datasets"][spec["data"]["name"]]}
    # 40 alone, then the sparse 50 and 60 break the line: 70 and 80 are another segment.
    assert rows[40]["_segment"] != rows[70]["_segment"] == rows[80]["_segment"]
    assert not rows[50]["_dense"] and rows[70]["_dense"]
    assert "fillOpacity" in points["encoding"]
    assert f"fewer than {SMALL_SAMPLE}" in spec["title"]["subtitle"][0]


def test_a_players_weekly_rate_has_its_interval() -> None:
    import datetime as dt

    import polars as pl

    from analytics import charts
    from analytics.stats import with_wilson

    df = with_wilson(
        pl.DataFrame(
            {
                "period": [dt.date(2026, 1, 5), dt.date(2026, 1, 5)],
                "who": ["lin", "field"],
                "hits": [3, 40],
                "n": [7, 80],
            }
        ),
        "hits",
        "n",
    )
    spec = charts.trend_chart(
        df, "period", "rate", title="t", counts="c", hands=7, series="who", percent=True
    ).to_dict()
    bars, line = spec["layer"]
    assert bars["mark"]["type"] == "rule" and bars["encoding"]["y2"]["field"] == "hi"
    assert {t["field"] for t in line["encoding"]["tooltip"]} >= {"hits", "n", "lo", "hi"}


def test_table_rows_link_to_hands_only_when_they_count_some(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Throws' failure table and Explorer's rate table: a row opens its hands, and a row with
    no hit has no link (it would open an empty list)."""
    at = _open(store, monkeypatch, "throws")
    by = _shown(at)[0]
    assert all((by["hands"] == "") == (by["failed"] == 0)), by  # type: ignore[index]
    assert any(by["hands"] != "")  # type: ignore[index]
    at = _open(store, monkeypatch, "explorer")
    table = _shown(at)[0]
    assert all((table["hands"] == "") == (table["hits"] == 0)), table  # type: ignore[index]
    assert all(table["hands"][table["hits"] > 0].str.startswith("hands?"))  # type: ignore[index]


def test_a_missing_number_shows_as_a_dash_in_its_columns_format() -> None:
    """Throws' "conceded per failure" is missing where no throw failed: `—`, never `None`; the
    other values keep the column's format, a rate its percent."""
    import polars as pl
    import streamlit as st

    from dashboard import ui

    df = pl.DataFrame({"conceded": [12.345, None], "rate": [0.25, None]})
    out, column = ui._float_as_text(
        df, "conceded", st.column_config.NumberColumn("conceded per failure", format="%.1f")
    )
    assert out["conceded"].to_list() == ["12.3", "—"]
    assert column["label"] == "conceded per failure" and column["alignment"] == "right"
    out, _ = ui._float_as_text(
        df.with_columns(pl.col("rate") * 100),
        "rate",
        st.column_config.NumberColumn("rate", format="%.1f%%"),
    )
    assert out["rate"].to_list() == ["25.0%", "—"]


@pytest.mark.parametrize(("page", "key", "param", "widget"), CHOICES)
def test_a_late_rerun_does_not_undo_a_choice(
    store: Path, monkeypatch: pytest.MonkeyPatch, page: str, key: str, param: str, widget: str
) -> None:
    """A rerun the browser sent before the answer to the last one arrived (a second click made
    quickly) carries the URL from before the choice: the choice holds, and so does the URL."""
    probe = _open(store, monkeypatch, page)
    control = next(e for e in probe.get(widget) if e.key == key)
    first = str(control.value)
    other = next(str(o) for o in control.options if str(o) != first)
    at = _open(store, monkeypatch, page, **{param: other})
    before = dict(at.query_params)
    next(e for e in at.get(widget) if e.key == key).set_value(first)
    in_flight = at._tree.get_widget_states()
    at.run()
    assert param not in at.query_params
    at.query_params = dict(before)
    at._run(in_flight)
    assert str(next(e for e in at.get(widget) if e.key == key).value) == first
    assert param not in at.query_params


def test_a_late_rerun_does_not_undo_a_filter(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two players picked quickly in the sidebar: the second pick's rerun, sent before the first
    one's answer, carries the URL with neither; both stay picked, and the URL names both."""
    (p1,), (p2,) = _sql(store, "SELECT DISTINCT player0 FROM hands ORDER BY 1 LIMIT 2")
    ((source,),) = _sql(store, "SELECT min(source) FROM hands")
    at = _open(store, monkeypatch, "overview", f_source=str(source))
    before = dict(at.query_params)
    at.sidebar.multiselect(key="f_players").set_value([p1]).run()
    assert at.query_params.get("f_player") == p1
    at.sidebar.multiselect(key="f_players").set_value([p1, p2])
    second_click = at._tree.get_widget_states()
    at.query_params = dict(before)
    at._run(second_click)
    assert at.sidebar.multiselect(key="f_players").value == [p1, p2]
    assert at.query_params.get("f_player") == [p1, p2]
