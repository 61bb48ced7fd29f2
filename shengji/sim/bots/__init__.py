"""Bot styles (docs/bots.md): careful, bold and novice, all on the engine's legal plays."""

from __future__ import annotations

from ... import use_build

use_build(__path__, "sim/bots")  # the compiled bots, where the package runs compiled

from ..personas import Persona  # noqa: E402 (after the path is set)
from .base import Bot  # noqa: E402 (after the path is set)
from .bold import Bold  # noqa: E402 (after the path is set)
from .careful import Careful  # noqa: E402 (after the path is set)
from .novice import Novice  # noqa: E402 (after the path is set)

__all__ = ["Bot", "make_bot"]


def make_bot(persona: Persona) -> Bot:
    """The bot that plays `persona`'s style with its skill mix."""
    if persona.style == "careful":
        return Careful(persona)
    if persona.style == "bold":
        return Bold(persona)
    return Novice(persona)
