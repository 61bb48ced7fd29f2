"""The analysis bench's duplicate tables: the analysing seats change the careful bot's play only
where the analysis flags it, and a deal's two tables put each partnership in the other's seats."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bench import analysis as section
from shengji.coach.analysis import Judgement


def _judged(flagged: bool) -> Any:
    def judge(spot: Any, settings: Any) -> Judgement:
        # The best alternative is any other candidate: what the bot would not have played.
        other = next(c for c in spot.candidates if sorted(c) != sorted(spot.play))
        return replace(
            Judgement(spot.hand_id, spot.number, spot.trick, spot.seat, spot.kind, spot.play, True),
            best=other,
            loss=20.0 if flagged else 4.0,
            flagged=flagged,
        )

    return judge


def test_flagged_advice_is_played(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(section, "judge", _judged(True))
    _, decisions, changed = section._table(3, 0)
    # Every decision with a choice was changed to another candidate.
    assert decisions > 20 and 0 < changed <= decisions


def test_with_no_change_at_either_table_a_deal_gains_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(section, "judge", _judged(False))
    first, second = section._pair(5)
    # The same cards at the same seats, played by the careful bot at both tables.
    assert first[2] == second[2] == 0
    assert first[0] == second[0]


def test_a_disagreement_is_explained_by_its_first_kind() -> None:
    from shengji.cards import parse_cards
    from shengji.trump import trump_context

    trump = trump_context(0, 2)  # spades trump, level 2
    made = parse_cards("5S")
    base = Judgement("h", 1, 3, 1, "follow", made, True)

    def task(better: str, cost: float) -> section.AgreeTask:
        return (0, 1, made, parse_cards(better), cost, "blunder")

    # A joker where a five of trump was played: more trump spent, whatever the trick's worth.
    assert "more or higher trump" in section._why(base, task("SJ", 40), trump)
    # The same count of trump but a higher one counts too; a side card does not.
    assert "more or higher trump" in section._why(base, task("AS", 40), trump)
    assert "under 10 points" in section._why(base, task("3S", 5), trump)
    noisy = replace(base, best=parse_cards("3S"), loss=12.0, loss_se=8.0)
    assert "noise" in section._why(noisy, task("3S", 40), trump)
    assert "came back later" in section._why(base, task("3S", 40), trump)
