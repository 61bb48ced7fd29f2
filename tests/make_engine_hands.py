"""Writes tests/data/hands/engines.jsonl (+ .expected.jsonl): golden hands of the findings only an
engine preset makes (docs/rules.md, "Engine presets"), kept apart from scenarios.jsonl so that the
replay-equivalence corpus, which holds those, stays as digested.

Run from the repository root: `python tests/make_engine_hands.py`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hh_builder import played_hand

from shengji.record import hand_to_json
from shengji.render import replay_json
from shengji.replay import replay_line
from shengji.rules import preset

OUT = Path(__file__).resolve().parent / "data" / "hands"


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def engine_fault() -> dict[str, Any]:
    """The first Botzone hand played by the rules whose judge fails on a throw trick."""
    for seed in range(500):
        obj = hand_to_json(played_hand(seed, rules=preset("botzone"), throw_rate=0.5))
        obj["hand_id"], obj["_case"] = "g-engine_fault", "engine_fault"
        codes = [f.code for f in replay_line(_line(obj)).findings]
        if codes == ["engine_fault"]:
            return obj
    raise SystemExit("no seed gives an engine_fault")


def main() -> None:
    lines = [_line(engine_fault())]
    (OUT / "engines.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = [
        _line(replay_json(replay_line(text, line=n))) for n, text in enumerate(lines, start=1)
    ]
    (OUT / "engines.expected.jsonl").write_text("\n".join(expected) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} hands to {OUT}")


if __name__ == "__main__":
    main()
