"""The value types of combinations: a component (unit or tractor) and the reading of a lead (R3, R4.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import Card, format_cards, pretty_card
from .pickling import picklable

UNIT_KINDS: Final = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


@dataclass(frozen=True, slots=True)
class Component:
    """`width` identical cards on each of `faces`, consecutive faces of one effective suit.

    One face is a unit (single, pair, triple, quad); two or more faces of width >= 2 are a tractor.
    `faces` runs from low to high along the suit's ladder; `top` is the ladder position of the
    highest face and ranks the component against others of the same shape.
    """

    width: int
    faces: tuple[Card, ...]
    top: int

    @property
    def length(self) -> int:
        return len(self.faces)

    @property
    def size(self) -> int:
        return self.width * len(self.faces)

    @property
    def kind(self) -> str:
        return UNIT_KINDS[self.width] if len(self.faces) == 1 else "tractor"

    @property
    def is_tractor(self) -> bool:
        return len(self.faces) > 1

    def cards(self) -> tuple[Card, ...]:
        return tuple(f for f in self.faces for _ in range(self.width))

    def tokens(self) -> str:
        return format_cards(self.cards())

    def shape(self) -> tuple[int, int]:
        return (self.width, len(self.faces))

    def describe(self) -> str:
        """For reasons and people: `pair 7♥ 7♥`, `tractor⟨2-2⟩ 7♥ 7♥ 8♥ 8♥`."""
        cards = " ".join(pretty_card(c) for c in self.cards())
        if self.is_tractor:
            return f"tractor⟨{'-'.join([str(self.width)] * len(self.faces))}⟩ {cards}"
        return f"{self.kind} {cards}"

    def __init__(self, width: int, faces: tuple[Card, ...], top: int) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "top", top)


@dataclass(frozen=True, slots=True)
class Reading:
    """A lead read into components (R4.2): one effective suit, largest component first."""

    suit: int
    components: tuple[Component, ...]

    @property
    def is_throw(self) -> bool:
        return len(self.components) > 1

    @property
    def size(self) -> int:
        return sum(c.size for c in self.components)

    def cards(self) -> tuple[Card, ...]:
        return tuple(c for comp in self.components for c in comp.cards())

    def shape(self) -> tuple[tuple[int, int], ...]:
        """The lead's exact shape: its components' (width, length), largest first."""
        return tuple(c.shape() for c in self.components)

    def __init__(self, suit: int, components: tuple[Component, ...]) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "components", components)


picklable(Component, Reading)
