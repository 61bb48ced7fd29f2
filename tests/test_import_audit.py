"""The goal of the importers: every hand of the committed logs of the engines whose rules the
presets model replays under its engine's preset and agrees with the engine on everything it
reported (trump, banker, each trick's leader, winner and points, the attackers' total, the bottom
multiplier, the level change, the next banker). The only finding allowed is the one the engine
made itself: the 2024 Botzone judge's crash in s6008 (`engine_fault`)."""

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
