"""jerryyyu/shengji room logs: one JSON event per line, many rounds per room (docs/import.md).

A round runs from `round_start` (the whole deck: `deck[i]` goes to seat `i % 4`, the kitty is
`deck[100:]`) through `declare`, `trump`, `bury`, `play` and `trick` events to `round_end`. Each
round is one hand: `match_id` the room, `hand_no` the round. What the engine reported (trump, the
banker, each trick's leader, winner and points, the attackers' total with the kitty bonus, the
level change, the next banker) goes into `claimed`; a failed throw's `attempted_cards` are the
play and the cards the engine played are its `forced` claim.

The log does not say when during the deal a declaration was made; each show's `dealt` is the
earliest point at which the seat held its cards (never before the previous show), the moment the
engine's bots declare at. A round the log stops inside is kept as `abandoned`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from ..cards import BIG_JOKER, SMALL_JOKER, Card, points_of
from ..hhfile import Line
from ..record import Bury, Claimed, Deal, End, Extra, HandRecord, Play, Show, TrickClaim
from ..rules import RuleError, preset
from .common import (
    Imported,
    LogError,
    level_of,
    load_object,
    quote,
    seat_of,
    suited,
    trump_token,
)

ENGINE: Final = "jerryyyu"
KNOWN_EVENTS: Final = frozenset(
    (
        "round_start",
        "declare",
        "trump",
        "bury",
        "play",
        "trick",
        "round_end",
        "bot_timing",
        "chat",
        "seat_claimed",
    )
)
"""Every event the engine writes; `bot_timing` (telemetry), `chat` and `seat_claimed` are not
part of a hand."""
_OUTSIDE: Final = frozenset(("bot_timing", "chat", "seat_claimed"))
"""Events that are not part of a hand: the last `bot_timing` of a round follows its round_end."""
DEALT: Final = 100
"""Cards dealt before the kitty: 4 × 25."""


def card(token: Any) -> Card:
    """A jerryyyu card code: suit letter then rank (`S10`, `HQ`), `LJ` or `BJ`."""
    if not isinstance(token, str) or len(token) < 2:
        raise LogError(f"unknown card {quote(token)}")
    if token == "LJ":
        return SMALL_JOKER
    if token == "BJ":
        return BIG_JOKER
    return suited(token[1:], token[0], token)


def cards(value: Any, where: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise LogError(f"{where}: a card list must be a list, not {quote(value)}")
    try:
        return tuple(card(t) for t in value)
    except LogError as e:
        raise LogError(f"{where}: {e}") from None


@dataclass
class _Round:
    room: str
    number: int
    line: int
    start: dict[str, Any]
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    broken: tuple[int, str] | None = None
    """(line, reason) of a line inside the round that could not be read: the round is rejected."""
    warnings: list[tuple[int | None, str]] = field(default_factory=list)
    ended: bool = False

    @property
    def hand_id(self) -> str:
        return f"{self.room}-{self.number}"


def read(lines: Iterable[Line], stem: str) -> Iterator[Imported]:
    """Every round of a room log, as hands (see the module's docstring)."""
    current: _Round | None = None
    pending: tuple[int, str] | None = None
    """A line that could not be read: the end of a truncated file, if nothing follows it."""
    bad: tuple[int, str] | None
    for line in lines:
        if line.too_long:
            reason = f"line {line.number}: {line.size:,} bytes, over the line limit: not read"
            pending, bad = (line.number, reason), pending
        elif not line.text.strip():
            continue
        else:
            try:
                event = load_object(line.text, f"line {line.number}")
            except LogError as e:
                pending, bad = (line.number, str(e)), pending
            else:
                bad, pending = pending, None
                if bad is not None:
                    current = _broken(current, bad)
                    if current is None:
                        yield Imported(ENGINE, "", bad[0], reason=bad[1])
                kind = event.get("e")
                if kind == "round_start":
                    if current is not None:
                        yield _finish(current, f"round_start at line {line.number}")
                    current = _start(event, line.number, stem)
                    continue
                if current is None:
                    if kind in _OUTSIDE:
                        continue  # telemetry written after the round's end
                    yield Imported(
                        ENGINE,
                        "",
                        line.number,
                        reason=f"line {line.number}: {quote(kind)} event outside any round: "
                        "not read",
                    )
                    continue
                current.events.append((line.number, event))
                if kind == "round_end":
                    current.ended = True
                    yield _finish(current, None)
                    current = None
                continue
        if bad is not None:
            current = _broken(current, bad)
            if current is None:
                yield Imported(ENGINE, "", bad[0], reason=bad[1])
    if pending is not None:
        if current is None:
            yield Imported(ENGINE, "", pending[0], reason=pending[1])
        else:
            current.warnings.append((pending[0], f"{pending[1]} (the log ends there: truncated)"))
    if current is not None:
        yield _finish(current, "the end of the log")


def _broken(current: _Round | None, bad: tuple[int, str]) -> _Round | None:
    if current is not None and current.broken is None:
        current.broken = bad
    return current


def _start(event: dict[str, Any], number: int, stem: str) -> _Round:
    room = event.get("room")
    rnd = event.get("round")
    if not isinstance(room, str) or not room:
        room = stem
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
        rnd = 1
    return _Round(room, rnd, number, event)


def _finish(r: _Round, cut: str | None) -> Imported:
    """The round as a hand; `cut` says what ended a round that has no round_end."""
    if r.broken is not None:
        reason = r.broken[1]
        return Imported(
            ENGINE,
            r.hand_id,
            r.line,
            reason=f"round {r.number}: {reason}: the round's events cannot all be read",
        )
    try:
        record = _record(r, cut)
    except LogError as e:
        return Imported(ENGINE, r.hand_id, r.line, reason=f"round {r.number}: {e}")
    return Imported(ENGINE, r.hand_id, r.line, record, warnings=tuple(r.warnings))


def _time(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(float(value), UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _shows_dealt(deck: tuple[Card, ...], seat: int, shown: tuple[Card, ...], last: int) -> int:
    """The earliest count of dealt cards after which `seat` holds `shown` (never before `last`)."""
    need: dict[Card, int] = {}
    for c in shown:
        need[c] = need.get(c, 0) + 1
    at = last
    for c, n in need.items():
        seen = 0
        for i in range(seat, DEALT, 4):
            if deck[i] == c:
                seen += 1
                if seen == n:
                    at = max(at, i + 1)
                    break
        else:
            return max(last, DEALT)  # not held: the replay says so (show_not_held)
    return at


def _record(r: _Round, cut: str | None) -> HandRecord:
    start = r.start
    where = f"line {r.line}"
    deck = cards(start.get("deck"), f"{where}: deck")
    if len(deck) != 108:
        raise LogError(f"{where}: the deck has {len(deck)} cards, not 108")
    levels = start.get("levels")
    if not isinstance(levels, list) or len(levels) != 2:
        raise LogError(f"{where}: levels {quote(levels)} is not two team levels")
    team_levels = (level_of(levels[0], f"{where}: levels"), level_of(levels[1], f"{where}: levels"))
    banker_value = start.get("banker")
    banker = None if banker_value is None else seat_of(banker_value, f"{where}: banker")
    names = ["", "", "", ""]
    players = start.get("players")
    if isinstance(players, list):
        for p in players:
            if isinstance(p, dict) and isinstance(p.get("seat"), int) and 0 <= p["seat"] <= 3:
                name = p.get("name")
                names[p["seat"]] = name if isinstance(name, str) else ""
    players_out = tuple(n or f"{r.room} seat {s}" for s, n in enumerate(names))

    bids: list[Show] = []
    bury: Bury | None = None
    plays: list[Play] = []
    tricks: list[TrickClaim] = []
    claimed: dict[str, Any] = {}
    extra_claims: dict[str, Any] = {}
    played: list[tuple[int, tuple[Card, ...]]] = []
    last_dealt = 0
    for number, ev in r.events:
        kind = ev.get("e")
        at = f"line {number}"
        if kind == "declare":
            seat = seat_of(ev.get("seat"), at)
            shown = cards(ev.get("cards"), f"{at}: declare")
            last_dealt = _shows_dealt(deck, seat, shown, last_dealt)
            bids.append(Show(seat, shown, last_dealt))
        elif kind == "trump":
            claimed["trump"] = trump_token(ev.get("suit"), at)
            if ev.get("banker") is not None:
                claimed["banker"] = seat_of(ev.get("banker"), at)
            if ev.get("declared") is not None:
                extra_claims["_declared"] = ev.get("declared")
        elif kind == "bury":
            bury = Bury(seat_of(ev.get("seat"), at), cards(ev.get("cards"), f"{at}: bury"))
        elif kind == "play":
            seat = seat_of(ev.get("seat"), at)
            done = cards(ev.get("cards"), f"{at}: play")
            attempted = ev.get("attempted_cards")
            if attempted is not None:
                tried = cards(attempted, f"{at}: attempted_cards")
                resolution = ev.get("engine_resolution")
                kept: Extra = () if resolution is None else (("_engine_resolution", resolution),)
                plays.append(Play(seat, tried, forced=done, extra=kept))
            else:
                plays.append(Play(seat, done))
            played.append((seat, done))
        elif kind == "trick":
            tricks.append(_trick(ev, at, played[-4:], r))
        elif kind == "round_end":
            _round_end(ev, at, claimed, extra_claims)
        elif kind in ("bot_timing", "chat", "seat_claimed"):
            continue
        else:
            r.warnings.append((number, f"{at}: unknown event {quote(kind)}: not read"))

    end: End = "complete"
    extra: list[tuple[str, Any]] = []
    if cut is not None:
        end = "abandoned"
        extra.append(("_end", f"the log has no round_end for this round before {cut}"))
        r.warnings.append((None, f"round {r.number}: no round_end before {cut}: abandoned"))
    extra.append(("_players", players))
    try:
        rules = preset(ENGINE)
    except RuleError:
        raise LogError(f"the rules preset {ENGINE!r} is not known to this version") from None
    return HandRecord(
        hand_id=r.hand_id,
        source=ENGINE,
        players=(players_out[0], players_out[1], players_out[2], players_out[3]),
        levels=team_levels,
        deal=Deal(0, deck),
        rules=rules,
        banker=banker,
        match_id=r.room,
        hand_no=r.number,
        played_at=_time(start.get("t")),
        bids=tuple(bids),
        bury=bury,
        plays=tuple(plays),
        claimed=Claimed(
            trump=claimed.get("trump"),
            attackers_points=claimed.get("attackers_points"),
            bottom_multiplier=claimed.get("bottom_multiplier"),
            level_change=claimed.get("level_change"),
            next_banker=claimed.get("next_banker"),
            banker=claimed.get("banker"),
            tricks=tuple(tricks),
            extra=tuple(sorted(extra_claims.items())),
        ),
        end=end,
        extra=tuple(sorted(extra)),
    )


def _trick(
    ev: dict[str, Any], at: str, last: list[tuple[int, tuple[Card, ...]]], r: _Round
) -> TrickClaim:
    plays = ev.get("plays")
    if not isinstance(plays, list) or not plays or not isinstance(plays[0], dict):
        raise LogError(f"{at}: trick without plays")
    logged = []
    for p in plays:
        if not isinstance(p, dict):
            raise LogError(f"{at}: trick play {quote(p)} is not an object")
        logged.append((seat_of(p.get("seat"), at), cards(p.get("cards"), f"{at}: trick")))
    if [(s, sorted(c)) for s, c in logged] != [(s, sorted(c)) for s, c in last]:
        r.warnings.append((None, f"{at}: the trick's plays differ from the play events before it"))
    points = ev.get("points")
    if isinstance(points, bool) or not isinstance(points, int):
        points = None
    return TrickClaim(logged[0][0], seat_of(ev.get("winner"), at), points)


def _round_end(ev: dict[str, Any], at: str, claimed: dict[str, Any], extra: dict[str, Any]) -> None:
    points = ev.get("attacker_points")
    if isinstance(points, int) and not isinstance(points, bool):
        claimed["attackers_points"] = points
    team, change = ev.get("winner_team"), ev.get("level_change")
    if (
        isinstance(team, int)
        and team in (0, 1)
        and isinstance(change, int)
        and not isinstance(change, bool)
        and change >= 0
    ):
        claimed["level_change"] = (team, change)
    if ev.get("next_banker") is not None:
        claimed["next_banker"] = seat_of(ev.get("next_banker"), at)
    bonus = ev.get("kitty_points")
    kitty = ev.get("kitty")
    if isinstance(bonus, int) and not isinstance(bonus, bool) and isinstance(kitty, list):
        base = points_of(cards(kitty, f"{at}: kitty"))
        if bonus > 0 and base > 0 and bonus % base == 0:
            # Only a bonus that was paid shows the multiplier; a kitty of no points or a kitty
            # the attackers did not win leaves it unsaid.
            claimed["bottom_multiplier"] = bonus // base
    for key in ("kitty_points", "new_levels", "game_over"):
        if key in ev:
            extra[f"_{key}"] = ev[key]
