"""`shengji review FILE [--hand ID] [--seat S] [--all] [--json]` (docs/cli.md, docs/review.md)."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

import pytest

from shengji.cli import main
from shengji.hhfile import iter_lines, write_lines

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """Four simulated hands (the fifth sample hand has a fourth seat with too many legal plays to
    judge) and a cut line."""
    path = tmp_path / "small.jsonl.gz"
    lines = [text for _, text in islice(iter_lines(SAMPLE), 5)]
    lines = [*lines[:3], lines[4]]
    write_lines(path, [*lines, lines[0][:50]])
    return path


def test_json_has_every_decision_and_filters(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(small), "--json", "--all"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows and {r["hand_id"] for r in rows} == {
        "s2026-m001-h001",
        "s2026-m001-h002",
        "s2026-m001-h003",
        "s2026-m001-h005",
    }
    for r in rows:
        assert r["severity"] in ("ok", "note", "inaccuracy", "mistake", "blunder")
        assert (r["cost"] > 0) == (r["severity"] in ("inaccuracy", "mistake", "blunder")) or (
            r["code"] == "throw_certain_fail"
        )
        assert r["reason"]
        assert r["judged"] == (r["kind"] != "note" and not r["code"].endswith("_skipped"))
    assert (
        main(["review", str(small), "--json", "--all", "--hand", "s2026-m001-h002", "--seat", "2"])
        == 0
    )
    only = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert only and {(r["hand_id"], r["seat"]) for r in only} == {("s2026-m001-h002", 2)}
    assert only == [r for r in rows if r["hand_id"] == "s2026-m001-h002" and r["seat"] == 2]


def test_text_lists_flagged_decisions(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(small), "--hand", "s2026-m001-h002"]) == 0
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0].startswith("hand s2026-m001-h002  ok  ")
    assert "trick 8  seat 3 (hao)  mistake     10.0  missed_points: played 5♥ 7♥ 10♥" in out[1]
    assert "1 hand; decisions:" in captured.err
    assert main(["review", str(small), "--hand", "s2026-m001-h002", "--all"]) == 0
    assert len(capsys.readouterr().out.splitlines()) > len(out)


def test_the_hand_line_counts_only_the_decisions_judged(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Notes and the decisions the review could not judge are listed but not counted as judged."""
    assert main(["review", str(small), "--json", "--all"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main(["review", str(small)]) == 0
    heads = [x for x in capsys.readouterr().out.splitlines() if x.startswith("hand ")]
    assert len(heads) == 5  # the cut line too, not reviewed
    unjudged_somewhere = False
    for head in heads[:4]:
        hand = head.split()[1]
        mine = [r for r in rows if r["hand_id"] == hand]
        judged = sum(r["judged"] for r in mine)
        skipped = sum(r["code"].endswith("_skipped") for r in mine)
        unjudged_somewhere |= judged < len(mine)
        tail = f", {skipped} not judged" if skipped else ""
        assert f"  {judged} judged{tail}, " in head, head
    assert unjudged_somewhere  # a note or a skipped seat among these hands


def test_exit_statuses(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(small), "--hand", "nope"]) == 1
    assert "no hand 'nope'" in capsys.readouterr().err
    assert main(["review", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl: does not exist" in capsys.readouterr().err
    assert main(["review", str(small)]) == 0
    assert "(not reviewed): bad_json: not valid JSON" in capsys.readouterr().out


def test_a_file_of_no_hands_is_refused_or_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A text file is not read as hands unless forced, and forced every line says why it was not
    reviewed and the run fails, as ingest does."""
    text = tmp_path / "notes.md"
    text.write_text("# notes\n\nnot a hand\n")
    assert main(["review", str(text)]) == 2
    assert "not a .jsonl or .jsonl.gz file" in capsys.readouterr().err
    assert main(["review", str(text), "--force"]) == 1
    captured = capsys.readouterr()
    heads = captured.out.splitlines()
    assert len(heads) == 2 and all("rejected (not reviewed): bad_json: " in h for h in heads)
    assert "no hand could be reviewed" in captured.err


def test_json_lists_sound_decisions_only_with_all(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(small), "--json"]) == 0
    flagged = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main(["review", str(small), "--json", "--all"]) == 0
    every = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert flagged == [r for r in every if r["severity"] != "ok"]
    assert len(flagged) < len(every)


def test_player_picks_the_seat_they_sat_at(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(small), "--json", "--all", "--hand", "s2026-m001-h002"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main(["replay", str(small), "--json", "--hand", "s2026-m001-h002"]) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    name = players[3]
    assert main(["review", str(small), "--json", "--all", "--player", name]) == 0
    mine = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {r["seat"] for r in mine if r["hand_id"] == "s2026-m001-h002"} == {3}
    assert [r for r in mine if r["hand_id"] == "s2026-m001-h002"] == [
        r for r in rows if r["seat"] == 3
    ]
    assert main(["review", str(small), "--player", "nobody-of-that-name"]) == 1
    assert "no hand with a player named 'nobody-of-that-name'" in capsys.readouterr().err


def test_a_folder_is_read_as_ingest_reads_it(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(small.parent), "--json", "--all"]) == 0
    from_folder = capsys.readouterr().out
    assert main(["review", str(small), "--json", "--all"]) == 0
    assert from_folder == capsys.readouterr().out
