"""On simulated play the review ranks the bot styles the way docs/bots.md describes them: the
novice leaks the most points per hand, the careful player the fewest (docs/review.md)."""

from __future__ import annotations

from collections import Counter
from itertools import islice
from pathlib import Path

from shengji.coach.review import review_hand
from shengji.hhfile import iter_lines
from shengji.replay import replay_line

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
HANDS = 150
"""The first hands of the bundled sample (`make sample`, seed 2026): a fixed sample."""


def test_points_lost_per_hand_rank_the_styles() -> None:
    lost: Counter[str] = Counter()
    seat_hands: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    mistakes: Counter[str] = Counter()
    for number, text in islice(iter_lines(SAMPLE), HANDS):
        r = replay_line(text, line=number)
        assert r.status == "ok"
        if not r.tricks:
            continue
        styles = [p.style or "" for p in r.personas]
        for style in styles:
            seat_hands[style] += 1
        for d in review_hand(r):
            style = styles[d.seat]
            lost[style] += d.cost
            judged[style] += 1
            mistakes[style] += d.is_mistake
    per_hand = {s: lost[s] / seat_hands[s] for s in ("careful", "bold", "novice")}
    # Measured on these 150 hands, in the score's unit (the attackers' total, signed for the
    # actor's side): careful 3.5, bold 9.2, novice 18.3 points per hand.
    assert per_hand["careful"] < per_hand["bold"] < per_hand["novice"]
    assert per_hand["novice"] - per_hand["careful"] >= 10.0
    rate = {s: mistakes[s] / judged[s] for s in per_hand}
    assert rate["careful"] < rate["novice"]
