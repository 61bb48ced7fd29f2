"""The analytics pages in a real browser (headless Chromium against `streamlit run`, as
tests/test_dashboard_browser.py runs it): nothing is requested outside 127.0.0.1, a deep link
gets no error answer, and a chart's tooltip and click belong to the bar under the pointer.
Chromium's performance log gives every request the page made."""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from test_dashboard_browser import (
    CHROMEDRIVER,
    CHROMIUM,
    PATIENCE,
    _finder_count,
    _idle,
    _load,
    _serve,
    _sql,
    _wait_for,
    server,
    store,
)

__all__ = ["server", "store"]  # the fixtures, shared with the other browser test


@pytest.fixture(scope="module")
def served(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """`streamlit run` on the fixture store, as tests/test_dashboard_browser.py starts it, and
    the file its output goes to."""
    folder = tmp_path_factory.mktemp("streamlit")
    before = set(Path(folder).parent.glob("streamlit*"))
    for url in _serve(store, tmp_path_factory):
        (log,) = (p / "server.log" for p in set(Path(folder).parent.glob("streamlit*")) - before)
        yield url, log


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    """Chromium at 1600×1000 with its performance log (every network request) kept."""
    for program in (CHROMIUM, CHROMEDRIVER):
        assert Path(program).exists(), f"{program} is missing: run `make test` (it installs it)"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-logged')}",
        "--window-size=1600,1200",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.set_page_load_timeout(PATIENCE)
    try:
        yield driver
    finally:
        driver.quit()


def _requested(driver: webdriver.Chrome) -> list[str]:
    """The URLs the page requested since the log was last read."""
    return [url for url, _ in _network(driver) if url]


def _network(driver: webdriver.Chrome) -> list[tuple[str, int]]:
    """Since the log was last read: each request's URL (status 0) and each HTTP response's
    status (URL kept)."""
    seen: list[tuple[str, int]] = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            seen.append((str(message["params"]["request"]["url"]), 0))
        elif message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            seen.append((str(response["url"]), int(response["status"])))
    return seen


PAGES = [
    ("", 3),
    ("bottom", 3),
    ("throws", 1),
    ("trump_length", 5),
    ("players?player=lin", 3),
    ("coaching?player=lin", 1),
    ("leaks?player=lin", 1),
    ("explorer", 1),
    ("audit", 1),
    ("review_guide?code=fed_points", 0),
    ("hands?event=all", 0),
]


def _away(urls: list[str]) -> list[str]:
    """The URLs that leave this machine."""
    return [
        u
        for u in urls
        if not u.startswith(("data:", "blob:", "about:"))
        and urllib.parse.urlsplit(u).hostname != "127.0.0.1"
    ]


def test_no_page_requests_anything_outside_this_machine(
    served: tuple[str, Path], logged: webdriver.Chrome, store: Path
) -> None:
    """Every page, and a deep link into the replay: each request goes to 127.0.0.1 (or is
    data the page holds itself)."""
    url, _ = served
    _requested(logged)
    outside: dict[str, list[str]] = {}
    for page, charts in PAGES:
        _load(logged, f"{url}/{page}", charts)
        outside[page or "overview"] = _away(_requested(logged))
    ((source, hand),) = _sql(
        store, "SELECT source, hand_id FROM hands WHERE status = 'ok' ORDER BY hand_id LIMIT 1"
    )
    query = urllib.parse.urlencode({"source": source, "hand": hand, "trick": "2"})
    logged.get(f"{url}/replay?{query}")
    _wait_for(logged, lambda d: "Hand replay" in _text(d) and _idle(d), PATIENCE)
    outside["replay"] = _away(_requested(logged))
    assert not any(outside.values()), outside


@pytest.mark.parametrize("page", ["replay", "coaching", "hands"])
def test_a_deep_link_gets_no_error_response(
    served: tuple[str, Path], logged: webdriver.Chrome, store: Path, page: str
) -> None:
    """A page opened at its own address, in a fresh tab, gets no 4xx or 5xx answer to anything
    it asks: Streamlit's page would otherwise probe `/<page>/_stcore/health` and
    `/<page>/_stcore/host-config` for a base path (two 404s in the console) before the root's
    (dashboard/serve.py tells it the root)."""
    url, log = served
    ((source, hand),) = _sql(
        store, "SELECT source, hand_id FROM hands WHERE status = 'ok' ORDER BY hand_id LIMIT 1"
    )
    query = urllib.parse.urlencode({"source": source, "hand": hand, "trick": "2"})
    # The server started quietly: no cache declared before Streamlit's runtime was up (serve.py's
    # warm-up imports libraries only), no traceback.
    assert "No runtime found" not in log.read_text() and "Traceback" not in log.read_text()
    address = {"replay": f"replay?{query}", "coaching": "coaching?player=lin", "hands": "hands"}
    logged.get("about:blank")
    _network(logged)
    logged.get(f"{url}/{address[page]}")
    _wait_for(logged, lambda d: "Filters apply to every page" in _text(d) and _idle(d), PATIENCE)
    seen = _network(logged)
    failed = [(u, status) for u, status in seen if status >= 400]
    probes = [u for u, _ in seen if f"/{page}/_stcore/" in u]
    assert any(u.endswith("/_stcore/health") for u, _ in seen), seen
    assert failed == [] and probes == [], (failed, probes)


def _text(driver: webdriver.Chrome) -> str:
    return str(driver.find_element(By.TAG_NAME, "body").text)


_BAR_END = """
const marks = [...document.querySelectorAll('.vega-embed')[arguments[0]].querySelectorAll('path')]
  .filter(p => (p.getAttribute('fill') || '').toLowerCase() === arguments[1].toLowerCase())
  .map(p => p.getBoundingClientRect())
  .filter(r => r.width > 0 && r.height > 0);
if (!marks.length) return null;
marks.sort((a, b) => a.top - b.top);
const bar = arguments[2] === 'top' ? marks[0] : marks[marks.length - 1];
return [bar.right - 3, bar.top + bar.height / 2];
"""
"""The point (in the viewport) a few pixels inside the right end of a chart's top (or bottom)
bar of one colour."""


def _at(driver: webdriver.Chrome, point: list[float]) -> ActionChains:
    body = driver.find_element(By.TAG_NAME, "body")
    box = body.rect
    actions = ActionChains(driver)
    # Offsets are from the element's centre; the body's box is the page's.
    return actions.move_to_element_with_offset(
        body,
        int(point[0] - box["x"] - box["width"] / 2),
        int(
            point[1] + driver.execute_script("return window.scrollY") - box["y"] - box["height"] / 2
        ),
    )


def _hover(driver: webdriver.Chrome, point: list[float]) -> str:
    _at(driver, point).perform()
    found: list[str] = []

    def shown(d: webdriver.Chrome) -> bool:
        tips = d.find_elements(By.CSS_SELECTOR, "#vg-tooltip-element.visible")
        if tips and tips[0].text:
            found.append(str(tips[0].text))
            return True
        return False

    _wait_for(driver, shown)
    return found[-1]


def _who(tip: str) -> str:
    """The tooltip's first line, `player NAME`: the name."""
    return tip.splitlines()[0].removeprefix("player").strip()


def test_a_bars_tooltip_and_click_are_its_own(
    server: str, logged: webdriver.Chrome, store: Path
) -> None:
    """Where the points go: the tooltip at the end of the longest bar names that bar's player,
    and a click there opens that player's mistakes (nearest-mark picking named another)."""
    import duckdb

    from analytics import charts
    from analytics.coaching import leak_table
    from analytics.filters import Filters

    con = duckdb.connect(str(store), read_only=True)
    try:
        table = leak_table(con, Filters(), "player")
    finally:
        con.close()
    top, bottom = table["who"][0], table["who"][-1]
    blue = charts.KIND_COLOURS["fourth seat"]
    _load(logged, f"{server}/coaching", 1)
    chart = logged.find_elements(By.CSS_SELECTOR, ".vega-embed")[0]
    logged.execute_script("arguments[0].scrollIntoView({block: 'center'})", chart)
    end = logged.execute_script(_BAR_END, 0, blue, "top")
    assert end is not None
    tip = _hover(logged, end)
    assert _who(tip) == top, tip
    low = logged.execute_script(_BAR_END, 0, blue, "bottom")
    assert _who(_hover(logged, low)) == bottom
    end = logged.execute_script(_BAR_END, 0, blue, "top")
    _at(logged, end).click().perform()
    _finder_count(logged)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(logged.current_url).query)
    assert query["who"] == [top] and query["event"] == ["mistake_last_seat"], query
