"""Bot styles (docs/bots.md): careful, bold and novice, all on the engine's legal plays."""

from __future__ import annotations

from ..personas import Persona
from .base import Bot
from .bold import Bold
from .careful import Careful
from .novice import Novice

__all__ = ["Bot", "make_bot"]


def make_bot(persona: Persona) -> Bot:
    """The bot that plays `persona`'s style with its skill mix."""
    if persona.style == "careful":
        return Careful(persona)
    if persona.style == "bold":
        return Bold(persona)
    return Novice(persona)
