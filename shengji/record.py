"""One hand of `tractor-hh/1` (FORMAT.md) as a value: parse a line, check it, write it canonically.

The record holds what happened at the table and nothing derived. Parsing is lenient only where
FORMAT.md is (`10` for `T`, extra whitespace in card lists, lower-case tokens, `+00:00` for `Z`) and
strict everywhere else: an unknown field without `_`, a missing required field, a wrong type or an
impossible value raises RecordError naming the field. Rule faults (a card not held, an illegal show)
are not the record's business; the replay finds those.

`format_hand` writes the canonical line: FORMAT.md's key order, canonical tokens, compact
separators, optional fields only when set. Parsing a canonical line and formatting it again gives
the same bytes, so the canonical line can be hashed to recognise a changed hand.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from .cards import (
    Card,
    CardError,
    Hand,
    format_cards,
    full_deck,
    parse_cards,
    parse_rank,
    rank_token,
)
from .pickling import picklable
from .rules import FOUR_DECK, RuleError, RuleSet, rules_from_spec

FORMAT: Final = "tractor-hh/1"
TRUMP_TOKENS: Final = ("S", "H", "C", "D", "NT")
END_VALUES: Final = ("complete", "abandoned", "redeal")
End = Literal["complete", "abandoned", "redeal"]

Extra = tuple[tuple[str, Any], ...]
"""A source's own `_*` fields, kept in key order, values as JSON gave them."""


class RecordError(ValueError):
    """A line that is not a valid `tractor-hh/1` hand; `field` is the dotted path of the culprit."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.reason = reason
        self.field = field


@dataclass(frozen=True, slots=True)
class Deal:
    """The whole shoe in dealing order: card i goes to seat (first + i) mod 4, the last 8 are the
    bottom."""

    first: int
    cards: tuple[Card, ...]
    extra: Extra = ()

    def __init__(self, first: int, cards: tuple[Card, ...], extra: Extra = ()) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "extra", extra)


@dataclass(frozen=True, slots=True)
class Show:
    """A show during the deal (亮主/反主): `dealt` cards had been dealt when it was made."""

    seat: int
    cards: tuple[Card, ...]
    dealt: int
    trump: str | None = None
    """Only for a four-joker show naming a suit or `NT`."""
    extra: Extra = ()

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        dealt: int,
        trump: str | None = None,
        extra: Extra = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "dealt", dealt)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "extra", extra)


@dataclass(frozen=True, slots=True)
class Bury:
    seat: int
    cards: tuple[Card, ...]
    extra: Extra = ()

    def __init__(self, seat: int, cards: tuple[Card, ...], extra: Extra = ()) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "extra", extra)


@dataclass(frozen=True, slots=True)
class Fry:
    """炒底: a stronger show after the bury, then the 8 cards that player buried."""

    seat: int
    cards: tuple[Card, ...]
    bury: tuple[Card, ...]
    trump: str | None = None
    extra: Extra = ()

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        bury: tuple[Card, ...],
        trump: str | None = None,
        extra: Extra = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "bury", bury)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "extra", extra)


@dataclass(frozen=True, slots=True)
class Play:
    """One play as logged. A throw lists every card attempted; `forced` and `split` are claims."""

    seat: int
    cards: tuple[Card, ...]
    forced: tuple[Card, ...] | None = None
    split: tuple[tuple[Card, ...], ...] | None = None
    extra: Extra = ()

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        forced: tuple[Card, ...] | None = None,
        split: tuple[tuple[Card, ...], ...] | None = None,
        extra: Extra = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "split", split)
        object.__setattr__(self, "extra", extra)


@dataclass(frozen=True, slots=True)
class TrickClaim:
    """What the server reported about one trick: who led it, who won it, and (when it said) the
    points in it."""

    leader: int
    winner: int
    points: int | None = None

    def __init__(self, leader: int, winner: int, points: int | None = None) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, slots=True)
class Claimed:
    """Outcomes the server reported; the replay compares each one that is set."""

    trump: str | None = None
    attackers_points: int | None = None
    bottom_multiplier: int | None = None
    level_change: tuple[int, int] | None = None
    """(team, levels)."""
    next_banker: int | None = None
    banker: int | None = None
    """The banker who played the hand (in a first hand, the one the shows made)."""
    tricks: tuple[TrickClaim, ...] = ()
    """Per trick, in order; a log that stops early claims the tricks it has."""
    extra: Extra = ()

    def __init__(
        self,
        trump: str | None = None,
        attackers_points: int | None = None,
        bottom_multiplier: int | None = None,
        level_change: tuple[int, int] | None = None,
        next_banker: int | None = None,
        banker: int | None = None,
        tricks: tuple[TrickClaim, ...] = (),
        extra: Extra = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "attackers_points", attackers_points)
        object.__setattr__(self, "bottom_multiplier", bottom_multiplier)
        object.__setattr__(self, "level_change", level_change)
        object.__setattr__(self, "next_banker", next_banker)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "tricks", tricks)
        object.__setattr__(self, "extra", extra)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """Every field of one `tractor-hh/1` line. `format` is implied (always `tractor-hh/1`)."""

    hand_id: str
    source: str
    players: tuple[str, str, str, str]
    levels: tuple[int, int]
    """Team 0's and team 1's level before the hand, as ranks 2..14."""
    deal: Deal
    rules: RuleSet = FOUR_DECK
    banker: int | None = None
    match_id: str | None = None
    hand_no: int | None = None
    played_at: str | None = None
    """Canonical RFC 3339 UTC: `YYYY-MM-DDTHH:MM:SS[.fff]Z`."""
    bids: tuple[Show, ...] = ()
    bury: Bury | None = None
    fries: tuple[Fry, ...] = ()
    plays: tuple[Play, ...] = ()
    claimed: Claimed | None = None
    end: End = "complete"
    extra: Extra = field(default=())

    def __init__(
        self,
        hand_id: str,
        source: str,
        players: tuple[str, str, str, str],
        levels: tuple[int, int],
        deal: Deal,
        rules: RuleSet = FOUR_DECK,
        banker: int | None = None,
        match_id: str | None = None,
        hand_no: int | None = None,
        played_at: str | None = None,
        bids: tuple[Show, ...] = (),
        bury: Bury | None = None,
        fries: tuple[Fry, ...] = (),
        plays: tuple[Play, ...] = (),
        claimed: Claimed | None = None,
        end: End = "complete",
        extra: Extra = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "hand_id", hand_id)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "deal", deal)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "match_id", match_id)
        object.__setattr__(self, "hand_no", hand_no)
        object.__setattr__(self, "played_at", played_at)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "bury", bury)
        object.__setattr__(self, "fries", fries)
        object.__setattr__(self, "plays", plays)
        object.__setattr__(self, "claimed", claimed)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "extra", extra)


# --- parsing -------------------------------------------------------------------------------------

_TOP_KEYS: Final = frozenset(
    (
        "format",
        "hand_id",
        "source",
        "match_id",
        "hand_no",
        "played_at",
        "rules",
        "players",
        "levels",
        "banker",
        "deal",
        "bids",
        "bury",
        "fries",
        "plays",
        "claimed",
        "end",
    )
)
_TOP_REQUIRED: Final = ("format", "hand_id", "source", "players", "levels", "deal")
_DEAL_KEYS: Final = frozenset(("first", "cards"))
_SHOW_KEYS: Final = frozenset(("seat", "cards", "dealt", "trump"))
_BURY_KEYS: Final = frozenset(("seat", "cards"))
_FRY_KEYS: Final = frozenset(("seat", "cards", "bury", "trump"))
_PLAY_KEYS: Final = frozenset(("seat", "cards", "forced", "split"))
_CLAIMED_KEYS: Final = frozenset(
    (
        "trump",
        "attackers_points",
        "bottom_multiplier",
        "level_change",
        "next_banker",
        "banker",
        "tricks",
    )
)
_TRICK_CLAIM_KEYS: Final = frozenset(("leader", "winner", "points"))
_LEVEL_CHANGE_KEYS: Final = frozenset(("team", "levels"))

INT32_MAX: Final = 2**31 - 1
"""The largest `hand_no`: the store keeps it in a 32-bit integer."""
INT64_MAX: Final = 2**63 - 1
"""No integer the format allows goes beyond 64 bits; a claim beyond it cannot be any hand's."""

_TIME: Final = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?(?:[Zz]|[+-]00:?00)")


def _obj(value: Any, where: str, keys: frozenset[str], required: Sequence[str]) -> Extra:
    """Check an object's keys; returns its `_*` fields."""
    if not isinstance(value, dict):
        raise RecordError(f"must be an object, not {_kind(value)}", where)
    extra: list[tuple[str, Any]] = []
    if not keys.issuperset(value):
        for key in value:
            if key in keys:
                continue
            if isinstance(key, str) and key.startswith("_"):
                extra.append((key, value[key]))
            else:
                raise RecordError(f"unknown field {key!r}", where or None)
    for key in required:
        if key not in value:
            raise RecordError("missing required field", _join(where, key))
    extra.sort(key=lambda kv: kv[0])
    return tuple(extra)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"must be an integer, not {_kind(value)}", where)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        text = str(value)
        if len(text) > 24:  # a hostile number is quoted by its size, not spelled out
            text = f"a {len(text.lstrip('-'))}-digit number"
        raise RecordError(f"{text} is outside {bounds}", where)
    return value


def _seat(value: Any, where: str) -> int:
    return _int(value, where, 0, 3)


def _str(value: Any, where: str, *, nonempty: bool = False) -> str:
    if not isinstance(value, str):
        raise RecordError(f"must be a string, not {_kind(value)}", where)
    if nonempty and not value:
        raise RecordError("must not be empty", where)
    return value


_CARD_LISTS: Final[dict[str, tuple[Card, ...]]] = {}
"""Card lists already parsed: most plays are one of a few hundred short strings."""


def _cards(value: Any, where: str) -> tuple[Card, ...]:
    if type(value) is str:
        cards = _CARD_LISTS.get(value)
        if cards is not None:
            return cards
    elif not isinstance(value, str):
        raise RecordError(f"a card list must be a string, not {_kind(value)}", where)
    try:
        cards = parse_cards(value)
    except CardError as e:
        raise RecordError(str(e), where) from None
    if len(value) <= 24:
        if len(_CARD_LISTS) >= 50_000:
            _CARD_LISTS.clear()
        _CARD_LISTS[value] = cards
    return cards


def _trump(value: Any, where: str) -> str:
    token = _str(value, where).strip().upper()
    if token not in TRUMP_TOKENS:
        raise RecordError(f"unknown trump {value!r} (expected S, H, C, D or NT)", where)
    return token


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"must be a list, not {_kind(value)}", where)
    return value


def _time(value: Any, where: str) -> str:
    text = _str(value, where)
    m = _TIME.fullmatch(text.strip())
    if m is None:
        raise RecordError(f"{text!r} is not an RFC 3339 UTC time", where)
    date, clock, frac = m.group(1), m.group(2), m.group(3) or ""
    try:
        datetime.fromisoformat(f"{date}T{clock}")
    except ValueError:
        raise RecordError(f"{text!r} is not a valid time", where) from None
    return f"{date}T{clock}{frac}Z"


def _level(value: Any, where: str) -> int:
    if not isinstance(value, str):
        raise RecordError(f'a level must be a string such as "5", not {_kind(value)}', where)
    try:
        return parse_rank(value)
    except CardError:
        raise RecordError(f"unknown level {value!r}", where) from None


def _rules(value: Any) -> RuleSet:
    if value is not None and not isinstance(value, str | dict):
        raise RecordError(f"must be a preset name or an object, not {_kind(value)}", "rules")
    try:
        return rules_from_spec(value)
    except RuleError as e:
        raise RecordError(str(e), "rules") from None


def _deal(value: Any, rules: RuleSet) -> Deal:
    extra = _obj(value, "deal", _DEAL_KEYS, ("first", "cards"))
    first = _seat(value["first"], "deal.first")
    cards = _cards(value["cards"], "deal.cards")
    if len(cards) != rules.deck_size:
        raise RecordError(
            f"{len(cards)} cards, but {rules.preset} deals {rules.deck_size}", "deal.cards"
        )
    return Deal(first, cards, extra)


def _show(value: Any, where: str, deck_size: int) -> Show:
    extra = _obj(value, where, _SHOW_KEYS, ("seat", "cards", "dealt"))
    trump = value.get("trump")
    return Show(
        _seat(value["seat"], f"{where}.seat"),
        _cards(value["cards"], f"{where}.cards"),
        _int(value["dealt"], f"{where}.dealt", 0, deck_size),
        None if trump is None else _trump(trump, f"{where}.trump"),
        extra,
    )


def _bury(value: Any) -> Bury:
    extra = _obj(value, "bury", _BURY_KEYS, ("seat", "cards"))
    return Bury(_seat(value["seat"], "bury.seat"), _cards(value["cards"], "bury.cards"), extra)


def _fry(value: Any, where: str) -> Fry:
    extra = _obj(value, where, _FRY_KEYS, ("seat", "cards", "bury"))
    trump = value.get("trump")
    return Fry(
        _seat(value["seat"], f"{where}.seat"),
        _cards(value["cards"], f"{where}.cards"),
        _cards(value["bury"], f"{where}.bury"),
        None if trump is None else _trump(trump, f"{where}.trump"),
        extra,
    )


_PLAYS: Final[tuple[dict[str, Play], ...]] = ({}, {}, {}, {})
"""Plain plays already read, per seat, by card text: a play is a value, so one can be shared."""


def _plays(value: Any) -> tuple[Play, ...]:
    plays = []
    for i, p in enumerate(_list(value, "plays")):
        # The hot path of parsing: most plays are exactly {"seat", "cards"}, and repeat.
        if type(p) is dict and len(p) == 2:
            # `get`, not `in` and then `[]`: one lookup a key (a key that is missing is None,
            # which the type checks turn away, to `_play` and its error).
            seat = p.get("seat")
            text = p.get("cards")
            if type(seat) is int and 0 <= seat <= 3 and type(text) is str:
                known = _PLAYS[seat]
                play = known.get(text)
                if play is None:
                    play = Play(seat, _cards(text, f"plays[{i}].cards"))
                    if len(text) <= 24:
                        if len(known) >= 20_000:
                            known.clear()
                        known[text] = play
                plays.append(play)
                continue
        plays.append(_play(p, f"plays[{i}]"))
    return tuple(plays)


def _play(value: Any, where: str) -> Play:
    extra = _obj(value, where, _PLAY_KEYS, ("seat", "cards"))
    forced = value.get("forced")
    split = value.get("split")
    return Play(
        _seat(value["seat"], f"{where}.seat"),
        _cards(value["cards"], f"{where}.cards"),
        None if forced is None else _cards(forced, f"{where}.forced"),
        None
        if split is None
        else tuple(
            _cards(s, f"{where}.split[{i}]") for i, s in enumerate(_list(split, f"{where}.split"))
        ),
        extra,
    )


def _trick_claim(value: Any, where: str) -> TrickClaim:
    # Compared as a value, like `level_change`: its own `_*` fields are accepted and not kept.
    _obj(value, where, _TRICK_CLAIM_KEYS, ("leader", "winner"))
    points = value.get("points")
    return TrickClaim(
        _seat(value["leader"], f"{where}.leader"),
        _seat(value["winner"], f"{where}.winner"),
        None if points is None else _int(points, f"{where}.points", -INT64_MAX, INT64_MAX),
    )


def _claimed(value: Any) -> Claimed:
    extra = _obj(value, "claimed", _CLAIMED_KEYS, ())
    trump = value.get("trump")
    points = value.get("attackers_points")
    mult = value.get("bottom_multiplier")
    change = value.get("level_change")
    nxt = value.get("next_banker")
    banker = value.get("banker")
    tricks = value.get("tricks")
    level_change: tuple[int, int] | None = None
    if change is not None:
        # The pair is compared as a value, so its own `_*` fields are accepted and not kept.
        _obj(change, "claimed.level_change", _LEVEL_CHANGE_KEYS, ("team", "levels"))
        level_change = (
            _int(change["team"], "claimed.level_change.team", 0, 1),
            _int(change["levels"], "claimed.level_change.levels", 0, INT64_MAX),
        )
    return Claimed(
        None if trump is None else _trump(trump, "claimed.trump"),
        None if points is None else _int(points, "claimed.attackers_points", -INT64_MAX, INT64_MAX),
        None if mult is None else _int(mult, "claimed.bottom_multiplier", 0, INT64_MAX),
        level_change,
        None if nxt is None else _seat(nxt, "claimed.next_banker"),
        None if banker is None else _seat(banker, "claimed.banker"),
        ()
        if tricks is None
        else tuple(
            _trick_claim(t, f"claimed.tricks[{i}]")
            for i, t in enumerate(_list(tricks, "claimed.tricks"))
        ),
        extra,
    )


def load_json(line: str) -> dict[str, Any]:
    """The line's JSON object; RecordError when it is not one."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        raise RecordError("the line is not valid UTF-8") from None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise RecordError(f"not valid JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None
    except ValueError as e:  # Python's limit on integer digits (CVE-2020-10735), not a JSON rule
        if "digits" in str(e):
            raise RecordError("not valid JSON: a number of more than 4300 digits") from None
        raise RecordError(f"not valid JSON: {e}") from None
    if not isinstance(obj, dict):
        raise RecordError(f"a hand must be a JSON object, not {_kind(obj)}")
    return obj


def parse_hand(line: str) -> HandRecord:
    """A hand from one line of a `tractor-hh/1` file; raises RecordError naming the field."""
    return hand_from_json(load_json(line), line)


def _lone_surrogate(obj: Any) -> str | None:
    """The path of the first string (or key) holding a lone surrogate, such as JSON's `"\\ud800"`:
    it decodes, but it is not Unicode text and cannot be stored or shown. None when there is none.
    A walk with its own stack: the object may be nested as deeply as JSON allowed."""
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return where or "(the line)"
        elif isinstance(value, dict):
            for key, item in value.items():
                path = _join(where, str(key))
                if not key.isascii():
                    try:
                        key.encode("utf-8")
                    except UnicodeEncodeError:
                        return where or "(the line)"
                stack.append((path, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
    return None


def hand_from_json(obj: dict[str, Any], text: str | None = None) -> HandRecord:
    """A hand from a decoded JSON object (see `parse_hand`). `text` is the line it was decoded from,
    when known: only a `\\u` escape in it can have produced a lone surrogate, so the object is then
    searched for one only when the line has such an escape."""
    if text is None or "\\u" in text:
        bad = _lone_surrogate(obj)
        if bad is not None:
            raise RecordError("holds a lone surrogate (\\ud800–\\udfff): not Unicode text", bad)
    extra = _obj(obj, "", _TOP_KEYS, _TOP_REQUIRED)
    if obj["format"] != FORMAT:
        raise RecordError(f"{obj['format']!r} is not {FORMAT!r}", "format")
    rules = _rules(obj.get("rules"))
    players = _list(obj["players"], "players")
    if len(players) != 4:
        raise RecordError(f"must name 4 players, not {len(players)}", "players")
    levels = _list(obj["levels"], "levels")
    if len(levels) != 2:
        raise RecordError(f"must give 2 team levels, not {len(levels)}", "levels")
    end = obj.get("end", "complete")
    if end not in END_VALUES:
        raise RecordError(f"{end!r} is not one of {', '.join(END_VALUES)}", "end")
    match_id, hand_no, played_at = obj.get("match_id"), obj.get("hand_no"), obj.get("played_at")
    banker, bury, claimed = obj.get("banker"), obj.get("bury"), obj.get("claimed")
    return HandRecord(
        hand_id=_str(obj["hand_id"], "hand_id", nonempty=True),
        source=_str(obj["source"], "source", nonempty=True),
        players=(
            _str(players[0], "players[0]"),
            _str(players[1], "players[1]"),
            _str(players[2], "players[2]"),
            _str(players[3], "players[3]"),
        ),
        levels=(_level(levels[0], "levels[0]"), _level(levels[1], "levels[1]")),
        deal=_deal(obj["deal"], rules),
        rules=rules,
        banker=None if banker is None else _seat(banker, "banker"),
        match_id=None if match_id is None else _str(match_id, "match_id"),
        hand_no=None if hand_no is None else _int(hand_no, "hand_no", 1, INT32_MAX),
        played_at=None if played_at is None else _time(played_at, "played_at"),
        bids=tuple(
            _show(b, f"bids[{i}]", rules.deck_size)
            for i, b in enumerate(_list(obj.get("bids", []), "bids"))
        ),
        bury=None if bury is None else _bury(bury),
        fries=tuple(
            _fry(f, f"fries[{i}]") for i, f in enumerate(_list(obj.get("fries", []), "fries"))
        ),
        plays=_plays(obj.get("plays", [])),
        claimed=None if claimed is None else _claimed(claimed),
        end=end,
        extra=extra,
    )


# --- writing -------------------------------------------------------------------------------------


def _with_extra(out: dict[str, Any], extra: Extra) -> dict[str, Any]:
    for key, value in extra:
        out[key] = value
    return out


def _head(record: HandRecord) -> dict[str, Any]:
    """The canonical fields before `plays`."""
    out: dict[str, Any] = {"format": FORMAT, "hand_id": record.hand_id, "source": record.source}
    if record.match_id is not None:
        out["match_id"] = record.match_id
    if record.hand_no is not None:
        out["hand_no"] = record.hand_no
    if record.played_at is not None:
        out["played_at"] = record.played_at
    out["rules"] = record.rules.spec()
    out["players"] = list(record.players)
    out["levels"] = [rank_token(record.levels[0]), rank_token(record.levels[1])]
    out["banker"] = record.banker
    d = record.deal
    out["deal"] = _with_extra({"first": d.first, "cards": format_cards(d.cards)}, d.extra)
    bids = []
    for b in record.bids:
        show: dict[str, Any] = {"seat": b.seat, "cards": format_cards(b.cards), "dealt": b.dealt}
        if b.trump is not None:
            show["trump"] = b.trump
        bids.append(_with_extra(show, b.extra))
    out["bids"] = bids
    if record.bury is not None:
        bury = {"seat": record.bury.seat, "cards": format_cards(record.bury.cards)}
        out["bury"] = _with_extra(bury, record.bury.extra)
    if record.fries:
        fries = []
        for f in record.fries:
            fry: dict[str, Any] = {
                "seat": f.seat,
                "cards": format_cards(f.cards),
                "bury": format_cards(f.bury),
            }
            if f.trump is not None:
                fry["trump"] = f.trump
            fries.append(_with_extra(fry, f.extra))
        out["fries"] = fries
    return out


def _play_json(p: Play) -> dict[str, Any]:
    play: dict[str, Any] = {"seat": p.seat, "cards": format_cards(p.cards)}
    if p.forced is not None:
        play["forced"] = format_cards(p.forced)
    if p.split is not None:
        play["split"] = [format_cards(s) for s in p.split]
    return _with_extra(play, p.extra) if p.extra else play


def _trick_claim_json(t: TrickClaim) -> dict[str, Any]:
    out: dict[str, Any] = {"leader": t.leader, "winner": t.winner}
    if t.points is not None:
        out["points"] = t.points
    return out


def _tail(record: HandRecord) -> dict[str, Any]:
    """The canonical fields after `plays`."""
    out: dict[str, Any] = {}
    if record.claimed is not None:
        c = record.claimed
        claimed: dict[str, Any] = {}
        if c.trump is not None:
            claimed["trump"] = c.trump
        if c.attackers_points is not None:
            claimed["attackers_points"] = c.attackers_points
        if c.bottom_multiplier is not None:
            claimed["bottom_multiplier"] = c.bottom_multiplier
        if c.level_change is not None:
            claimed["level_change"] = {"team": c.level_change[0], "levels": c.level_change[1]}
        if c.next_banker is not None:
            claimed["next_banker"] = c.next_banker
        if c.banker is not None:
            claimed["banker"] = c.banker
        if c.tricks:
            claimed["tricks"] = [_trick_claim_json(t) for t in c.tricks]
        out["claimed"] = _with_extra(claimed, c.extra)
    if record.end != "complete":
        out["end"] = record.end
    return _with_extra(out, record.extra)


def hand_to_json(record: HandRecord) -> dict[str, Any]:
    """The canonical JSON object of a hand, keys in FORMAT.md's order, `_*` fields last."""
    return {**_head(record), "plays": [_play_json(p) for p in record.plays], **_tail(record)}


_dumps: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_PLAY_TEXTS: Final[tuple[dict[tuple[Card, ...], str], ...]] = ({}, {}, {}, {})
"""The canonical text of plain plays already written, per seat, by cards."""


def _play_text(p: Play) -> str:
    if p.forced is not None or p.split is not None or p.extra:
        return _dumps(_play_json(p))
    seat = p.seat
    known = _PLAY_TEXTS[seat] if 0 <= seat <= 3 else {}
    text = known.get(p.cards)
    if text is None:
        # Card tokens need no JSON escaping, so the common play is written directly.
        text = f'{{"seat":{seat},"cards":"{format_cards(p.cards)}"}}'
        if len(p.cards) <= 8:
            if len(known) >= 20_000:
                known.clear()
            known[p.cards] = text
    return text


def format_hand(record: HandRecord) -> str:
    """The canonical line (no newline): compact separators, UTF-8 text, stable key order. The same
    text as `json.dumps(hand_to_json(record))` with those settings, written faster: the plays are
    most of a line."""
    head = _dumps(_head(record))
    texts = []
    for p in record.plays:
        seat = p.seat
        text = None
        if p.forced is None and p.split is None and not p.extra and 0 <= seat <= 3:
            text = _PLAY_TEXTS[seat].get(p.cards)
        texts.append(_play_text(p) if text is None else text)
    plays = ",".join(texts)
    tail = _tail(record)
    rest = "," + _dumps(tail)[1:] if tail else "}"
    return f'{head[:-1]},"plays":[{plays}]{rest}'


# --- building hands (tests, the table simulator) -------------------------------------------------


def shuffled_shoe(rng: random.Random, rules: RuleSet = FOUR_DECK) -> tuple[Card, ...]:
    """A shuffled shoe of the rule set's decks, in dealing order."""
    cards = list(full_deck(rules.decks))
    rng.shuffle(cards)
    return tuple(cards)


def deal_position(first: int, seat: int, k: int) -> int:
    """The index in the shoe of the k-th card (from 0) dealt to `seat`."""
    return (seat - first) % 4 + 4 * k


def split_deal(deal: Deal, rules: RuleSet = FOUR_DECK) -> tuple[tuple[Hand, ...], tuple[Card, ...]]:
    """Each seat's dealt cards and the bottom (R1.3): card i to seat (first + i) mod 4, the last 8
    to the bottom."""
    cards = deal.cards
    dealt = len(cards) - rules.bottom_size
    hands = []
    for seat in range(4):
        counts = [0] * 54
        for c in cards[(seat - deal.first) % 4 : dealt : 4]:
            counts[c] += 1
        hands.append(Hand(tuple(counts)))
    return tuple(hands), cards[dealt:]


picklable(Deal, Show, Bury, Fry, Play, TrickClaim, Claimed, HandRecord)
