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
