"""The one filter value every query takes, and the SQL it becomes.

`Filters` is frozen and hashable so the dashboard can pass it straight to cached functions. It
becomes two temporary views over the store (`fh`: the filtered hands, `fs`: their seats), built
by `filtered_sql`, which every query in `analytics` starts from; parameters are bound, never
pasted.

Player and role narrow the hands: with players chosen, a hand counts when one of them sat in it
(in the chosen role, if any). Seat-level figures (the Players page, throws per thrower) then also
keep only those players' seats. Rejected hands never count: they could not be replayed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any, Literal

Role = Literal["any", "banker", "banker_partner", "banker_team", "attacker"]
ROLES: tuple[Role, ...] = ("any", "banker", "banker_partner", "banker_team", "attacker")
ROLE_LABELS: dict[str, str] = {
    "any": "any seat",
    "banker": "banker",
    "banker_partner": "banker's partner",
    "banker_team": "banker team",
    "attacker": "attacker",
}
LEVEL_ORDER = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


@dataclass(frozen=True, slots=True)
class Filters:
    """What to count. Empty tuples and None mean "all"."""

    date_from: dt.date | None = None
    date_to: dt.date | None = None
    """Inclusive: hands played on that UTC day count."""
    sources: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    role: Role = "any"
    levels: tuple[str, ...] = ()
    """Level ranks played, as rank tokens (`2`…`9`, `T`, `J`, `Q`, `K`, `A`)."""
    include_flagged: bool = True
    """Hands replayed with findings count too (their outcome is still the replay's)."""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r} (known: {', '.join(ROLES)})")
        for name in ("sources", "presets", "players", "levels"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                # Normalise lists so the value stays hashable and equal filters compare equal.
                object.__setattr__(self, name, tuple(sorted(value)))

    def with_(self, **changes: Any) -> Filters:
        return replace(self, **changes)

    def describe(self) -> str:
        """For captions: what the filters keep, e.g. `2026-11-01…2026-11-30 · lin as banker`."""
        parts: list[str] = []
        if self.date_from or self.date_to:
            parts.append(f"{self.date_from or '…'}…{self.date_to or '…'}")
        if self.sources:
            parts.append("source " + ", ".join(self.sources))
        if self.presets:
            parts.append(", ".join(self.presets))
        if self.players:
            who = ", ".join(self.players)
            parts.append(who if self.role == "any" else f"{who} as {ROLE_LABELS[self.role]}")
        elif self.role != "any":
            parts.append(f"seats: {ROLE_LABELS[self.role]}")
        if self.levels:
            parts.append("level " + ", ".join(self.levels))
        if not self.include_flagged:
            parts.append("clean hands only")
        return " · ".join(parts) or "all hands"


def _role_seat_condition(role: Role, seat: str, banker: str) -> str:
    """SQL true when `seat` plays `role` in a hand whose banker is `banker`."""
    if role == "banker":
        return f"{seat} = {banker}"
    if role == "banker_partner":
        return f"{seat} = ({banker} + 2) % 4"
    if role == "banker_team":
        return f"{seat} % 2 = {banker} % 2"
    if role == "attacker":
        return f"{seat} % 2 <> {banker} % 2"
    return "TRUE"


def hand_conditions(
    f: Filters, alias: str = "h", *, replayed_only: bool = True
) -> tuple[list[str], dict[str, Any]]:
    """WHERE terms over `hands AS {alias}` and their bound parameters. `replayed_only=False`
    keeps rejected hands too (the coverage figures count them)."""
    a = alias
    terms = [f"{a}.status <> 'rejected'"] if replayed_only else ["TRUE"]
    params: dict[str, Any] = {}
    if not f.include_flagged:
        terms.append(f"{a}.status <> 'flagged'")
    if f.date_from:
        terms.append(f"{a}.played_at >= $date_from")
        params["date_from"] = dt.datetime.combine(f.date_from, dt.time())
    if f.date_to:
        terms.append(f"{a}.played_at < $date_to")
        params["date_to"] = dt.datetime.combine(f.date_to + dt.timedelta(days=1), dt.time())
    if f.sources:
        terms.append(f"list_contains($sources, {a}.source)")
        params["sources"] = list(f.sources)
    if f.presets:
        terms.append(f"list_contains($presets, {a}.rules_preset)")
        params["presets"] = list(f.presets)
    if f.levels:
        terms.append(f"list_contains($levels, {a}.level)")
        params["levels"] = list(f.levels)
    if f.players:
        params["players"] = list(f.players)
        # The player columns of `hands` avoid a join with `seats` on the hot path.
        seats = []
        for seat in range(4):
            cond = _role_seat_condition(f.role, str(seat), f"{a}.banker")
            seats.append(f"(list_contains($players, {a}.player{seat}) AND {cond})")
        terms.append("(" + " OR ".join(seats) + ")")
    return terms, params


def seat_conditions(f: Filters, alias: str = "s") -> list[str]:
    """Extra WHERE terms over `seats AS {alias}` for seat-level figures (parameters as above)."""
    terms: list[str] = []
    if f.players:
        terms.append(f"list_contains($players, {alias}.player)")
    if f.role != "any":
        terms.append(_seat_role_column(f.role, alias))
    return terms


def _seat_role_column(role: Role, alias: str) -> str:
    if role == "banker_team":
        return f"{alias}.role IN ('banker', 'banker_partner')"
    return f"{alias}.role = '{role}'"


@dataclass(frozen=True, slots=True)
class Scope:
    """The SQL prefix every query starts with and its parameters."""

    sql: str
    params: dict[str, Any]


def dated(f: Filters) -> bool:
    """The filters have a date: the hand tables answer, and `run` binds `$id_lo`/`$id_hi`."""
    return f.date_from is not None or f.date_to is not None


def id_range(alias: str) -> str:
    """SQL keeping the rows of `{alias}` whose hand id lies within the filtered hands' ids
    (`$id_lo`, `$id_hi`, bound by `query.run` under a date filter). It keeps every row the join
    with `fh` keeps; when ids grow with time, as servers number hands, it lets DuckDB skip the
    row groups of other dates by their min/max hand id."""
    return f"{alias}.hand_id BETWEEN $id_lo AND $id_hi"


def scope(f: Filters, *, ids: bool = False) -> Scope:
    """`WITH fh AS (filtered hands), fs AS (their seats, narrowed to the chosen players/role)`.
    With `ids`, `fs` reads only the seats within `id_range` (parameters bound by the caller).

    Queries append `, more AS (…) SELECT …` or just `SELECT …` after it.
    """
    hterms, params = hand_conditions(f, "h")
    sterms = seat_conditions(f, "s")
    if ids:
        sterms.append(id_range("s"))
    where_s = (" AND " + " AND ".join(sterms)) if sterms else ""
    sql = (
        "WITH fh AS (SELECT h.* FROM hands h WHERE " + " AND ".join(hterms) + "), "
        "fs AS (SELECT s.*, fh.banker, fh.banker_won, fh.level_up_team, fh.level_up, "
        "fh.played_at, fh.rules_preset, fh.level, fh.decks, fh.end_state, fh.bottom_captured, "
        "fh.bottom_winner, fh.attackers_points, fh.throw_penalty_points, fh.n_tricks, "
        "fh.trump "
        "FROM seats s JOIN fh USING (source, hand_id)"
        f" WHERE TRUE{where_s}) "
    )
    return Scope(sql, params)
