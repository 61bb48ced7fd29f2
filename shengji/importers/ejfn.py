"""ejfn/Tractor DEBUG game logs: NDJSON (usually gzipped), one game of many rounds (docs/import.md).

Every line is `{timestamp, level, event, sequenceNumber, appVersion, gameId, data, message}`; each
round is one hand (`match_id` the game id, `hand_no` the round). The log has no deal record, so the
deal is rebuilt (SOURCES of docs/import.md): dealing starts at `dealing_start.startingPlayerIndex`
and goes one card a seat; the engine appends each dealt card to the hand and never sorts it, so a
seat's first `card_play.handBefore` is its 25 cards in dealing order — except the banker's, taken
after the bury: its own cards minus those it buried, then the bottom cards it kept. The bottom is
`kitty_pickup.kittyCards`, the bury `kitty_swap_completed.selectedCards`. Where in the banker's
deal its own buried cards were is not logged: they are put after its kept cards, or first when a
show of the banker's needs them. A log without hands (no `handBefore`) cannot give the deal: its
rounds are rejected with that reason.

Players are `human`, `bot1`, `bot2`, `bot3` at seats 0–3. What the engine reported goes into
`claimed`: trump, the banker (who took the kitty), each trick's leader, winner and points, the
attackers' total (`round_end.finalPoints`, the kitty bonus included), the bottom multiplier when a
bonus was paid, the level change (the victory event's `rankAdvancement`) and the next banker (the
next round's starting player).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from ..cards import BIG_JOKER, SMALL_JOKER, Card
from ..hhfile import Line
from ..record import Bury, Claimed, Deal, HandRecord, Play, Show, TrickClaim
from ..rules import RuleError, preset
from .common import Imported, LogError, level_of, load_object, quote, suited

ENGINE: Final = "ejfn"
SEATS: Final = {"human": 0, "bot1": 1, "bot2": 2, "bot3": 3}
NAMES: Final = ("human", "bot1", "bot2", "bot3")
_SYMBOLS: Final = {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}
_SUIT_WORDS: Final = {"Spades": "S", "Hearts": "H", "Clubs": "C", "Diamonds": "D"}
_NO_TRUMP: Final = (None, "None", "NoTrump", "NONE", "")
_TEAMS: Final = {"A": 0, "B": 1}
KNOWN_EVENTS: Final = frozenset(
    (
        "game_initialized",
        "round_start",
        "dealing_start",
        "trump_declared",
        "trump_finalized",
        "kitty_pickup",
        "kitty_swap_completed",
        "card_play",
        "trick_completed",
        "final_trick_kitty_bonus",
        "attacking_team_victory",
        "defending_team_victory",
        "round_end",
        "round_end_calculation_start",
        "game_over",
        "multi_combo_lead",
    )
)
_KNOWN_PREFIXES: Final = ("ai_", "following_", "leading_", "llm_", "round_preparation_", "team_")
"""The bots' reasoning and the engine's bookkeeping: not part of a hand."""
DEALT: Final = 100


def card(token: Any) -> Card:
    """An ejfn card string: rank then suit symbol (`10♦`, `A♠`), `SJ` or `BJ`."""
    if not isinstance(token, str) or len(token) < 2:
        raise LogError(f"unknown card {quote(token)}")
    if token == "SJ":
        return SMALL_JOKER
    if token == "BJ":
        return BIG_JOKER
    suit = _SYMBOLS.get(token[-1])
    if suit is None:
        raise LogError(f"unknown card {quote(token)}")
    return suited(token[:-1], suit, token)


def cards(value: Any, where: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise LogError(f"{where}: a card list must be a list, not {quote(value)}")
    try:
        return tuple(card(t) for t in value)
    except LogError as e:
        raise LogError(f"{where}: {e}") from None


def seat(value: Any, where: str) -> int:
    found = SEATS.get(value) if isinstance(value, str) else None
    if found is None:
        raise LogError(f"{where}: unknown player {quote(value)}")
    return found


@dataclass
class _Round:
    game: str
    number: int
    line: int
    played_at: str | None
    start: dict[str, Any] | None = None
    dealing: dict[str, Any] | None = None
    shows: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    trump: dict[str, Any] | None = None
    pickup: dict[str, Any] | None = None
    swap: dict[str, Any] | None = None
    plays: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    tricks: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    bonus: dict[str, Any] | None = None
    victory: tuple[str, dict[str, Any]] | None = None
    end: dict[str, Any] | None = None
    broken: tuple[int, str] | None = None
    warnings: list[tuple[int | None, str]] = field(default_factory=list)

    @property
    def hand_id(self) -> str:
        return f"{self.game}-{self.number}"


def read(lines: Iterable[Line], stem: str) -> Iterator[Imported]:
    """Every round of a game log, as hands (see the module's docstring)."""
    current: _Round | None = None
    done: _Round | None = None
    """A finished round, held until the next round's start says who banks next."""
    init: dict[str, Any] | None = None
    pending: tuple[int, str] | None = None
    for line in lines:
        if line.too_long:
            problem: tuple[int, str] | None = (
                line.number,
                f"line {line.number}: {line.size:,} bytes, over the line limit: not read",
            )
        elif not line.text.strip():
            continue
        else:
            try:
                event = load_object(line.text, f"line {line.number}")
            except LogError as e:
                problem = (line.number, str(e))
            else:
                problem = None
        if pending is not None:
            # A bad line that is not the last: the round it falls in cannot be trusted.
            if current is not None and current.broken is None:
                current.broken = pending
            elif current is None:
                yield Imported(ENGINE, "", pending[0], reason=pending[1])
        pending = problem
        if problem is not None:
            continue
        name = event.get("event")
        data = event.get("data")
        if not isinstance(data, dict):
            data = {}
        game_id = event.get("gameId")
        game = game_id if isinstance(game_id, str) and game_id else stem
        number = data.get("roundNumber")
        if isinstance(number, bool) or not isinstance(number, int):
            number = current.number if current is not None else 1
        if name == "game_initialized":
            init = data
        if current is None or game != current.game or number > current.number:
            if current is not None:
                if current.end is None:
                    yield _emit(current, None, f"round {number} at line {line.number}")
                else:
                    if done is not None:
                        yield _emit(done, None, None)
                    done = current
            current = _Round(game, number, line.number, _time(event.get("timestamp")))
            if name != "round_start" and init is not None and number == 1:
                current.start = init
        elif number < current.number:
            current.warnings.append(
                (line.number, f"line {line.number}: an event of round {number}: not read")
            )
            continue
        if name == "round_start":
            current.start = data
            if done is not None:
                yield _emit(done, data.get("roundStartingPlayer"), None)
                done = None
        elif name == "dealing_start":
            current.dealing = data
            if current.played_at is None:
                current.played_at = _time(event.get("timestamp"))
        elif name == "trump_declared":
            current.shows.append((line.number, data))
        elif name == "trump_finalized":
            current.trump = data
        elif name == "kitty_pickup":
            current.pickup = data
        elif name == "kitty_swap_completed":
            current.swap = data
        elif name == "card_play":
            current.plays.append((line.number, data))
        elif name == "trick_completed":
            current.tricks.append((line.number, data))
        elif name == "final_trick_kitty_bonus":
            current.bonus = data
        elif name in ("attacking_team_victory", "defending_team_victory"):
            current.victory = (name, data)
        elif name == "round_end":
            current.end = data
        elif name in KNOWN_EVENTS or (isinstance(name, str) and name.startswith(_KNOWN_PREFIXES)):
            continue
        else:
            current.warnings.append(
                (line.number, f"line {line.number}: unknown event {quote(name)}: not read")
            )
    if pending is not None:
        if current is None:
            yield Imported(ENGINE, "", pending[0], reason=pending[1])
        else:
            current.warnings.append((pending[0], f"{pending[1]} (the log ends there: truncated)"))
    if done is not None:
        yield _emit(done, None, None)
    if current is not None:
        yield _emit(current, None, None if current.end is not None else "the end of the log")


def _time(value: Any) -> str | None:
    if isinstance(value, str) and len(value) >= 20 and value.endswith("Z") and value[10] == "T":
        return value
    return None


def _emit(r: _Round, next_starter: Any, cut: str | None) -> Imported:
    if r.broken is not None:
        return Imported(
            ENGINE,
            r.hand_id,
            r.line,
            reason=f"round {r.number}: {r.broken[1]}: the round's events cannot all be read",
        )
    try:
        record = _record(r, next_starter, cut)
    except LogError as e:
        return Imported(ENGINE, r.hand_id, r.line, reason=f"round {r.number}: {e}")
    return Imported(ENGINE, r.hand_id, r.line, record, warnings=tuple(r.warnings))


def _trump(info: Any) -> str:
    suit = info.get("trumpSuit") if isinstance(info, dict) else None
    if suit in _NO_TRUMP:
        return "NT"
    token = _SUIT_WORDS.get(suit) if isinstance(suit, str) else None
    if token is None:
        raise LogError(f"unknown trump suit {quote(suit)}")
    return token


def _take(pool: list[Card], cards_: Iterable[Card]) -> list[Card]:
    """`pool` without one copy of each of `cards_` (those it lacks are left out of the count)."""
    rest = list(pool)
    for c in cards_:
        if c in rest:
            rest.remove(c)
    return rest


def _in_order(part: list[Card], whole: tuple[Card, ...]) -> bool:
    """Whether `part` is `whole` with some cards left out, in the same order."""
    rest = iter(whole)
    return all(any(c == w for w in rest) for c in part)


def _banker_deal(
    hand: tuple[Card, ...],
    kitty: tuple[Card, ...],
    buried: tuple[Card, ...],
    needs: list[tuple[int, tuple[Card, ...]]],
) -> tuple[list[Card], bool]:
    """The banker's 25 dealt cards in dealing order, from its hand after the bury (own kept cards
    in order, then the kept bottom), the bottom and the bury; `needs` are its shows as (cards
    it had been dealt, shown cards). Returns the cards and whether every show's cards fit."""
    # The engine removes buried cards by their deck copy, which the strings do not show: the
    # kept bottom is the hand's tail, in the bottom's order, the longest that fits.
    for kept in range(min(8, len(hand)), -1, -1):
        tail = list(hand[len(hand) - kept :])
        if not _in_order(tail, kitty):
            continue
        from_bottom = _take(list(kitty), tail)
        if len(_take(list(buried), from_bottom)) == len(buried) - len(from_bottom):
            break
    else:
        raise LogError(
            "the banker's hand does not end with bottom cards it kept: the deal cannot be rebuilt"
        )
    n_own = len(hand) - kept
    own_buried = _take(list(buried), from_bottom)
    if n_own + len(own_buried) != 25:
        raise LogError(
            f"the banker's hand ({len(hand)} cards), bottom and bury do not add up to 25 dealt "
            "cards: the deal cannot be rebuilt"
        )
    own_kept = list(hand[:n_own])
    early: list[Card] = []
    late = list(own_buried)
    for _, shown in needs:
        for c in set(shown):
            short = shown.count(c) - own_kept.count(c) - early.count(c)
            while short > 0 and c in late:
                late.remove(c)
                early.append(c)
                short -= 1
    order = early + own_kept + late
    fits = True
    for dealt_count, shown in needs:
        held = order[:dealt_count]
        if any(held.count(c) < shown.count(c) for c in set(shown)):
            fits = False
    return order, fits


def _record(r: _Round, next_starter: Any, cut: str | None) -> HandRecord:
    where = f"round {r.number}"
    if r.dealing is None:
        raise LogError("no dealing_start: the deal cannot be rebuilt")
    first = r.dealing.get("startingPlayerIndex")
    if isinstance(first, bool) or first not in (0, 1, 2, 3):
        first = seat(r.dealing.get("startingPlayer"), "dealing_start")
    if r.pickup is None or "kittyCards" not in r.pickup:
        raise LogError(
            "the log has no hands (kitty_pickup without kittyCards): the deal cannot be rebuilt"
        )
    banker_seat = seat(r.pickup.get("playerId"), "kitty_pickup")
    kitty = cards(r.pickup.get("kittyCards"), "kitty_pickup.kittyCards")
    if len(kitty) != 8:
        raise LogError(f"kitty_pickup.kittyCards holds {len(kitty)} cards, not 8")
    if r.swap is None or "selectedCards" not in r.swap:
        raise LogError("no kitty_swap_completed.selectedCards: the bury is not logged")
    buried = cards(r.swap.get("selectedCards"), "kitty_swap_completed.selectedCards")
    hands: list[tuple[Card, ...] | None] = [None, None, None, None]
    plays: list[Play] = []
    for number, data in r.plays:
        s = seat(data.get("playerId"), f"line {number}")
        if hands[s] is None:
            if "handBefore" not in data:
                raise LogError(
                    f"line {number}: card_play without handBefore: the log has no hands, "
                    "the deal cannot be rebuilt"
                )
            hands[s] = cards(data.get("handBefore"), f"line {number}: handBefore")
        plays.append(Play(s, cards(data.get("cardsPlayed"), f"line {number}: cardsPlayed")))
    if any(h is None for h in hands):
        missing = ", ".join(NAMES[s] for s in range(4) if hands[s] is None)
        raise LogError(f"no card_play of {missing}: the deal cannot be rebuilt")

    bids: list[Show] = []
    needs: list[tuple[int, tuple[Card, ...]]] = []
    for number, data in r.shows:
        s = seat(data.get("playerId"), f"line {number}")
        shown = cards(data.get("cards"), f"line {number}: trump_declared")
        progress = data.get("dealingProgress")
        dealt = progress.get("current") if isinstance(progress, dict) else None
        if isinstance(dealt, bool) or not isinstance(dealt, int) or not 0 <= dealt <= DEALT:
            dealt = DEALT
        bids.append(Show(s, shown, dealt))
        if s == banker_seat:
            needs.append((len(range((s - first) % 4, dealt, 4)), shown))

    dealt_cards: list[list[Card]] = [[], [], [], []]
    for s in range(4):
        held = hands[s]
        assert held is not None
        if s == banker_seat:
            order, fits = _banker_deal(held, kitty, buried, needs)
            if not fits:
                r.warnings.append(
                    (
                        None,
                        f"{where}: a show of the banker's needs cards it buried, whose deal "
                        "positions are not logged",
                    )
                )
            dealt_cards[s] = order
        else:
            if len(held) != 25:
                raise LogError(
                    f"{NAMES[s]}'s first hand holds {len(held)} cards, not 25: "
                    "the deal cannot be rebuilt"
                )
            dealt_cards[s] = list(held)
    shoe = [dealt_cards[(first + i) % 4][i // 4] for i in range(DEALT)] + list(kitty)

    start = r.start or {}
    ranks = {0: 2, 1: 2}
    team_ranks = start.get("teamRanks")
    if isinstance(team_ranks, list):
        for t in team_ranks:
            if isinstance(t, dict) and t.get("teamId") in _TEAMS:
                ranks[_TEAMS[t["teamId"]]] = level_of(t.get("currentRank"), f"{where}: teamRanks")
    declared = bool(r.shows)
    if r.number == 1 and declared:
        banker: int | None = None  # the first declarer's seat, decided by the shows
    elif "roundStartingPlayer" in start:
        banker = seat(start.get("roundStartingPlayer"), f"{where}: roundStartingPlayer")
    else:
        banker = banker_seat

    tricks: list[TrickClaim] = []
    for number, data in r.tricks:
        all_plays = data.get("allPlays")
        if not isinstance(all_plays, list) or not all_plays or not isinstance(all_plays[0], dict):
            raise LogError(f"line {number}: trick_completed without allPlays")
        points = data.get("trickPoints")
        tricks.append(
            TrickClaim(
                seat(all_plays[0].get("playerId"), f"line {number}"),
                seat(data.get("winningPlayer"), f"line {number}"),
                points if isinstance(points, int) and not isinstance(points, bool) else None,
            )
        )
    claimed: dict[str, Any] = {"trump": _trump(r.trump.get("trumpInfo")) if r.trump else None}
    extra: list[tuple[str, Any]] = []
    end = r.end
    if end is not None:
        points = end.get("finalPoints")
        if isinstance(points, int) and not isinstance(points, bool):
            claimed["attackers_points"] = points
        if r.victory is not None:
            kind, data = r.victory
            team_name = data.get(
                "attackingTeam" if kind.startswith("attacking") else "defendingTeam"
            )
            levels = data.get("rankAdvancement")
            if team_name in _TEAMS and isinstance(levels, int) and not isinstance(levels, bool):
                claimed["level_change"] = (_TEAMS[team_name], levels)
        if r.bonus is not None:
            mult = r.bonus.get("multiplier")
            if isinstance(mult, int) and not isinstance(mult, bool):
                claimed["bottom_multiplier"] = mult
        if next_starter is not None:
            claimed["next_banker"] = seat(next_starter, f"{where}: next round's starter")
        for key in ("gameOver", "rankChanges", "teamPointsAfter"):
            if key in end:
                extra.append((f"_{key}", end[key]))
    if cut is not None:
        extra.append(("_end", f"the log has no round_end for this round before {cut}"))
        r.warnings.append((None, f"{where}: no round_end before {cut}: abandoned"))
    try:
        rules = preset(ENGINE)
    except RuleError:
        raise LogError(f"the rules preset {ENGINE!r} is not known to this version") from None
    return HandRecord(
        hand_id=r.hand_id,
        source=ENGINE,
        players=NAMES,
        levels=(ranks[0], ranks[1]),
        deal=Deal(first, tuple(shoe)),
        rules=rules,
        banker=banker,
        match_id=r.game,
        hand_no=r.number,
        played_at=r.played_at,
        bids=tuple(bids),
        bury=Bury(banker_seat, buried),
        plays=tuple(plays),
        claimed=Claimed(
            trump=claimed.get("trump"),
            attackers_points=claimed.get("attackers_points"),
            bottom_multiplier=claimed.get("bottom_multiplier"),
            level_change=claimed.get("level_change"),
            next_banker=claimed.get("next_banker"),
            banker=banker_seat,
            tricks=tuple(tricks),
        ),
        end="complete" if cut is None else "abandoned",
        extra=tuple(sorted(extra)),
    )
