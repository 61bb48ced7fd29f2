"""The review bench's end-to-end variants: every process of the ingest without the review, its
spawned replay workers included, stores none; the other stores the review's decisions."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

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
