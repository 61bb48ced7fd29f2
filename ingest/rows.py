"""Replays to rows: a batch of HandReplay values becomes one Arrow table per store table.

A hand's rows are built as tuples in the column order of `ingest.schema` by the compiled core
(shengji/flat.py) and converted once per batch. Every hand row and child row carries `_seq`, the
hand's index in its batch, so the writer can drop a duplicate hand's rows even when the same key
occurs twice in one batch; `_seq` never reaches the database.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from shengji.coach.review import NOTHING_STORED, StoredReview, review_for_store
from shengji.flat import HandRows, add_hand, clean_text
from shengji.replay import REJECTING
from shengji.results import Finding, HandReplay

from .schema import (
    BIDS,
    DECISIONS,
    FINDINGS,
    HAND_TABLES,
    HANDS,
    MAX_ID_CHARS,
    MAX_TEXT_CHARS,
    PLAYS,
    REJECTS,
    SEATS,
    TRICKS,
    Table,
)

__all__ = [
    "SEQ",
    "Batch",
    "BatchBuilder",
    "bounded",
    "clean_text",
    "cut_text",
    "is_keyed",
    "line_hash",
    "to_arrow",
]

SEQ = "_seq"


def line_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def cut_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """`text` cut to about `limit` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 40]}… (cut: {len(text):,} characters)"


def bounded(r: HandReplay) -> HandReplay:
    """`r` as the store takes it: a hand with an identifier longer than MAX_ID_CHARS is rejected
    as `bad_record` naming the field (with no key: a key that long is not stored); reasons longer
    than MAX_TEXT_CHARS are cut."""
    named = [("source", r.source), ("hand_id", r.hand_id), ("match_id", r.match_id or "")]
    named += [(f"players[{i}]", p) for i, p in enumerate(r.players) if type(p) is str]
    for name, value in named:
        if len(value) > MAX_ID_CHARS:
            reason = (
                f"{name}: {len(value):,} characters, longer than the {MAX_ID_CHARS} the store "
                f"takes ({clean_text(value[:24])!r}…)"
            )
            return HandReplay(
                "", "", "rejected", (Finding("bad_record", reason, line=r.line),), r.line
            )
    if any(len(f.reason) > MAX_TEXT_CHARS for f in r.findings):
        findings = tuple(dataclasses.replace(f, reason=cut_text(f.reason)) for f in r.findings)
        return dataclasses.replace(r, findings=findings)
    return r


def is_keyed(r: HandReplay) -> bool:
    """A hand with both key parts known gets `hands` rows; one without lives in `rejects` only."""
    return bool(r.source) and bool(r.hand_id)


@dataclass
class Batch:
    """What one worker hands to the writer: Arrow tables by store table, and what it counted."""

    file: str
    tables: dict[str, pa.Table]
    lines: int
    status: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)


class BatchBuilder:
    def __init__(self, file: str, run_id: int) -> None:
        self.file = file
        self.run_id = run_id
        self.seq = 0
        self.flat = HandRows()
        self.rows: dict[str, list[tuple[Any, ...]]] = {**self.flat.by_table(), "rejects": []}
        self.lines = 0
        self.status: Counter[str] = Counter()
        self.findings: Counter[str] = Counter()
        self.review_errors = 0
        self._raw: dict[int, str] = {}
        """Each keyed hand's line by line number, for a reject if its rows cannot be stored."""

    def add(self, r: HandReplay, raw: str, line: int) -> None:
        """One line's replay. Rows that cannot be built from it (a program gap: a value the parser
        let through that the code or the store cannot take) make the line an `internal` reject
        instead: one line's rows are added whole or not at all."""
        marks = {name: len(rows) for name, rows in self.rows.items()}
        try:
            r = bounded(r)
            self._add(r, raw, line)
        except Exception as e:
            for name, rows in self.rows.items():
                del rows[marks[name] :]
            self.internal(line, raw, f"could not make rows of the replay: {type(e).__name__}: {e}")
            return
        self.lines += 1
        self.status[r.status] += 1
        for f in r.findings:
            self.findings[f.code] += 1
        if is_keyed(r):
            self.seq += 1

    def internal(self, line: int, raw: str, reason: str) -> None:
        """The line becomes a reject with code `internal`: a program error, kept with the line."""
        self.lines += 1
        self.status["rejected"] += 1
        self.findings["internal"] += 1
        self.rows["rejects"].append(
            (
                self.file,
                line,
                None,
                None,
                "internal",
                clean_text(cut_text(reason)),
                clean_text(raw),
                self.run_id,
            )
        )

    def _add(self, r: HandReplay, raw: str, line: int) -> None:
        if r.status == "rejected":
            why = rejecting_finding(r)
            self.rows["rejects"].append(
                (
                    self.file,
                    line,
                    clean_text(r.source) or None,
                    clean_text(r.hand_id) or None,
                    why.code if why else "rejected",
                    clean_text(why.reason) if why else "could not be replayed",
                    clean_text(raw),
                    self.run_id,
                )
            )
        if is_keyed(r):
            self._hand(r, raw, line)
            _check_row(HANDS, self.rows["hands"][-1])
            self._raw[line] = raw

    def file_error(self, line: int, reason: str) -> None:
        """A file that could not be read on from `line`: one `rejects` row, not a hand."""
        self.rows["rejects"].append(
            (self.file, line, None, None, "file_error", clean_text(reason), "", self.run_id)
        )

    def _hand(self, r: HandReplay, raw: str, line: int) -> None:
        add_hand(
            self.flat,
            r,
            self._review(r),
            file=self.file,
            line=line,
            digest=line_hash(raw),
            run_id=self.run_id,
            seq=self.seq,
        )

    def _review(self, r: HandReplay) -> StoredReview:
        """The coaching review's judged decisions (docs/review.md). The review is pure and judges
        only what the replay accepted; should it fail on a hand, that hand has no decisions
        rather than the batch failing (`review_errors` counts them)."""
        try:
            return review_for_store(r)
        except Exception:  # a review bug must not take the batch down
            self.review_errors += 1
            return NOTHING_STORED

    def finish(self) -> Batch:
        try:
            tables = self._tables()
        except _ARROW_ERRORS:
            self._drop_unconvertible()
            tables = self._tables()
        return Batch(self.file, tables, self.lines, self.status, self.findings)

    def _tables(self) -> dict[str, pa.Table]:
        return {
            t.name: to_arrow(t, self.rows[t.name], with_seq=t is not REJECTS)
            for t in (HANDS, SEATS, BIDS, TRICKS, PLAYS, FINDINGS, DECISIONS, REJECTS)
        }

    def _drop_unconvertible(self) -> None:
        """Arrow refused the batch: find the hands whose rows it refuses, one at a time (only on this
        rare path), and make each of them an `internal` reject."""
        bad: dict[int, str] = {}
        for t in HAND_TABLES:
            by_seq: dict[int, list[tuple[Any, ...]]] = {}
            for row in self.rows[t.name]:
                by_seq.setdefault(row[-1], []).append(row)
            for seq, rows in by_seq.items():
                if seq in bad:
                    continue
                try:
                    to_arrow(t, rows, with_seq=True)
                except _ARROW_ERRORS as e:
                    bad[seq] = f"{t.name}: {type(e).__name__}: {e}"
        hands = {row[-1]: row for row in self.rows["hands"]}
        lines = {hands[seq][_LINE]: reason for seq, reason in bad.items()}
        # `_seq` stays each hand's index in the hands table (the writer relies on it).
        renumber = {old: new for new, old in enumerate(k for k in sorted(hands) if k not in bad)}
        for name, rows in self.rows.items():
            if name == "rejects":
                rows[:] = [r for r in rows if r[1] not in lines]
            else:
                rows[:] = [(*r[:-1], renumber[r[-1]]) for r in rows if r[-1] not in bad]
        self.seq = len(renumber)
        for seq in bad:
            row = hands[seq]
            self.lines -= 1
            self.status[row[_STATUS]] -= 1
            self.internal(row[_LINE], self._raw.get(row[_LINE], ""), f"could not store: {bad[seq]}")
        self.status += Counter()  # drop zero counts


def rejecting_finding(r: HandReplay) -> Finding | None:
    """The finding that made the hand rejected: the first with a rejecting code, else the last
    (a replay stops at the fault that rejects it, so that one comes last)."""
    for f in r.findings:
        if f.code in REJECTING:
            return f
    return r.findings[-1] if r.findings else None


_ARROW_ERRORS = (pa.ArrowException, OverflowError, UnicodeError, ValueError, TypeError)
_LINE = HANDS.column_names.index("line")
_STATUS = HANDS.column_names.index("status")
_INT_RANGE = {"INTEGER": (-(2**31), 2**31 - 1), "BIGINT": (-(2**63), 2**63 - 1)}


def _check_row(table: Table, row: tuple[Any, ...]) -> None:
    """Raise ValueError naming the column when a value does not fit its column: one bad hand must
    not make its whole batch unconvertible (Arrow would refuse the batch, not the row)."""
    for column, value in zip(table.columns, row, strict=False):
        if type(value) is int:
            bounds = _INT_RANGE.get(column.sql)
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ValueError(f"{table.name}.{column.name} = {value} does not fit {column.sql}")
        elif type(value) is str and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"{table.name}.{column.name} is not Unicode text") from None


def to_arrow(table: Table, rows: list[tuple[Any, ...]], *, with_seq: bool) -> pa.Table:
    schema = table.arrow_schema
    if with_seq:
        schema = schema.append(pa.field(SEQ, pa.int32(), nullable=False))
    if not rows:
        # not schema.empty_table(): that imports pandas, 54 MB and half a second in each worker
        return pa.Table.from_batches([], schema=schema)
    if len(rows[0]) != len(schema):
        raise ValueError(f"{table.name}: rows have {len(rows[0])} values, schema {len(schema)}")
    # Tuples as one struct array, converted in C++: 5x faster than transposing them in Python
    # and building each column (measured on `plays`, ~180 rows a hand).
    return pa.Table.from_struct_array(pa.array(rows, type=pa.struct(list(schema))))
