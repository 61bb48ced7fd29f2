"""Coverage: what the store holds and what it could not use — hands by status, findings by code,
rejected lines, ingest runs. These count rejected hands too (the other figures cannot: a rejected
hand has no outcome), under the same date, source, rules and player filters.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from . import rollup
from .filters import Filters, hand_conditions
from .query import Connection, plain


def _hands(f: Filters, *, with_findings: bool = False) -> tuple[str, dict[str, Any]]:
    """The filtered hands; `with_findings` keeps only those with a finding, which is all a join
    with `findings` needs and spares it probing every hand (seconds at ten million)."""
    terms, params = hand_conditions(f, "h", replayed_only=False)
    if with_findings:
        terms.append("h.n_findings > 0")
    return "SELECT h.* FROM hands h WHERE " + " AND ".join(terms), params


def by_status(con: Connection, f: Filters) -> pl.DataFrame:
    """Hands per status (ok, flagged, rejected) and end state."""
    if rollup.usable_for_hands(f):
        return rollup.query(
            con,
            f,
            "hand_totals",
            "status, end_state, sum(n)::BIGINT AS n",
            tail="GROUP BY ALL",
            seats=False,
            replayed_only=False,
        ).sort(["status", "end_state"], nulls_last=True)
    sql, params = _hands(f)
    return plain(
        con,
        f"SELECT status, end_state, count(*) AS n FROM ({sql}) GROUP BY ALL",
        params,
    ).sort(["status", "end_state"], nulls_last=True)


def findings_by_code(con: Connection, f: Filters) -> pl.DataFrame:
    """Findings per code: how many, and in how many hands."""
    if rollup.usable_for_hands(f):
        return rollup.query(
            con,
            f,
            "finding_totals",
            "code, sum(n)::BIGINT AS n, sum(hands)::BIGINT AS hands",
            tail="GROUP BY code",
            seats=False,
            replayed_only=False,
        ).sort(["n", "code"], descending=[True, False])
    sql, params = _hands(f, with_findings=True)
    return plain(
        con,
        f"""
        SELECT x.code, count(*) AS n, count(DISTINCT (x.source, x.hand_id)) AS hands
        FROM findings x JOIN ({sql}) h USING (source, hand_id) GROUP BY x.code
        """,
        params,
    ).sort(["n", "code"], descending=[True, False])


def findings(
    con: Connection, f: Filters, code: str | None = None, limit: int = 500
) -> pl.DataFrame:
    """Findings with their hand's context, newest hands first (for the Audit page's links)."""
    sql, params = _hands(f, with_findings=True)
    where = "WHERE x.code = $code" if code else ""
    if code:
        params = {**params, "code": code}
    else:
        # Every hand kept has a finding, so the newest `limit` findings lie within the newest
        # `limit` hands (same order): only their findings are joined, not every finding.
        sql = f"{sql} ORDER BY h.played_at DESC NULLS LAST, h.source, h.hand_id LIMIT {int(limit)}"
    return plain(
        con,
        f"""
        SELECT x.source, x.hand_id, x.finding_no, x.code, x.trick, x.seat,
               CASE x.seat WHEN 0 THEN h.player0 WHEN 1 THEN h.player1
                           WHEN 2 THEN h.player2 WHEN 3 THEN h.player3 END AS player,
               x.reason, h.status, h.played_at, h.file, x.line
        FROM findings x JOIN ({sql}) h USING (source, hand_id)
        {where}
        ORDER BY h.played_at DESC NULLS LAST, x.source, x.hand_id, x.finding_no
        LIMIT {int(limit)}
        """,
        params,
    )


def rejects_by_code(con: Connection, f: Filters) -> pl.DataFrame:
    """Rejected lines per code. Only the source filter applies: a line that could not be read
    may have no date, rules or players."""
    where, params = _rejects_where(f)
    return plain(
        con, f"SELECT code, count(*) AS n FROM rejects {where} GROUP BY code", params
    ).sort(["n", "code"], descending=[True, False])


def rejects(con: Connection, f: Filters, limit: int = 500) -> pl.DataFrame:
    where, params = _rejects_where(f)
    return plain(
        con,
        f"""
        SELECT file, line, source, hand_id, code, reason, left(raw, 200) AS raw
        FROM rejects {where} ORDER BY file, line LIMIT {int(limit)}
        """,
        params,
    )


def _rejects_where(f: Filters) -> tuple[str, dict[str, Any]]:
    if f.sources:
        return "WHERE list_contains($sources, source)", {"sources": list(f.sources)}
    return "", {}


def ingest_runs(con: Connection, limit: int = 20) -> pl.DataFrame:
    return plain(
        con,
        f"""
        SELECT run_id, finished, files, lines_read, hands_ok, hands_flagged, hands_rejected,
               duplicates, inserted, replaced, unchanged, round(hands_per_s) AS hands_per_s
        FROM ingest_runs ORDER BY run_id DESC LIMIT {int(limit)}
        """,
    )


def totals(con: Connection, f: Filters) -> dict[str, int]:
    """Hands by status, findings and rejected lines in scope, for headlines."""
    status = by_status(con, f)
    counts = status.group_by("status").agg(pl.col("n").sum()).sort("status")
    out = {s: int(n) for s, n in counts.iter_rows()}
    return {
        "hands": int(status["n"].sum() or 0),
        "ok": out.get("ok", 0),
        "flagged": out.get("flagged", 0),
        "rejected": out.get("rejected", 0),
        "findings": int(findings_by_code(con, f)["n"].sum() or 0),
        "rejected_lines": int(rejects_by_code(con, f)["n"].sum() or 0),
    }
