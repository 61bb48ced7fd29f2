"""The benchmark report keeps the sections not run this time and replaces the ones that ran."""

from __future__ import annotations

from pathlib import Path

from bench.__main__ import compose, split_report


def test_split_and_compose_replace_only_the_section_run() -> None:
    report = compose(
        {
            "replay": "<!-- section: replay -->\n## Replay\n\nold replay figures\n",
            "ingest": "<!-- section: ingest -->\n## Ingest\n\ningest figures\n",
        }
    )
    sections = split_report(report)
    assert list(sections) == ["replay", "ingest"]
    assert "old replay figures" in sections["replay"]
    assert "ingest figures" not in sections["replay"]
    sections["replay"] = "<!-- section: replay -->\n## Replay\n\nnew replay figures\n"
    again = compose(sections)
    assert "new replay figures" in again
    assert "old replay figures" not in again
    assert "ingest figures" in again
    # Sections come out in the order of bench.SECTIONS, whatever order they were run in.
    assert again.index("## Replay") < again.index("## Ingest")


def test_a_report_without_markers_has_no_sections() -> None:
    assert split_report("# Benchmarks\n\n## Replay\n\nfigures\n") == {}


def test_an_unmarked_section_is_not_glued_to_the_marked_one_before_it() -> None:
    text = (
        "# Benchmarks\n\n<!-- section: review -->\n## Review\n\nreview figures\n\n### detail\n\n"
        "more review\n\n## Ingest\n\nstale ingest figures\n"
    )
    sections = split_report(text)
    assert list(sections) == ["review"]
    assert "more review" in sections["review"]
    assert "stale ingest" not in sections["review"]


def test_the_medians_interval_is_the_widest_binomial_one_that_keeps_95_percent() -> None:
    """For 15 rounds the 4th and 12th values (96.5%), for 25 the 8th and 18th; with too few
    rounds for 95%, their range. The values' order does not matter."""
    from bench.review import median_interval

    assert median_interval([float(x) for x in range(15, 0, -1)]) == (4.0, 12.0)
    assert median_interval([float(x) for x in range(1, 26)]) == (8.0, 18.0)
    assert median_interval([3.0, 1.0, 2.0]) == (1.0, 3.0)
    assert median_interval([5.0]) == (5.0, 5.0)


def test_the_verdict_is_on_the_median_and_names_an_interval_holding_the_goal() -> None:
    from bench.review import _added

    assert _added(sorted([0.2, 0.25, 0.28, 0.31, 0.33, 0.35, 0.4])).endswith(
        "missed, within the median's interval"
    )
    assert _added([0.1] * 15).endswith("≤ 30%: met")


def test_a_section_is_stored_into_the_report_as_it_is_when_the_section_ends(tmp_path: Path) -> None:
    """Two runs at once: the one that ends second keeps the section the first replaced."""
    from bench.__main__ import store_section

    report = tmp_path / "benchmarks.md"
    store_section(report, "replay", "<!-- section: replay -->\n## Replay\n\nreplay 1\n")
    store_section(report, "ingest", "<!-- section: ingest -->\n## Ingest\n\ningest 1\n")
    # A run of `replay` started here; meanwhile another run replaces `ingest`.
    store_section(report, "ingest", "<!-- section: ingest -->\n## Ingest\n\ningest 2\n")
    store_section(report, "replay", "<!-- section: replay -->\n## Replay\n\nreplay 2\n")
    text = report.read_text()
    assert "replay 2" in text and "ingest 2" in text
    assert "replay 1" not in text and "ingest 1" not in text
    assert text.index("## Replay") < text.index("## Ingest")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".benchmarks.md.lock", "benchmarks.md"]
