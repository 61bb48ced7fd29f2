"""The referee: one JSON request in, one JSON verdict out (docs/referee.md).

A request names a `kind` (`format`, `follow`, `trick`, `bottom`, `outcome`) and the situation to
judge; the verdict answers with the rule that decided it. A request that cannot be judged — a bad
card token, a wrong card count, an unknown option, field or kind — gets `{"id": …, "error": …}`
instead; data faults never raise out of `judge`. The rules themselves live in `combos`, `throws`,
`trick`, `follow` and `scoring`: this module only reads requests, calls them and writes verdicts.

`answer` is what the command writes for one raw input line: whatever the bytes — not UTF-8, not
JSON, nested too deeply, a number too long, longer than `MAX_LINE_BYTES`, or a request that trips
a fault of the referee itself — it returns one JSON line and never raises.
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import SUIT_SYMBOLS, Card, CardError, Hand, format_cards, parse_cards, pretty_card
from .combos import PlayError, read_lead
from .follow import check_follow
from .rules import RuleError, RuleSet, rules_from_spec
from .scoring import bottom_score, level_change
from .shape import Reading
from .throws import check_throw
from .trick import botzone_judge_fault, resolve_trick
from .trump import SUIT_NAMES, TRUMP, TrumpContext, rules_trump

KINDS = ("format", "follow", "trick", "bottom", "outcome")
COMMON_FIELDS = ("id", "kind", "rules", "trump", "level")
SEATS = 4
MAX_LINE_BYTES = 1 << 20
"""The longest input line read, newline excluded (1 MiB; a whole trick takes under 2 KB). A longer
line gets an error answer and is skipped without being held in memory."""

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = 60
_SHORT.maxlevel = 3


def _shown(value: object) -> str:
    """A request value quoted in an error: cut short, however long or deeply nested it is."""
    return _SHORT.repr(value)


class RefereeError(ValueError):
    """A request the referee cannot judge; the message is the verdict's `error`."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The JSON object to write back, and an account of it for people (`--explain`)."""

    response: dict[str, Any]
    explanation: str


# --- reading requests -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Request:
    fields: Mapping[str, Any]
    rules: RuleSet

    def raw(self, name: str) -> Any:
        if name not in self.fields:
            raise RefereeError(f"missing field {name!r}")
        return self.fields[name]

    def cards(self, name: str) -> tuple[Card, ...]:
        """A card list: a string of tokens (FORMAT.md) or a JSON list of tokens."""
        value = self.raw(name)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = " ".join(value)
        if not isinstance(value, str):
            raise RefereeError(f"{name} must be a string of card tokens, not {_shown(value)}")
        try:
            return parse_cards(value)
        except CardError as err:
            raise RefereeError(f"{name}: {err}") from None

    def card_lists(self, name: str, count: int) -> tuple[tuple[Card, ...], ...]:
        value = self.raw(name)
        if not isinstance(value, list) or len(value) != count:
            raise RefereeError(f"{name} must be a list of {count} card lists")
        out = []
        for i, item in enumerate(value):
            out.append(_Request({f"{name}[{i}]": item}, self.rules).cards(f"{name}[{i}]"))
        return tuple(out)

    def boolean(self, name: str) -> bool:
        value = self.raw(name)
        if not isinstance(value, bool):
            raise RefereeError(f"{name} must be true or false, not {_shown(value)}")
        return value

    def integer(self, name: str) -> int:
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise RefereeError(f"{name} must be an integer, not {_shown(value)}")
        return value

    def trump(self) -> TrumpContext:
        trump, level = self.raw("trump"), self.raw("level")
        if not isinstance(trump, str):
            raise RefereeError(f"trump must be S, H, C, D or NT, not {_shown(trump)}")
        if isinstance(level, int) and not isinstance(level, bool) and 2 <= level <= 10:
            level = str(level)
        if not isinstance(level, str):
            raise RefereeError(f"level must be 2…9, T or 10, J, Q, K or A, not {_shown(level)}")
        try:
            return rules_trump(trump, level, self.rules)
        except CardError as err:
            raise RefereeError(str(err)) from None


def _possible(name: str, hands: Sequence[Hand], rules: RuleSet) -> None:
    """Holdings no shoe of `rules.decks` decks could deal cannot be judged (R1.2)."""
    for face in range(len(hands[0].counts)):
        copies = sum(h.counts[face] for h in hands)
        if copies > rules.decks:
            raise RefereeError(
                f"{name} hold {copies} copies of {pretty_card(face)} with {rules.decks} decks"
            )


def _lead(req: _Request, name: str, trump: TrumpContext) -> Reading:
    return _read(name, req.cards(name), trump, req.rules)


def _read(name: str, cards: tuple[Card, ...], trump: TrumpContext, rules: RuleSet) -> Reading:
    """The lead's reading (R4.2); a lead that is not one effective suit cannot be judged."""
    if not cards:
        raise RefereeError(f"{name} is empty")
    try:
        return read_lead(cards, trump, rules)
    except PlayError as err:
        raise RefereeError(f"{name}: {err}") from None


def _suit_name(suit: int) -> str:
    return SUIT_NAMES[suit]


def _pretty(cards: Sequence[Card]) -> str:
    return " ".join(pretty_card(c) for c in cards) or "(none)"


def _describe(reading: Reading) -> str:
    suit = "trump" if reading.suit == TRUMP else SUIT_SYMBOLS[reading.suit]
    return " + ".join(c.describe() for c in reading.components) + f" ({suit})"


# --- the kinds ------------------------------------------------------------------------------------

_Judge = Callable[[_Request], tuple[dict[str, Any], str]]


def _format(req: _Request) -> tuple[dict[str, Any], str]:
    trump = req.trump()
    reading = _lead(req, "cards", trump)
    comps = [
        {"kind": c.kind, "width": c.width, "length": c.length, "cards": c.tokens()}
        for c in reading.components
    ]
    kind = "throw" if reading.is_throw else "simple lead"
    return (
        {"suit": _suit_name(reading.suit), "components": comps},
        f"R4.2 {kind}: {_describe(reading)} under {trump.describe()}",
    )


def _follow(req: _Request) -> tuple[dict[str, Any], str]:
    trump = req.trump()
    lead = _lead(req, "lead", trump)
    hand, play = Hand.of(req.cards("hand")), req.cards("play")
    _possible("hand and lead", (hand, Hand.of(lead.cards())), req.rules)
    verdict = check_follow(lead, hand, play, trump, req.rules)
    word = "legal" if verdict.legal else "ILLEGAL"
    return (
        {"legal": verdict.legal, "rule": verdict.rule, "reason": verdict.reason},
        f"{verdict.rule} {word}: {_pretty(play)} to {_describe(lead)} — {verdict.reason}",
    )


def _trick(req: _Request) -> tuple[dict[str, Any], str]:
    trump = req.trump()
    holdings = tuple(Hand.of(h) for h in req.card_lists("hands", SEATS))
    _possible("hands", holdings, req.rules)
    plays = req.card_lists("plays", SEATS)
    account: list[str] = []
    attempted = _read("plays[0]", plays[0], trump, req.rules)
    illegal: set[int] = set()
    if not holdings[0].contains(plays[0]):
        illegal.add(0)
        account.append(f"R5.4 seat 0 does not hold {format_cards(holdings[0].missing(plays[0]))}")
    lead = attempted
    throw: dict[str, Any] | None = None
    throw_reason = ""
    if attempted.is_throw:
        check = check_throw(attempted, 0, holdings, trump, req.rules)
        forced = check.forced if check.failed else None
        throw = {
            "failed": check.failed,
            "forced": format_cards(forced.cards()) if forced is not None else None,
            "blocker": check.blocker if check.failed else None,
        }
        account.append(f"{check.rule} throw {_describe(attempted)}: {check.reason}")
        throw_reason = f"{check.reason} ({check.rule}); "
        if forced is not None:
            lead = forced
    lead_cards = lead.cards()
    voids = [False]
    for seat in range(1, SEATS):
        cards, hand = plays[seat], holdings[seat]
        if len(cards) != len(lead_cards):
            raise RefereeError(
                f"plays[{seat}] has {len(cards)} cards, the lead as played has {len(lead_cards)}"
                " (R5.1)"
            )
        voids.append(not any(trump.eff[c] == lead.suit for c in hand))
        if not hand.contains(cards):
            illegal.add(seat)
            account.append(f"R5.4 seat {seat} does not hold {format_cards(hand.missing(cards))}")
            continue
        verdict = check_follow(lead, hand, cards, trump, req.rules)
        if not verdict.legal:
            illegal.add(seat)
            account.append(f"{verdict.rule} seat {seat} plays {_pretty(cards)}: {verdict.reason}")
    played = [(0, lead_cards), *((seat, plays[seat]) for seat in range(1, SEATS))]
    result = resolve_trick(lead, played, voids, trump, req.rules)
    account.append(f"{result.rule} seat {result.winner} wins {result.points}: {result.reason}")
    fault = None
    if req.rules.throw_compare == "botzone" and attempted.is_throw and lead is attempted:
        fault = botzone_judge_fault(lead, played, voids, trump, req.rules)
    if fault is not None:
        # The judge never resolved such a trick: say so beside the rule book's verdict.
        throw_reason += (
            f"the Botzone judge fails comparing seat {fault}'s trump play with the winning "
            "trump play of a throw without a tractor, and the match ends there; "
        )
        account.append(f"R6.2 throw_compare=botzone: the judge fails at seat {fault}'s play")
    return (
        {
            "winner": result.winner,
            "points": result.points,
            "throw": throw,
            "illegal": sorted(illegal),
            "rule": result.rule,
            "reason": throw_reason + result.reason,
        },
        "\n  ".join(account),
    )


def _bottom(req: _Request) -> tuple[dict[str, Any], str]:
    trump = req.trump()
    lead = _lead(req, "lead", trump)
    winning = req.cards("winning_play")
    if len(winning) != lead.size:
        raise RefereeError(f"winning_play has {len(winning)} cards, the lead has {lead.size}")
    bottom = req.cards("bottom")
    if len(bottom) != req.rules.bottom_size:
        raise RefereeError(f"bottom has {len(bottom)} cards, not {req.rules.bottom_size}")
    score = bottom_score(lead, winning, bottom, req.boolean("attackers_won"), trump, req.rules)
    if not score.captured:
        why = f"the banker team keeps the bottom ({score.bottom_points} points do not count)"
    else:
        how = "trump" if score.won_with_trump else "a side suit"
        why = (
            f"attackers take the bottom with {how} ({_pretty(winning)}) after {_describe(lead)}: "
            f"{score.bottom_points} × {score.multiplier} = {score.points}"
        )
    return {"multiplier": score.multiplier, "points": score.points}, f"R7.2 {why}"


def _outcome(req: _Request) -> tuple[dict[str, Any], str]:
    total = req.integer("attackers_points")
    outcome = level_change(total, req.rules)
    return (
        {"winner": outcome.winner, "levels": outcome.levels},
        f"R7.3 attackers' {total} with step {req.rules.level_step}: {outcome.describe()}",
    )


_KIND_FIELDS: dict[str, tuple[_Judge, tuple[str, ...]]] = {
    "format": (_format, ("cards",)),
    "follow": (_follow, ("lead", "hand", "play")),
    "trick": (_trick, ("hands", "plays")),
    "bottom": (_bottom, ("lead", "winning_play", "bottom", "attackers_won")),
    "outcome": (_outcome, ("attackers_points",)),
}


# --- the entry points -----------------------------------------------------------------------------


def judge(request: object) -> Verdict:
    """The verdict on one decoded request. Never raises for a data fault in the request."""
    ident = request.get("id") if isinstance(request, dict) else None
    try:
        response, explanation = _judge(request)
    except (RefereeError, RuleError, CardError, PlayError) as err:
        return _error(ident, str(err))
    except RecursionError:
        # Nesting the decoder accepted can still be too deep to quote or compare.
        return _error(ident, "a value is nested too deeply")
    return Verdict({"id": ident, **response}, f"#{_shown(ident)} {explanation}")


def _error(ident: object, reason: str) -> Verdict:
    return Verdict({"id": ident, "error": reason}, f"#{_shown(ident)} error: {reason}")


def _judge(request: object) -> tuple[dict[str, Any], str]:
    if not isinstance(request, dict):
        raise RefereeError(f"a request must be a JSON object, not {type(request).__name__}")
    kind = request.get("kind")
    if not isinstance(kind, str) or kind not in _KIND_FIELDS:
        raise RefereeError(f"unknown kind {_shown(kind)} (known: {', '.join(KINDS)})")
    handler, names = _KIND_FIELDS[kind]
    unknown = sorted(
        k for k in request if k not in COMMON_FIELDS and k not in names and not k.startswith("_")
    )
    if unknown:
        raise RefereeError(f"unknown field {_shown(unknown[0])} for kind {kind!r}")
    rules = rules_from_spec(request.get("rules", "four-deck"))
    response, explanation = handler(_Request(request, rules))
    return response, f"{kind}: {explanation}"


class _NotJSON(ValueError):
    """A value the JSON text standard does not have (NaN, Infinity, a number out of range)."""


def _no_constant(name: str) -> object:
    raise _NotJSON(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJSON(f"number {text[:40]} is out of range")
    return value


def _decode(line: str) -> object:
    """JSON as RFC 8259 has it: no NaN or Infinity, numbers that fit a float."""
    return json.loads(line, parse_constant=_no_constant, parse_float=_finite)


def judge_line(line: str | bytes) -> Verdict:
    """The verdict on one line of JSON Lines input; a line that is not UTF-8 or not JSON gets an
    error verdict with id null. Program faults still raise (`answer` catches those too)."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as err:
            return _error(
                None, f"not UTF-8: byte 0x{line[err.start]:02x} at column {err.start + 1}"
            )
    try:
        request = _decode(line)
    except json.JSONDecodeError as err:
        return _error(None, f"not JSON: {err.msg} at column {err.colno}")
    except _NotJSON as err:
        return _error(None, f"not JSON: {err}")
    except RecursionError:
        return _error(None, "not read: JSON nested too deeply")
    except ValueError as err:
        # int() refuses numbers of more than sys.get_int_max_str_digits() digits (4,300).
        return _error(None, f"not read: {err}".split(";")[0])
    return judge(request)


def dumps(response: Mapping[str, Any]) -> str:
    """One output line: compact, key order kept, non-ASCII kept readable."""
    return json.dumps(response, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def answer(line: bytes | None, number: int = 0) -> tuple[str, str]:
    """The output line (no newline) and the `--explain` account for one raw input line, None for
    a line longer than `MAX_LINE_BYTES`. Never raises: a fault of the referee itself becomes an
    error answer naming the line, so one request never costs the ones after it."""
    where = f"line {number}: " if number else ""
    if line is None:
        verdict = _error(None, f"longer than {MAX_LINE_BYTES} bytes, not read")
    else:
        try:
            verdict = judge_line(line)
        except Exception as err:  # a program fault; the rest of the input still gets answers
            verdict = _error(None, f"internal error ({type(err).__name__}), not judged")
    response = verdict.response
    if where and response.get("id") is None and "error" in response:
        # Without an id, the line number is what ties the answer to its request.
        verdict = _error(None, where + str(response["error"]))
    try:
        return dumps(verdict.response), verdict.explanation
    except (ValueError, RecursionError):
        # An id that cannot be written back (nested too deeply to encode).
        return dumps({"id": None, "error": f"{where}the id cannot be echoed"}), verdict.explanation


def read_lines(
    readline: Callable[[int], bytes], limit: int = MAX_LINE_BYTES
) -> Iterator[bytes | None]:
    """Lines of a byte stream split on b"\\n" only (a U+2028 inside a JSON string is not a line
    break), the newline dropped; None for a line longer than `limit` bytes, whose bytes are read
    and dropped a chunk at a time. `readline` is a binary stream's `readline(size)`, so each line
    is yielded as soon as it has arrived."""
    while True:
        chunk = readline(limit + 1)
        if not chunk:
            return
        if chunk.endswith(b"\n"):
            yield chunk[:-1]
        elif len(chunk) <= limit:
            yield chunk  # the last line, without a newline
        else:
            while chunk and not chunk.endswith(b"\n"):
                chunk = readline(limit + 1)
            yield None
