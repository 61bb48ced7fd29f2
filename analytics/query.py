"""Running analytics SQL: the filter scope in front, parameters bound, a polars frame back.

DuckDB 2.x streams `execute()` results and keeps the connection busy until they are read, so every
query goes through `con.sql(q, params=…).pl()`, which reads the whole result. Polars 2 does not
keep row order through lazy work, so every function that returns rows for display sorts them
itself (`order` here, or an ORDER BY).
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from . import rollup
from .filters import Filters, dated, scope

Connection = duckdb.DuckDBPyConnection


def run(
    con: Connection,
    f: Filters,
    body: str,
    params: dict[str, Any] | None = None,
    order: list[str] | None = None,
) -> pl.DataFrame:
    """`body` (a SELECT that may use the views `fh` and `fs`) under the filter scope. Under a
    date filter, `$id_lo` and `$id_hi` are bound to the filtered hands' least and greatest hand
    id (`filters.id_range`), and `fs` keeps to them."""
    sc = scope(f, ids=dated(f))
    extra: dict[str, Any] = {}
    if dated(f):
        plain_scope = scope(f)
        lo, hi = con.sql(
            plain_scope.sql + "SELECT min(hand_id), max(hand_id) FROM fh",
            params=plain_scope.params,
        ).fetchall()[0]
        extra = {"id_lo": lo, "id_hi": hi}
    sql = sc.sql + body
    bound = {**sc.params, **extra, **(params or {})}
    df = con.sql(sql, params=bound).pl()
    if order:
        df = df.sort(order, nulls_last=True)
    return df


def plain(con: Connection, sql: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    """A query outside the filter scope (coverage of rejected lines, ingest runs)."""
    return con.sql(sql, params=params or None).pl()


def level_outcome_sql(total: str, step: str) -> str:
    """R7.3 as SQL: a label such as `banker +2` or `attackers +0` for attackers' total `total`
    under level step `step`, mirroring shengji.scoring.level_change (tests compare the two)."""
    levels = (
        f"CASE WHEN {total} >= 2 * {step} THEN {total} // {step} - 2 "
        f"WHEN {total} <= 0 THEN 3 + (-{total}) // {step} "
        f"WHEN {total} < {step} THEN 2 ELSE 1 END"
    )
    side = f"CASE WHEN {total} >= 2 * {step} THEN 'attackers' ELSE 'banker' END"
    return f"({side} || ' +' || CAST({levels} AS VARCHAR))"


def level_outcome_code(total: str, step: str) -> str:
    """`level_outcome_sql` as one integer, which costs far less than building a label per hand
    (at a million hands the labels were most of a bottom-capture query): the levels the
    attackers go up (0, 1, …), or minus the levels the banker team goes up (-1, -2, …). Equal
    codes are equal labels; `outcome_label` turns a code back into its label."""
    return (
        f"(CASE WHEN {total} >= 2 * {step} THEN {total} // {step} - 2 "
        f"WHEN {total} <= 0 THEN -(3 + (-{total}) // {step}) "
        f"WHEN {total} < {step} THEN -2 ELSE -1 END)"
    )


def outcome_label(code: str) -> str:
    """SQL: the `level_outcome_sql` label of a `level_outcome_code`."""
    return (
        f"(CASE WHEN {code} >= 0 THEN 'attackers +' || CAST({code} AS VARCHAR) "
        f"ELSE 'banker +' || CAST(-{code} AS VARCHAR) END)"
    )


def count_hands(con: Connection, f: Filters) -> int:
    """Hands the filters keep (replayed: ok or flagged). `hand_totals` answers when it can: a
    player filter otherwise scans the four player columns of every hand."""
    if rollup.usable_for_hands(f):
        n = rollup.query(con, f, "hand_totals", "sum(n)::BIGINT AS n", seats=False)["n"][0]
        return int(n or 0)
    return int(run(con, f, "SELECT count(*) AS n FROM fh")["n"][0])


def has_data(con: Connection) -> bool:
    """The store exists and holds at least one hand (any status)."""
    try:
        return bool(con.sql("SELECT count(*) FROM hands").fetchall()[0][0])
    except duckdb.Error:
        return False
