"""The hands behind a number: find hands by event (a failed throw, a capture ×4 or more, a bottom
that decided the hand, findings…), narrowed by a player, a match and the value a chart mark or a
table row stands for — each with the trick that matters, so a row opens the replay there.

Everything a query can name is whitelisted here (events, fields, ranges, throw breakdowns): the
values come from URLs and are bound as parameters, never pasted. Results are paged, with the total
alongside: nothing is cut silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from .bottom import WITH, WITHOUT
from .filters import Filters
from .query import Connection, run
from .throws import DIMENSIONS as THROW_DIMENSIONS
from .throws import throws_sql

_FIRST = "(SELECT min(t.trick) FROM tricks t WHERE t.source = fh.source AND t.hand_id = fh.hand_id AND {})"


@dataclass(frozen=True, slots=True)
class Event:
    label: str
    where: str
    """SQL over `fh`; `$who` is the chosen player when the event names one."""
    trick: str
    """SQL over `fh`: the trick a row opens at (NULL: the deal)."""
    who: str = ""
    """How the chosen player narrows it (SQL with `$who`); default: they sat in the hand."""


_SAT = "list_contains([fh.player0, fh.player1, fh.player2, fh.player3], $who)"
_SEAT = "(list_position([fh.player0, fh.player1, fh.player2, fh.player3], $who) - 1)"
"""The chosen player's seat in the hand."""
ROLE_NAMES = {"banker": "banker", "banker_partner": "banker's partner", "attacker": "attacker"}
ROLE_SQL = {
    "banker": f"{_SEAT} = fh.banker",
    "banker_partner": f"{_SEAT} = (fh.banker + 2) % 4",
    "attacker": f"{_SEAT} % 2 <> fh.banker % 2",
}
_LEADER = "[fh.player0, fh.player1, fh.player2, fh.player3][t.leader + 1] = $who"
_LAST = "fh.n_tricks"

EVENTS: dict[str, Event] = {
    "all": Event("every hand", "TRUE", "NULL"),
    "failed_throw": Event(
        "a failed throw",
        "EXISTS (SELECT 1 FROM tricks t WHERE t.source = fh.source AND t.hand_id = fh.hand_id "
        "AND t.throw_failed {who_t})",
        _FIRST.format("t.throw_failed {who_t}"),
        who=_LEADER,
    ),
    "throw": Event(
        "a throw",
        "EXISTS (SELECT 1 FROM tricks t WHERE t.source = fh.source AND t.hand_id = fh.hand_id "
        "AND t.throw {who_t})",
        _FIRST.format("t.throw {who_t}"),
        who=_LEADER,
    ),
    "capture": Event(
        "the bottom captured",
        "fh.bottom_captured AND fh.end_state = 'complete'",
        _LAST,
    ),
    "capture_x4": Event(
        "the bottom captured ×4 or more",
        "fh.bottom_captured AND fh.end_state = 'complete' AND fh.bottom_multiplier >= 4",
        _LAST,
    ),
    "bottom_decided": Event(
        "the capture changed the outcome",
        f"fh.bottom_captured AND fh.end_state = 'complete' AND {WITH} <> {WITHOUT}",
        _LAST,
    ),
    "bottom_flipped": Event(
        "the capture turned the hand",
        f"fh.bottom_captured AND fh.end_state = 'complete' AND {WITH} LIKE 'attackers%' "
        f"AND {WITHOUT} LIKE 'banker%'",
        _LAST,
    ),
    "completed": Event(
        "a completed hand (bottom opportunity)",
        "fh.end_state = 'complete' AND fh.bottom_captured IS NOT NULL",
        _LAST,
    ),
    "banker_held": Event("the banker team held", "fh.banker_won", _LAST),
    "banker_lost": Event("the attackers took over", "NOT fh.banker_won", _LAST),
    "ruff": Event(
        "a trick won by a ruff",
        "EXISTS (SELECT 1 FROM tricks t WHERE t.source = fh.source AND t.hand_id = fh.hand_id "
        "AND t.trump_in)",
        _FIRST.format("t.trump_in"),
    ),
    "team_won": Event(
        "the player's team going up", "TRUE {who_t}", _LAST, who=f"fh.level_up_team = {_SEAT} % 2"
    ),
    "finding_on_seat": Event(
        "a finding naming the player's seat",
        "TRUE {who_t}",
        "(SELECT min(x.trick) FROM findings x WHERE x.source = fh.source "
        f"AND x.hand_id = fh.hand_id AND x.seat = {_SEAT})",
        who="EXISTS (SELECT 1 FROM findings x WHERE x.source = fh.source "
        f"AND x.hand_id = fh.hand_id AND x.seat = {_SEAT})",
    ),
    "findings": Event(
        "findings (flagged)",
        "fh.n_findings > 0",
        "(SELECT min(x.trick) FROM findings x WHERE x.source = fh.source "
        "AND x.hand_id = fh.hand_id)",
    ),
}

PLAYER_RATES: dict[str, tuple[str, str | None]] = {
    "won the hand": ("team_won", None),
    "held as banker": ("banker_held", "banker"),
    "held as banker's partner": ("banker_held", "banker_partner"),
    "took over as attacker": ("banker_lost", "attacker"),
    "threw (per trick led)": ("throw", None),
    "throw failed": ("failed_throw", None),
    "took the bottom (last trick)": ("capture", "attacker"),
    "hand with a finding against them": ("finding_on_seat", None),
}
"""Each of a player's rates (analytics.players.RATES) as the hands of its hits: (event, the role
the player sat in)."""

OUTCOME = (
    "CASE WHEN fh.banker_won THEN 'banker +' || CAST(fh.level_up AS VARCHAR) "
    "ELSE 'attackers +' || CAST(fh.level_up AS VARCHAR) END"
)
_TEAM_TRUMPS = (
    "(SELECT sum(s.trumps_start) FROM seats s WHERE s.source = fh.source "
    "AND s.hand_id = fh.hand_id AND {})"
)
FIELDS: dict[str, str] = {
    "level": "fh.level",
    "trump": "fh.trump",
    "source": "fh.source",
    "match": "fh.match_id",
    "banker seat": "CAST(fh.banker AS VARCHAR)",
    "rules": "fh.rules_preset || ' · ' || fh.bottom_multiplier_rule",
    "last trick's lead": "fh.last_lead_shape",
    "multiplier": "CAST(fh.bottom_multiplier AS VARCHAR)",
    "outcome": OUTCOME,
    "points buried": "CAST(fh.bottom_points AS VARCHAR)",
    "points added": "CAST(fh.bottom_added AS VARCHAR)",
    "status": "fh.status",
    "decks": "CAST(fh.decks AS VARCHAR)",
    "trump kind": "CASE WHEN fh.trump = 'NT' THEN 'no-trump' ELSE 'suit' END",
    "month": "strftime(date_trunc('month', fh.played_at), '%Y-%m')",
}
"""Hand values a chart mark or a row can stand for (compared as text)."""
RANGES: dict[str, str] = {
    "attackers' points": "fh.attackers_points",
    "banker's trumps": _TEAM_TRUMPS.format("s.seat = fh.banker"),
    "banker team's trumps": _TEAM_TRUMPS.format("s.team = fh.banker_team"),
    "attackers' trumps": _TEAM_TRUMPS.format("s.team <> fh.banker_team"),
}
"""Numeric hand values a histogram bar or a binned curve point stands for: `lo <= v < hi`."""


@dataclass(frozen=True, slots=True)
class HandQuery:
    """What to list. Unknown names are refused (`ValueError`), so a URL cannot reach SQL."""

    event: str = "all"
    who: str | None = None
    role: str | None = None
    """With `who`: the seat they sat in (banker, banker_partner, attacker)."""
    where: tuple[tuple[str, str], ...] = ()
    ranges: tuple[tuple[str, float, float], ...] = ()
    throw: tuple[str, str] | None = None
    """A throw breakdown (analytics.throws.DIMENSIONS) and its value: hands with such a throw."""

    def __post_init__(self) -> None:
        if self.event not in EVENTS:
            raise ValueError(f"unknown event {self.event!r}")
        if self.role is not None and self.role not in ROLE_SQL:
            raise ValueError(f"unknown role {self.role!r}")
        for name, _ in self.where:
            if name not in FIELDS:
                raise ValueError(f"unknown field {name!r}")
        for name, _lo, _hi in self.ranges:
            if name not in RANGES:
                raise ValueError(f"unknown range {name!r}")
        if self.throw is not None and self.throw[0] not in THROW_DIMENSIONS:
            raise ValueError(f"unknown throw breakdown {self.throw[0]!r}")

    def describe(self) -> str:
        parts = ["every hand" if self.event == "all" else f"hands with {EVENTS[self.event].label}"]
        if self.who:
            throws = self.event in ("throw", "failed_throw")
            parts.append(f"{'thrown by' if throws else 'with'} {self.who}")
            if self.role:
                parts.append("as " + ROLE_NAMES[self.role])
        parts += [f"{name} = {value}" for name, value in self.where]
        parts += [f"{lo:g} ≤ {name} < {hi:g}" for name, lo, hi in self.ranges]
        if self.throw:
            parts.append(f"a throw whose {self.throw[0]} is {self.throw[1]}")
        return " · ".join(parts)


def _sql(q: HandQuery, f: Filters) -> tuple[str, str, str, dict[str, Any]]:
    """(CTE prefix, WHERE, trick expression, parameters) over `fh` for `q`."""
    ev = EVENTS[q.event]
    params: dict[str, Any] = {}
    who_t = ""
    terms = []
    if q.who:
        params["who"] = q.who
        if ev.who:
            who_t = f"AND {ev.who}"
        terms.append(_SAT)
        if q.role:
            terms.append(ROLE_SQL[q.role])
    terms.append(ev.where.format(who_t=who_t))
    trick = ev.trick.format(who_t=who_t)
    for i, (name, value) in enumerate(q.where):
        terms.append(f"{FIELDS[name]} = $w{i}")
        params[f"w{i}"] = value
    for i, (name, lo, hi) in enumerate(q.ranges):
        terms.append(f"{RANGES[name]} >= $lo{i} AND {RANGES[name]} < $hi{i}")
        params[f"lo{i}"], params[f"hi{i}"] = lo, hi
    prefix = ""
    if q.throw is not None:
        dim, value = q.throw
        prefix = throws_sql(f, style=dim == "bot style")
        expr = f"coalesce(CAST({THROW_DIMENSIONS[dim]} AS VARCHAR), 'unknown')"
        terms.append(
            f"(fh.source, fh.hand_id) IN (SELECT (source, hand_id) FROM th WHERE {expr} = $tv)"
        )
        trick = (
            "(SELECT min(th.trick) FROM th WHERE th.source = fh.source "
            f"AND th.hand_id = fh.hand_id AND {expr} = $tv)"
        )
        params["tv"] = value
    return prefix, " AND ".join(f"({t})" for t in terms), trick, params


def count(con: Connection, f: Filters, q: HandQuery) -> int:
    """How many hands `q` finds under the filters."""
    prefix, where, _trick, params = _sql(q, f)
    df = run(con, f, f"{prefix} SELECT count(*) AS n FROM fh WHERE {where}", params=params)
    return int(df["n"][0])


def find(
    con: Connection, f: Filters, q: HandQuery, page: int = 1, per_page: int = 50
) -> pl.DataFrame:
    """Page `page` (from 1) of the hands `q` finds, newest first: the hand, its players, how it
    went and `trick`, the trick to open the replay at (null: the deal)."""
    prefix, where, trick, params = _sql(q, f)
    params |= {"limit": per_page, "offset": max(0, page - 1) * per_page}
    return run(
        con,
        f,
        f"""{prefix}
        SELECT fh.played_at, fh.source, fh.hand_id, fh.match_id, fh.hand_no,
               fh.player0, fh.player1, fh.player2, fh.player3, fh.status, fh.trump, fh.level,
               fh.attackers_points, {OUTCOME} AS outcome, fh.n_findings,
               {trick} AS trick
        FROM fh WHERE {where}
        ORDER BY fh.played_at DESC NULLS LAST, fh.source, fh.hand_id
        LIMIT $limit OFFSET $offset
        """,
        params=params,
    ).sort(["played_at", "source", "hand_id"], descending=[True, False, False], nulls_last=True)
