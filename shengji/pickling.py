"""How the core's frozen value types are built and pickled, so that the compiled build is fast
with them and they cross process boundaries (the simulator's and the ingest's worker processes).

Each frozen dataclass of a compiled module writes out its `__init__` — the dataclass's own, field
by field with `object.__setattr__` — instead of letting `dataclass` generate it: mypyc compiles
that written-out one into native stores (~60 ns a value), while the generated one stays Python
and sets each field through the slot machinery (~750 ns), which was a fifth of the compiled
replay. The value types stay frozen (assigning a field raises `FrozenInstanceError`), hashable,
comparable and `dataclasses.replace`-able; tests/test_pickling.py checks that every written-out
`__init__` takes exactly the dataclass's fields, in order, with their defaults.

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
