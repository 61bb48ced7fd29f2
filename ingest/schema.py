"""The store's tables: one declaration per column gives the DuckDB DDL, the Arrow schema and the docs.

Every table holding hand data is keyed by (source, hand_id) plus its own natural unit, with primary
keys and no foreign keys: DuckDB refuses to delete-and-reinsert a parent row that foreign keys
point at, and replacing a hand's rows whole is how re-ingest stays exact (STYLE.md, Storage).
Orphan rows are ruled out by a test query instead (tests/test_store_schema.py).

Numbers are INTEGER (DuckDB bit-packs them on disk, so narrower types buy nothing and would only
make analysts cast), BIGINT where a hand can legally go beyond 32 bits (the `power` bottom
multiplier is 2^k for a k-card unit, k up to 52) and for run counts. Seats are 0..3, teams 0 (seats 0+2) and 1 (seats 1+3), tricks,
positions, bids and findings count from 1, as people count them in reports.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from shengji.coach.review import NOT_JUDGED

SCHEMA_VERSION = 13
"""Bumped when a column changes; an older database is rebuilt from its sources, not migrated."""

MAX_ID_CHARS = 256
"""The longest `source`, `hand_id`, `match_id` or player name the store takes, in characters: a
hand with a longer one is rejected as `bad_record` naming the field. Keys are indexed: 1 MB keys
made DuckDB's writer run out of its memory and lose the whole run."""
MAX_TEXT_CHARS = 2000
"""The longest reason (`findings.reason`, `rejects.reason`) stored; a longer one (a record error
quoting a long bad value) is cut there and says how long it was."""

_ARROW = {
    "VARCHAR": pa.string(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "DOUBLE": pa.float64(),
    "DATE": pa.date32(),
    "BOOLEAN": pa.bool_(),
    "TIMESTAMP": pa.timestamp("us"),
}


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    sql: str
    doc: str
    required: bool = False
    """NOT NULL in the DDL and non-nullable in the Arrow schema."""

    @property
    def arrow(self) -> pa.DataType:
        return _ARROW[self.sql]


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    doc: str
    key: tuple[str, ...]
    columns: tuple[Column, ...]
    primary_key: bool = True
    """Declare `key` as a PRIMARY KEY. Off for the big tables: DuckDB backs a primary key with an
    ART index, which for `plays` (~200 rows a hand) made the file 9x larger and the load 2x slower
    (measured), and for `decisions` (~11 rows a hand) took a fifth of what the table adds to the
    file; their keys are unique by construction (a hand's rows are replaced whole) and checked by
    tests/test_store_schema.py."""

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema([pa.field(c.name, c.arrow, nullable=not c.required) for c in self.columns])

    def ddl(self, *, temp: bool = False, name: str | None = None, keyed: bool = True) -> str:
        cols = [f"{c.name} {c.sql}{' NOT NULL' if c.required else ''}" for c in self.columns]
        if keyed and self.primary_key:
            cols.append(f"PRIMARY KEY ({', '.join(self.key)})")
        kind = "TEMP TABLE" if temp else "TABLE"
        body = ",\n    ".join(cols)
        return f"CREATE {kind} IF NOT EXISTS {name or self.name} (\n    {body}\n)"


def _c(name: str, sql: str, doc: str, required: bool = False) -> Column:
    return Column(name, sql, doc, required)


_KEY = (
    _c("source", "VARCHAR", "the platform or table server that logged the hand", True),
    _c("hand_id", "VARCHAR", "the hand's id, unique within `source`", True),
)

HANDS = Table(
    "hands",
    "One row per hand (loaded, flagged or rejected with a known key).",
    ("source", "hand_id"),
    (
        *_KEY,
        _c("file", "VARCHAR", "absolute path of the file the hand was read from", True),
        _c("line", "INTEGER", "1-based line of that file", True),
        _c("match_id", "VARCHAR", "the match: a run of hands between the same four players"),
        _c("hand_no", "INTEGER", "this hand's number in its match, from 1"),
        _c("played_at", "TIMESTAMP", "when the hand started, UTC (no time zone stored)"),
        _c(
            "rules_preset",
            "VARCHAR",
            "the preset the hand's rules start from: `four-deck`, `two-deck` or `rbtying` (R9); overrides are in `rules_options`",
        ),
        _c(
            "rules_options",
            "VARCHAR",
            "JSON object of the options that differ from the preset; `{}` if none",
        ),
        _c("decks", "INTEGER", "option `decks`: 4 or 2"),
        _c("ace_low_tractor", "BOOLEAN", "option `ace_low_tractor` (R3.3)"),
        _c("failed_throw_forced", "VARCHAR", "option `failed_throw_forced` (R4.4)"),
        _c("throw_penalty_points", "INTEGER", "option `throw_penalty_points` (R4.5)"),
        _c(
            "bottom_multiplier_rule",
            "VARCHAR",
            "option `bottom_multiplier`: power, times or linear (R7.2)",
        ),
        _c("level_step", "INTEGER", "option `level_step` (R7.3)"),
        _c("player0", "VARCHAR", "player id in seat 0"),
        _c("player1", "VARCHAR", "player id in seat 1"),
        _c("player2", "VARCHAR", "player id in seat 2"),
        _c("player3", "VARCHAR", "player id in seat 3"),
        _c("banker", "INTEGER", "the banker's seat (after R8.4 in a first hand)"),
        _c("banker_team", "INTEGER", "the banker's team: 0 (seats 0+2) or 1 (seats 1+3)"),
        _c(
            "level",
            "VARCHAR",
            "the level rank played, as a rank token: `2`…`9`, `T`, `J`, `Q`, `K`, `A`",
        ),
        _c("level_team0", "VARCHAR", "team 0's level before the hand (rank token)"),
        _c("level_team1", "VARCHAR", "team 1's level before the hand (rank token)"),
        _c("trump", "VARCHAR", "`S`, `H`, `C`, `D` or `NT`; NULL if rejected before trump was set"),
        _c("trump_source", "VARCHAR", "how trump was set: show, overturn, fry or bottom (R8)"),
        _c("end_state", "VARCHAR", "FORMAT.md `end`: complete, abandoned or redeal"),
        _c(
            "status",
            "VARCHAR",
            "ok, flagged (replayed, with findings) or rejected (could not be replayed)",
            True,
        ),
        _c("n_findings", "INTEGER", "rows of this hand in `findings`", True),
        _c(
            "n_tricks",
            "INTEGER",
            "rows of this hand in `tricks` (for a rejected hand: tricks before the fault)",
            True,
        ),
        _c(
            "throw_seats",
            "INTEGER",
            "the seats that led a throw in `tricks`, as bits (seat s is bit s: 1 << s)",
            True,
        ),
        _c("failed_throw_seats", "INTEGER", "… that led a throw that failed", True),
        _c("stood_throw_seats", "INTEGER", "… that led a throw that stood", True),
        _c("ruff_seats", "INTEGER", "… that won a trick by a ruff (`tricks.trump_in`)", True),
        _c(
            "attackers_points",
            "BIGINT",
            "the attackers' final total: tricks, bottom and penalties (R7)",
        ),
        _c(
            "trick_points",
            "INTEGER",
            "the attackers' total before the bottom was added (tricks and penalties)",
        ),
        _c("bottom_points", "INTEGER", "points among the 8 cards finally buried"),
        _c("bottom_captured", "BOOLEAN", "the attackers won the last trick (抠底, R7.2)"),
        _c("bottom_winner", "INTEGER", "seat that won the last trick"),
        _c(
            "last_lead_shape",
            "VARCHAR",
            "the last trick's lead: single, pair, triple, quad, tractor<2-2>, …, throw",
        ),
        _c(
            "bottom_multiplier",
            "BIGINT",
            "the multiplier applied to the bottom (1 unless captured with trump)",
        ),
        _c(
            "bottom_added",
            "BIGINT",
            "points the bottom added to the attackers' total (0 unless captured)",
        ),
        _c("level_up_team", "INTEGER", "the team that goes up (R7.3)"),
        _c("level_up", "BIGINT", "levels it goes up (0 when the attackers only take over)"),
        _c("banker_won", "BOOLEAN", "the banker team held (attackers below the take-over total)"),
        _c("next_banker", "INTEGER", "the seat that deals next (R7.4)"),
        _c(
            "content_hash",
            "VARCHAR",
            "sha256 of the canonical hand line: a changed hand replaces its rows",
            True,
        ),
        _c(
            "line_hash",
            "VARCHAR",
            "sha256 of the line as read: an identical line at the same file and line is not "
            "replayed again",
            True,
        ),
        _c("ingest_run", "INTEGER", "`ingest_runs.run_id` of the run that wrote this row", True),
    ),
)

SEATS = Table(
    "seats",
    "One row per hand and seat (4 per hand that reached the deal).",
    ("source", "hand_id", "seat"),
    (
        *_KEY,
        _c("seat", "INTEGER", "0..3", True),
        _c("player", "VARCHAR", "player id"),
        _c(
            "style",
            "VARCHAR",
            "the player's bot style as the hand's `_personas` source field states it (the "
            "simulator's careful, bold or novice); NULL when the source does not say",
        ),
        _c(
            "persona",
            "VARCHAR",
            "the bot persona as `style/blunder/aggression`, e.g. `careful/0.06/0.25` "
            "(`_personas`); NULL when the source does not say",
        ),
        _c("team", "INTEGER", "0 (seats 0+2) or 1 (seats 1+3)", True),
        _c("role", "VARCHAR", "banker, banker_partner or attacker (NULL if the banker is unknown)"),
        _c(
            "cards_start",
            "VARCHAR",
            "cards held at the start of play (after bury and fries), card tokens",
        ),
        _c("n_cards_start", "INTEGER", "how many cards that is"),
        _c("trumps_start", "INTEGER", "trumps among them (under the hand's final trump)"),
        _c(
            "cards_before_bury",
            "VARCHAR",
            "banker only: the 60 cards held after taking the bottom, before burying",
        ),
        _c("trumps_before_bury", "INTEGER", "banker only: trumps among those"),
        _c("point_cards_start", "INTEGER", "point cards (5, T, K) held at the start of play"),
        _c("points_start", "INTEGER", "their value"),
        _c("points_won", "INTEGER", "points of the point cards in the tricks this seat won"),
        _c("tricks_won", "INTEGER", "tricks this seat won"),
        _c("tricks_led", "INTEGER", "tricks this seat led"),
        _c("throws_attempted", "INTEGER", "leads with several components (R4)"),
        _c("throws_failed", "INTEGER", "of those, throws that failed"),
        _c("ruffs", "INTEGER", "plays of kind `ruff` (all trump from a void in a side suit)"),
        _c("ladder_points", "BIGINT", "personal ladder points (R7.5), penalties included"),
        _c("n_findings", "INTEGER", "findings that name this seat", True),
        _c(
            "last_seat_ok",
            "INTEGER",
            "this seat's plays at the fourth seat the coaching review judged sound (code "
            "`last_seat_ok`): counted here and marked in `tricks.last_seat_ok`, with no "
            "`decisions` row",
            True,
        ),
        _c(
            "last_seat_skipped",
            "INTEGER",
            "this seat's plays at the fourth seat the coaching review did not judge, having more "
            "legal plays than it lists (code `last_seat_skipped`): counted here and marked in "
            "`tricks.last_seat_skipped`, with no `decisions` row",
            True,
        ),
    ),
)

BIDS = Table(
    "bids",
    "One row per show during the deal and per fry after the bury, in order.",
    ("source", "hand_id", "bid_no"),
    (
        *_KEY,
        _c(
            "bid_no",
            "INTEGER",
            "order among the hand's bids, from 1 (shows first, then fries)",
            True,
        ),
        _c("seat", "INTEGER", "the seat that showed", True),
        _c(
            "kind", "VARCHAR", "show (the first), overturn (a later show) or fry (炒底, R8.7)", True
        ),
        _c("cards", "VARCHAR", "the cards shown, card tokens", True),
        _c("n_cards", "INTEGER", "how many", True),
        _c("dealt", "INTEGER", "cards dealt when it was shown (NULL for a fry)"),
        _c("trump", "VARCHAR", "the trump it names: S, H, C, D or NT", True),
        _c("valid", "BOOLEAN", "it followed R8.1–R8.3 and R8.7", True),
        _c("buried", "VARCHAR", "fry only: the 8 cards that player buried"),
    ),
)

TRICKS = Table(
    "tricks",
    "One row per trick replayed.",
    ("source", "hand_id", "trick"),
    (
        *_KEY,
        _c("trick", "INTEGER", "trick number, from 1", True),
        _c("leader", "INTEGER", "the seat that led", True),
        _c("leader_team", "INTEGER", "its team", True),
        _c("lead_suit", "VARCHAR", "effective suit of the lead: S, H, C, D or trump", True),
        _c(
            "lead_shape",
            "VARCHAR",
            "single, pair, triple, quad, tractor<2-2>, tractor<3-3-3>, …, or throw",
            True,
        ),
        _c(
            "n_components",
            "INTEGER",
            "components of the lead as played (1 unless a throw stood)",
            True,
        ),
        _c(
            "components",
            "VARCHAR",
            "the lead's components as card tokens, largest first, joined by ` | `",
            True,
        ),
        _c("n_cards", "INTEGER", "cards each seat played to this trick", True),
        _c("throw", "BOOLEAN", "the leader attempted a throw (甩牌)", True),
        _c("throw_failed", "BOOLEAN", "the throw failed (NULL when no throw)"),
        _c("throw_cards", "VARCHAR", "every card the throw attempted (NULL when no throw)"),
        _c(
            "throw_components",
            "INTEGER",
            "components of the attempted throw as R4.2 reads it (a failed throw too)",
        ),
        _c(
            "throw_shape",
            "VARCHAR",
            "the attempted throw's components, largest first, e.g. `tractor<2-2>+pair+single`",
        ),
        _c("forced_cards", "VARCHAR", "failed throw: the component the leader had to play"),
        _c("blocker", "INTEGER", "failed throw: the seat whose cards beat it"),
        _c(
            "blocking_cards",
            "VARCHAR",
            "failed throw: the blocker's cards that beat the forced component",
        ),
        _c("winner", "INTEGER", "the seat that won the trick", True),
        _c("winner_team", "INTEGER", "its team", True),
        _c("points", "INTEGER", "point cards in the trick", True),
        _c("trump_in", "BOOLEAN", "a ruff (trump from a void) won a side-suit trick", True),
        _c(
            "attackers_total",
            "INTEGER",
            "the attackers' running total after this trick (penalties included)",
            True,
        ),
        _c("reason", "VARCHAR", "who won and why, one line quoting the cards (R6)", True),
        _c(
            "last_seat_ok",
            "BOOLEAN",
            "the coaching review judged the fourth seat's play sound (code `last_seat_ok`; the "
            "seat is the fourth play's): no `decisions` row, counted in `seats.last_seat_ok`",
            True,
        ),
        _c(
            "last_seat_skipped",
            "BOOLEAN",
            "the coaching review did not judge the fourth seat's play, having more legal plays "
            "than it lists (code `last_seat_skipped`): no `decisions` row, counted in "
            "`seats.last_seat_skipped`",
            True,
        ),
    ),
    primary_key=False,
)

PLAYS = Table(
    "plays",
    "One row per play: every seat's cards in every trick.",
    ("source", "hand_id", "trick", "position"),
    (
        *_KEY,
        _c("trick", "INTEGER", "trick number, from 1", True),
        _c("position", "INTEGER", "order in the trick: 1 is the lead, 4 the last play", True),
        _c("seat", "INTEGER", "the seat that played", True),
        _c("cards", "VARCHAR", "the cards played, card tokens", True),
        _c("n_cards", "INTEGER", "how many", True),
        _c("suit", "VARCHAR", "effective suit of the cards: S, H, C, D, trump, or mixed", True),
        _c(
            "kind",
            "VARCHAR",
            "lead, follow, ruff, discard or short (R5.2: all of the led suit plus others)",
            True,
        ),
        _c("legal", "BOOLEAN", "the play obeyed R5; an illegal play also has a finding", True),
        _c(
            "play_index",
            "INTEGER",
            "index of the play in the hand's `plays` list, from 0 (links to the source)",
        ),
    ),
    primary_key=False,
)

FINDINGS = Table(
    "findings",
    "One row per finding (a data fault) of a keyed hand.",
    ("source", "hand_id", "finding_no"),
    (
        *_KEY,
        _c("finding_no", "INTEGER", "order among the hand's findings, from 1", True),
        _c("code", "VARCHAR", "stable finding code (docs/findings.md)", True),
        _c("trick", "INTEGER", "the trick it concerns, if any"),
        _c("seat", "INTEGER", "the seat it concerns, if any"),
        _c("reason", "VARCHAR", "lower-case reason quoting the cards", True),
        _c("line", "INTEGER", "source line of the hand"),
    ),
)

REJECTS = Table(
    "rejects",
    "One row per input line that could not be replayed, with the line kept; a rejected hand whose "
    "key is known also has a `hands` row with status `rejected`. Also one row per line dropped as a "
    "`duplicate_conflict` (its hand was read earlier in the run with other content; `raw` empty, "
    "the reason names the line kept) and per `file_error`.",
    ("file", "line"),
    (
        _c("file", "VARCHAR", "absolute path of the file", True),
        _c("line", "INTEGER", "1-based line", True),
        _c("source", "VARCHAR", "the hand's source, if it could be read"),
        _c("hand_id", "VARCHAR", "the hand's id, if it could be read"),
        _c(
            "code",
            "VARCHAR",
            "code of the finding that rejected the line (docs/findings.md), not merely its first",
            True,
        ),
        _c("reason", "VARCHAR", "that finding's reason", True),
        _c("raw", "VARCHAR", "the line as read", True),
        _c("ingest_run", "INTEGER", "the run that wrote this row", True),
    ),
)

INGEST_RUNS = Table(
    "ingest_runs",
    "One row per `shengji ingest` run that completed. Lines add up: lines_read = blank_lines + "
    "hands_ok + hands_flagged + hands_rejected + duplicates.",
    ("run_id",),
    (
        _c("run_id", "INTEGER", "1, 2, … in the order runs were published", True),
        _c("started", "TIMESTAMP", "UTC", True),
        _c("finished", "TIMESTAMP", "UTC", True),
        _c("files", "INTEGER", "files read", True),
        _c("file_list", "VARCHAR", "JSON list of their absolute paths", True),
        _c("lines_read", "BIGINT", "every line of every file, blank ones included", True),
        _c("blank_lines", "BIGINT", "lines holding only whitespace: no hand, skipped", True),
        _c("hands_ok", "BIGINT", "lines replayed without findings", True),
        _c("hands_flagged", "BIGINT", "lines replayed with findings", True),
        _c("hands_rejected", "BIGINT", "lines that could not be replayed", True),
        _c(
            "duplicates",
            "BIGINT",
            "lines whose key an earlier line of this run already had (first wins)",
            True,
        ),
        _c(
            "conflicts",
            "BIGINT",
            "of the duplicates, those whose content differed from the first",
            True,
        ),
        _c("inserted", "BIGINT", "hands new to the database", True),
        _c(
            "replaced",
            "BIGINT",
            "hands whose content changed: old rows deleted, new inserted",
            True,
        ),
        _c(
            "unchanged",
            "BIGINT",
            "hands already stored with the same content hash: left as they were",
            True,
        ),
        _c(
            "file_errors",
            "INTEGER",
            "files that could not be read to the end (a `rejects` row each, code `file_error`)",
            True,
        ),
        _c("findings", "BIGINT", "findings over all lines read (per code: the CLI report)", True),
        _c("findings_by_code", "VARCHAR", "JSON object code -> count", True),
        _c("duration_s", "DOUBLE", "wall time of the run, seconds", True),
        _c("hands_per_s", "DOUBLE", "non-blank lines per second", True),
        _c("version", "VARCHAR", "the shengji-analytics package version that ingested", True),
        _c("schema_version", "INTEGER", "ingest.schema.SCHEMA_VERSION", True),
    ),
)

DECISIONS = Table(
    "decisions",
    "One row per decision the coaching review judged (docs/review.md), of a hand not rejected, "
    "except the fourth seats judged sound (code `last_seat_ok`, two thirds of all decisions) "
    "and those not judged for having more legal plays than the review lists (code "
    "`last_seat_skipped`, a fifth of the rest): those are counted in `seats.last_seat_ok` and "
    "`seats.last_seat_skipped` and marked in the tricks' columns of those names. Codes "
    "`throw_skipped` and `last_seat_skipped` are decisions the review could not judge, counted "
    "in no rate (`ingest.schema.judged_sql`). Join `seats` "
    "on (source, hand_id, seat) for the player, style and persona.",
    ("source", "hand_id", "decision_no"),
    (
        *_KEY,
        _c(
            "decision_no",
            "INTEGER",
            "the decision's place in the review's order of the hand (`shengji review`), from 1; "
            "the numbers of the fourth seats judged sound, which have no row, are skipped",
            True,
        ),
        _c("trick", "INTEGER", "the trick judged; null for a bury"),
        _c("seat", "INTEGER", "the seat that decided", True),
        _c("kind", "VARCHAR", "`throw`, `last_seat`, `bury` or `note`", True),
        _c("code", "VARCHAR", "stable review code (docs/review.md)", True),
        _c(
            "severity",
            "VARCHAR",
            "`ok`, `note`, `inaccuracy` (< 10 points), `mistake` (< 30) or `blunder`",
            True,
        ),
        _c("is_mistake", "BOOLEAN", "severity is inaccuracy, mistake or blunder", True),
        _c("cost", "DOUBLE", "points lost (expected points for a throw); 0 when sound", True),
        _c("play", "VARCHAR", "the cards played (or buried, or the throw attempted)", True),
        _c("better", "VARCHAR", "the better play the review names, if any"),
        _c("p_fail", "DOUBLE", "a throw's failure probability from the thrower's seat"),
        _c("p_error", "DOUBLE", "its standard error: 0 when exact, else from sampling"),
        _c("outcome", "VARCHAR", "what hidden cards decided: `stood`/`failed`, `captured`/`kept`"),
        _c("reason", "VARCHAR", "one line quoting the cards", True),
    ),
    primary_key=False,
)


def _rollup(name: str, doc: str, keys: tuple[Column, ...], measures: tuple[Column, ...]) -> Table:
    """A rollup (ingest/rollups.py): one row per combination of `keys`, additive `measures`."""
    return Table(name, doc, tuple(c.name for c in keys), (*keys, *measures), primary_key=False)


def _n(name: str, doc: str) -> Column:
    return _c(name, "BIGINT", doc)


_FILTER_KEYS = (
    _c("source", "VARCHAR", "`hands.source`"),
    _c("rules_preset", "VARCHAR", "`hands.rules_preset`"),
    _c("level", "VARCHAR", "`hands.level`"),
    _c("status", "VARCHAR", "`hands.status`"),
)

SEAT_TOTALS = _rollup(
    "seat_totals",
    "Rollup of `seats` (with their hand's outcome) by the filters' values, the seat's player, role "
    "and bot style, and its trumps at the start of play: the Players page, throws per player, "
    "bottom captures per player and the trump-length seat figures sum it.",
    (
        *_FILTER_KEYS,
        _c("decks", "INTEGER", "`hands.decks`"),
        _c("nt", "BOOLEAN", "the hand was played in no-trump (`hands.trump = 'NT'`)"),
        _c("player", "VARCHAR", "`seats.player`"),
        _c("role", "VARCHAR", "`seats.role`"),
        _c("style", "VARCHAR", "`seats.style`"),
        _c("trumps_start", "INTEGER", "`seats.trumps_start`"),
    ),
    (
        _n("seats", "seats counted"),
        _n("won", "of those, seats whose team went up (`level_up_team = team`)"),
        _n("won_n", "seats of hands with a level outcome"),
        _n("held", "seats of hands the banker team held"),
        _n("lost", "seats of hands the attackers took over"),
        _n("throws_attempted", "sum of `seats.throws_attempted`"),
        _n("throws_failed", "sum of `seats.throws_failed`"),
        _n("tricks_led", "sum of `seats.tricks_led`"),
        _n("took_bottom", "seats that won a captured bottom (any end state)"),
        _n("completed", "seats of completed hands whose bottom capture is known"),
        _n("captured", "of those, hands whose bottom the attackers captured"),
        _n("took_bottom_complete", "of those, seats that won the last trick themselves"),
        _n("with_findings", "seats with at least one finding against them"),
        _n("levels_gained", "sum of `level_up` over seats whose team went up"),
        _n("points_won", "sum of `seats.points_won`"),
        _n("points_won_n", "seats with `points_won` known"),
        _n("ruffs", "sum of `seats.ruffs`"),
        _n("n_findings", "sum of `seats.n_findings`"),
        _n("ladder_points", "sum of `seats.ladder_points`"),
    ),
)

SEAT_PERIODS = _rollup(
    "seat_periods",
    "Rollup of `seats` by week and month of play (the Players page's trend lines).",
    (
        _c("week", "DATE", "first day of the week the hand was played"),
        _c("month", "DATE", "first day of its month"),
        *_FILTER_KEYS,
        _c("player", "VARCHAR", "`seats.player`"),
        _c("role", "VARCHAR", "`seats.role`"),
    ),
    (
        _n("seats", "seats counted"),
        _n("won", "seats whose team went up"),
        _n("won_n", "seats of hands with a level outcome"),
        _n("points_won", "sum of `seats.points_won`"),
        _n("points_won_n", "seats with `points_won` known"),
    ),
)

THROW_TOTALS = _rollup(
    "throw_totals",
    "Rollup of attempted throws (`tricks.throw`) by the filters' values, the thrower and every "
    "breakdown of the Throws page.",
    (
        *_FILTER_KEYS,
        _c("player", "VARCHAR", "the thrower (the hand's player column of the leader's seat)"),
        _c("role", "VARCHAR", "the thrower's role: banker, banker_partner or attacker"),
        _c("style", "VARCHAR", "the thrower's `seats.style`"),
        _c("throw_failed", "BOOLEAN", "`tricks.throw_failed`"),
        _c("throw_components", "INTEGER", "`tricks.throw_components`"),
        _c("throw_shape", "VARCHAR", "`tricks.throw_shape`"),
        _c("suit_kind", "VARCHAR", "trump or side suit"),
        _c("throw_size", "BIGINT", "cards thrown"),
        _c("trick_bin", "INTEGER", "the trick number's bin of five: 1, 6, 11, …"),
    ),
    (
        _n("n", "throws"),
        _n("points", "sum of the points in those tricks"),
        _n("conceded", "sum of the points the other team won in those tricks"),
        _n("penalty", "sum of the hands' `throw_penalty_points`"),
        _n("first_hand", "throws that were their hand's first throw"),
        _n("first_hand_outcome", "… its first throw of the same outcome (failed or stood)"),
        _n("first_seat", "… the first of their seat in the hand"),
        _n("first_seat_outcome", "… of their seat, of the same outcome"),
        _n("first_team", "… the first of their team in the hand"),
        _n("first_team_outcome", "… of their team, of the same outcome"),
        _n("first_player", "… the first of their player in the hand"),
        _n("first_player_outcome", "… of their player, of the same outcome"),
        _n("first_player_seat", "… the first of their player in that seat"),
        _n("first_player_seat_outcome", "… of their player in that seat, of the same outcome"),
        _n("first_player_team", "… the first of their player in that team"),
        _n("first_player_team_outcome", "… of their player in that team, of the same outcome"),
    ),
)

HAND_TRUMPS = _rollup(
    "hand_trumps",
    "Rollup of replayed hands by each team's trumps at the start of play and how the hand went "
    "(the Trump length page): each hand once with `player` NULL, and once per seat with its "
    "player and role.",
    (
        *_FILTER_KEYS,
        _c("decks", "INTEGER", "`hands.decks`"),
        _c("nt", "BOOLEAN", "the hand was played in no-trump"),
        _c("player", "VARCHAR", "NULL for the hand's own row, else a seat's player"),
        _c("role", "VARCHAR", "that seat's role"),
        _c("banker_trumps", "INTEGER", "the banker team's trumps at the start of play"),
        _c("attacker_trumps", "INTEGER", "the attackers' trumps"),
        _c("banker_own", "INTEGER", "the banker's own trumps after the bury"),
        _c("banker_won", "BOOLEAN", "`hands.banker_won`"),
        _c("bottom_captured", "BOOLEAN", "`hands.bottom_captured` of a completed hand, else NULL"),
    ),
    (
        _n("n", "hands"),
        _n("points_n", "hands with `attackers_points` known"),
        _c(
            "points_sum",
            "DOUBLE",
            "sum of `attackers_points` (DOUBLE: a power bottom can "
            "take a hand's points past 32 bits)",
        ),
        _c("points_sumsq", "DOUBLE", "sum of their squares (for the standard deviation)"),
    ),
)

_HAND_SEAT = (
    _c("player", "VARCHAR", "NULL for the hand's own row, else a seat's player"),
    _c("role", "VARCHAR", "that seat's role (NULL when the banker is unknown)"),
)

HAND_TOTALS = _rollup(
    "hand_totals",
    "Rollup of `hands` by the filters' values and every value the Overview, Bottom capture and "
    "Audit pages count hands by: each hand once with `player` NULL, and once per seat with its "
    "player and role (a player filter keeps the hands that player sat in). Every status, "
    "rejected hands included (the Audit page and the sidebar count them).",
    (
        *_FILTER_KEYS,
        *_HAND_SEAT,
        _c("end_state", "VARCHAR", "`hands.end_state`"),
        _c("banker", "INTEGER", "`hands.banker`"),
        _c("trump", "VARCHAR", "`hands.trump`"),
        _c("bottom_multiplier_rule", "VARCHAR", "`hands.bottom_multiplier_rule`"),
        _c("last_lead_shape", "VARCHAR", "`hands.last_lead_shape`"),
        _c("bottom_captured", "BOOLEAN", "`hands.bottom_captured`"),
        _c("bottom_points", "INTEGER", "`hands.bottom_points`"),
        _c("bottom_added", "BIGINT", "`hands.bottom_added`"),
        _c("bottom_multiplier", "BIGINT", "`hands.bottom_multiplier`"),
        _c("banker_won", "BOOLEAN", "`hands.banker_won`"),
        _c("level_up", "BIGINT", "`hands.level_up`"),
        _c("attackers_points", "BIGINT", "`hands.attackers_points`"),
        _c(
            "with_code",
            "INTEGER",
            "the level outcome with the bottom (analytics.query.level_outcome_code)",
        ),
        _c("without_code", "INTEGER", "the level outcome without it (`trick_points`)"),
        _c("simulated", "BOOLEAN", "a seat of the hand has a stored persona (the simulator's)"),
        _c("n_findings", "INTEGER", "`hands.n_findings`"),
        _c("any_throw", "BOOLEAN", "a seat threw (`hands.throw_seats` not 0)"),
        _c("failed_throw", "BOOLEAN", "a seat's throw failed (`hands.failed_throw_seats` not 0)"),
        _c("stood_throw", "BOOLEAN", "a seat's throw stood (`hands.stood_throw_seats` not 0)"),
        _c("any_ruff", "BOOLEAN", "a trick was won by a ruff (`hands.ruff_seats` not 0)"),
    ),
    (
        _n("n", "hands"),
        _c("first_played", "TIMESTAMP", "the earliest `played_at` among them"),
        _c("last_played", "TIMESTAMP", "the latest"),
    ),
)

HAND_PERIODS = _rollup(
    "hand_periods",
    "Rollup of `hands` by week and month of play (the Overview's hands over time), each hand once "
    "with `player` NULL and once per seat with its player and role.",
    (
        _c("week", "DATE", "first day of the week the hand was played"),
        _c("month", "DATE", "first day of its month"),
        *_FILTER_KEYS,
        *_HAND_SEAT,
    ),
    (_n("n", "hands"),),
)

_SEAT_GROUPS = (
    *_FILTER_KEYS,
    _c("player", "VARCHAR", "`seats.player`"),
    _c("role", "VARCHAR", "`seats.role`"),
    _c("style", "VARCHAR", "`seats.style`"),
    _c("persona", "VARCHAR", "`seats.persona`"),
)

REVIEW_KINDS = ("throw", "last_seat", "bury")
"""The judged kinds of `decisions` (analytics.coaching.KINDS): one set of columns each below."""


def judged_sql(alias: str = "") -> str:
    """SQL true for a `decisions` row (of table alias `alias`) the review judged: not a note,
    not a code of `shengji.coach.review.NOT_JUDGED` (`Decision.judged`)."""
    a = f"{alias}." if alias else ""
    codes = ", ".join(f"'{c}'" for c in sorted(NOT_JUDGED))
    return f"({a}kind <> 'note' AND {a}code NOT IN ({codes}))"


SEAT_REVIEWS = _rollup(
    "seat_reviews",
    "Rollup of the coaching review per seat (`decisions` summed by seat with the seat's "
    "`last_seat_ok`, seats without a decision included) by the filters' values and the seat's player, role, style and persona: the "
    "Coaching page's leak table.",
    _SEAT_GROUPS,
    (
        _n("seats", "seats counted"),
        _n(
            "judged",
            "decisions judged (neither a note nor a decision the review could not judge: "
            "`throw_skipped`, `last_seat_skipped`), `seats.last_seat_ok` included",
        ),
        _n("mistakes", "decisions that were mistakes"),
        _c("lost", "DOUBLE", "sum of `cost`"),
        _c("lost_sq", "DOUBLE", "sum over the seats of the square of each seat's sum of `cost`"),
        *(
            c
            for k in REVIEW_KINDS
            for c in (
                _n(
                    f"{k}_judged",
                    f"decisions of kind `{k}` judged"
                    + (", `seats.last_seat_ok` included" if k == "last_seat" else ""),
                ),
                _n(f"{k}_mistakes", "… that were mistakes"),
                _c(f"{k}_lost", "DOUBLE", "… their sum of `cost`"),
            )
        ),
    ),
)

REVIEW_CODES = _rollup(
    "review_codes",
    "Rollup of `decisions` by review code (codes `last_seat_ok` and `last_seat_skipped` from "
    "the seats' columns of those names), with "
    "the seat's player, role, style and persona and the filters' values: the Coaching page's "
    "points lost per code.",
    (*_SEAT_GROUPS, _c("kind", "VARCHAR", "`decisions.kind`"), _c("code", "VARCHAR", "`code`")),
    (
        _n("n", "decisions"),
        _n("mistakes", "… that were mistakes"),
        _c("cost", "DOUBLE", "sum of their `cost`"),
    ),
)

WORST_KEPT = 25
"""Mistakes kept per combination in `review_worst`: the Coaching page lists a player's 25
costliest."""

REVIEW_WORST = _rollup(
    "review_worst",
    f"A player's costliest mistakes: for each combination of the filters' values, player and role, "
    f"the {WORST_KEPT} mistakes of highest `cost` (ties by source, hand id, decision), with the "
    "columns the Coaching page lists. The costliest under any filter but dates are among them.",
    (
        *_FILTER_KEYS,
        _c("player", "VARCHAR", "`seats.player`"),
        _c("role", "VARCHAR", "`seats.role`"),
        _c("hand_id", "VARCHAR", "`decisions.hand_id` (`source` above)"),
        _c("decision_no", "INTEGER", "`decisions.decision_no`"),
    ),
    (
        _c("played_at", "TIMESTAMP", "`hands.played_at`"),
        _c("trick", "INTEGER", "`decisions.trick`"),
        _c("seat", "INTEGER", "`decisions.seat`"),
        _c("kind", "VARCHAR", "`decisions.kind`"),
        _c("code", "VARCHAR", "`decisions.code`"),
        _c("severity", "VARCHAR", "`decisions.severity`"),
        _c("cost", "DOUBLE", "`decisions.cost`"),
        _c("play", "VARCHAR", "`decisions.play`"),
        _c("better", "VARCHAR", "`decisions.better`"),
        _c("p_fail", "DOUBLE", "`decisions.p_fail`"),
        _c("p_error", "DOUBLE", "`decisions.p_error`"),
        _c("outcome", "VARCHAR", "`decisions.outcome`"),
        _c("reason", "VARCHAR", "`decisions.reason`"),
    ),
)

FINDING_TOTALS = _rollup(
    "finding_totals",
    "Rollup of `findings` by code and the filters' values, each hand once with `player` NULL and "
    "once per seat with its player and role: the Audit page's findings by code.",
    (*_FILTER_KEYS, *_HAND_SEAT, _c("code", "VARCHAR", "`findings.code`")),
    (_n("n", "findings"), _n("hands", "hands with such a finding")),
)

ROLLUP_TABLES: tuple[Table, ...] = (
    SEAT_TOTALS,
    SEAT_PERIODS,
    THROW_TOTALS,
    HAND_TRUMPS,
    HAND_TOTALS,
    HAND_PERIODS,
    SEAT_REVIEWS,
    REVIEW_CODES,
    REVIEW_WORST,
    FINDING_TOTALS,
)
"""Derived from the hand tables by ingest/rollups.py, kept up to date by each ingest run."""

TABLES: tuple[Table, ...] = (
    HANDS,
    SEATS,
    BIDS,
    TRICKS,
    PLAYS,
    FINDINGS,
    DECISIONS,
    REJECTS,
    INGEST_RUNS,
    *ROLLUP_TABLES,
)
HAND_TABLES: tuple[Table, ...] = (HANDS, SEATS, BIDS, TRICKS, PLAYS, FINDINGS, DECISIONS)
"""The tables whose rows belong to one hand and are replaced together, keyed by (source, hand_id)."""
CHILD_TABLES: tuple[Table, ...] = (SEATS, BIDS, TRICKS, PLAYS, FINDINGS, DECISIONS)
BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}


def sql_str(text: str) -> str:
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def sql_name(text: str) -> str:
    """`text` as a quoted SQL identifier: a catalog named after a file may hold `-` or `.`,
    start with a digit or be a keyword."""
    return '"' + text.replace('"', '""') + '"'


def create_all(con: object) -> None:
    """Create every table (idempotent); `con` is a duckdb connection."""
    for table in TABLES:
        con.execute(table.ddl())  # type: ignore[attr-defined]


def schema_markdown() -> str:
    """The column-by-column reference in docs/schema.md, generated so the docs cannot drift."""
    out: list[str] = []
    for t in TABLES:
        key = ", ".join(t.key)
        if t in ROLLUP_TABLES:
            keyline = (
                f"Rollup: one row per combination of ({key}); kept up to date by ingest, not keyed."
            )
        elif t.primary_key:
            keyline = f"Primary key: ({key})."
        else:
            keyline = (
                f"Key: ({key}), unique but not declared: a primary-key index on this many rows "
                "costs more than the table (checked by the test suite instead)."
            )
        out += [f"### `{t.name}`", "", t.doc, "", keyline, ""]
        out += ["| column | type | meaning |", "|---|---|---|"]
        for c in t.columns:
            null = " not null" if c.required else ""
            out.append(f"| `{c.name}` | {c.sql}{null} | {c.doc} |")
        out.append("")
    return "\n".join(out)


DOCS_MARKER = "<!-- generated from ingest/schema.py by `python -m ingest.schema`; edit there -->"


def render_docs(text: str) -> str:
    """docs/schema.md with everything after the marker regenerated from the declarations."""
    head = text.split(DOCS_MARKER, 1)[0].rstrip("\n")
    return f"{head}\n\n{DOCS_MARKER}\n\n{schema_markdown()}"


if __name__ == "__main__":
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "schema.md"
    path.write_text(render_docs(path.read_text() if path.exists() else "# Store schema\n"))
    print(f"wrote {path}")
