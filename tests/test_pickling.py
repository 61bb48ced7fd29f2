"""The core's value types cross process boundaries in the compiled build as in the pure one: the
simulator's and the ingest's workers send rules, records and replays through pickle
(tests/pickle_roundtrip.py, run in a process of each build)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from dataclasses import FrozenInstanceError, dataclass, field, is_dataclass, replace
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
        compiled.build(force=False)
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


def _field_defaults(cls: ast.ClassDef) -> list[tuple[str, str | None]]:
    out = []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            value = node.value
            if isinstance(value, ast.Call):  # field(default=...)
                value = next(k.value for k in value.keywords if k.arg == "default")
            out.append((node.target.id, None if value is None else ast.unparse(value)))
    return out


def test_every_written_out_init_takes_the_dataclass_fields_in_order() -> None:
    """A value type's `__init__` is written out (shengji/pickling.py): it must take exactly the
    fields, in order, with their defaults, and store each under its own name."""
    checked = 0
    for name in compiled.modules():
        importlib.import_module(f"shengji.{name}")
        path = compiled.SOURCE / compiled.hook().module_file(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef) or not any(
                "dataclass" in ast.unparse(d) for d in cls.decorator_list
            ):
                continue
            init = next(
                f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"
            )
            args = init.args.args[1:]
            defaults = [None] * (len(args) - len(init.args.defaults)) + [
                ast.unparse(d) for d in init.args.defaults
            ]
            taken = [(a.arg, d) for a, d in zip(args, defaults, strict=True)]
            assert taken == _field_defaults(cls), cls.name
            stores = [ast.unparse(s) for s in init.body if isinstance(s, ast.Expr)]
            assert stores == [f"object.__setattr__(self, {n!r}, {n})" for n, _ in taken], cls.name
            checked += 1
    assert checked == len(REGISTERED)


def test_a_value_type_stays_frozen() -> None:
    from shengji.results import PlayRecord

    play = PlayRecord(1, (3, 4), "follow", True, None, 5)
    with pytest.raises(FrozenInstanceError):
        play.seat = 2  # type: ignore[misc]
    assert replace(play, seat=2) == PlayRecord(2, (3, 4), "follow", True, None, 5)
    assert hash(play) == hash(PlayRecord(1, (3, 4), "follow", True, None, 5))
