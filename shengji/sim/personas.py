"""The named players of the simulator: each a bot style plus a skill mix (docs/bots.md).

Per-player statistics differ for real reasons: the style decides how a player leads, follows,
throws, shows and buries; the skill mix sets how often they slip (`blunder`: play a random legal
card instead of the considered one) and how much they dare (`aggression`: appetite for throws,
trumping, showing and frying).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Style = Literal["careful", "bold", "novice"]
STYLES: tuple[Style, ...] = ("careful", "bold", "novice")


class PersonaError(ValueError):
    """An unknown player name in `--players`."""


@dataclass(frozen=True, slots=True)
class Persona:
    name: str
    style: Style
    blunder: float
    """Chance, per decision, of a random legal play instead of the considered one."""
    aggression: float
    """0..1: how readily the player throws, trumps, shows and fries."""

    def tag(self) -> str:
        """`style/blunder/aggression`, as written to a hand's `_personas` field."""
        return f"{self.style}/{self.blunder:.2f}/{self.aggression:.2f}"


ROSTER: tuple[Persona, ...] = (
    Persona("lin", "careful", 0.01, 0.35),
    Persona("mei", "careful", 0.03, 0.55),
    Persona("jun", "careful", 0.06, 0.25),
    Persona("hao", "careful", 0.02, 0.70),
    Persona("yan", "bold", 0.04, 0.75),
    Persona("bo", "bold", 0.08, 0.95),
    Persona("qing", "bold", 0.03, 0.60),
    Persona("tao", "bold", 0.12, 0.85),
    Persona("wei", "novice", 0.10, 0.40),
    Persona("xin", "novice", 0.20, 0.60),
    Persona("ping", "novice", 0.30, 0.20),
    Persona("fang", "novice", 0.15, 0.50),
)
BY_NAME = {p.name: p for p in ROSTER}


def persona(name: str) -> Persona:
    found = BY_NAME.get(name.strip().lower())
    if found is None:
        known = ", ".join(p.name for p in ROSTER)
        raise PersonaError(f"unknown player {name!r} (known: {known})")
    return found


def draw_table(
    rng: random.Random, pool: Sequence[Persona] = ROSTER
) -> tuple[Persona, Persona, Persona, Persona]:
    """Four distinct players from the pool, seated in the drawn order."""
    a, b, c, d = rng.sample(list(pool), 4)
    return (a, b, c, d)
