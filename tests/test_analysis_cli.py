"""`shengji analyse FILE [--hand ID] [--seat S] [--worlds N] [--jobs N] [--json]` (docs/cli.md,
docs/analysis.md)."""

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
    """Two simulated hands."""
    path = tmp_path / "small.jsonl.gz"
    write_lines(path, [text for _, text in islice(iter_lines(SAMPLE), 2)])
    return path


def _rows(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def test_json_is_deterministic_filtered_and_the_same_in_processes(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["analyse", str(small), "--hand", "s2026-m001-h002", "--seat", "3", "--worlds", "2"]
    assert main([*args, "--json"]) == 0
    rows = _rows(capsys)
    assert rows and {(r["hand_id"], r["seat"]) for r in rows} == {("s2026-m001-h002", 3)}
    assert [r["number"] for r in rows] == sorted(r["number"] for r in rows)  # type: ignore[type-var]
    for r in rows:
        assert r["engine"] == "pimc-2"
        if r["judged"]:
            assert 1 <= r["worlds"] <= 4  # type: ignore[operator]
        else:
            assert r["worlds"] == 0
    assert main([*args, "--json"]) == 0
    assert _rows(capsys) == rows
    assert main([*args, "--json", "--jobs", "2"]) == 0
    assert _rows(capsys) == rows
    assert main([*args, "--json", "--seed", "5"]) == 0
    assert len(_rows(capsys)) == len(rows)


def test_text_lists_the_hand_and_its_flagged_decisions(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "analyse",
                str(small),
                "--hand",
                "s2026-m001-h001",
                "--seat",
                "0",
                "--worlds",
                "2",
                "--all",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("hand s2026-m001-h001  ok  ") and " judged of " in lines[0]
    assert len(lines) > 1 and all(x.startswith("  trick ") for x in lines[1:])
    assert "1 hands;" in captured.err


def test_exit_statuses(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(small), "--hand", "nope"]) == 1
    assert "no hand 'nope'" in capsys.readouterr().err
    assert main(["analyse", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["analyse", str(small), "--worlds", "0"]) == 2


def test_a_hand_asked_by_id_is_the_only_line_replayed(
    small: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other lines' JSON is read for their hand_id, not replayed (a large file's other hands
    would cost seconds); a line that is not JSON is not the hand asked either."""
    from shengji.commands import analyse

    lines = [text for _, text in iter_lines(small)]
    mixed = small.with_name("mixed.jsonl.gz")
    write_lines(mixed, ["{not json", lines[0], '["a list"]', lines[1]])
    replayed: list[int | None] = []
    real = analyse.replay_line

    def counting(text: str, **kw: object) -> object:
        replayed.append(kw.get("line"))  # type: ignore[arg-type]
        return real(text, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(analyse, "replay_line", counting)
    hand = json.loads(lines[1])["hand_id"]
    args = ["analyse", str(mixed), "--hand", hand, "--seat", "0", "--worlds", "1", "--json"]
    assert main(args) == 0
    assert replayed == [4]
    assert {r["hand_id"] for r in _rows(capsys)} == {hand}
