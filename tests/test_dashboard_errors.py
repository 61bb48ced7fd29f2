"""No page ever shows a traceback: bad deep-link parameters are answered in words, and an
unexpected error in any page becomes a short message (the traceback goes to the server's log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from analytics_testdb import ingested_db
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
PAGES = (
    "views/overview.py",
    "views/bottom.py",
    "views/throws.py",
    "views/trump_length.py",
    "views/players.py",
    "views/explorer.py",
    "views/replay.py",
    "views/audit.py",
    "views/import_files.py",
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("errors")), n_hands=6)


def _shown(at: AppTest) -> str:
    parts = []
    for node in at._tree:
        proto = getattr(node, "proto", None)
        for field in ("body", "label", "message", "stack_trace"):
            value = getattr(proto, field, None) if proto is not None else None
            if isinstance(value, str):
                parts.append(value)
            elif value is not None and hasattr(value, "__iter__"):
                parts.extend(str(v) for v in value)
    return "\n".join(parts)


def _no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    text = _shown(at)
    for leak in ("Traceback", 'File "', "/work/", "site-packages", "Error:"):
        assert leak not in text, (leak, text[-600:])


@pytest.mark.parametrize(
    "params",
    [
        {"trick": "abc"},
        {"trick": "-3"},
        {"trick": "1e5"},
        {"trick": "99999999999999999999999"},
        {"trick": "٣"},  # a digit, but not an ASCII one
        {"trick": ""},
        {"trick": "0"},
    ],
)
def test_replay_bad_trick_parameter(
    store: Path, monkeypatch: pytest.MonkeyPatch, params: dict[str, str]
) -> None:
    import duckdb

    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        ((hand_id,),) = con.sql("SELECT min(hand_id) FROM hands WHERE status = 'ok'").fetchall()
    finally:
        con.close()
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, **params})
    at.switch_page("views/replay.py").run()
    _no_traceback(at)
    assert not at.error
    assert at.slider(key="rp_trick").value == 1  # the stepper still works from trick 1
    if params["trick"] not in ("", "0"):
        assert any("not a trick number" in w.value for w in at.warning)


@pytest.mark.parametrize(
    "params",
    [
        {"hand": "no-such-hand", "trick": "2"},
        {"hand": "x" * 5000},
        {"hand": "g0001", "source": "\x00 nowhere"},
        {"hand": "", "source": "", "trick": "abc"},
    ],
)
def test_replay_bad_hand_parameter(
    store: Path, monkeypatch: pytest.MonkeyPatch, params: dict[str, str]
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page("views/replay.py").run()
    _no_traceback(at)
    assert not at.error
    if params["hand"]:
        assert any("No hand" in w.value for w in at.warning)


@pytest.mark.parametrize("player", ["nobody", "", "x" * 5000, "**lin**"])
def test_players_bad_player_parameter(
    store: Path, monkeypatch: pytest.MonkeyPatch, player: str
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["player"] = player
    at.switch_page("views/players.py").run()
    _no_traceback(at)
    assert not at.error
    assert at.selectbox(key="pl_player").value  # the first player instead


@pytest.mark.parametrize("page", PAGES)
def test_an_unexpected_error_is_a_short_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    """Whatever raises inside a page (here: every query, and the upload's ingest), the page
    shows a short message, never the exception, its traceback or a server path."""
    from dashboard import db

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError(f"secret detail at {tmp_path}/server/path.py")

    store = ingested_db(tmp_path / "s", n_hands=4)
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page).run()
    _no_traceback(at)
    if page == "views/import_files.py":
        monkeypatch.setattr("ingest.pipeline.ingest", boom)
        at.file_uploader(key="im_files").set_value([("a.jsonl", b"{}\n", "application/json")])
        at.run()
        at.button(key="im_go").click()
    else:
        monkeypatch.setattr(db, "query", boom)
        monkeypatch.setattr(db, "query_plain", boom)
    at.run()
    _no_traceback(at)
    assert "secret detail" not in _shown(at)
    assert any("Something went wrong" in e.value for e in at.error), page
