"""What every engine's reader shares: the result of reading one hand, card codes, and the faults.

A reader turns one engine's log (the lines of one file, as `shengji.hhfile.read_lines` gives them)
into `Imported` values, one per hand the log holds, in order. A hand whose record could be built
carries it (with `warnings`, faults of the log that did not stop it: an unknown event, say); a hand
that could not be built carries the reason instead, naming the line or the turn. A fault of the log
that belongs to no hand (a line that is not JSON between two rounds) is an `Imported` without a
hand id. Readers never raise for a fault of the log: a bug in them is not a fault of the log.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from ..cards import BIG_JOKER, SMALL_JOKER, Card, make_card, parse_rank
from ..hhfile import Line
from ..record import HandRecord

ENGINES: Final = ("jerryyyu", "botzone", "ejfn")
"""The engines whose logs are read, by the name of their preset and of their `source`."""


class LogError(ValueError):
    """A fault of the log that stops the hand being read; the message names the line or turn."""


@dataclass(frozen=True, slots=True)
class Imported:
    """One hand read from an engine's log, or why it could not be read."""

    engine: str
    hand_id: str
    """The hand id the record has (or would have had); empty for a fault outside any hand."""
    line: int
    """The source line where the hand starts (1 for a log that is one JSON document)."""
    record: HandRecord | None = None
    reason: str | None = None
    """Why there is no record: a reject, naming the line or the turn."""
    warnings: tuple[tuple[int | None, str], ...] = ()
    """(line, reason) of faults of the log the hand was read despite."""

    @property
    def ok(self) -> bool:
        return self.record is not None


def load_object(text: str, where: str) -> dict[str, Any]:
    """One JSON object; LogError naming `where` otherwise."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise LogError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
    except (RecursionError, ValueError) as e:
        raise LogError(f"{where}: not valid JSON ({e})") from None
    if not isinstance(obj, dict):
        raise LogError(f"{where}: not a JSON object")
    return obj


def text_lines(lines: Iterable[Line]) -> Iterator[tuple[int, str]]:
    """(number, text) of the lines that are not blank; a line over the length limit is a fault."""
    for line in lines:
        if line.too_long:
            raise LogError(f"line {line.number}: a line of {line.size:,} bytes, over the limit")
        if line.text.strip():
            yield line.number, line.text


_SUIT_LETTERS: Final = {"S": 0, "H": 1, "C": 2, "D": 3}


def suited(rank_text: str, suit_letter: str, token: str) -> Card:
    """A suited card from its rank (`2`..`10`, `T`, `J` `Q` `K` `A`) and its suit letter (S H C D);
    LogError quoting the engine's `token` otherwise."""
    suit = _SUIT_LETTERS.get(suit_letter)
    if suit is None:
        raise LogError(f"unknown card {token!r}")
    try:
        return make_card(parse_rank(rank_text), suit)
    except ValueError:
        raise LogError(f"unknown card {token!r}") from None


def level_of(value: Any, where: str) -> int:
    """A level as the engines write it (`"2"`..`"10"`, `"J"`…`"A"`, or a number)."""
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str):
        raise LogError(f"{where}: level {value!r} is not a rank")
    try:
        return parse_rank(text)
    except ValueError:
        raise LogError(f"{where}: level {value!r} is not a rank") from None


def seat_of(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise LogError(f"{where}: seat {value!r} is not 0..3")
    return value


def trump_token(suit: Any, where: str) -> str:
    """A trump as `claimed.trump` writes it: S H C D or NT."""
    if isinstance(suit, str):
        token = suit.strip().upper()
        if token in ("S", "H", "C", "D", "NT"):
            return token
    raise LogError(f"{where}: unknown trump {suit!r}")


JOKERS: Final = (SMALL_JOKER, BIG_JOKER)


def quote(value: Any, limit: int = 60) -> str:
    """A value for a reason, cut so that a hostile one cannot flood the report."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
