"""The core's value types cross process boundaries in the compiled build as in the pure one: the
simulator's and the ingest's workers send rules, records and replays through pickle
(tests/pickle_roundtrip.py, run in a process of each build)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import dataclass, field, is_dataclass
from pathlib import Path

import pytest

from bench import compiled
from shengji.pickling import REGISTERED, picklable

SCRIPT = Path(__file__).resolve().parent / "pickle_roundtrip.py"


def test_every_value_type_of_a_compiled_module_pickles_by_its_constructor() -> None:
    """A frozen dataclass of a compiled module that is not registered would pickle in the pure
    build and fail to unpickle in the compiled one."""
    missing = []
    for name in compiled.modules():
        module = importlib.import_module(f"shengji.{name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and is_dataclass(value)
                and value.__module__ == module.__name__
                and value not in REGISTERED
            ):
                missing.append(f"{module.__name__}.{value.__qualname__}")
    assert missing == []


def _roundtrip(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_every_value_type_round_trips_through_a_process_pool_compiled() -> None:
    """Under the compiled build (made here when it is missing and this machine can compile)."""
    if compiled.current() is None and compiled.hook().missing_toolchain() is None:
        compiled.build()
    out = _roundtrip(compiled.environment())
    if compiled.hook().missing_toolchain() is None:
        assert "(compiled: " in out
    assert f"of {len(REGISTERED)} types round-tripped" in out


def test_every_value_type_round_trips_through_a_process_pool_pure() -> None:
    out = _roundtrip(compiled.pure_environment())
    assert "(pure Python)" in out


def test_only_a_dataclass_built_from_its_fields_can_be_registered() -> None:
    """The reducer rebuilds a value from its fields in order: a field the constructor does not
    take would be lost, so such a class is refused when it is registered."""

    @dataclass(frozen=True)
    class Derived:
        a: int
        b: int = field(init=False, default=0)

    class Plain:
        pass

    for cls in (Derived, Plain):
        with pytest.raises(TypeError, match="not a dataclass built from its fields"):
            picklable(cls)
        assert cls not in REGISTERED
