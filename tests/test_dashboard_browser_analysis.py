"""Hand replay's computer analysis in a real browser (the Chromium setup and waits of
tests/test_dashboard_browser.py): "Analyse this hand" starts the job, its progress shows while the
table still steps, the evaluation graph appears when the job has stored its result, and a click
on a decision of the graph moves the table to that decision. The server's job runs with small
settings ($SHENGJI_ANALYSIS_SETTINGS) so a hand takes seconds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything

from analytics_testdb import ingested_db
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from test_dashboard_browser import (
    PATIENCE,
    STEP,
    _idle,
    _open_replay,
    _position,
    _press,
    _save,
    _serve,
    _sql,
    _trick_play,
    _wait_for,
    browser,
)
from test_dashboard_browser_pages import _at

from analytics import analysed
from dashboard import analysis_job
from ingest.store import open_reader
from shengji.coach.analysis import ENGINE

__all__ = ["browser"]  # the fixture, shared with the other browser tests

SETTINGS = "worlds=2 min_worlds=2 cap=2 screen=1 listed=8 seed=5"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("analysis-browser")) / "db", n_hands=6)


@pytest.fixture(scope="module")
def server(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(analysis_job.SETTINGS_ENV, SETTINGS)
        yield from _serve(store, tmp_path_factory)


_SYMBOLS = """
const chart = [...document.querySelectorAll('.vega-embed')].at(-1);
if (!chart) return null;
const marks = [...chart.querySelectorAll('.mark-symbol.role-mark path')]
  .map(p => p.getBoundingClientRect())
  .filter(r => r.width > 0 && r.height > 0);
if (!marks.length) return null;
const r = marks[marks.length - 1];
return [r.left + r.width / 2, r.top + r.height / 2, marks.length];
"""
"""The centre (in the viewport) of the evaluation graph's last decision, and how many there are."""


def _button(driver: webdriver.Chrome, label: str) -> list[object]:
    return list(driver.find_elements(By.XPATH, f"//button[contains(., '{label}')]"))


def test_analyse_a_hand_and_jump_from_the_graph(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    ((source, hand_id, n),) = _sql(
        store,
        "SELECT source, hand_id, n_tricks FROM hands WHERE status = 'ok' AND n_tricks > 8 "
        "ORDER BY hand_id LIMIT 1",
    )
    _open_replay(
        browser,
        f"{server}/replay?source={source}&hand={hand_id}&trick=1&play=0",
        f"Trick 1 of {n} · play 0 of 4",
    )
    _wait_for(browser, lambda d: bool(_button(d, "Analyse this hand")) and _idle(d), PATIENCE)
    assert "not been analysed yet" in browser.find_element(By.TAG_NAME, "body").text
    button = _button(browser, "Analyse this hand")[0]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()  # type: ignore[attr-defined]
    seen: list[str] = []

    def progress_or_done(d: webdriver.Chrome) -> bool:
        bars = d.find_elements(By.CSS_SELECTOR, '[data-testid="stProgress"]')
        if bars:
            seen.append(bars[0].text)
        return bool(bars) or "decisions analysed" in d.find_element(By.TAG_NAME, "body").text

    _wait_for(browser, progress_or_done, PATIENCE)
    assert seen and any("analysis" in t.lower() or "Analysing" in t for t in seen), seen
    # The page stays usable while the job runs: the table steps.
    _press(browser, Keys.ARROW_RIGHT)
    _wait_for(browser, lambda d: f"Trick 1 of {n} · play 1 of 4" in _position(d))
    # The job stores its result; the page shows the graph and the decisions.
    _wait_for(
        browser,
        lambda d: (
            "decisions analysed" in d.find_element(By.TAG_NAME, "body").text
            and d.execute_script(_SYMBOLS) is not None
            and _idle(d)
        ),
        PATIENCE,
    )
    errors = browser.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    assert not errors, [e.text for e in errors]
    assert not browser.find_elements(By.CSS_SELECTOR, '[data-testid="stProgress"]')
    con = open_reader(store)
    try:
        decisions = analysed.hand_decisions(con, source, hand_id, ENGINE)
    finally:
        con.close()
    judged = analysed.graph_data(decisions)
    assert judged.height
    x, y, drawn = browser.execute_script(_SYMBOLS)
    assert drawn == judged.height  # one mark per judged decision
    last = judged.row(judged.height - 1, named=True)
    want = (int(last["trick"]), int(last["position"]))
    assert want != _trick_play(_position(browser))
    # A click on the graph's last decision moves the table to it (clicked again if a rerun
    # still drawing the chart took the first click).
    for attempt in range(3):
        chart = browser.find_elements(By.CSS_SELECTOR, ".vega-embed")[-1]
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", chart)
        _wait_for(browser, lambda d: d.execute_script(_SYMBOLS) is not None and _idle(d))
        x, y, _ = browser.execute_script(_SYMBOLS)
        _at(browser, [x, y]).click().perform()
        try:
            _wait_for(browser, lambda d: _trick_play(_position(d)) == want, STEP)
            break
        except TimeoutException:
            if attempt == 2:
                raise
    _wait_for(browser, lambda d: f"trick={want[0]}&play={want[1]}" in d.current_url)
    # The shown trick's decisions are listed with their best alternative and expected gain.
    _wait_for(
        browser,
        lambda d: (
            f"Analysis of trick {want[0]}" in d.find_element(By.TAG_NAME, "body").text and _idle(d)
        ),
    )
    _save(browser, tmp_path / "dashboard-analysis.png")
