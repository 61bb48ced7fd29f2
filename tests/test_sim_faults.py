"""Injected faults (`shengji simulate --faults`): the audit finds every one with the right code,
trick and seat (recall 100%) and flags nothing else (precision 100%)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shengji.record import format_hand
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK, TWO_DECK
from shengji.sim.faults import KINDS, inject_faults, rewalk, truth_path
from shengji.sim.match import match_specs
from shengji.sim.run import SimHand, run_matches


@pytest.fixture(scope="module")
def hands() -> list[SimHand]:
    return list(run_matches(match_specs(2, 12, 31, FOUR_DECK)))


def _found(lines: list[str]) -> dict[int, set[tuple[str, int | None, int | None]]]:
    out = {}
    for number, text in enumerate(lines, start=1):
        replay = replay_line(text, line=number)
        found = {(f.code, f.trick, f.seat) for f in replay.findings}
        if found:
            out[number] = found
    return out


def _expected(rows: list[dict]) -> dict[int, set[tuple[str, int | None, int | None]]]:
    out: dict[int, set[tuple[str, int | None, int | None]]] = {}
    for row in rows:
        out.setdefault(row["line"], set()).add((row["code"], row["trick"], row["seat"]))
    return out


def test_every_fault_is_found_and_nothing_else(hands: list[SimHand]) -> None:
    lines, rows = inject_faults(hands, 1.0, seed=31)
    assert len(rows) == sum(1 for h in hands if h.played.record.end != "redeal")
    assert _found(lines) == _expected(rows)
    assert len({r["code"] for r in rows}) >= 5


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_fault_kind_gives_exactly_its_finding(hands: list[SimHand], kind: str) -> None:
    rng = random.Random(kind)
    made_any = 0
    for hand in hands[:8]:
        if hand.played.record.end == "redeal":
            continue
        made = KINDS[kind](hand.played, hand.line, rng)
        if made is None:
            continue
        corrupted, fault = made
        text = corrupted if isinstance(corrupted, str) else format_hand(corrupted)
        replay = replay_line(text)
        assert [(f.code, f.trick, f.seat) for f in replay.findings] == [
            (fault.code, fault.trick, fault.seat)
        ], (kind, hand.played.record.hand_id)
        made_any += 1
    assert made_any >= 3


def test_faults_leave_the_games_alone(hands: list[SimHand]) -> None:
    lines, rows = inject_faults(hands, 0.25, seed=31)
    corrupted = {r["line"] for r in rows}
    assert 0 < len(corrupted) < len(hands)
    for number, (line, hand) in enumerate(zip(lines, hands, strict=True), start=1):
        assert (line != hand.line) == (number in corrupted)
    assert inject_faults(hands, 0.0, seed=31) == ([h.line for h in hands], [])


def test_rewalk_agrees_with_the_table_on_clean_hands(hands: list[SimHand]) -> None:
    for hand in hands:
        played = hand.played
        record = played.record
        if record.end == "redeal":
            continue
        assert played.trump is not None and played.banker is not None
        buried = record.fries[-1].bury if record.fries else record.bury.cards  # type: ignore[union-attr]
        walk = rewalk(record.plays, played.start, played.trump, played.banker, buried, record.rules)
        assert walk is not None and walk.illegal == ()
        assert played.score is not None
        assert walk.score.attackers_points == played.score.attackers_points


def test_faults_under_two_deck_rules() -> None:
    two = list(run_matches(match_specs(1, 8, 3, TWO_DECK)))
    lines, rows = inject_faults(two, 1.0, seed=3)
    assert rows and _found(lines) == _expected(rows)


def test_truth_file_sits_next_to_the_output(tmp_path) -> None:
    assert truth_path(tmp_path / "a.jsonl.gz") == tmp_path / "a.truth.jsonl"
    assert truth_path(tmp_path / "b.jsonl") == tmp_path / "b.truth.jsonl"


def test_fault_mix_covers_the_kinds() -> None:
    many = list(run_matches(match_specs(3, 12, 77, FOUR_DECK)))
    _, rows = inject_faults(many, 1.0, seed=77)
    codes = Counter(r["code"] for r in rows)
    assert codes["must_follow_suit"] + codes["must_follow_shape"] >= 5
    assert {"not_in_hand", "throw_claim_mismatch", "claim_mismatch"} <= set(codes)
