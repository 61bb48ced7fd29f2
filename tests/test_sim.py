"""The table simulator (R1.3, R7.3, R7.4, R8): simulated hands replay with no finding, runs are
deterministic, matches carry levels and the banker over, and `shengji simulate` writes them."""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from shengji.cli import main as core_main
from shengji.hhfile import iter_lines, write_lines
from shengji.record import format_hand, parse_hand
from shengji.replay import replay_line
from shengji.rules import FOUR_DECK, RBTYING, TWO_DECK, rules_from_spec
from shengji.scoring import ACE
from shengji.sim.bots import make_bot
from shengji.sim.bots.base import ShowView
from shengji.sim.bots.careful import Careful
from shengji.sim.match import match_specs, passes_ace, play_match
from shengji.sim.personas import ROSTER, STYLES, PersonaError, persona
from shengji.sim.run import run_matches
from shengji.sim.table import HandSetup, play_hand


def _lines(matches: int, hands: int, seed: int, rules=FOUR_DECK, players=None) -> list[str]:
    specs = match_specs(matches, hands, seed, rules, players)
    return [h.line for h in run_matches(specs)]


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    """A small run of every style: three matches of up to 14 hands."""
    return _lines(3, 14, seed=20)


def test_r8_r6_r7_simulated_hands_replay_with_no_finding(corpus: list[str]) -> None:
    statuses = Counter()
    for number, text in enumerate(corpus, start=1):
        replay = replay_line(text, line=number)
        assert replay.findings == (), (replay.hand_id, replay.findings)
        statuses[replay.status] += 1
    assert statuses == {"ok": len(corpus)}
    assert len(corpus) >= 30


def test_r4_corpus_holds_throws_failed_throws_and_claims(corpus: list[str]) -> None:
    records = [parse_hand(t) for t in corpus]
    plays = [p for r in records for p in r.plays]
    assert any(p.forced is not None for p in plays), "some throw should fail"
    assert any(p.split is not None for p in plays), "some leader should state a split"
    assert all(r.claimed is not None and r.claimed.trump is not None for r in records)
    assert {r.match_id for r in records} == {"s20-m001", "s20-m002", "s20-m003"}


@pytest.mark.parametrize(
    "spec",
    [
        "two-deck",
        {
            "preset": "four-deck",
            "bottom_multiplier": "times",
            "failed_throw_forced": "first_blocker",
        },
        {"preset": "four-deck", "protect_longer_units": True, "throw_penalty_points": 10},
        {"preset": "four-deck", "ace_low_tractor": False, "throw_compare": "highest"},
    ],
)
def test_r9_other_rule_sets_replay_with_no_finding(spec: object) -> None:
    rules = rules_from_spec(spec)
    lines = _lines(1, 6, seed=5, rules=rules)
    for text in lines:
        replay = replay_line(text)
        assert replay.status == "ok", (replay.hand_id, replay.findings)
        assert replay.rules == rules


def test_same_seed_same_bytes_and_processes_change_nothing(tmp_path: Path) -> None:
    specs = match_specs(2, 5, 9, FOUR_DECK)
    one = [h.line for h in run_matches(specs)]
    two = [h.line for h in run_matches(specs, jobs=2)]
    assert one == two
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    write_lines(a, one)
    write_lines(b, _lines(2, 5, 9))
    assert a.read_bytes() == b.read_bytes()
    assert _lines(2, 5, 10) != one


def test_r7_3_r7_4_levels_and_banker_carry_over_within_a_match(corpus: list[str]) -> None:
    records = [parse_hand(t) for t in corpus]
    by_match: dict[str | None, list] = {}
    for r in records:
        by_match.setdefault(r.match_id, []).append(r)
    for hands in by_match.values():
        assert hands[0].banker is None and hands[0].levels == (2, 2)
        assert [h.hand_no for h in hands] == list(range(1, len(hands) + 1))
        times = [h.played_at for h in hands]
        assert times == sorted(times) and len(set(times)) == len(times)
        for before, after in pairwise(hands):
            if before.end == "redeal":
                assert after.banker is None and after.levels == before.levels
                continue
            claimed = before.claimed
            assert claimed is not None and claimed.level_change is not None
            team, levels = claimed.level_change
            expected = list(before.levels)
            expected[team] = min(ACE, expected[team] + levels)
            assert after.levels == tuple(expected)
            assert after.banker == claimed.next_banker


def test_match_ends_when_a_team_passes_ace() -> None:
    assert passes_ace(14, 1) and passes_ace(13, 2)
    assert not passes_ace(13, 1) and not passes_ace(14, 0)
    players = [persona(n) for n in ("lin", "wei", "mei", "xin")]
    hands = list(play_match(match_specs(1, 200, 4, FOUR_DECK, players)[0]))
    last = hands[-1]
    assert len(hands) < 200, "the careful pair should finish the match"
    assert last.outcome is not None and last.banker is not None
    team = last.outcome.winning_team(last.banker)
    assert passes_ace(last.record.levels[team], last.outcome.levels)


def test_personas_field_names_each_seat_style() -> None:
    record = parse_hand(_lines(1, 1, 3)[0])
    extra = dict(record.extra)
    styles = [p["style"] for p in extra["_personas"]]
    assert styles == [persona(name).style for name in record.players]
    assert len(ROSTER) >= 12 and {p.style for p in ROSTER} == set(STYLES)
    assert len({p.name for p in ROSTER}) == len(ROSTER)


class _Silent(Careful):
    """Never shows: forces the no-show paths of R8.5."""

    def choose_show(self, view: ShowView, options, rng):  # type: ignore[override]
        return None


def _setup(banker: int | None, rules=FOUR_DECK) -> HandSetup:
    personas = tuple(ROSTER[:4])
    return HandSetup("x-1", "test", "x", 1, "2026-01-01T00:00:00Z", rules, personas, (2, 2), banker)


@pytest.mark.parametrize("rules", [FOUR_DECK, TWO_DECK])
def test_r8_5_no_show_first_hand_is_a_redeal_later_hands_reveal_the_bottom(rules) -> None:
    bots = [_Silent(p) for p in ROSTER[:4]]
    first = play_hand(_setup(None, rules), bots, random.Random(1))
    assert first.record.end == "redeal" and first.score is None and not first.record.plays
    replay = replay_line(format_hand(first.record))
    assert replay.status == "ok" and replay.end == "redeal"
    later = play_hand(_setup(3, rules), bots, random.Random(2))
    replay = replay_line(format_hand(later.record))
    assert replay.status == "ok", replay.findings
    assert replay.trump_source == "bottom" and replay.banker == 3


def test_r8_4_first_hand_banker_is_the_standing_show() -> None:
    bots = [make_bot(p) for p in ROSTER[4:8]]  # bold players show early
    played = play_hand(_setup(None), bots, random.Random(7))
    record = played.record
    assert record.banker is None and record.bids
    assert played.banker == record.bids[-1].seat
    assert record.bury is not None and record.bury.seat == played.banker


def test_simulate_command_writes_gzip_and_truth(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run" / "hands.jsonl.gz"
    code = core_main(
        [
            "simulate",
            "--matches",
            "1",
            "--hands",
            "3",
            "--seed",
            "2",
            "--faults",
            "1",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    with gzip.open(out, "rb") as fh:
        assert fh.read().count(b"\n") == 3
    truth = (tmp_path / "run" / "hands.truth.jsonl").read_text().splitlines()
    assert 1 <= len(truth) <= 3
    assert set(json.loads(truth[0])) == {"hand_id", "line", "trick", "seat", "code"}
    assert "3 hands in 1 match," in capsys.readouterr().err


def test_simulate_command_players_and_rules(tmp_path: Path) -> None:
    out = tmp_path / "h.jsonl"
    rules = '{"preset": "two-deck", "bottom_multiplier": "linear"}'
    assert core_main(["simulate", "--players", "lin,mei,jun,hao", "--rules", rules,
                      "--hands", "2", "-o", str(out)]) == 0  # fmt: skip
    for _, text in iter_lines(out):
        record = parse_hand(text)
        assert record.players == ("lin", "mei", "jun", "hao")
        assert record.rules == replace(TWO_DECK, bottom_multiplier="linear")


def test_r9_simulate_plays_under_the_rbtying_preset(tmp_path: Path) -> None:
    """R9: `--rules rbtying` plays hands that replay clean under that preset."""
    out = tmp_path / "rb.jsonl"
    assert core_main(["simulate", "--rules", "rbtying", "--hands", "2", "--seed", "5",
                      "-o", str(out)]) == 0  # fmt: skip
    lines = list(iter_lines(out))
    assert len(lines) == 2
    for _, text in lines:
        assert parse_hand(text).rules == RBTYING
        replay = replay_line(text)
        assert replay.status == "ok", replay.findings


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "lin,mei,nobody,hao"],
        ["--players", "lin,mei,jun"],
        ["--rules", "three-deck"],
        ["--rules", "{not json"],
        ["--faults", "2"],
        ["--hands", "0"],
    ],
)
def test_simulate_command_rejects_bad_arguments(tmp_path: Path, argv: list[str], capsys) -> None:
    out = tmp_path / "h.jsonl.gz"
    assert core_main(["simulate", *argv, "-o", str(out)]) == 2
    assert "shengji simulate:" in capsys.readouterr().err
    assert not out.exists()


def test_unknown_player_error_names_the_roster() -> None:
    with pytest.raises(PersonaError, match="lin"):
        persona("nobody")


def test_bench_section_measures_the_simulator_and_a_sample(tmp_path: Path, monkeypatch) -> None:
    import bench.simulate as section

    write_lines(tmp_path / "s.jsonl.gz", _lines(1, 3, 8))
    monkeypatch.setattr(section, "SAMPLE", tmp_path)
    monkeypatch.setattr(section, "MATCHES", 1)
    monkeypatch.setattr(section, "HANDS", 2)
    monkeypatch.setattr(section, "RUNS", 1)
    text = section.main()
    assert "| 1 |" in text and "| 2 |" in text
    assert "3 hands, one pass" in text
    assert "| careful |" in text or "| bold |" in text or "| novice |" in text
