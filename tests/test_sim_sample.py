"""The bundled corpus: data/sample (clean) and data/faulty (with its truth file) are what
`make sample` writes, replay as promised, and stay small."""

from __future__ import annotations

import json
from pathlib import Path

from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK
from shengji.sim.faults import read_truth
from shengji.sim.match import match_specs
from shengji.sim.run import run_matches

DATA = Path(__file__).resolve().parent.parent / "data"
SAMPLE = DATA / "sample" / "hands.jsonl.gz"
FAULTY = DATA / "faulty" / "faulty.jsonl.gz"
REGENERATE = "the bundled sample is stale: run `make sample` and commit data/sample, data/faulty"


def _lines(path: Path) -> list[str]:
    return [text for _, text in iter_lines(path)]


def test_sample_is_a_few_thousand_hands_in_under_10_mb() -> None:
    lines = _lines(SAMPLE)
    assert 2500 <= len(lines) <= 5000
    size = sum(p.stat().st_size for d in ("sample", "faulty") for p in (DATA / d).rglob("*"))
    assert size <= 10 * 1024 * 1024
    heads = [json.loads(t) for t in lines[:: len(lines) // 200]]
    assert len({name for h in heads for name in h["players"]}) == 12
    assert len({h["match_id"] for h in heads}) >= 30


def test_sample_first_match_regenerates_byte_for_byte() -> None:
    lines = _lines(SAMPLE)
    first = [h.line for h in run_matches(match_specs(1, 80, 2026, FOUR_DECK))]
    assert lines[: len(first)] == first, REGENERATE


def test_sample_slice_replays_with_no_finding() -> None:
    lines = _lines(SAMPLE)
    for number, text in list(enumerate(lines, start=1))[::9]:
        replay = replay_line(text, line=number)
        assert replay.status == "ok", (replay.hand_id, replay.findings)


def test_faulty_file_findings_are_exactly_its_truth() -> None:
    truth = read_truth(FAULTY.with_name("faulty.truth.jsonl"))
    expected = {(r["line"], r["code"], r["trick"], r["seat"]) for r in truth}
    found = set()
    for number, text in iter_lines(FAULTY):
        for f in replay_line(text, line=number).findings:
            found.add((number, f.code, f.trick, f.seat))
    assert 30 <= len(truth) == len(expected)
    assert found == expected
