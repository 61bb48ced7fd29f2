"""The claims other engines' logs carry (docs/format.md): the banker and each trick's leader,
winner and points, read, written back and compared with the replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shengji.importers import read_file
from shengji.record import RecordError, TrickClaim, format_hand, parse_hand
from shengji.replay import replay_line

ROOM = Path(__file__).resolve().parent.parent / "data" / "engines" / "jerryyyu" / "SMA1.jsonl.gz"


@pytest.fixture(scope="module")
def line() -> str:
    record = next(iter(read_file(ROOM, "jerryyyu"))).record
    assert record is not None
    return format_hand(record)


def _claims(line: str, **change: object) -> str:
    obj = json.loads(line)
    obj["claimed"].update(change)
    return json.dumps(obj)


def test_banker_and_trick_claims_read_and_write_back(line: str) -> None:
    record = parse_hand(line)
    assert record.claimed is not None and record.claimed.banker == 2
    assert record.claimed.tricks[0] == TrickClaim(2, 2, 45)
    assert format_hand(record) == line
    assert replay_line(line).status == "ok"


def test_a_wrong_trick_claim_is_a_mismatch_naming_the_trick(line: str) -> None:
    obj = json.loads(line)
    tricks = obj["claimed"]["tricks"]
    tricks[2] = {**tricks[2], "winner": (tricks[2]["winner"] + 1) % 4, "points": 95}
    tricks[4] = {"leader": (tricks[4]["leader"] + 1) % 4, "winner": tricks[4]["winner"]}
    replay = replay_line(json.dumps(obj))
    found = [(f.code, f.trick, f.reason) for f in replay.findings]
    assert replay.status == "flagged"
    assert [(code, trick) for code, trick, _ in found] == [
        ("claim_mismatch", 3),
        ("claim_mismatch", 3),
        ("claim_mismatch", 5),
    ]
    assert found[0][2].startswith("claimed winner seat") and found[0][2].endswith("(trick 3)")
    assert "claimed points 95" in found[1][2]
    assert found[2][2].startswith("claimed leader seat")


def test_a_wrong_banker_claim_is_a_mismatch(line: str) -> None:
    replay = replay_line(_claims(line, banker=3))
    assert [f.reason for f in replay.findings] == ["claimed banker 3, but the replay gives 2"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"banker": 4}, "claimed.banker"),
        ({"tricks": {"leader": 0}}, "claimed.tricks"),
        ({"tricks": [{"leader": 0}]}, "claimed.tricks[0].winner"),
        ({"tricks": [{"leader": 0, "winner": 1, "who": 2}]}, "claimed.tricks[0]"),
    ],
)
def test_bad_claims_reject_the_line_naming_the_field(
    line: str, change: dict[str, object], field: str
) -> None:
    with pytest.raises(RecordError) as e:
        parse_hand(_claims(line, **change))
    assert e.value.field == field
