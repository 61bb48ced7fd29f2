"""The goal of the importers: every hand of the committed logs of the engines whose rules the
presets model replays under its engine's preset and agrees with the engine on everything it
reported (trump, banker, each trick's leader, winner and points, the attackers' total, the bottom
multiplier, the level change, the next banker). The only findings allowed are the ones the engine
made itself: the 2024 Botzone judge's crash in s6008 (`engine_fault`), the 2023 judge's
ILLEGAL_MOVE in e0001."""

from __future__ import annotations

from pathlib import Path

import pytest

from shengji.importers import read_file
from shengji.replay import replay_record

ENGINES = Path(__file__).resolve().parent.parent / "data" / "engines"
LOGS = [
    *[(p, "jerryyyu") for p in sorted((ENGINES / "jerryyyu").glob("*.jsonl.gz"))],
    *[(p, "botzone") for p in sorted((ENGINES / "botzone").glob("*.json.gz"))],
    *[(p, "ejfn") for p in sorted((ENGINES / "ejfn").glob("seed000*.log.gz"))],
]


@pytest.mark.parametrize(("path", "engine"), LOGS, ids=[p.name for p, _ in LOGS])
def test_every_hand_agrees_with_its_engine(path: Path, engine: str) -> None:
    hands = list(read_file(path, engine))
    assert hands
    for imported in hands:
        assert imported.record is not None, imported.reason
        replay = replay_record(imported.record, line=imported.line)
        codes = [f.code for f in replay.findings]
        if imported.hand_id == "s6008":
            assert codes == ["engine_fault"]
            continue
        assert replay.status == "ok", [(f.code, f.trick, f.reason) for f in replay.findings]
        assert imported.record.claimed is not None
        assert len(replay.tricks) == len(imported.record.claimed.tricks) + (
            1 if engine == "botzone" else 0
        )


JUDGE2023 = ENGINES / "botzone" / "judge2023"


def test_the_2023_judges_match_agrees_and_its_one_finding_is_the_judges_illegal_move() -> None:
    """e0001 under `botzone2023`: every trick the judge reported agrees (the trump A low decides
    trick 7), and the one finding is the play the judge ended the match on (ILLEGAL_MOVE, seat 1,
    turn 302: 10♥ on a joker lead, holding trump)."""
    (imported,) = read_file(JUDGE2023 / "e0001.json.gz", "botzone")
    record = imported.record
    assert record is not None and record.rules.preset == "botzone2023"
    assert dict(record.extra)["_end"] == {"error": "ILLEGAL_MOVE", "seat": 1, "turn": 302}
    replay = replay_record(record, line=imported.line)
    assert [(f.code, f.trick, f.seat) for f in replay.findings] == [("must_follow_suit", 13, 1)]
    assert record.claimed is not None and len(replay.tricks) == len(record.claimed.tricks)
    assert record.plays[-1].seat == 1


def test_the_log_beside_the_2023_judge_was_written_by_another_version_of_it() -> None:
    """real-botzone-sample: the published judge.py would have ended this match at trick 2
    (ILLEGAL_MOVE, seat 2's 5♣ K♣ on a trump pair while holding one) and ranks the trump A lowest,
    where the log's trick 14 needs it highest. Under `botzone2023` the replay reports the follows
    that code rejects, not the one it lets pass (trick 3, seat 1: 10♥ 10♥ holding no trump pair),
    and the disagreement at trick 14 (docs/rules.md, "The 2023 Botzone judge")."""
    (imported,) = read_file(JUDGE2023 / "real-botzone-sample.json.gz", "botzone")
    record = imported.record
    assert record is not None and record.rules.preset == "botzone2023"
    replay = replay_record(record, line=imported.line)
    follows = [(f.trick, f.seat) for f in replay.findings if f.code.startswith("must_follow")]
    assert follows == [(2, 2), (3, 2), (3, 3), (7, 2), (8, 2), (13, 0), (13, 1), (13, 2), (14, 2)]
    mismatches = [f.trick for f in replay.findings if f.code == "claim_mismatch"]
    assert mismatches == [14]
