"""`shengji replay` and `shengji audit` (docs/cli.md): output, options and exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shengji.cli import main
from shengji.hhfile import write_lines

HANDS = Path(__file__).resolve().parent / "data" / "hands"
LINES = (HANDS / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()
EXPECTED = [
    json.loads(x)
    for x in (HANDS / "scenarios.expected.jsonl").read_text(encoding="utf-8").splitlines()
]


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """The clean hand, a flagged one and a cut line, gzip-compressed."""
    path = tmp_path / "small.jsonl.gz"
    flagged = next(line for line in LINES if '"_case":"must_follow_suit"' in line)
    write_lines(path, [LINES[0], "", flagged, LINES[-1]])
    return path


def test_audit_lists_each_hand_then_totals(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(small)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{small}:1  g-clean  ok"
    assert out[1] == f"{small}:3  g-must_follow_suit  flagged"
    assert out[2].startswith("    must_follow_suit trick 1 seat 1: seat 1 to seat 0's lead ")
    assert out[3] == f"{small}:4  (no id)  rejected"
    assert out[4].startswith("    bad_json: not valid JSON")
    assert out[5] == "3 hands: 1 ok, 1 flagged, 1 rejected"
    assert sorted(out[6:]) == sorted(["  bad_json               1", "  must_follow_suit       1"])


def test_audit_json_gives_one_line_per_hand_and_totals_on_stderr(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = tmp_path / "again" / small.name
    again.parent.mkdir()
    again.write_bytes(small.read_bytes())
    assert main(["audit", "--json", str(small), str(again), str(small)]) == 1
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [(r["hand_id"], r["status"], r["line"]) for r in rows] == [
        ("g-clean", "ok", 1),
        ("g-must_follow_suit", "flagged", 3),
        ("", "rejected", 4),
    ] * 2
    assert set(rows[1]) == {"file", "hand_id", "line", "status", "findings"}
    golden = EXPECTED[LINES.index(_line("must_follow_suit"))]["findings"]
    assert rows[1]["findings"] == [{**f, "line": 3} for f in golden]
    assert captured.err.startswith("6 hands: 2 ok, 2 flagged, 2 rejected")
    assert [r["file"] for r in rows] == [str(small)] * 3 + [str(again)] * 3  # each file once


def _line(case: str) -> str:
    return next(line for line in LINES if f'"_case":"{case}"' in line)


def test_audit_of_clean_hands_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "clean.jsonl"
    write_lines(path, [LINES[0], _line("fried")])
    assert main(["audit", str(path)]) == 0
    assert "2 hands: 2 ok, 0 flagged, 0 rejected" in capsys.readouterr().out


def test_audit_goes_on_past_a_missing_file(
    tmp_path: Path, small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(tmp_path / "nope.jsonl"), str(small)]) == 2
    captured = capsys.readouterr()
    assert "nope.jsonl: does not exist" in captured.err and "g-clean" in captured.out


def test_replay_json_matches_the_golden_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "all.jsonl"
    write_lines(path, LINES)
    assert main(["replay", "--json", str(path)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows == EXPECTED
    trick = rows[0]["tricks"][0]
    assert set(trick) >= {"leader", "plays", "throw", "winner", "points"}
    assert set(rows[0]["bottom"]) >= {"captured", "multiplier", "points"}
    assert set(rows[0]["level_change"]) >= {"team", "levels"}


def test_replay_draws_one_hand_trick_by_trick(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(small), "--hand", "g-must_follow_suit"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hand g-must_follow_suit  tests, line 3  flagged\n")
    assert "\x1b[" not in out  # not a terminal: no colour
    trick1 = out.split("\ntrick 1 ")[1].split("\ntrick 2 ")[0]
    assert "  ! must_follow_suit seat 1: seat 1 to seat 0's lead" in trick1
    assert "◀" in trick1 and "wins" in trick1 and "attackers" in trick1
    assert out.rstrip().splitlines()[-1].startswith("outcome  attackers ")


def test_replay_of_an_unknown_hand_or_file(small: Path, tmp_path: Path) -> None:
    assert main(["replay", str(small), "--hand", "nope"]) == 1
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2


def test_replay_colours_only_for_a_terminal(small: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["replay", str(small), "--hand", "g-clean"]) == 0
    assert "\x1b[1m" in out.getvalue()
