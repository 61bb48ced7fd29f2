"""The hands behind a number: find hands by event (a failed throw, a capture ×4 or more, a bottom
that decided the hand, findings…), narrowed by a player, a match and the value a chart mark or a
table row stands for — each with the trick that matters, so a row opens the replay there.

Everything a query can name is whitelisted here (events, fields, ranges, throw breakdowns): the
values come from URLs and are bound as parameters, never pasted. Results are paged, with the total
alongside: nothing is cut silently.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from . import rollup
from .bottom import WITH, WITHOUT
from .filters import Filters
from .query import Connection, outcome_label, run
from .throws import DIMENSIONS as THROW_DIMENSIONS
from .throws import throws_sql

_FIRST = (
    "(SELECT min(t.trick) FROM tricks t WHERE t.source = fh.source AND t.hand_id = fh.hand_id "
    "AND t.hand_id BETWEEN $page_lo AND $page_hi AND t.hand_id IN (SELECT hand_id FROM page) "
    "AND {})"
)
"""The first trick of the hand matching `{}`, for a hand of the page `find` lists (the CTE
`page`). `$page_lo`/`$page_hi` (the page's least and greatest hand id, bound by `find`) let
DuckDB skip the row groups of `tricks` holding other hands by their min/max. The page's ids again
as a semi join (with `page` materialized, so the page is found once): without it DuckDB splits the
grouping by hand into ranges of ids taken from the table's statistics and reads the page's row
groups once per range (21 times at six million hands, 2.5 times slower)."""


@dataclass(frozen=True, slots=True)
class Event:
    label: str
    where: str
    """SQL over `fh`; `{who_t}` is where the seat narrowing goes (see `who`)."""
    trick: str
    """SQL over `fh`: the trick a row opens at (NULL: the deal); `{who_t}` as in `where`."""
    who: str = ""
    """How a chosen seat narrows it: SQL in which `{seat}` is that seat's number (the chosen
    player's, or a seat a chart mark stood for). Empty: the seat only has to be in the hand."""
    seat_where: str = ""
    """With a chosen seat: SQL over `fh` replacing `where` (`{seat}` as in `who`), which reads
    the hand's own columns where `where` and `who` would read a big table."""
    totals: str = ""
    """`where` over the columns of the `hand_totals` rollup, which then counts the hands (a
    player filter would otherwise scan every hand's players). Empty: the rollup cannot say."""
    detail: tuple[tuple[str, str], ...] = ()
    """More columns a listed hand shows (name, SQL over `fh` with `{who_t}` as in `trick`): a
    mistake's code and cost."""


_SAT = "list_contains([fh.player0, fh.player1, fh.player2, fh.player3], $who)"
_SEAT = "(list_position([fh.player0, fh.player1, fh.player2, fh.player3], $who) - 1)"
"""The chosen player's seat in the hand."""
ROLE_NAMES = {"banker": "banker", "banker_partner": "banker's partner", "attacker": "attacker"}
ROLE_SQL = {
    "banker": "{seat} = fh.banker",
    "banker_partner": "{seat} = (fh.banker + 2) % 4",
    "attacker": "{seat} % 2 <> fh.banker % 2",
}
_LAST = "fh.n_tricks"
_MISTAKES = (
    "FROM decisions d WHERE d.source = fh.source AND d.hand_id = fh.hand_id AND d.is_mistake "
    "{who_t}"
)


def _mistake_detail(narrow: str) -> tuple[tuple[str, str], ...]:
    """The costliest mistake's code and cost, and how many mistakes, of a listed hand."""
    return (
        ("code", f"(SELECT arg_max(d.code, d.cost) {_MISTAKES}{narrow})"),
        ("cost", f"(SELECT max(d.cost) {_MISTAKES}{narrow})"),
        ("mistakes", f"(SELECT count(*) {_MISTAKES}{narrow})"),
    )


EVENTS: dict[str, Event] = {
    "all": Event("every hand", "TRUE", "NULL", totals="TRUE"),
    "stood_throw": Event(
        "a throw that stood",
        "fh.stood_throw_seats <> 0",
        _FIRST.format("t.throw AND NOT t.throw_failed {who_t}"),
        who="t.leader = {seat}",
        seat_where="((fh.stood_throw_seats >> ({seat})) & 1) = 1",
        totals="stood_throw",
    ),
    "failed_throw": Event(
        "a failed throw",
        "fh.failed_throw_seats <> 0",
        _FIRST.format("t.throw_failed {who_t}"),
        who="t.leader = {seat}",
        seat_where="((fh.failed_throw_seats >> ({seat})) & 1) = 1",
        totals="failed_throw",
    ),
    "throw": Event(
        "a throw",
        "fh.throw_seats <> 0",
        _FIRST.format("t.throw {who_t}"),
        who="t.leader = {seat}",
        seat_where="((fh.throw_seats >> ({seat})) & 1) = 1",
        totals="any_throw",
    ),
    "capture": Event(
        "the bottom captured",
        "fh.bottom_captured AND fh.end_state = 'complete'",
        _LAST,
        totals="bottom_captured AND end_state = 'complete'",
    ),
    "capture_x4": Event(
        "the bottom captured ×4 or more",
        "fh.bottom_captured AND fh.end_state = 'complete' AND fh.bottom_multiplier >= 4",
        _LAST,
        totals="bottom_captured AND end_state = 'complete' AND bottom_multiplier >= 4",
    ),
    "bottom_decided": Event(
        "the capture changed the outcome",
        f"fh.bottom_captured AND fh.end_state = 'complete' AND {WITH} <> {WITHOUT}",
        _LAST,
        totals="bottom_captured AND end_state = 'complete' AND with_code <> without_code",
    ),
    "bottom_flipped": Event(
        "the capture turned the hand",
        # Outcome codes (analytics.query.level_outcome_code): attackers up >= 0, banker up < 0.
        f"fh.bottom_captured AND fh.end_state = 'complete' AND {WITH} >= 0 AND {WITHOUT} < 0",
        _LAST,
        totals="bottom_captured AND end_state = 'complete' AND with_code >= 0 AND without_code < 0",
    ),
    "completed": Event(
        "a completed hand (bottom opportunity)",
        "fh.end_state = 'complete' AND fh.bottom_captured IS NOT NULL",
        _LAST,
        totals="end_state = 'complete' AND bottom_captured IS NOT NULL",
    ),
    "banker_held": Event("the banker team held", "fh.banker_won", _LAST, totals="banker_won"),
    "banker_lost": Event(
        "the attackers took over", "NOT fh.banker_won", _LAST, totals="NOT banker_won"
    ),
    "ruff": Event(
        "a trick won by a ruff",
        "fh.ruff_seats <> 0",
        _FIRST.format("t.trump_in {who_t}"),
        who="t.winner = {seat}",
        seat_where="((fh.ruff_seats >> ({seat})) & 1) = 1",
        totals="any_ruff",
    ),
    "team_won": Event(
        "the player's team going up",
        "TRUE {who_t}",
        _LAST,
        who="fh.level_up_team = {seat} % 2",
    ),
    "finding_on_seat": Event(
        "a finding naming the player's seat",
        "EXISTS (SELECT 1 FROM findings x WHERE x.source = fh.source "
        "AND x.hand_id = fh.hand_id {who_t})",
        "(SELECT min(x.trick) FROM findings x WHERE x.source = fh.source "
        "AND x.hand_id = fh.hand_id {who_t})",
        who="x.seat = {seat}",
    ),
    "findings": Event(
        "findings (flagged)",
        "fh.n_findings > 0",
        "(SELECT min(x.trick) FROM findings x WHERE x.source = fh.source "
        "AND x.hand_id = fh.hand_id)",
        totals="n_findings > 0",
    ),
    "mistake": Event(
        "a coaching mistake (inaccuracy or worse)",
        "EXISTS (SELECT 1 " + _MISTAKES + ")",
        # The costliest one's trick; a bury (no trick) opens the first trick.
        "(SELECT coalesce(arg_max(d.trick, d.cost), 1) " + _MISTAKES + ")",
        who="d.seat = {seat}",
        detail=_mistake_detail(""),
    ),
    **{
        f"mistake_{kind}": Event(
            f"a coaching mistake in {label}",
            "EXISTS (SELECT 1 " + _MISTAKES + f" AND d.kind = '{kind}')",
            "(SELECT coalesce(arg_max(d.trick, d.cost), 1) "
            + _MISTAKES
            + f" AND d.kind = '{kind}')",
            who="d.seat = {seat}",
            detail=_mistake_detail(f" AND d.kind = '{kind}'"),
        )
        for kind, label in (
            ("throw", "a throw"),
            ("last_seat", "the fourth seat"),
            ("bury", "the bury"),
        )
    },
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
    "week": "strftime(date_trunc('week', fh.played_at), '%Y-%m-%d')",
    "day": "strftime(fh.played_at, '%Y-%m-%d')",
    "trump source": "fh.trump_source",
    "hand number": "CAST(fh.hand_no AS VARCHAR)",
    "outcome with the bottom": outcome_label(WITH),
    "outcome without the bottom": outcome_label(WITHOUT),
}
"""Hand values a chart mark or a row can stand for (compared as text)."""
RANGES: dict[str, str] = {
    "attackers' points": "fh.attackers_points",
    "banker's trumps": _TEAM_TRUMPS.format("s.seat = fh.banker"),
    "banker team's trumps": _TEAM_TRUMPS.format("s.team = fh.banker_team"),
    "attackers' trumps": _TEAM_TRUMPS.format("s.team <> fh.banker_team"),
}
"""Numeric hand values a histogram bar or a binned curve point stands for: `lo <= v < hi`."""
SEAT_FIELDS: dict[str, str] = {
    "player": "s.player",
    "bot style": "coalesce(s.style, 'unknown')",
    "bot persona": "s.persona",
    "role": "s.role",
    "seat": "CAST(s.seat AS VARCHAR)",
}
"""Seat values a mark can stand for (a seat-level split: a role, a bot style…): hands with such a
seat among the seats the filters keep, and a seat-level event (a throw, a ruff, a mistake…)
happening at that seat."""
SEAT_RANGES: dict[str, str] = {"trumps": "s.trumps_start"}
"""Numeric seat values: `lo <= v < hi`."""

EXPLORER_EVENTS: dict[str, str] = {
    "Banker team holds": "banker_held",
    "Bottom captured": "capture",
    "Bottom capture changed the level outcome": "bottom_decided",
    "Points the bottom added (captures)": "capture",
    "Hand has findings": "findings",
    "Player's team won the hand": "team_won",
    "Throw failed": "failed_throw",
    "Threw (per trick led)": "throw",
}
"""An Explorer rate's mark opens its hits (the event), a mean's the hands it averages (`all`,
or the event its values come from)."""
EXPLORER_FIELDS: dict[str, tuple[str, str]] = {
    "level played": ("where", "level"),
    "trump": ("where", "trump"),
    "trump source": ("where", "trump source"),
    "banker seat": ("where", "banker seat"),
    "rules": ("where", "rules"),
    "source": ("where", "source"),
    "month": ("where", "month"),
    "last trick's lead": ("where", "last trick's lead"),
    "points buried": ("where", "points buried"),
    "hand number in match": ("where", "hand number"),
    "player": ("seat", "player"),
    "bot style": ("seat", "bot style"),
    "role": ("seat", "role"),
    "seat": ("seat", "seat"),
    "trumps at the start of play": ("srange", "trumps"),
}
"""Each Explorer dimension as what its value narrows: a hand field (`where`), a seat field
(`seat`) or a seat range one wide (`srange`)."""


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
    """A throw breakdown (analytics.throws.DIMENSIONS) and its value: hands with such a throw
    (with the event `failed_throw`, such a failed throw; with `who`, thrown by them)."""
    throw_others: tuple[str, ...] = ()
    """With `throw`: its value stands for every value but these (a chart's pooled `other`)."""
    code: str | None = None
    """With a `mistake…` event: mistakes of this review code (docs/review.md)."""
    seat: tuple[tuple[str, str], ...] = ()
    """Seat fields (`SEAT_FIELDS`) one seat of the hand has, all of them."""
    seat_ranges: tuple[tuple[str, float, float], ...] = ()
    """Seat ranges (`SEAT_RANGES`) that same seat falls in."""

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
        if self.code is not None and not self.event.startswith("mistake"):
            raise ValueError(f"a review code needs a mistake event, not {self.event!r}")
        for name, _ in self.seat:
            if name not in SEAT_FIELDS:
                raise ValueError(f"unknown seat field {name!r}")
        for name, _lo, _hi in self.seat_ranges:
            if name not in SEAT_RANGES:
                raise ValueError(f"unknown seat range {name!r}")

    def describe(self) -> str:
        parts = ["every hand" if self.event == "all" else f"hands with {EVENTS[self.event].label}"]
        if self.who:
            throws = self.event in ("throw", "failed_throw", "stood_throw")
            parts.append(f"{'thrown by' if throws else 'with'} {self.who}")
            if self.role:
                parts.append("as " + ROLE_NAMES[self.role])
        parts += [f"{name} = {value}" for name, value in self.where]
        parts += [f"{lo:g} ≤ {name} < {hi:g}" for name, lo, hi in self.ranges]
        if self.throw and self.throw_others:
            parts.append(
                f"a throw whose {self.throw[0]} is none of the {len(self.throw_others)} shown"
            )
        elif self.throw:
            parts.append(f"a throw whose {self.throw[0]} is {self.throw[1]}")
        if self.code is not None:
            parts.append(f"review code {self.code}")
        seat = [f"{name} = {value}" for name, value in self.seat]
        seat += [f"{lo:g} ≤ {name} < {hi:g}" for name, lo, hi in self.seat_ranges]
        if seat:
            parts.append("a seat with " + ", ".join(seat))
        return " · ".join(parts)


def _sql(q: HandQuery, f: Filters) -> tuple[str, str, str, dict[str, Any]]:
    """(CTE prefix, WHERE, trick expression, parameters) over `fh` for `q`."""
    prefix, where, trick, params, _detail = _sql_detail(q, f)
    return prefix, where, trick, params


def _sql_detail(q: HandQuery, f: Filters) -> tuple[str, str, str, dict[str, Any], str]:
    """`_sql` and the event's `detail` columns as a SELECT list tail (", expr AS name…")."""
    ev = EVENTS[q.event]
    params: dict[str, Any] = {}
    terms = []
    code_t = ""
    if q.code is not None:
        code_t = "AND d.code = $code"
        params["code"] = q.code
    if q.seat or q.seat_ranges:
        # One seat carries the narrowing (and the event, when it is a seat's): a correlated
        # seat of the filters' scope, so the hands are those the mark's seats counted.
        seat = ["s.source = fh.source", "s.hand_id = fh.hand_id"]
        if q.who:
            params["who"] = q.who
            seat.append("s.player = $who")
            if q.role:
                seat.append(ROLE_SQL[q.role].format(seat="s.seat"))
        for i, (name, value) in enumerate(q.seat):
            seat.append(f"{SEAT_FIELDS[name]} = $sw{i}")
            params[f"sw{i}"] = value
        for i, (name, lo, hi) in enumerate(q.seat_ranges):
            seat.append(f"{SEAT_RANGES[name]} >= $slo{i} AND {SEAT_RANGES[name]} < $shi{i}")
            params[f"slo{i}"], params[f"shi{i}"] = lo, hi
        who_t = code_t + (f" AND {ev.who.format(seat='s.seat')}" if ev.who else "")
        on_seat = " AND ".join(seat)
        where = (
            ev.seat_where.format(seat="s.seat") if ev.seat_where else ev.where.format(who_t=who_t)
        )
        terms.append(f"EXISTS (SELECT 1 FROM fs s WHERE {on_seat} AND ({where}))")
        trick = f"(SELECT min({ev.trick.format(who_t=who_t)}) FROM fs s WHERE {on_seat})"
        detail = "".join(
            f", (SELECT max({expr.format(who_t=who_t)}) FROM fs s WHERE {on_seat}) AS {name}"
            for name, expr in ev.detail
        )
    else:
        who_t = code_t
        if q.who:
            params["who"] = q.who
            if ev.who:
                who_t += f" AND {ev.who.format(seat=_SEAT)}"
            terms.append(_SAT)
            if q.role:
                terms.append(ROLE_SQL[q.role].format(seat=_SEAT))
        if q.who and ev.seat_where:
            terms.append(ev.seat_where.format(seat=_SEAT))
        else:
            terms.append(ev.where.format(who_t=who_t))
        trick = ev.trick.format(who_t=who_t)
        detail = "".join(f", {expr.format(who_t=who_t)} AS {name}" for name, expr in ev.detail)
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
        if q.throw_others:
            match = [f"NOT list_contains($tv, {expr})"]
            params["tv"] = list(q.throw_others)
        else:
            match = [f"{expr} = $tv"]
            params["tv"] = value
        if q.event == "failed_throw":
            match.append("th.throw_failed")
        elif q.event == "stood_throw":
            match.append("NOT th.throw_failed")
        if q.who and q.event in ("throw", "failed_throw", "stood_throw"):
            match.append("th.player = $who")
        cond = " AND ".join(match)
        terms.append(
            f"(fh.source, fh.hand_id) IN (SELECT (th.source, th.hand_id) FROM th WHERE {cond})"
        )
        trick = (
            "(SELECT min(th.trick) FROM th WHERE th.source = fh.source "
            f"AND th.hand_id = fh.hand_id AND {cond})"
        )
    return prefix, " AND ".join(f"({t})" for t in terms), trick, params, detail


def _hand_level(q: HandQuery) -> bool:
    """`q` narrows by its event alone: nothing about a seat, a field, a range or a throw."""
    return not (
        q.who or q.where or q.ranges or q.throw or q.code is not None or q.seat or q.seat_ranges
    )


def count(con: Connection, f: Filters, q: HandQuery) -> int:
    """How many hands `q` finds under the filters."""
    totals = EVENTS[q.event].totals
    if totals and _hand_level(q) and rollup.usable_for_hands(f):
        df = rollup.query(con, f, "hand_totals", "sum(n)::BIGINT AS n", where=totals, seats=False)
        return int(df["n"][0] or 0)
    prefix, where, _trick, params = _sql(q, f)
    df = run(con, f, f"{prefix} SELECT count(*) AS n FROM fh WHERE {where}", params=params)
    return int(df["n"][0])


WINDOWS_DAYS = (7, 42, 365)
"""The spans of the newest hands `find` looks in first, widest last, before all of them."""


def find(
    con: Connection, f: Filters, q: HandQuery, page: int = 1, per_page: int = 50
) -> pl.DataFrame:
    """Page `page` (from 1) of the hands `q` finds, newest first: the hand, its players, how it
    went and `trick`, the trick to open the replay at (null: the deal). The trick is looked up
    for the page's hands only.

    The page is looked for among the hands of the last week before the newest hand, then of
    wider spans (`WINDOWS_DAYS`), then among all: hands are stored in the order they were played,
    so DuckDB reads only the newest row groups. A span holding a whole page gives the same page
    as all the hands: every hand it holds comes before every hand it does not."""
    offset = max(0, page - 1) * per_page
    newest = _newest(con, f)
    if newest is not None:
        for days in WINDOWS_DAYS:
            since = newest - dt.timedelta(days=days)
            rows = _page(con, f, q, offset, per_page, since)
            if rows is not None:
                return rows
    page_rows = _page(con, f, q, offset, per_page, None)
    assert page_rows is not None
    return page_rows


def _newest(con: Connection, f: Filters) -> dt.datetime | None:
    """When the newest hand the filters keep was played (None: no dates)."""
    if rollup.usable(f):
        df = rollup.query(con, f, "hand_totals", "max(last_played) AS b", seats=False)
    else:
        df = run(con, f, "SELECT max(played_at) AS b FROM fh")
    newest: dt.datetime | None = df["b"][0]
    return newest


def _page(
    con: Connection,
    f: Filters,
    q: HandQuery,
    offset: int,
    per_page: int,
    since: dt.datetime | None,
) -> pl.DataFrame | None:
    """The page of `q`'s hands at `offset` among those played at `since` or later, None when they
    do not fill it; with `since` None, among all hands."""
    prefix, where, trick, params, detail = _sql_detail(q, f)
    params |= {"limit": per_page, "offset": offset}
    if since is not None:
        where += " AND fh.played_at >= $since"
        params["since"] = since
    page_sql = f"""
        SELECT fh.* FROM fh WHERE {where}
        ORDER BY fh.played_at DESC NULLS LAST, fh.source, fh.hand_id
        LIMIT $limit OFFSET $offset
    """
    if "$page_lo" in trick:
        ids = run(
            con,
            f,
            f"{prefix} SELECT min(hand_id) AS lo, max(hand_id) AS hi, count(*) AS n "
            f"FROM ({page_sql})",
            params=params,
        )
        if since is not None and ids["n"][0] < per_page:
            return None
        params |= {"page_lo": ids["lo"][0], "page_hi": ids["hi"][0]}
    rows = run(
        con,
        f,
        f"""{prefix}
        , page AS MATERIALIZED ({page_sql})
        SELECT fh.played_at, fh.source, fh.hand_id, fh.match_id, fh.hand_no,
               fh.player0, fh.player1, fh.player2, fh.player3, fh.status, fh.trump, fh.level,
               fh.attackers_points, {OUTCOME} AS outcome, fh.n_findings,
               {trick} AS trick{detail}
        FROM page fh
        """,
        params=params,
    ).sort(["played_at", "source", "hand_id"], descending=[True, False, False], nulls_last=True)
    return None if since is not None and rows.height < per_page else rows


def to_params(q: HandQuery) -> list[tuple[str, str]]:
    """`q` as the Hand finder's URL parameters (`from_params` reads them back): what a link to
    the replay carries so the replay can list the same hands beside the table."""
    out: list[tuple[str, str]] = [("event", q.event)]
    if q.who:
        out.append(("who", q.who))
        if q.role:
            out.append(("role", q.role))
    if q.code is not None:
        out.append(("code", q.code))
    out += [("where", f"{name}={value}") for name, value in q.where]
    out += [("range", f"{name}:{lo:g}:{hi:g}") for name, lo, hi in q.ranges]
    if q.throw is not None:
        out.append(("throw", f"{q.throw[0]}={q.throw[1]}"))
        out += [("tother", value) for value in q.throw_others]
    out += [("seat", f"{name}={value}") for name, value in q.seat]
    out += [("srange", f"{name}:{lo:g}:{hi:g}") for name, lo, hi in q.seat_ranges]
    return out


def _named_pairs(
    items: list[str], names: dict[str, str], dropped: list[str]
) -> list[tuple[str, str]]:
    out = []
    for item in items:
        name, _, value = item.partition("=")
        if name in names:
            out.append((name, value))
        else:
            dropped.append(item)
    return out


def _named_spans(
    items: list[str], names: dict[str, str], dropped: list[str]
) -> list[tuple[str, float, float]]:
    out = []
    for item in items:
        name, _, span = item.partition(":")
        lo, _, hi = span.partition(":")
        try:
            if name in names:
                out.append((name, float(lo), float(hi)))
                continue
        except ValueError:
            pass
        dropped.append(item)
    return out


def from_params(get_all: Callable[[str], list[str]]) -> tuple[HandQuery, list[str]]:
    """A query from URL parameters (`get_all(name)`: every value of `name`), and what was dropped
    for naming nothing this module knows: `event`, `who`, `role` (with `who`), `code` (with a
    mistake event), `where`, `range`, `throw`, `tother`, `seat`, `srange` (see `to_params`)."""
    dropped: list[str] = []

    def one(name: str) -> str | None:
        values = get_all(name)
        return values[0] if values else None

    event = one("event") or "all"
    if event not in EVENTS:
        dropped.append(event)
        event = "all"
    who = one("who") or None
    role = one("role")
    if role is not None and (role not in ROLE_SQL or not who):
        dropped.append(role)
        role = None
    code = one("code")
    if code is not None and not event.startswith("mistake"):
        dropped.append(code)
        code = None
    throw = None
    raw_throw = one("throw")
    if raw_throw:
        dim, _, value = raw_throw.partition("=")
        if dim in THROW_DIMENSIONS:
            throw = (dim, value)
        else:
            dropped.append(raw_throw)
    query = HandQuery(
        event=event,
        who=who,
        role=role,
        where=tuple(_named_pairs(get_all("where"), FIELDS, dropped)),
        ranges=tuple(_named_spans(get_all("range"), RANGES, dropped)),
        throw=throw,
        throw_others=tuple(get_all("tother")) if throw else (),
        code=code,
        seat=tuple(_named_pairs(get_all("seat"), SEAT_FIELDS, dropped)),
        seat_ranges=tuple(_named_spans(get_all("srange"), SEAT_RANGES, dropped)),
    )
    return query, dropped
