"""Merging batches into the store: new hands inserted, changed hands replaced whole, the rest kept.

Batches arrive in input order (file order, then line order), so "the first line wins" for a key met
twice in one run is deterministic whatever the number of workers. For a changed hand every row in
every hand table is deleted by key and the new rows inserted `BY NAME` from the batch's Arrow
tables (dlt's delete-insert), in one transaction, so stale child rows cannot survive. A transaction
holds whole batches, several of them up to `COMMIT_BYTES` (the version being written is discarded
whole on any failure, so a smaller one would protect nothing). A hand already stored with the same content hash, read from the same file and line, is
not touched at all, which is what makes re-ingesting a no-op; the same hand found somewhere else
(a moved file) is rewritten, so `file` and `line` always say where to read it.

`rejects` are per line, not per key: they are staged for the whole run and merged at the end, so a
re-ingested file's rejects end up exactly as its lines are now, and unchanged ones keep their run.
"""

from __future__ import annotations

import contextlib
import json
import pickle
import tempfile
import time
import weakref
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from . import rollups
from .rows import SEQ, Batch, cut_text, line_hash
from .schema import HAND_TABLES, INGEST_RUNS, REJECTS, SCHEMA_VERSION, sql_str


@dataclass
class RunCounts:
    """What one run did; the closing report and the `ingest_runs` row."""

    files: list[str] = field(default_factory=list)
    lines_read: int = 0
    blank_lines: int = 0
    status: Counter[str] = field(default_factory=Counter)
    """ok / flagged / rejected over lines that were not duplicates."""
    duplicates: int = 0
    conflicts: int = 0
    inserted: int = 0
    replaced: int = 0
    unchanged: int = 0
    file_errors: int = 0
    findings: Counter[str] = field(default_factory=Counter)
    """Per code, over every non-blank line read (duplicates included: they were replayed)."""

    @property
    def hands(self) -> int:
        """Non-blank lines: every one is ok, flagged, rejected or a duplicate."""
        return sum(self.status.values()) + self.duplicates

    def adds_up(self) -> bool:
        return self.lines_read == self.blank_lines + self.hands


@dataclass(frozen=True)
class Known:
    """A line identical to the one a stored hand was read from (same file, line and bytes): its
    replay would give the stored rows again, so it is counted from them and not replayed."""

    line: int
    source: str
    hand_id: str
    content_hash: str
    status: str


_KEY_SCHEMA = pa.schema(
    [
        pa.field(SEQ, pa.int32(), nullable=False),
        pa.field("line", pa.int32()),
        pa.field("source", pa.string()),
        pa.field("hand_id", pa.string()),
        pa.field("content_hash", pa.string()),
    ]
)


COMMIT_BYTES = 128 << 20
"""The Arrow bytes of rows a transaction gathers, batch after batch, before it is committed. A
transaction that appends a DuckDB row group (122,880 rows) or more to a table writes those rows
to the file once, compressed, where a smaller one writes them to the WAL and the checkpoint writes
them again; a 1,000-hand batch appends 106,000 plays. The writer alone merging the batches of the
100,000-hand bench corpus took 0.386 ms of CPU a hand committing each batch and 0.287 so (medians
of 6 and 4 interleaved runs), at the same resident memory (440 MB), the store 283 MB instead of
322. One transaction for the whole run took 0.24 (2 runs); bounded, what DuckDB keeps for an open
transaction (rows of tables short of a row group, their keys' index) cannot grow with the run."""

WRITER_THREADS = 1
"""DuckDB threads of the writing connection during a run (`Merger`)."""


class Merger:
    """Applies batches to an open read-write connection for one ingest run."""

    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        self.con = con
        self.run_id = run_id
        self.counts = RunCounts()
        self.seconds = 0.0
        """The run's time up to its `ingest_runs` row (set by `finish`)."""
        # One DuckDB thread: the replay workers keep every core busy while batches arrive, and a
        # second thread's share of an insert or a join cost more in handing work over than it
        # saved. The writer alone merging the 100,000-hand bench corpus: 0.239 -> 0.178 ms of
        # CPU a hand, and its end (rejects, rollups) 0.064 -> 0.050 (medians of 3 interleaved).
        con.execute(f"SET threads = {WRITER_THREADS}")
        self.has_prior_hands = bool(con.execute("SELECT count(*) FROM hands").fetchall()[0][0])
        self.uncommitted: int | None = None
        """Arrow bytes written in the open transaction (None: none open)."""
        self._saved: _Saved | None = None
        self._tx_lines = 0
        self._spool: IO[bytes] | None = None
        self._spooled = 0
        """Batches of the open transaction kept in `_spool`."""
        (where,) = con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchall()[0]
        self._spool_dir = str(Path(where).parent) if where else None
        """Next to the version being written: its own disk, not a RAM-backed /tmp."""
        con.execute(REJECTS.ddl(temp=True, name="run_rejects", keyed=False))
        # The partitions of hands whose old rows this run deletes: their rollups are rebuilt.
        con.execute(
            "CREATE TEMP TABLE run_removed (source VARCHAR, rules_preset VARCHAR, level VARCHAR, "
            "status VARCHAR)"
        )
        # Rows of a run cut short (no `ingest_runs` row, so this run took its number) are not in
        # the rollups, nor are the hands it deleted: this run rebuilds them whole.
        self.rollups_behind = bool(
            con.execute("SELECT count(*) FROM hands WHERE ingest_run >= ?", [run_id]).fetchall()[0][
                0
            ]
        )
        # Keys met in this run, to detect duplicates across batches. A key this run wrote is found
        # in `hands` by its `ingest_run`, so `run_seen` holds only the keys first met as unchanged
        # (a re-ingest): kept in memory for every key, it grew with the corpus (0.1 KB a hand,
        # measured). Rows of a run cut short carry this run's number too: then every key is kept.
        self.seen_in_hands = not self.rollups_behind
        con.execute(
            "CREATE TEMP TABLE run_seen (source VARCHAR, hand_id VARCHAR, content_hash VARCHAR, "
            "file VARCHAR, line INTEGER)"
        )
        # The rows this run writes, kept aside for its rollups (`rollups.update`'s `staged`): read
        # from the store's tables, the run's rows were found by a scan of every stored row, a
        # cost growing with the store. Adding 1,000 hands to a 100,000-hand store, the rollups
        # took 0.76 s of CPU that way and 0.48 s so (medians of 5); their sums over the new
        # hands, 0.19 s, now cost what they cost into a new store (0.16 s). A new store's tables
        # hold only the run's rows, and past `rollups.SLICE_HANDS` hands the rollups are summed
        # in slices of the store's rows: then nothing is kept (`_stop_staging`).
        self.staged: int | None = None
        if self.has_prior_hands and not self.rollups_behind:
            self.staged = 0
            for table in STAGED:
                con.execute(table.ddl(temp=True, name=f"run_new_{table.name}", keyed=False))

    def sift(
        self, file: str, lines: list[tuple[int, str]]
    ) -> tuple[list[tuple[int, str]], list[Known]]:
        """Split a chunk into lines to replay and lines already stored exactly as they are.

        Only hands that replayed (ok or flagged) are taken as known: a rejected line is replayed
        again, as are lines of a database that held no hands before this run.
        """
        if not self.has_prior_hands or not lines:
            return lines, []
        b_lines = pa.table(
            {
                "line": pa.array([n for n, _ in lines], pa.int32()),
                "line_hash": pa.array([line_hash(t) for _, t in lines], pa.string()),
            }
        )
        found = _on(
            self.con,
            "b_lines",
            b_lines,
            f"""
            SELECT b.line, h.source, h.hand_id, h.content_hash, h.status
            FROM b_lines b JOIN hands h ON h.line = b.line AND h.line_hash = b.line_hash
            WHERE h.file = {sql_str(file)} AND h.status <> 'rejected'
              AND h.ingest_run < {int(self.run_id)}
            """,
        ).fetchall()
        if not found:
            return lines, []
        known = sorted((Known(*row) for row in found), key=lambda k: k.line)
        skip = {k.line for k in known}
        return [(n, t) for n, t in lines if n not in skip], known

    def apply(self, batch: Batch, known: list[Known] | None = None) -> None:
        """Merge one worker batch, and the known lines sifted out of its chunk, in line order.

        Should DuckDB fail on it, the batches merged before it in the open transaction are
        merged again and committed, then this one alone; if it fails again its lines become
        `internal` rejects saying why (`unstorable`): one batch never loses the others. Only an
        error that those retries meet again (a full disk) ends the run, as the first error met.
        """
        known = known or []
        if self.uncommitted is None:
            self._begin()
        try:
            self._apply(batch, known)
            if self.uncommitted is not None and self.uncommitted >= COMMIT_BYTES:
                self._commit()
            elif not self._spool_batch(batch, known):
                self._commit()  # nowhere to keep it for a retry: nothing left to retry
        except duckdb.Error as e:
            self._recover(e, batch, known)
        except BaseException:
            self._abandon()
            raise

    def _begin(self) -> None:
        self.con.begin()
        self.uncommitted = 0
        c = self.counts
        self._saved = _Saved(
            Counter(c.status),
            Counter(c.findings),
            (c.duplicates, c.conflicts, c.inserted, c.replaced, c.unchanged, c.file_errors),
            self.staged,
        )
        self._tx_lines = 0

    def _commit(self) -> None:
        self.con.commit()
        self.uncommitted = None
        self._spooled = 0
        if self._spool is not None:
            self._spool.seek(0)
            self._spool.truncate()

    def _abandon(self) -> None:
        """Roll the open transaction back and the counts with it. A failed statement may have
        ended the transaction already: the rollback's own error would hide the first one."""
        self.uncommitted = None
        with contextlib.suppress(duckdb.Error):
            self.con.rollback()
        saved = self._saved
        if saved is None:
            return
        c = self.counts
        c.status, c.findings = Counter(saved.status), Counter(saved.findings)
        (c.duplicates, c.conflicts, c.inserted, c.replaced, c.unchanged, c.file_errors) = (
            saved.numbers
        )
        c.lines_read -= self._tx_lines
        self._tx_lines = 0
        self.staged = saved.staged

    def _spool_batch(self, batch: Batch, known: list[Known]) -> bool:
        """Keep a merged batch on disk until its transaction commits, for `_recover` (in memory,
        the batches of a transaction would add up to COMMIT_BYTES); False if it cannot be kept
        (a full disk)."""
        try:
            self._write_spool(batch, known)
        except OSError:
            return False
        return True

    def _write_spool(self, batch: Batch, known: list[Known]) -> None:
        if self._spool is None:
            # Lives as long as the run's transactions, not a block: closed below.
            self._spool = tempfile.TemporaryFile(  # noqa: SIM115
                dir=self._spool_dir, prefix="merge-spool-"
            )
            # Closed with the merger however the run ends (a failed run does not call `finish`).
            weakref.finalize(self, self._spool.close)
        pickle.dump((batch, known), self._spool, protocol=pickle.HIGHEST_PROTOCOL)
        self._spooled += 1

    def _recover(self, first: duckdb.Error, batch: Batch, known: list[Known]) -> None:
        earlier = self._spooled
        self._abandon()
        try:
            if earlier:
                assert self._spool is not None
                self._spool.seek(0)
                self._begin()
                for _ in range(earlier):  # one at a time: memory as when they first came
                    self._apply(*pickle.load(self._spool))
                self._commit()
                self._begin()
                try:  # alone in its transaction, the batch may fit where it did not
                    self._apply(batch, known)
                except duckdb.Error:
                    self._abandon()
                else:
                    self._commit()
                    return
            self._begin()
            self._apply(unstorable(batch, self.run_id, first), known)
            self._commit()
        except duckdb.Error:
            self._abandon()
            raise first from None
        except BaseException:
            self._abandon()
            raise

    def _apply(self, batch: Batch, known: list[Known]) -> None:
        con = self.con
        c = self.counts
        c.lines_read += batch.lines + len(known)
        self._tx_lines += batch.lines + len(known)
        c.status.update(batch.status)
        c.status.update(k.status for k in known)
        c.findings.update(batch.findings)
        hands = batch.tables["hands"]
        # Known lines take negative sequence numbers: -1 - their index in `known`.
        keys = pa.concat_tables(
            [
                hands.select(_KEY_SCHEMA.names).cast(_KEY_SCHEMA),
                pa.table(
                    {
                        SEQ: pa.array([-1 - i for i in range(len(known))], pa.int32()),
                        "line": [k.line for k in known],
                        "source": [k.source for k in known],
                        "hand_id": [k.hand_id for k in known],
                        "content_hash": [k.content_hash for k in known],
                    },
                    schema=_KEY_SCHEMA,
                ),
            ]
        )
        keep: list[int] = []
        replace: list[int] = []
        first_seen: list[int] = []
        dup_seqs: list[int] = []
        conflicts: list[tuple[int, str, str, str, int]] = []
        written = 0
        if keys.num_rows:
            rows = _on(
                con,
                "b_keys",
                keys,
                """
                SELECT b._seq, b.line, b.source, b.hand_id, b.content_hash,
                       h.content_hash, h.file, h.line, h.ingest_run,
                       s.content_hash, s.file, s.line
                FROM b_keys b
                LEFT JOIN hands h USING (source, hand_id)
                LEFT JOIN run_seen s USING (source, hand_id)
                ORDER BY b.line
                """,
            ).fetchall()
            in_batch: dict[tuple[str, str], tuple[str, str, int]] = {}
            unchanged: list[int] = []
            for row in rows:
                seq, line, source, hand_id, digest, stored, s_file, s_line, s_run = row[:9]
                key = (source, hand_id)
                if row[9] is not None:
                    prior = row[9:12]
                elif self.seen_in_hands and s_run == self.run_id:
                    prior = (stored, s_file, s_line)
                else:
                    prior = in_batch.get(key)
                if prior is not None:
                    c.duplicates += 1
                    dup_seqs.append(seq)
                    if prior[0] != digest:
                        c.conflicts += 1
                        conflicts.append((line, source, hand_id, prior[1], prior[2]))
                    continue
                in_batch[key] = (digest, batch.file, line)
                first_seen.append(seq)
                if seq < 0:
                    c.unchanged += 1
                    unchanged.append(seq)
                elif stored is None:
                    c.inserted += 1
                    keep.append(seq)
                elif stored == digest and s_file == batch.file and s_line == line:
                    c.unchanged += 1
                    unchanged.append(seq)
                else:  # new content, or the same hand read from another place: rewrite
                    c.replaced += 1
                    keep.append(seq)
                    replace.append(seq)
            self._uncount_duplicates(hands, known, dup_seqs)
            self._count_known_findings(known, dup_seqs)
            seen = unchanged if self.seen_in_hands else first_seen
            if seen:
                _on(
                    con,
                    "b_first",
                    _pick(keys, seen, keys.num_rows),
                    "INSERT INTO run_seen SELECT source, hand_id, content_hash, "
                    f"{sql_str(batch.file)} AS file, line FROM b_first",
                )
            if replace:
                b_replace = con.from_arrow(_pick(keys, replace, keys.num_rows))
                b_replace.query(
                    "b_replace",
                    "INSERT INTO run_removed SELECT DISTINCT h.source, h.rules_preset, "
                    "h.level, h.status FROM hands h SEMI JOIN b_replace r "
                    "USING (source, hand_id)",
                )
                for table in HAND_TABLES:
                    b_replace.query(
                        "b_replace",
                        f"DELETE FROM {table.name} t USING b_replace r "
                        "WHERE t.source = r.source AND t.hand_id = r.hand_id",
                    )
            if keep:
                if self.staged is not None and self.staged + len(keep) > rollups.SLICE_HANDS:
                    self._stop_staging()
                for table in HAND_TABLES:
                    picked = _pick(batch.tables[table.name], keep, hands.num_rows)
                    rows_t = picked.drop_columns([SEQ])
                    if rows_t.num_rows:
                        written += rows_t.nbytes
                        b_rows = con.from_arrow(rows_t)
                        b_rows.query(
                            "b_rows", f"INSERT INTO {table.name} BY NAME SELECT * FROM b_rows"
                        )
                        if self.staged is not None and table.name in _STAGED_NAMES:
                            b_rows.query(
                                "b_rows",
                                f"INSERT INTO run_new_{table.name} BY NAME SELECT * FROM b_rows",
                            )
                if self.staged is not None:
                    self.staged += len(keep)
        rejects = batch.tables["rejects"]
        replayed_dups = [seq for seq in dup_seqs if seq >= 0]
        if replayed_dups:
            # A duplicate line is counted once, as the hand it repeats: no reject row of its own.
            lines = pc.take(hands["line"], pa.array(replayed_dups))
            rejects = rejects.filter(pc.invert(pc.is_in(rejects["line"], value_set=lines)))
        if conflicts:
            rejects = pa.concat_tables([rejects, conflict_rows(self.run_id, batch.file, conflicts)])
        if rejects.num_rows:
            _on(
                con,
                "b_rejects",
                rejects,
                "INSERT INTO run_rejects BY NAME SELECT * FROM b_rejects",
            )
            c.file_errors += pc.sum(pc.equal(rejects["code"], "file_error")).as_py() or 0
        self.uncommitted = (self.uncommitted or 0) + written

    def _stop_staging(self) -> None:
        """Keep no more rows aside: the rollups will read this run's rows from the store."""
        for table in STAGED:
            self.con.execute(f"DROP TABLE IF EXISTS temp.main.run_new_{table.name}")
        self.staged = None

    def _uncount_duplicates(self, hands: pa.Table, known: list[Known], dup_seqs: list[int]) -> None:
        """A duplicate was counted by its status when read: count it as a duplicate only."""
        if not dup_seqs:
            return
        # _seq is the row's index in the batch's hands table (rows.BatchBuilder).
        replayed = [seq for seq in dup_seqs if seq >= 0]
        statuses = pc.take(hands["status"], pa.array(replayed, pa.int32())).to_pylist()
        statuses += [known[-1 - seq].status for seq in dup_seqs if seq < 0]
        self.counts.status.subtract(statuses)

    def _count_known_findings(self, known: list[Known], dup_seqs: list[int]) -> None:
        """Findings per code of known flagged lines, from their stored rows: a replay would give
        the same ones (duplicates included, as a replayed duplicate's findings are counted)."""
        flagged = [k for k in known if k.status == "flagged"]
        if not flagged:
            return
        b_known = pa.table(
            {"source": [k.source for k in flagged], "hand_id": [k.hand_id for k in flagged]}
        )
        rows = _on(
            self.con,
            "b_known",
            b_known,
            "SELECT code, count(*) FROM findings JOIN b_known USING (source, hand_id) GROUP BY code",
        ).fetchall()
        self.counts.findings.update(dict(rows))

    def finish(self, *, clock: RunClock, version: str) -> RunCounts:
        """Merge the run's rejects and write its `ingest_runs` row (inside the new version), timed
        on `clock` up to that row; `seconds` then holds the run's time."""
        con = self.con
        c = self.counts
        if self.uncommitted is None:
            con.begin()
        _on(
            con,
            "run_files",
            pa.table({"file": pa.array(c.files, pa.string())}),
            """
            DELETE FROM rejects r
            WHERE r.file IN (SELECT file FROM run_files)
              AND NOT EXISTS (SELECT 1 FROM run_rejects n
                              WHERE n.file = r.file AND n.line = r.line AND n.raw = r.raw
                                AND n.code = r.code)
            """,
        )
        con.execute(
            """
            INSERT INTO rejects BY NAME
            SELECT * FROM run_rejects n
            WHERE NOT EXISTS (SELECT 1 FROM rejects r WHERE r.file = n.file AND r.line = n.line)
            """
        )
        if self.rollups_behind:
            rollups.refresh(con)
        elif c.inserted or c.replaced:
            removed = "SELECT * FROM run_removed" if c.replaced else None
            staged = None
            if self.staged is not None:
                staged = {t.name: f"SELECT * FROM temp.main.run_new_{t.name}" for t in STAGED}
            rollups.update(con, f"h.ingest_run = {int(self.run_id)}", removed, staged=staged)
        if self.staged is not None:
            self._stop_staging()
        self.seconds = clock.seconds()
        table = run_row(
            c, self.run_id, started=clock.started, seconds=self.seconds, version=version
        )
        _on(con, "b_run", table, "INSERT INTO ingest_runs BY NAME SELECT * FROM b_run")
        con.commit()
        self.uncommitted = None
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        return c


@dataclass(frozen=True)
class _Saved:
    """The counts `apply` changes, as they were when the open transaction began."""

    status: Counter[str]
    findings: Counter[str]
    numbers: tuple[int, int, int, int, int, int]
    staged: int | None


def unstorable(batch: Batch, run_id: int, error: Exception) -> Batch:
    """`batch` as DuckDB could not store it: each of its lines an `internal` reject quoting the
    error (its hands' rows dropped; the line itself is in its file, so `raw` is empty). A
    `file_error` row stays as it was."""
    rejects = batch.tables["rejects"]
    errors = rejects.filter(pc.equal(rejects["code"], "file_error"))
    others = rejects.filter(pc.invert(pc.equal(rejects["code"], "file_error")))
    lines = sorted(set(batch.tables["hands"]["line"].to_pylist()) | set(others["line"].to_pylist()))
    reason = cut_text(f"could not be stored: {type(error).__name__}: {error}")
    rows = [
        {
            "file": batch.file,
            "line": line,
            "code": "internal",
            "reason": reason,
            "raw": "",
            "ingest_run": run_id,
        }
        for line in lines
    ]
    tables = {name: pa.Table.from_batches([], schema=t.schema) for name, t in batch.tables.items()}
    tables["rejects"] = pa.concat_tables(
        [pa.Table.from_pylist(rows, schema=REJECTS.arrow_schema), errors]
    )
    return Batch(
        batch.file,
        tables,
        len(lines),
        Counter({"rejected": len(lines)}),
        Counter({"internal": len(lines)}),
    )


STAGED = tuple(t for t in HAND_TABLES if t.name == "hands" or rollups.reads(t.name))
"""The hand tables whose rows a run keeps aside for its rollups: those the rollups read."""
_STAGED_NAMES = frozenset(t.name for t in STAGED)


def conflict_rows(
    run_id: int, file: str, conflicts: list[tuple[int, str, str, str, int]]
) -> pa.Table:
    """A `duplicate_conflict` reject per dropped line (line, source, hand_id, kept file, kept
    line): which line was kept, and why this one was not. The line itself is in its file (its
    replay was not kept), so `raw` is empty."""
    rows = [
        {
            "file": file,
            "line": line,
            "source": source,
            "hand_id": hand_id,
            "code": "duplicate_conflict",
            "reason": f"hand {hand_id!r} of {source!r} was already read from {kept_file} "
            f"line {kept_line} with different content; this line is dropped (the first line "
            "read is kept)",
            "raw": "",
            "ingest_run": run_id,
        }
        for line, source, hand_id, kept_file, kept_line in conflicts
    ]
    return pa.Table.from_pylist(rows, schema=REJECTS.arrow_schema)


@dataclass(frozen=True)
class RunClock:
    """A run's one time base: `started` on the wall clock (stored, shown), its seconds on the
    monotonic clock (a step of the wall clock during the run does not skew its speed)."""

    started: datetime
    at: float

    @staticmethod
    def start() -> RunClock:
        return RunClock(datetime.now(UTC).replace(tzinfo=None), time.monotonic())

    def seconds(self) -> float:
        return max(time.monotonic() - self.at, 1e-9)


def run_speed(hands: int, seconds: float) -> float:
    """A run's speed: the one figure its `ingest_runs` row stores and `shengji ingest` prints."""
    return hands / max(seconds, 1e-9)


def run_row(
    c: RunCounts, run_id: int, *, started: datetime, seconds: float, version: str
) -> pa.Table:
    """The `ingest_runs` row of a run that counted `c` in `seconds` from `started`, as a one-row
    Arrow table."""
    row = {
        "run_id": run_id,
        "started": started,
        "finished": started + timedelta(seconds=seconds),
        "files": len(c.files),
        "file_list": json.dumps(c.files),
        "lines_read": c.lines_read,
        "blank_lines": c.blank_lines,
        "hands_ok": c.status["ok"],
        "hands_flagged": c.status["flagged"],
        "hands_rejected": c.status["rejected"],
        "duplicates": c.duplicates,
        "conflicts": c.conflicts,
        "inserted": c.inserted,
        "replaced": c.replaced,
        "unchanged": c.unchanged,
        "file_errors": c.file_errors,
        "findings": sum(c.findings.values()),
        "findings_by_code": json.dumps(dict(sorted(c.findings.items()))),
        "duration_s": seconds,
        "hands_per_s": run_speed(c.hands, seconds),
        "version": version,
        "schema_version": SCHEMA_VERSION,
    }
    return pa.Table.from_pylist([row], schema=INGEST_RUNS.arrow_schema)


def _on(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table, sql: str) -> Any:
    """`sql` run with the Arrow table `table` as `name` (a DuckDB relation, for its `fetchall`).
    Not `con.register`: DuckDB holds a registered table, buffers and all, until the transaction
    ends, unregistered or not, and a transaction holds many batches (`COMMIT_BYTES`)."""
    return con.from_arrow(table).query(name, sql)


def next_run_id(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM ingest_runs").fetchall()[0]
    assert row is not None
    return int(row[0])


def _pick(table: pa.Table, seqs: list[int], n_hands: int) -> pa.Table:
    """The rows of `table` that belong to the hands `seqs` of a batch of `n_hands` hands."""
    if len(seqs) == n_hands:  # the usual case: every hand of the batch is new
        return table
    mask = pc.is_in(table[SEQ], value_set=pa.array(seqs, pa.int32()))
    return table.filter(mask)
