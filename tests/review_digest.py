"""Review digest: what the coaching review says about the bundled sample, hand by hand.

For the first `SAMPLE_HANDS` hands of data/sample and every hand of data/faulty, a sha256 of every
field of every judged decision (`review.review_hand`), with the count of each code.
tests/test_review_fast.py checks them against tests/data/review_digest.json: speed work on the
review must keep every verdict. After a deliberate change of what the review says (or a new
bundled sample), regenerate the file with `python tests/review_digest.py write` and say in the
commit which verdicts changed and why.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from itertools import islice
from pathlib import Path

from shengji.coach.review import Decision, review_hand
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.results import HandReplay

ROOT = Path(__file__).resolve().parent.parent
DIGEST = ROOT / "tests" / "data" / "review_digest.json"
SAMPLE = ROOT / "data" / "sample" / "hands.jsonl.gz"
FAULTY = ROOT / "data" / "faulty" / "faulty.jsonl.gz"
SAMPLE_HANDS = 400


def replays() -> list[HandReplay]:
    out: list[HandReplay] = []
    for path, count in ((SAMPLE, SAMPLE_HANDS), (FAULTY, None)):
        for number, text in islice(iter_lines(path), count):
            out.append(replay_line(text, line=number))
    return out


def dump(d: Decision) -> str:
    """Every field of a decision, floats by their repr: any change shows."""
    return json.dumps(
        [
            d.code,
            d.hand_id,
            d.trick,
            d.seat,
            d.severity,
            repr(d.cost),
            list(d.play),
            None if d.better is None else list(d.better),
            d.reason,
            repr(d.p_fail),
            repr(d.p_error),
            d.outcome,
        ],
        ensure_ascii=False,
    )


def digest(hands: list[HandReplay], *, exhaustive: bool = False) -> dict[str, object]:
    codes: Counter[str] = Counter()
    per_hand: dict[str, str] = {}
    for i, r in enumerate(hands):
        decisions = review_hand(r, exhaustive=exhaustive)
        codes.update(d.code for d in decisions)
        text = "\n".join(dump(d) for d in decisions)
        per_hand[f"{i}:{r.hand_id}"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return {
        "hands": len(hands),
        "decisions": sum(codes.values()),
        "codes": dict(sorted(codes.items())),
        "per_hand": per_hand,
    }


def main(argv: list[str]) -> int:
    if argv != ["write"]:
        print("usage: python tests/review_digest.py write", file=sys.stderr)
        return 2
    found = digest(replays())
    DIGEST.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DIGEST.relative_to(ROOT)}: {found['decisions']} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
