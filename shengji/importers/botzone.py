"""Botzone "Tractor" matches: `{"initdata": …, "log": [judge turn, bot turn, …]}`, one hand each.

The judge deals one card a turn from `initdata.allocation` (seat s's 25 cards in order), starting
at `initdata.banker` (0 when unset), so card i of the shoe goes to seat (first + i) mod 4 and the
kitty (`publiccard`) is the last 8. Each bot's deal answer is a show after the cards delivered so
far (`[id]` a call, `[id, id]` a snatch); the banker's cover answer is the bury; each play answer
is a play, in the order the bot listed its cards (the judge compares trump plays by the last card
listed, side-suit plays by the first). When the judge kept fewer cards than the bot answered (a
failed throw), the cards it kept are the play's `forced` claim.

Card ids run 0..107 (54 and up the second deck): n = id % 54, 52 the small and 53 the big joker,
else rank `A 2 … 9 10 J Q K`[n // 4] and suit `s h c d`[n % 4] — the 2024 judge — or `h d s c`
[n % 4] — the 2023 judge, recognised by the absence of `first_round` from its requests.

What the judge reported goes into `claimed`: trump and banker (its `banking`), each trick's leader
and winner (the next request's history), the attackers' total (the last `total_score` plus the
finishing turn's `get_score`: penalties and the kitty included) and the level change (the finish's
per-seat result). A 2023 judge's hand is played under the `botzone2023` preset, a 2024 judge's
under `botzone`. A match the judge ended on an error (an illegal move, its own crash) or that the
log stops inside is kept as `abandoned`, the error in `_end`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Final

from ..cards import BIG_JOKER, SMALL_JOKER, Card, format_cards
from ..hhfile import Line
from ..record import Bury, Claimed, Deal, HandRecord, Play, Show, TrickClaim
from ..rules import RuleError, preset
from .common import Imported, LogError, level_of, quote, seat_of, suited

ENGINE: Final = "botzone"
PRESET_2023: Final = "botzone2023"
"""The 2023 judge's rules (docs/rules.md, "The 2023 Botzone judge"); the source stays `botzone`."""
MAX_BYTES: Final = 32 << 20
"""The largest match read: a whole match log is about 90 KB (pretty-printed, 160 KB)."""
_RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS_2024: Final = "SHCD"
SUITS_2023: Final = "HDSC"
_TRUMP: Final = {"s": "S", "h": "H", "c": "C", "d": "D", "n": "NT"}


def card(value: Any, suits: str) -> Card:
    """A judge card id (0..107) as our card, with the judge's suit order `suits`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 107:
        raise LogError(f"unknown card id {quote(value)}")
    n = value % 54
    if n == 52:
        return SMALL_JOKER
    if n == 53:
        return BIG_JOKER
    return suited(_RANKS[n // 4], suits[n % 4], str(value))


def read(lines: Iterable[Line], stem: str) -> Iterator[Imported]:
    """The match of one file (the whole file is one JSON document)."""
    parts: list[str] = []
    size = 0
    for line in lines:
        if line.too_long:
            yield Imported(
                ENGINE, stem, 1, reason=f"line {line.number}: {line.size:,} bytes: not read"
            )
            return
        size += line.size
        if size > MAX_BYTES:
            yield Imported(ENGINE, stem, 1, reason=f"more than {MAX_BYTES:,} bytes: not a match")
            return
        parts.append(line.text)
    text = "\n".join(parts)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":
            why = "more than one JSON value: not a Botzone match"
        elif _open(text):
            why = f"{e.msg}; the file ends before the JSON closes (truncated)"
        else:
            why = e.msg
        yield Imported(
            ENGINE, stem, 1, reason=f"line {e.lineno} column {e.colno}: not valid JSON: {why}"
        )
        return
    except (RecursionError, ValueError) as e:
        yield Imported(ENGINE, stem, 1, reason=f"not valid JSON: {e}")
        return
    try:
        yield _match(doc, stem)
    except LogError as e:
        yield Imported(ENGINE, stem, 1, reason=str(e))


def _open(text: str) -> bool:
    """Whether the JSON text ends with a bracket or a string still open: a file cut short."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return in_string or depth > 0


def _initdata(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, dict) or not isinstance(doc.get("log"), list):
        raise LogError("not a Botzone match: no `log` list")
    init = doc.get("initdata", {})
    if isinstance(init, str):  # the judge accepts initdata as a JSON string too
        try:
            init = json.loads(init) if init.strip() else {}
        except json.JSONDecodeError:
            raise LogError("initdata is a string that is not JSON") from None
    if not isinstance(init, dict):
        raise LogError(f"initdata {quote(init)} is not an object")
    return init


def _judge_year(log: list[Any], init: dict[str, Any]) -> str:
    """`2024` when the judge writes `first_round` (its requests' `global`, or initdata)."""
    if "first_round" in init:
        return "2024"
    for turn in log[:4]:
        request = _request(turn)
        if request is not None:
            _, content = request
            glob = content.get("global")
            if isinstance(glob, dict) and "first_round" in glob:
                return "2024"
    return "2023"


def _request(turn: Any) -> tuple[int, dict[str, Any]] | None:
    """(seat, request) of a judge turn that sends a request, else None."""
    if not isinstance(turn, dict) or not isinstance(turn.get("output"), dict):
        return None
    content = turn["output"].get("content")
    if turn["output"].get("command") != "request" or not isinstance(content, dict):
        return None
    for key, value in content.items():
        if isinstance(value, dict) and key in ("0", "1", "2", "3"):
            return int(key), value
    return None


def _answer(turn: Any) -> tuple[int, Any] | None:
    """(seat, response) of a bot turn, else None."""
    if not isinstance(turn, dict) or "output" in turn:
        return None
    for key, value in turn.items():
        if key in ("0", "1", "2", "3") and isinstance(value, dict):
            return int(key), value.get("response")
    return None


def _ids(value: Any, where: str, suits: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise LogError(f"{where}: {quote(value)} is not a list of card ids")
    try:
        return tuple(card(v, suits) for v in value)
    except LogError as e:
        raise LogError(f"{where}: {e}") from None


def _deal(init: dict[str, Any], log: list[Any], first: int, suits: str) -> tuple[Card, ...]:
    """The shoe in dealing order: from `allocation`, checked against what the judge delivered;
    from the delivered cards when the log has no allocation but the whole deal."""
    alloc = init.get("allocation")
    kitty = init.get("publiccard")
    delivered: list[tuple[int, Any]] = []
    for t, turn in enumerate(log):
        request = _request(turn)
        if request is not None and request[1].get("stage") == "deal":
            deliver = request[1].get("deliver")
            value = deliver[0] if isinstance(deliver, list) and len(deliver) == 1 else deliver
            delivered.append((t, value))
        if isinstance(turn, dict) and kitty is None:
            display = turn.get("output", {}).get("display") if "output" in turn else None
            if isinstance(display, dict) and "publiccard" in display:
                kitty = display["publiccard"]
    ids: list[Any] = []
    if isinstance(alloc, list) and len(alloc) == 4 and all(isinstance(a, list) for a in alloc):
        if any(len(a) != 25 for a in alloc):
            raise LogError("initdata.allocation does not give 25 cards to each seat")
        ids = [alloc[(first + i) % 4][i // 4] for i in range(100)]
        for i, (t, value) in enumerate(delivered[:100]):
            if value != ids[i]:
                raise LogError(
                    f"turn {t}: the judge delivers {quote(value)}, but the allocation says "
                    f"{ids[i]}: the deal cannot be rebuilt"
                )
    elif len(delivered) >= 100:
        ids = [value for _, value in delivered[:100]]
    else:
        raise LogError(
            "no initdata.allocation and the log stops before the deal's end: "
            "the deal cannot be rebuilt"
        )
    if not isinstance(kitty, list) or len(kitty) != 8:
        raise LogError("no 8-card publiccard (kitty): the deal cannot be rebuilt")
    ids.extend(kitty)
    seen: set[Any] = set()
    for value in ids:
        if value in seen:
            raise LogError(f"card id {quote(value)} is dealt twice: the deal cannot be rebuilt")
        seen.add(value)
    return _ids(ids, "the deal", suits)


def _match(doc: Any, stem: str) -> Imported:
    init = _initdata(doc)
    log: list[Any] = doc["log"]
    year = _judge_year(log, init)
    suits = SUITS_2024 if year == "2024" else SUITS_2023
    first = init.get("banker", 0)
    first = seat_of(first, "initdata.banker")
    level = level_of(init.get("level", "2"), "initdata.level")
    first_round = init.get("first_round", True) is not False
    shoe = _deal(init, log, first, suits)

    warnings: list[tuple[int | None, str]] = []
    bids: list[Show] = []
    bury: Bury | None = None
    plays: list[Play] = []
    tricks: list[TrickClaim] = []
    banking: dict[str, Any] = {}
    total: int | None = None
    dealt = 0
    called = False
    end_extra: dict[str, Any] | None = None
    finished: dict[str, Any] | None = None
    pending: tuple[int, int, tuple[Card, ...], str] | None = None
    """(turn, seat, cards, stage) of the last bot answer, until the judge's next turn."""
    stage = "deal"
    for t, turn in enumerate(log):
        answer = _answer(turn)
        if answer is not None:
            seat, response = answer
            if pending is not None:
                warnings.append((None, f"turn {t}: two bot answers in a row"))
            got = _ids(response, f"turn {t} (seat {seat})", suits) if response is not None else ()
            pending = (t, seat, got, stage)
            if stage == "deal" and got:
                bids.append(Show(seat, got, dealt))
                called = True
            elif stage == "cover":
                bury = Bury(seat, got)
            continue
        if not isinstance(turn, dict) or not isinstance(turn.get("output"), dict):
            raise LogError(f"turn {t}: neither a judge turn nor a bot answer")
        output = turn["output"]
        display = _dict(output.get("display"))
        event = _dict(display.get("event"))
        if pending is not None and pending[3] == "play":
            pt, seat, got, _ = pending
            kept = event.get("poker")
            if output.get("command") == "finish" and "error" in display:
                plays.append(Play(seat, got))
            elif isinstance(kept, list):
                played = _ids(kept, f"turn {t}: display.event.poker", suits)
                if sorted(played) != sorted(got):
                    plays.append(Play(seat, got, forced=played))
                else:
                    plays.append(Play(seat, got))
            else:
                raise LogError(f"turn {t}: the judge does not say what seat {seat} played")
        pending = None
        if output.get("command") == "finish":
            finished = turn
            break
        request = _request(turn)
        if request is None:
            warnings.append((None, f"turn {t}: an unknown judge turn: not read"))
            continue
        seat, content = request
        stage_now = content.get("stage")
        glob = _dict(content.get("global"))
        if isinstance(glob.get("banking"), dict):
            banking = glob["banking"]
        if stage_now == "deal":
            dealt += 1
        elif stage_now == "cover":
            pass
        elif stage_now == "play":
            history = content.get("history")
            if isinstance(glob.get("total_score"), int):
                total = glob["total_score"]
            if (
                isinstance(history, list)
                and len(history) == 4
                and isinstance(history[1], list)
                and not history[1]
                and isinstance(history[0], list)
                and len(history[0]) == 4
                and len(plays) == 4 * (len(tricks) + 1)
            ):
                tricks.append(
                    TrickClaim(seat_of(history[2], f"turn {t}"), seat_of(history[3], f"turn {t}"))
                )
        else:
            warnings.append((None, f"turn {t}: unknown stage {quote(stage_now)}: not read"))
            continue
        stage = stage_now

    if pending is not None:
        pt, seat, got, _ = pending
        end_extra = {
            "reason": f"the log stops at turn {pt}, an answer the judge never judged",
            "unjudged": {"seat": seat, "cards": format_cards(got)},
        }
        warnings.append((None, f"turn {pt}: seat {seat}'s answer was never judged: not played"))
    score: dict[str, Any] | None = None
    if finished is not None:
        output = finished["output"]
        display = _dict(output.get("display"))
        content = output.get("content")
        score = content if isinstance(content, dict) else None
        if "error" in display:
            errors = display.get("error")
            who = display.get("currplayer")
            what = None
            if isinstance(errors, list) and isinstance(who, int) and 0 <= who < len(errors):
                what = errors[who]
            end_extra = {"error": what, "seat": who, "turn": len(log) - 1}
        else:
            gained = display.get("get_score")
            if isinstance(gained, int) and not isinstance(gained, bool) and total is not None:
                total += gained
    elif end_extra is None:
        end_extra = {"reason": f"the log stops at turn {len(log) - 1}, before the judge's finish"}

    major = banking.get("major")
    trump = _TRUMP.get(major) if isinstance(major, str) else None
    engine_banker = banking.get("banker")
    if isinstance(engine_banker, bool) or engine_banker not in (0, 1, 2, 3):
        engine_banker = None
    if not first_round:
        banker: int | None = seat_of(init.get("banker", 0), "initdata.banker")
    elif called:
        banker = None  # the shows made the banker
    else:
        banker = engine_banker  # nobody called: the judge's random banker
    level_change: tuple[int, int] | None = None
    if score is not None and end_extra is None:
        best = max(("0", "1", "2", "3"), key=lambda s: _num(score.get(s)))
        gained_levels = _num(score.get(best))
        if gained_levels > 0:
            level_change = (int(best) % 2, gained_levels)
    complete = end_extra is None
    extra: list[tuple[str, Any]] = [("_judge", year)]
    if "seed" in init:
        extra.append(("_seed", init["seed"]))
    if score is not None:
        extra.append(("_score", score))
    if end_extra is not None:
        extra.append(("_end", end_extra))
    name = PRESET_2023 if year == "2023" else ENGINE
    try:
        rules = preset(name)
    except RuleError:
        raise LogError(f"the rules preset {name!r} is not known to this version") from None
    record = HandRecord(
        hand_id=stem,
        source=ENGINE,
        players=(f"{stem}/0", f"{stem}/1", f"{stem}/2", f"{stem}/3"),
        levels=(level, level),
        deal=Deal(first, shoe),
        rules=rules,
        banker=banker,
        match_id=stem,
        hand_no=1,
        bids=tuple(bids),
        bury=bury,
        plays=tuple(plays),
        claimed=Claimed(
            trump=trump,
            attackers_points=total if complete else None,
            level_change=level_change,
            banker=engine_banker,
            tricks=tuple(tricks),
        ),
        end="complete" if complete else "abandoned",
        extra=tuple(sorted(extra)),
    )
    if end_extra is not None and "error" in end_extra:
        warnings.append(
            (
                None,
                f"turn {end_extra['turn']}: the judge ended the match with "
                f"{end_extra['error']!r} charged to seat {end_extra['seat']}: abandoned",
            )
        )
    elif end_extra is not None:
        warnings.append((None, f"{end_extra['reason']}: abandoned"))
    return Imported(ENGINE, stem, 1, record, warnings=tuple(warnings))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
