"""The rule set a hand is played under: every option of RULES.md as a field, and the presets (R9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from .pickling import picklable

FailedThrowForced = Literal["smallest", "first_blocker", "lowest_single"]
ThrowCompare = Literal["all", "highest", "longest_unit", "botzone"]
BottomMultiplier = Literal["power", "times", "linear", "lead_cards", "lead_length", "pairs_power"]
ThrowSplit = Literal["widest", "lowest_first"]
ThrowLadder = Literal["widest_first", "one_at_a_time"]
ShowOrder = Literal["count_then_kind", "tiers", "call_snatch"]
NoShowTrump = Literal["bottom", "first_plain_bottom_card", "claimed", "none"]
FollowRule = Literal["ladder", "pairs", "botzone", "botzone2023"]
ForcedSuitOrder = Literal["shdc", "cdhs"]
TractorWidth = Literal["fewest", "running"]
ThrowBlockSearch = Literal["any_start", "from_second_card"]
ForcedOrder = Literal["size_top", "size_lowest_card"]
WinningSplit = Literal["strongest", "first_match"]

PRESETS = ("four-deck", "two-deck", "rbtying", "jerryyyu", "botzone", "botzone2023", "ejfn")


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
    show_order: ShowOrder = "count_then_kind"
    self_overturn: bool = False
    joker_pair_first_show: bool = False
    no_show_trump: NoShowTrump = "bottom"
    level_tractors: bool = True
    throw_penalty_per_card: bool = False
    attackers_deadzone: bool = True
    max_level_gain: int = 0
    follow_rule: FollowRule = "ladder"
    forced_suit_order: ForcedSuitOrder = "shdc"
    tractor_width: TractorWidth = "fewest"
    throw_block_search: ThrowBlockSearch = "any_start"
    forced_order: ForcedOrder = "size_top"
    winning_split: WinningSplit = "strongest"
    trump_ace_low: bool = False
    two_above_ace: bool = False
    unchecked_throws: bool = False

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

    def __init__(
        self,
        preset: str = "four-deck",
        decks: int = 4,
        ace_low_tractor: bool = True,
        failed_throw_forced: FailedThrowForced = "smallest",
        throw_penalty_points: int = 0,
        throw_split: ThrowSplit = "widest",
        protect_longer_units: bool = False,
        throw_ladder: ThrowLadder = "widest_first",
        throw_compare: ThrowCompare = "all",
        stronger_shapes_win: bool = True,
        bottom_multiplier: BottomMultiplier = "power",
        side_suit_capture_doubles: bool = False,
        level_step: int = 80,
        show_order: ShowOrder = "count_then_kind",
        self_overturn: bool = False,
        joker_pair_first_show: bool = False,
        no_show_trump: NoShowTrump = "bottom",
        level_tractors: bool = True,
        throw_penalty_per_card: bool = False,
        attackers_deadzone: bool = True,
        max_level_gain: int = 0,
        follow_rule: FollowRule = "ladder",
        forced_suit_order: ForcedSuitOrder = "shdc",
        tractor_width: TractorWidth = "fewest",
        throw_block_search: ThrowBlockSearch = "any_start",
        forced_order: ForcedOrder = "size_top",
        winning_split: WinningSplit = "strongest",
        trump_ace_low: bool = False,
        two_above_ace: bool = False,
        unchecked_throws: bool = False,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "preset", preset)
        object.__setattr__(self, "decks", decks)
        object.__setattr__(self, "ace_low_tractor", ace_low_tractor)
        object.__setattr__(self, "failed_throw_forced", failed_throw_forced)
        object.__setattr__(self, "throw_penalty_points", throw_penalty_points)
        object.__setattr__(self, "throw_split", throw_split)
        object.__setattr__(self, "protect_longer_units", protect_longer_units)
        object.__setattr__(self, "throw_ladder", throw_ladder)
        object.__setattr__(self, "throw_compare", throw_compare)
        object.__setattr__(self, "stronger_shapes_win", stronger_shapes_win)
        object.__setattr__(self, "bottom_multiplier", bottom_multiplier)
        object.__setattr__(self, "side_suit_capture_doubles", side_suit_capture_doubles)
        object.__setattr__(self, "level_step", level_step)
        object.__setattr__(self, "show_order", show_order)
        object.__setattr__(self, "self_overturn", self_overturn)
        object.__setattr__(self, "joker_pair_first_show", joker_pair_first_show)
        object.__setattr__(self, "no_show_trump", no_show_trump)
        object.__setattr__(self, "level_tractors", level_tractors)
        object.__setattr__(self, "throw_penalty_per_card", throw_penalty_per_card)
        object.__setattr__(self, "attackers_deadzone", attackers_deadzone)
        object.__setattr__(self, "max_level_gain", max_level_gain)
        object.__setattr__(self, "follow_rule", follow_rule)
        object.__setattr__(self, "forced_suit_order", forced_suit_order)
        object.__setattr__(self, "tractor_width", tractor_width)
        object.__setattr__(self, "throw_block_search", throw_block_search)
        object.__setattr__(self, "forced_order", forced_order)
        object.__setattr__(self, "winning_split", winning_split)
        object.__setattr__(self, "trump_ace_low", trump_ace_low)
        object.__setattr__(self, "two_above_ace", two_above_ace)
        object.__setattr__(self, "unchecked_throws", unchecked_throws)


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
    tractor_width="running",
    throw_block_search="from_second_card",
    forced_order="size_lowest_card",
    winning_split="first_match",
)
"""The open-source server rbtying/shengji with its default settings (R9), so its games replay.

Beyond R9's list: R7.2 names `times` as that server's default multiplier, and the server applies
it whatever suit wins the last trick, so a side-suit capture is multiplied too. The last four
options copy the server where its code departs from R4.2, R4.3, R4.4 and R6.2 as written
(docs/rules.md, "Where the rbtying server departs from the rule book")."""

JERRYYYU = RuleSet(
    preset="jerryyyu",
    decks=2,
    ace_low_tractor=False,
    level_step=40,
    throw_compare="longest_unit",
    follow_rule="pairs",
    forced_suit_order="cdhs",
    bottom_multiplier="lead_cards",
    side_suit_capture_doubles=True,
    show_order="tiers",
    self_overturn=True,
    joker_pair_first_show=True,
    no_show_trump="first_plain_bottom_card",
)
"""jerryyyu/shengji (commit 692f893, `server/shengji/engine`), so its room logs replay exactly:
docs/rules.md, "Engine presets"."""

BOTZONE = RuleSet(
    preset="botzone",
    decks=2,
    ace_low_tractor=False,
    level_step=40,
    failed_throw_forced="lowest_single",
    throw_compare="botzone",
    follow_rule="botzone",
    throw_penalty_points=10,
    throw_penalty_per_card=True,
    bottom_multiplier="lead_length",
    side_suit_capture_doubles=True,
    show_order="call_snatch",
    self_overturn=True,
    no_show_trump="claimed",
    level_tractors=False,
    attackers_deadzone=False,
    max_level_gain=3,
)
"""The Botzone "Tractor" judge, 2024 version (DylanWRh/Tractor-Project `judge_step.py`, commit
165aa59), so its matches replay exactly: docs/rules.md, "Engine presets"."""

BOTZONE2023 = replace(
    BOTZONE,
    preset="botzone2023",
    trump_ace_low=True,
    two_above_ace=True,
    unchecked_throws=True,
    follow_rule="botzone2023",
)
"""The Botzone "Tractor" judge, 2023 version (JackSimbol/Tractor `judge.py`, commit 5c675d3): the
2024 preset plus one option per way its code differs, so its matches replay exactly:
docs/rules.md, "The 2023 Botzone judge"."""

EJFN = RuleSet(
    preset="ejfn",
    decks=2,
    ace_low_tractor=False,
    level_step=40,
    throw_compare="longest_unit",
    bottom_multiplier="pairs_power",
    side_suit_capture_doubles=True,
    show_order="tiers",
    joker_pair_first_show=True,
    no_show_trump="none",
)
"""ejfn/Tractor (commit b863629), so its game logs replay exactly: docs/rules.md, "Engine
presets"."""

_CHOICES: dict[str, tuple[Any, ...]] = {
    "failed_throw_forced": ("smallest", "first_blocker", "lowest_single"),
    "throw_split": ("widest", "lowest_first"),
    "throw_ladder": ("widest_first", "one_at_a_time"),
    "throw_compare": ("all", "highest", "longest_unit", "botzone"),
    "bottom_multiplier": (
        "power",
        "times",
        "linear",
        "lead_cards",
        "lead_length",
        "pairs_power",
    ),
    "show_order": ("count_then_kind", "tiers", "call_snatch"),
    "no_show_trump": ("bottom", "first_plain_bottom_card", "claimed", "none"),
    "follow_rule": ("ladder", "pairs", "botzone", "botzone2023"),
    "forced_suit_order": ("shdc", "cdhs"),
    "tractor_width": ("fewest", "running"),
    "throw_block_search": ("any_start", "from_second_card"),
    "forced_order": ("size_top", "size_lowest_card"),
    "winning_split": ("strongest", "first_match"),
}
_BOOLS = (
    "ace_low_tractor",
    "protect_longer_units",
    "stronger_shapes_win",
    "side_suit_capture_doubles",
    "self_overturn",
    "joker_pair_first_show",
    "level_tractors",
    "throw_penalty_per_card",
    "attackers_deadzone",
    "trump_ace_low",
    "two_above_ace",
    "unchecked_throws",
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
    if name == "jerryyyu":
        return JERRYYYU
    if name == "botzone":
        return BOTZONE
    if name == "botzone2023":
        return BOTZONE2023
    if name == "ejfn":
        return EJFN
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
    elif name == "max_level_gain":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
            raise RuleError(
                f"option max_level_gain={_quote(value)} must be 0 (no cap) or a number of "
                "levels up to 100"
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


picklable(RuleSet)
