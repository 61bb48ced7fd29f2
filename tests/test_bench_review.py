"""The review bench's variants: every process of the ingest without the review, its spawned
replay workers included, stores none, the other stores the review's decisions, and so do the
ingests counted in instructions; the count's arithmetic and its row."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pytest

from bench import review as section
from bench.ingest import core_environment, run_ingest
from shengji.hhfile import iter_lines, write_lines

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"


def test_the_variant_without_the_review_stores_none_even_from_its_workers(tmp_path: Path) -> None:
    src = tmp_path / "hands.jsonl.gz"
    write_lines(src, [text for _, text in islice(iter_lines(SAMPLE), 4)])
    _, env = core_environment()
    stored = {}
    for variant in ("with", "without"):
        db = tmp_path / variant / "t.duckdb"
        run = run_ingest(
            [src], db, fresh=True, env=section.variant_env(variant, tmp_path / f"s-{variant}", env)
        )
        assert run.hands == 4
        stored[variant] = section.stored_decisions(db)
    assert stored["with"] > 0 and stored["without"] == 0


def test_the_counted_ingests_store_the_review_exactly_when_they_should(tmp_path: Path) -> None:
    for variant, wanted in (("with", True), ("without", False)):
        folder = tmp_path / variant
        folder.mkdir()
        section.counted_ingest(variant, 3, folder)
        assert (section.stored_decisions(folder / "db" / "t.duckdb") > 0) is wanted, variant


def test_a_hands_instructions_are_the_counts_difference_over_the_hands() -> None:
    report = (
        "==1== Events    : Ir\n==1== Collected : 2924506684\n\n==1== I   refs:  2,924,506,684\n"
    )
    assert section.collected(report) == 2_924_506_684
    with pytest.raises(ValueError, match="no instruction count"):
        section.collected("valgrind: failed to start tool")
    # Fixed costs cancel: 1,000 a run, 7 a hand.
    assert section.per_hand({300: 1_000 + 7 * 300, 1: 1_000 + 7}) == 7.0


def test_the_counted_row_says_met_or_missed_and_when_it_was_not_measured() -> None:
    met = "\n".join(section._counted_lines({"with": 12e6, "without": 10e6}))
    assert "| 10.00 M | 12.00 M | +20.0% | ≤ 30%: met |" in met
    missed = "\n".join(section._counted_lines({"with": 14e6, "without": 10e6}))
    assert "+40.0% | ≤ 30%: missed |" in missed
    assert "not measured" in "\n".join(section._counted_lines(None))
