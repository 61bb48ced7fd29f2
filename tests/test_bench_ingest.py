"""The ingest benchmark measures the core users run, and says which."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import compiled
from bench import ingest as section


def test_runs_use_the_compiled_core_when_its_build_is_current(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compiled, "current", lambda: Path("build/compiled"))
    monkeypatch.setenv("SHENGJI_PURE", "1")
    words, env = section.core_environment()
    assert words == "the compiled core"
    assert "SHENGJI_PURE" not in env


def test_runs_fall_back_to_the_pure_core_without_a_current_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compiled, "current", lambda: None)
    words, env = section.core_environment()
    assert words.startswith("the pure-Python core")
    assert env["SHENGJI_PURE"] == "1"


def test_the_increment_is_new_hands_of_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily-ingest measurement's file: the base's first lines under keys no copy of the
    corpus holds, everything else as it was."""
    import gzip
    import json
    from itertools import islice

    import bench.ingest as bi
    from shengji.hhfile import iter_lines

    sample = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
    base = tmp_path / "base.jsonl.gz"
    lines = [text for _, text in islice(iter_lines(sample), 5)]
    with gzip.open(base, "wt", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))
    monkeypatch.setattr(bi, "CACHE", tmp_path)
    monkeypatch.setattr(bi, "base_corpus", lambda: base)
    monkeypatch.setattr(bi, "INCREMENT_HANDS", 3)
    with gzip.open(bi.increment_file(), "rt", encoding="utf-8") as fh:
        got = [json.loads(line) for line in fh]
    want = [json.loads(line) for line in lines[:3]]
    assert [g["hand_id"] for g in got] == [f"{w['hand_id']}~{bi.INCREMENT_COPY}" for w in want]
    for g, w in zip(got, want, strict=True):
        assert {k: v for k, v in g.items() if k not in ("hand_id", "match_id")} == {
            k: v for k, v in w.items() if k not in ("hand_id", "match_id")
        }
