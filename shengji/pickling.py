"""Pickling the core's frozen value types by their constructor, so they cross process boundaries
(the simulator's and the ingest's worker processes) in the compiled build too.

Pickle's default restores an instance by setting its fields one by one after creating it empty;
a frozen dataclass compiled with mypyc refuses that (`FrozenInstanceError`), so a `RuleSet` sent
to a worker, or a `HandReplay` sent back, would fail to unpickle. `picklable` registers, for each
class, a reducer that rebuilds the value through its `__init__` from its fields in order — the
same value, pure or compiled. Each module registers the value types it defines.
"""

from __future__ import annotations

import copyreg
from dataclasses import fields, is_dataclass
from typing import Any

REGISTERED: dict[type, tuple[str, ...]] = {}
"""Every class registered, with its fields' names in constructor order."""


def picklable(*classes: type) -> None:
    """Pickle each frozen dataclass of `classes` as a call of its constructor with its fields."""
    for cls in classes:
        if not is_dataclass(cls) or not all(f.init and not f.kw_only for f in fields(cls)):
            raise TypeError(f"{cls.__qualname__} is not a dataclass built from its fields")
        REGISTERED[cls] = tuple(f.name for f in fields(cls))
        copyreg.pickle(cls, _by_fields)


def _by_fields(value: Any) -> tuple[type, tuple[Any, ...]]:
    cls = type(value)
    return cls, tuple([getattr(value, name) for name in REGISTERED[cls]])
