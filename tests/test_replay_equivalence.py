"""The replay says exactly what it said when tests/data/replay_equivalence.json was written: the
same JSON for every hand of a fixed generated corpus (clean and corrupted hands, several rule
options, the golden hands) and the same verdicts and reasons from the public rule functions on
every trick (tests/replay_equivalence.py). Speed work on the rules core must keep both digests;
a deliberate change of a verdict or a reason regenerates the file
(`python tests/replay_equivalence.py write`)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from replay_equivalence import DIGEST, corpus, digest

from bench import compiled
from shengji.replay import replay_line
from shengji.scoring import TrickScore, score_hand
from shengji.shape import Reading
from shengji.trump import parse_trump


@pytest.fixture(scope="module")
def expected() -> dict[str, object]:
    return json.loads(DIGEST.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return corpus()


def test_the_corpus_is_the_one_digested(lines: list[str], expected: dict[str, object]) -> None:
    """The generator still makes the same lines, so a digest change below is the replay's."""
    assert len(lines) == expected["hands"]
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == expected["corpus_sha256"]


def test_replay_and_verdicts_are_unchanged(lines: list[str], expected: dict[str, object]) -> None:
    assert digest(lines) == expected


def test_the_corpus_holds_faults_of_every_play_kind(expected: dict[str, object]) -> None:
    codes = expected["codes"]
    assert isinstance(codes, dict)
    for code in (
        "must_follow_suit",
        "must_follow_shape",
        "throw_claim_mismatch",
        "bad_split",
        "not_in_hand",
        "out_of_turn",
        "wrong_count",
        "mixed_lead",
        "incomplete_hand",
        "claim_mismatch",
        "bad_json",
        "bad_record",
    ):
        assert codes.get(code, 0) > 0, code
    statuses = expected["statuses"]
    assert isinstance(statuses, dict)
    assert set(statuses) == {"ok", "flagged", "rejected"}


def test_the_replay_scores_every_hand_as_score_hand_does(lines: list[str]) -> None:
    """R7, R4.5: the replay totals the score itself, without `score_hand`'s explaining rows;
    both must agree on every hand that is scored."""
    scored = 0
    for text in lines:
        r = replay_line(text, strict=False)
        if r.attackers_points is None:
            continue
        assert r.banker is not None and r.trump is not None and r.level is not None
        assert r.rules is not None and r.bottom is not None and r.level_change is not None
        last = r.tricks[-1]
        winning = next(p.cards for p in last.plays if p.seat == last.winner)
        failed = [t.leader for t in r.tricks if t.throw is not None and t.throw.failed]
        table = score_hand(
            r.banker,
            [TrickScore(t.winner, t.points) for t in r.tricks],
            Reading(last.suit, last.components),
            winning,
            r.bottom_buried,
            parse_trump(r.trump, r.level),
            r.rules,
            failed,
        )
        assert table.bottom is not None
        assert r.attackers_points == table.attackers_points
        assert (
            r.bottom.bottom_points,
            r.bottom.captured,
            r.bottom.multiplier,
            r.bottom.points,
        ) == (
            table.bottom.bottom_points,
            table.bottom.captured,
            table.bottom.multiplier,
            table.bottom.points,
        )
        outcome = table.outcome
        assert (r.level_change.team, r.level_change.levels, r.level_change.banker_won) == (
            outcome.winning_team(r.banker),
            outcome.levels,
            outcome.winner == "banker",
        )
        assert r.next_banker == table.next_banker
        assert r.ladder_points == table.ladder_points
        scored += 1
    assert scored > 100


def test_a_current_compiled_build_replays_to_the_same_digests() -> None:
    """The mypyc build of the core (`python -m bench.compiled build`) says exactly what the pure
    modules say. Without a build made from the current sources, the test makes one (mypyc and a
    C compiler are part of the test environment), so the check always runs."""
    build = compiled.current()
    if build is None:
        made = subprocess.run(
            [sys.executable, "-m", "bench.compiled", "build"], capture_output=True, text=True
        )
        assert made.returncode == 0, made.stdout + made.stderr
        build = compiled.current()
        assert build is not None
    script = Path(__file__).resolve().parent / "replay_equivalence.py"
    done = subprocess.run(
        [sys.executable, str(script), "verify", "--compiled"],
        env=compiled.environment(build),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "identical (compiled:" in done.stdout
