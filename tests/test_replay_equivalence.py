"""The replay says exactly what it said when tests/data/replay_equivalence.json was written: the
same JSON for every hand of a fixed generated corpus (clean and corrupted hands, several rule
options, the golden hands) and the same verdicts and reasons from the public rule functions on
every trick (tests/replay_equivalence.py). Speed work on the rules core must keep both digests;
a deliberate change of a verdict or a reason regenerates the file
(`python tests/replay_equivalence.py write`)."""

from __future__ import annotations

import hashlib
import json

import pytest
from replay_equivalence import DIGEST, corpus, digest


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
