"""Serving: what one page view costs the dashboard's server, and how long a reader waits for it.

The sample is loaded as `make demo` loads it, the dashboard served as `make demo` serves it
(dashboard/serve.py, bench/screenshots.py's `serve`), and each page opened in a new headless
Chromium with an empty profile (nothing cached in the browser: a reader's first visit). For each
page: the first view after the server started (its queries run) and three more views (the
server's results cached). Measured per view: the server process's CPU time (user + system, from
/proc) from the request until the page has run and drawn its charts, plus half a second; the wall
time until then; the bytes the browser fetched over HTTP (the page's files; the websocket's
messages are not counted).

    .venv/bin/python -m bench serving
"""

from __future__ import annotations

import statistics
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from bench import screenshots
from bench.ingest import cpu_seconds

VIEWS = 3
"""Views of each page once its results are cached (the median is reported)."""

SETTLE = 0.5
"""Seconds after the page is ready that still count towards its CPU (the last messages)."""

_BYTES = """
const entries = performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'));
return entries.reduce((sum, e) => sum + (e.transferSize || 0), 0);
"""


Row = tuple[str, float, float, float, float, int]
"""A page's name, its first view's server CPU, its cached views' median server CPU, the same two
waits, and the bytes a cached view fetched."""


def _cpu(pid: int) -> float:
    """The process's CPU seconds so far (user + system)."""
    return cpu_seconds(Path(f"/proc/{pid}/stat").read_text())


def _pages(source: str, hand: str) -> list[tuple[str, str, int, str]]:
    """(name, path, charts drawn when ready, text shown when ready) of each page measured. The
    text is the page's own, far down it: a page's name is in the sidebar on every page."""
    replay = urllib.parse.urlencode({"source": source, "hand": hand, "trick": 5})
    player = screenshots.PLAYER
    return [
        ("Overview", "", 3, "Banker team held"),
        ("Bottom capture", "bottom", 3, "Did the bottom decide the hand?"),
        ("Throws", "throws", 1, "Who throws"),
        ("Trump length", "trump_length", 5, "-deck hands with an outcome"),
        ("Players", f"players?player={player}", 3, "against the field"),
        ("Coaching", f"coaching?player={player}", 1, "Computer analysis"),
        ("Hand finder", "hands", 0, "hands · showing"),
        ("Hand replay", f"replay?{replay}", 0, "Trick 5 of"),
    ]


def _view(url: str, pid: int, folder: Path, charts: int, text: str) -> tuple[float, float, int]:
    """One view in a fresh browser: (server CPU s, wall s, bytes fetched)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d: Any) -> bool:
        shown = str(d.find_element(By.TAG_NAME, "body").text)
        shown += str(d.execute_script(screenshots._POSITION))
        return text in shown and screenshots._drawn(charts)(d)

    with screenshots.chromium(Path(tempfile.mkdtemp(dir=folder))) as driver:
        driver.get("about:blank")
        cpu = _cpu(pid)
        started = time.perf_counter()
        driver.get(url)
        WebDriverWait(driver, screenshots.PATIENCE, poll_frequency=0.05).until(ready)
        wall = time.perf_counter() - started
        time.sleep(SETTLE)
        used = _cpu(pid) - cpu
        fetched = int(driver.execute_script(_BYTES) or 0)
    return used, wall, fetched


def measure(folder: Path, script: str = "serve.py") -> list[Row]:
    """Per page: (name, first view's CPU, cached views' median CPU, first view's wall, cached
    views' median wall, bytes of a cached view), served by `streamlit run dashboard/<script>`."""
    from ingest.store import connect

    db = folder / "tractor.duckdb"
    if not db.exists():
        db = screenshots.build_store(folder)
    con = connect(db.resolve(), read_only=True)
    try:
        source, hand = con.sql(
            "SELECT source, hand_id FROM hands WHERE status = 'ok' AND n_tricks >= 10 "
            "ORDER BY hand_id LIMIT 1"
        ).fetchall()[0]
    finally:
        con.close()
    rows = []
    with screenshots.serve_process(db, folder / "streamlit.log", script) as (url, proc):
        # The server's own start (imports, the store's first open) is not a page's cost.
        _view(f"{url}/review_guide", proc.pid, folder, 0, "Review guide")
        for name, path, charts, text in _pages(source, str(hand)):
            first = _view(f"{url}/{path}", proc.pid, folder, charts, text)
            cached = [_view(f"{url}/{path}", proc.pid, folder, charts, text) for _ in range(VIEWS)]
            rows.append(
                (
                    name,
                    first[0],
                    statistics.median(c[0] for c in cached),
                    first[1],
                    statistics.median(c[1] for c in cached),
                    int(statistics.median(c[2] for c in cached)),
                )
            )
            print(f"  {name}: {rows[-1][1:]}", flush=True)
    return rows


def main() -> str:
    with tempfile.TemporaryDirectory(prefix="shengji-serving-") as tmp:
        print("  served as make demo serves it (dashboard/serve.py)", flush=True)
        ours = measure(Path(tmp))
        print("  served by Streamlit alone (dashboard/app.py)", flush=True)
        plain = measure(Path(tmp), "app.py")
    return report(ours, plain)


def report(rows: list[Row], plain: list[Row] | None = None) -> str:
    """The section's Markdown from `measure`'s rows (`plain`: the same pages served by
    `streamlit run dashboard/app.py`, side by side)."""
    lines = [
        "## Serving: a page view's cost on the server and the reader's wait",
        "",
        "The sample as `make demo` loads it, served as `make demo` serves it; each view in a new",
        "headless Chromium with an empty profile. *First*: the first view after the server",
        f"started (the page's queries run); *cached*: the median of {VIEWS} later views (results",
        "cached). Server CPU: user + system seconds of the server process from the request until",
        f"the page has run and drawn, plus {SETTLE} s. Wait: wall seconds until then. Fetched: the",
        "page's files over HTTP (websocket messages not counted).",
        "",
        "| page | server CPU first (s) | server CPU cached (s) | wait first (s) | wait cached (s) "
        "| fetched (kB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, cpu1, cpu, wall1, wall, fetched in rows:
        lines.append(
            f"| {name} | {cpu1:.2f} | {cpu:.2f} | {wall1:.2f} | {wall:.2f} | {fetched / 1000:,.0f} |"
        )
    cached = [r[2] for r in rows]
    lines += [
        "",
        f"Median cached view: {statistics.median(cached):.2f} server CPU-s "
        f"({1 / max(statistics.median(cached), 1e-9):.1f} views per server core-second), "
        f"{statistics.median(r[4] for r in rows):.2f} s to full render.",
    ]
    if plain:
        lines += [
            "",
            "Side by side, in the same run: the same pages served by `streamlit run",
            "dashboard/app.py` (Streamlit's own file serving: every file read from disk and sent",
            "uncompressed on each request; no middleware of ours). The pages' own savings (charts",
            "kept between runs, no schema checks: dashboard/ui.py) apply to both.",
            "",
            "| page | server CPU cached, Streamlit alone (s) | make demo's (s) | ratio "
            "| fetched, Streamlit alone (kB) |",
            "|---|---:|---:|---:|---:|",
        ]
        for ours, theirs in zip(rows, plain, strict=True):
            lines.append(
                f"| {ours[0]} | {theirs[2]:.2f} | {ours[2]:.2f} | "
                f"{ours[2] / max(theirs[2], 1e-9):.2f} | {theirs[5] / 1000:,.0f} |"
            )
        theirs_median = statistics.median(r[2] for r in plain)
        lines += [
            "",
            f"Median cached view served by Streamlit alone: {theirs_median:.2f} server CPU-s, "
            f"{statistics.median(r[4] for r in plain):.2f} s to full render.",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
