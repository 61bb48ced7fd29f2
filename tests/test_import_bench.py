"""The import section of `make bench` measures real conversions (speed is reported, never asserted)."""

from __future__ import annotations

from bench import SECTIONS
from bench.import_logs import FORMATS, measure


def test_the_import_section_is_part_of_make_bench() -> None:
    assert "bench.import_logs" in SECTIONS
    assert [engine for engine, _ in FORMATS] == ["jerryyyu", "botzone", "ejfn"]


def test_measure_counts_the_hands_of_the_logs_it_reads() -> None:
    rates = measure("botzone", "botzone/r100*.json.gz", repeat=1)
    assert (rates.files, rates.hands) == (4, 4)
    assert rates.convert > 0 and rates.replay > 0 and rates.ingest > 0
