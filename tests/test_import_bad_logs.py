"""Bad and partial logs: a clear reject or flag naming the line or the turn, nothing else lost."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from shengji.importers import read_file
from shengji.replay import replay_record

ENGINES = Path(__file__).resolve().parent.parent / "data" / "engines"


def _room_lines() -> list[str]:
    with gzip.open(ENGINES / "jerryyyu" / "SMA1.jsonl.gz", "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


def _round_starts(lines: list[str]) -> list[int]:
    """0-based indexes of the round_start lines."""
    return [i for i, t in enumerate(lines) if json.loads(t)["e"] == "round_start"]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_room_log_cut_inside_a_line_keeps_every_round_before_and_abandons_the_last(
    tmp_path: Path,
) -> None:
    lines = _room_lines()
    third = _round_starts(lines)[2]
    cut = [*lines[: third + 20], lines[third + 20][:40]]
    got = list(read_file(_write(tmp_path / "SMA1.jsonl", cut), "jerryyyu"))
    assert [g.hand_id for g in got] == ["SMA1-1", "SMA1-2", "SMA1-3"]
    assert all(g.record is not None and g.record.end == "complete" for g in got[:2])
    last = got[2]
    assert last.record is not None and last.record.end == "abandoned"
    reasons = " ".join(r for _, r in last.warnings)
    assert f"line {third + 21}" in reasons and "truncated" in reasons
    assert replay_record(last.record).status != "rejected"


def test_a_bad_line_inside_a_round_rejects_that_round_only(tmp_path: Path) -> None:
    lines = _room_lines()
    second = _round_starts(lines)[1]
    lines[second + 10] = '{"e": "play", "seat": '
    got = list(read_file(_write(tmp_path / "SMA1.jsonl", lines), "jerryyyu"))
    assert len(got) == 26
    bad = [g for g in got if g.record is None]
    assert [g.hand_id for g in bad] == ["SMA1-2"]
    assert f"line {second + 11}: not valid JSON" in (bad[0].reason or "")


def test_wrong_card_codes_reject_the_round_naming_the_line(tmp_path: Path) -> None:
    lines = _room_lines()
    second = _round_starts(lines)[1]
    at = next(i for i in range(second, len(lines)) if json.loads(lines[i])["e"] == "play")
    event = json.loads(lines[at])
    event["cards"] = ["X9"]
    lines[at] = json.dumps(event)
    got = list(read_file(_write(tmp_path / "SMA1.jsonl", lines), "jerryyyu"))
    (bad,) = [g for g in got if g.record is None]
    assert bad.hand_id == "SMA1-2"
    assert f"line {at + 1}: play: unknown card 'X9'" in (bad.reason or "")
    assert sum(g.record is not None for g in got) == 25


def test_unknown_events_are_flagged_with_their_line_and_the_hand_kept(tmp_path: Path) -> None:
    lines = _room_lines()
    lines.insert(3, '{"t": 1, "room": "SMA1", "round": 1, "e": "mystery"}')
    got = list(read_file(_write(tmp_path / "SMA1.jsonl", lines), "jerryyyu"))
    first = got[0]
    assert first.record is not None
    assert (4, "line 4: unknown event 'mystery': not read") in first.warnings
    assert len(got) == 26 and all(g.record is not None for g in got)


def test_a_truncated_gzip_log_keeps_its_rounds_and_says_where_it_stops(tmp_path: Path) -> None:
    data = (ENGINES / "ejfn" / "seed0001.log.gz").read_bytes()
    cut = tmp_path / "seed0001.log.gz"
    cut.write_bytes(data[: len(data) // 2])
    got = list(read_file(cut, "ejfn"))
    hands = [g for g in got if g.hand_id]
    assert len(hands) >= 5
    assert all(g.record is not None for g in hands)
    assert all(g.record is not None and g.record.end == "complete" for g in hands[:-1])
    assert hands[-1].record is not None and hands[-1].record.end == "abandoned"
    end = got[-1]
    assert end.hand_id == "" and end.record is None and "cannot read on" in (end.reason or "")


def test_a_match_cut_short_inside_its_json_is_rejected_as_truncated(tmp_path: Path) -> None:
    text = gzip.decompress((ENGINES / "botzone" / "r1001.json.gz").read_bytes()).decode()
    path = tmp_path / "r1001.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    (got,) = read_file(path, "botzone")
    assert got.record is None and got.hand_id == "r1001"
    assert "not valid JSON" in (got.reason or "") and "truncated" in (got.reason or "")


def test_a_match_ended_on_an_illegal_move_is_abandoned_with_the_judges_verdict() -> None:
    """The 2023 judge's sample: its bot revokes and the judge ends the match (ILLEGAL_MOVE)."""
    (got,) = read_file(ENGINES / "botzone" / "judge2023" / "e0001.json.gz", "botzone")
    r = got.record
    assert r is not None and r.end == "abandoned"
    extra = dict(r.extra)
    assert extra["_judge"] == "2023"
    assert extra["_end"] == {"error": "ILLEGAL_MOVE", "seat": 1, "turn": 302}
    assert any("turn 302" in w and "ILLEGAL_MOVE" in w for _, w in got.warnings)
    # The illegal play itself is kept: the replay judges it.
    assert r.plays[-1].seat == 1


def test_a_log_cut_short_before_the_judges_finish_is_abandoned_and_keeps_the_last_answer() -> None:
    (got,) = read_file(ENGINES / "botzone" / "judge2023" / "real-botzone-sample.json.gz", "botzone")
    r = got.record
    assert r is not None and r.end == "abandoned"
    end = dict(r.extra)["_end"]
    assert "turn 333" in end["reason"] and end["unjudged"]["seat"] == 0
    assert r.claimed is not None and r.claimed.attackers_points is None


def test_the_crashed_match_is_imported_abandoned_and_its_crash_is_a_finding() -> None:
    """s6008: the 2024 judge fails comparing two ruffs of a throw ('Unknown Error')."""
    (got,) = read_file(ENGINES / "botzone" / "s6008.json.gz", "botzone")
    r = got.record
    assert r is not None and r.end == "abandoned"
    assert dict(r.extra)["_end"] == {"error": "Unknown Error", "seat": 1, "turn": 346}
    replay = replay_record(r)
    assert [f.code for f in replay.findings] == ["engine_fault"]
    assert replay.attackers_points is None


def test_a_log_without_hands_is_rejected_because_the_deal_cannot_be_rebuilt() -> None:
    got = list(read_file(ENGINES / "ejfn" / "seed0101.log.gz", "ejfn"))
    assert len(got) == 34
    assert all(g.record is None for g in got)
    assert all(g.hand_id == f"seed101-{i}" for i, g in enumerate(got, start=1))
    assert all("the deal cannot be rebuilt" in (g.reason or "") for g in got)


def test_events_outside_any_round_are_faults_with_their_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "R.jsonl", ['{"t": 1, "room": "R", "round": 1, "e": "play"}'])
    (got,) = read_file(path, "jerryyyu")
    assert got.record is None and got.hand_id == ""
    assert got.reason == "line 1: 'play' event outside any round: not read"
