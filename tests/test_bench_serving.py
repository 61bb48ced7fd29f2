"""bench/serving.py's parts that need no browser: the server's CPU clock and the report."""

from __future__ import annotations

import os
import time

from bench import SECTIONS, serving


def test_the_cpu_clock_counts_this_process() -> None:
    before = serving._cpu(os.getpid())
    end = time.process_time() + 0.2
    while time.process_time() < end:
        sum(range(10_000))
    assert 0.1 <= serving._cpu(os.getpid()) - before < 5


def test_the_report_has_a_row_per_page_and_the_median() -> None:
    rows: list[serving.Row] = [
        ("Overview", 0.4, 0.2, 2.0, 1.9, 1_700_000),
        ("Bottom capture", 0.6, 0.3, 2.4, 2.3, 1_900_000),
        ("Throws", 0.3, 0.4, 2.0, 2.1, 1_880_000),
    ]
    text = serving.report(rows)
    assert "| Bottom capture | 0.60 | 0.30 | 2.40 | 2.30 | 1,900 |" in text
    assert (
        "Median cached view: 0.30 server CPU-s (3.3 views per server core-second), 2.10 s" in text
    )
    assert "bench.serving" in SECTIONS


def test_every_page_measured_names_what_shows_it_is_ready() -> None:
    pages = serving._pages("club", "h1")
    assert len({name for name, *_ in pages}) == len(pages) >= 8
    replay = next(path for name, path, *_ in pages if name == "Hand replay")
    assert "source=club" in replay and "hand=h1" in replay
    assert all(text for *_, text in pages)
    # A page's name is in the sidebar on every page: it would say nothing of the page's run.
    names = {name for name, *_ in pages}
    assert not any(text in names for *_, text in pages)


def test_the_report_sets_streamlit_alone_beside_make_demos_serving() -> None:
    ours: list[serving.Row] = [("Overview", 0.3, 0.2, 2.0, 1.9, 1_700_000)]
    plain: list[serving.Row] = [("Overview", 0.5, 0.4, 2.2, 2.1, 5_600_000)]
    text = serving.report(ours, plain)
    assert "| Overview | 0.40 | 0.20 | 0.50 | 5,600 |" in text
    assert "served by Streamlit alone: 0.40 server CPU-s, 2.10 s" in text
