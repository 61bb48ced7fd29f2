"""Reading the rollup tables (ingest/rollups.py) under the filters, and when they can answer.

A rollup row is one combination of the filters' values (source, rules preset, level, status, a
seat's player and role), so every filter but the dates becomes a WHERE term over its own columns
and a figure is a sum over the rows kept. Seat-level rollups need nothing else: a seat of a chosen
player in the chosen role is always in a hand the filters keep. The rollups hold no date, so with
a date filter every query reads the full tables, exactly as before (slower at scale, same
figures); tests/test_rollups.py checks that both ways agree.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from duckdb import DuckDBPyConnection as Connection

from .filters import Filters, Role


def usable(f: Filters) -> bool:
    """The rollups can answer for these filters (they keep no dates)."""
    return f.date_from is None and f.date_to is None


def usable_for_hands(f: Filters) -> bool:
    """The hand-level rollups (a hand once, and once per seat with its player) can answer: no
    dates, and at most one player (a hand where two chosen players sat would count twice)."""
    return usable(f) and len(f.players) <= 1


def role_term(role: Role, column: str = "role") -> str | None:
    """SQL keeping the rows whose `column` (a seat role) is `role`; None for any role."""
    if role == "any":
        return None
    if role == "banker_team":
        return f"{column} IN ('banker', 'banker_partner')"
    return f"{column} = '{role}'"


def conditions(
    f: Filters, *, seats: bool = True, replayed_only: bool = True
) -> tuple[list[str], dict[str, Any]]:
    """WHERE terms over a rollup and their parameters. `seats=False` is for the hand-level
    rollups (`hand_trumps`, `hand_totals`, …), whose hand rows have no player: without a player
    filter only those count (the role alone does not narrow hands, as in
    `filters.hand_conditions`). `replayed_only=False` counts rejected hands too."""
    terms = ["status <> 'rejected'"] if replayed_only else ["TRUE"]
    params: dict[str, Any] = {}
    if not f.include_flagged:
        terms.append("status <> 'flagged'")
    for name, column in (("sources", "source"), ("presets", "rules_preset"), ("levels", "level")):
        values = getattr(f, name)
        if values:
            terms.append(f"list_contains(${name}, {column})")
            params[name] = list(values)
    if f.players:
        terms.append("list_contains($players, player)")
        params["players"] = list(f.players)
    if f.players or seats:
        role = role_term(f.role)
        if role:
            terms.append(role)
    else:
        terms.append("player IS NULL")
    return terms, params


def query(
    con: Connection,
    f: Filters,
    table: str,
    select: str,
    *,
    where: str = "",
    tail: str = "",
    params: dict[str, Any] | None = None,
    seats: bool = True,
    replayed_only: bool = True,
) -> pl.DataFrame:
    """`SELECT {select} FROM {table} WHERE <filters> {where} {tail}` as a polars frame."""
    terms, bound = conditions(f, seats=seats, replayed_only=replayed_only)
    if where:
        terms.append(where)
    sql = f"SELECT {select} FROM {table} WHERE {' AND '.join(terms)} {tail}"
    return con.sql(sql, params={**bound, **(params or {})} or None).pl()
