"""The rule set a hand is played under: every option of RULES.md as a field, and the presets (R9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

FailedThrowForced = Literal["smallest", "first_blocker"]
ThrowCompare = Literal["all", "highest", "longest_unit"]
BottomMultiplier = Literal["power", "times", "linear"]
ThrowSplit = Literal["widest", "lowest_first"]
ThrowLadder = Literal["widest_first", "one_at_a_time"]

PRESETS = ("four-deck", "two-deck", "rbtying")


class RuleError(ValueError):
    """An unknown preset, an unknown option or an impossible option value."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    preset: str = "four-deck"
    decks: int = 4
    ace_low_tractor: bool = True
    failed_throw_forced: FailedThrowForced = "smallest"
    throw_penalty_points: int = 0
    throw_split: ThrowSplit = "widest"
    protect_longer_units: bool = False
    throw_ladder: ThrowLadder = "widest_first"
    throw_compare: ThrowCompare = "all"
    stronger_shapes_win: bool = True
    bottom_multiplier: BottomMultiplier = "power"
    side_suit_capture_doubles: bool = False
    level_step: int = 80

    @property
    def deck_size(self) -> int:
        return 54 * self.decks

    @property
    def bottom_size(self) -> int:
        return 8

    @property
    def hand_size(self) -> int:
        """Cards each seat is dealt: 52 with four decks (R1.3), 25 with two (R9)."""
        return (self.deck_size - self.bottom_size) // 4

    @property
    def total_points(self) -> int:
        """100 points per deck (R1.4)."""
        return 100 * self.decks

    @property
    def max_width(self) -> int:
        """The widest unit: as many identical cards as there are decks."""
        return self.decks

    def options(self) -> dict[str, Any]:
        """The options that differ from the preset, for writing a compact spec."""
        base = preset(self.preset)
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name)
        }

    def spec(self) -> str | dict[str, Any]:
        """The `rules` value of FORMAT.md: the preset name, or the preset plus its overrides."""
        opts = self.options()
        if not opts:
            return self.preset
        return {"preset": self.preset, **dict(sorted(opts.items()))}


FOUR_DECK = RuleSet()
TWO_DECK = RuleSet(preset="two-deck", decks=2, ace_low_tractor=False, level_step=40)
RBTYING = RuleSet(
    preset="rbtying",
    ace_low_tractor=False,
    failed_throw_forced="first_blocker",
    stronger_shapes_win=False,
    protect_longer_units=False,
    throw_split="lowest_first",
    throw_ladder="one_at_a_time",
    bottom_multiplier="times",
    side_suit_capture_doubles=True,
)
"""The open-source server rbtying/shengji with its default settings (R9), so its games replay.

Beyond R9's list: R7.2 names `times` as that server's default multiplier, and the server applies
it whatever suit wins the last trick, so a side-suit capture is multiplied too."""

_CHOICES: dict[str, tuple[Any, ...]] = {
    "failed_throw_forced": ("smallest", "first_blocker"),
    "throw_split": ("widest", "lowest_first"),
    "throw_ladder": ("widest_first", "one_at_a_time"),
    "throw_compare": ("all", "highest", "longest_unit"),
    "bottom_multiplier": ("power", "times", "linear"),
}
_BOOLS = (
    "ace_low_tractor",
    "protect_longer_units",
    "stronger_shapes_win",
    "side_suit_capture_doubles",
)
OPTION_NAMES = tuple(f.name for f in fields(RuleSet) if f.name != "preset")
POINTS_OPTION_MAX = 10_000
"""The largest `throw_penalty_points` and `level_step`: far beyond any house rule, and small
enough that every total derived from them fits a 32-bit integer in the store."""


def preset(name: str) -> RuleSet:
    if name == "four-deck":
        return FOUR_DECK
    if name == "two-deck":
        return TWO_DECK
    if name == "rbtying":
        return RBTYING
    raise RuleError(f"unknown rules preset {name!r} (known: {', '.join(PRESETS)})")


def _quote(value: Any) -> str:
    """A value for an error message, cut so that a hostile one cannot flood the report."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(name: str, value: Any) -> None:
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            allowed = ", ".join(_CHOICES[name])
            raise RuleError(f"option {name}={_quote(value)} is not one of {allowed}")
    elif name in _BOOLS:
        if not isinstance(value, bool):
            raise RuleError(f"option {name}={_quote(value)} must be true or false")
    elif name == "decks":
        if value not in (2, 4):
            raise RuleError(f"option decks={_quote(value)} must be 2 or 4")
    elif name == "throw_penalty_points":
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not 0 <= value <= POINTS_OPTION_MAX
            or value % 5
        ):
            raise RuleError(
                f"option throw_penalty_points={_quote(value)} must be a multiple of 5 "
                f"in 0..{POINTS_OPTION_MAX}"
            )
    elif name == "level_step":
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not 0 < value <= POINTS_OPTION_MAX
            or value % 5
        ):
            raise RuleError(
                f"option level_step={_quote(value)} must be a multiple of 5 "
                f"in 5..{POINTS_OPTION_MAX}"
            )
    else:
        raise RuleError(f"unknown rules option {name!r}")


def rules_from_spec(spec: str | Mapping[str, Any] | None) -> RuleSet:
    """A rule set from a preset name or `{"preset": …, option: value}` (FORMAT.md `rules`)."""
    if spec is None:
        return FOUR_DECK
    if isinstance(spec, str):
        return preset(spec)
    if not isinstance(spec, Mapping):
        raise RuleError(f"rules must be a preset name or an object, not {spec!r}")
    name = spec.get("preset", "four-deck")
    if not isinstance(name, str):
        raise RuleError(f"rules preset must be a name, not {name!r}")
    base = preset(name)
    overrides: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "preset":
            continue
        _check(key, value)
        overrides[key] = value
    return replace(base, **overrides)
