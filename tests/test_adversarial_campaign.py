"""The seeded adversarial campaign (bench/campaign.py) through `shengji ingest` and `shengji audit`:
no traceback, the documented exit codes, every line accounted for, nothing stored earlier lost."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.campaign import (
    FORMULAS,
    LINE_LIMIT,
    MUTATIONS,
    Campaign,
    build,
    sample_hands,
    store_campaign,
)
from dashboard.ui import PLAIN_NUMBER, inert_cells
from ingest.store import open_reader
from shengji.hhfile import read_lines
from shengji.replay import replay_line

ROOT = Path(__file__).resolve().parent.parent
MUTATED = 5_200
SEED = 10


def _shengji(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "analytics.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Campaign:
    return build(tmp_path_factory.mktemp("campaign") / "logs", mutated=MUTATED, seed=SEED)


@pytest.fixture(scope="module")
def first_run(campaign: Campaign) -> tuple[Path, subprocess.CompletedProcess[str]]:
    db = campaign.folder.parent / "c.duckdb"
    done = _shengji(
        "ingest", str(campaign.folder), "--db", str(db), "--max-line-bytes", str(LINE_LIMIT)
    )
    return db, done


def _query(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    con = open_reader(db)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def test_the_campaign_is_as_large_and_varied_as_promised(campaign: Campaign) -> None:
    assert campaign.mutated >= 5_000
    assert len(MUTATIONS) >= 25 and set(campaign.kinds) == set(MUTATIONS)
    assert campaign.good >= 1_000


def test_ingest_survives_it_with_the_documented_status(first_run, campaign: Campaign) -> None:
    _, done = first_run
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == 1, done.stderr  # the truncated gzip: a file not read to its end
    skipped = done.stderr
    for what in ("loop", "link_out", "folder_link", "fifo", "socket"):
        assert f"skipped {campaign.odd[what]}" in skipped, what
    assert "WARNING" not in done.stdout


def test_every_line_is_accounted_for(first_run, campaign: Campaign) -> None:
    db, _ = first_run
    ((read, blank, ok, flagged, rejected, dups, conflicts, file_errors),) = _query(
        db,
        "SELECT lines_read, blank_lines, hands_ok, hands_flagged, hands_rejected, duplicates, "
        "conflicts, file_errors FROM ingest_runs WHERE run_id = 1",
    )
    assert read == blank + ok + flagged + rejected + dups
    assert file_errors == 1
    hands = {
        (f, n): (s, h, c)
        for f, n, s, h, c in _query(
            db, "SELECT file, line, source, hand_id, content_hash FROM hands"
        )
    }
    rejects = {
        (f, n): (code, reason)
        for f, n, code, reason in _query(db, "SELECT file, line, code, reason FROM rejects")
    }
    assert all(code and reason for code, reason in rejects.values())
    by_key = {(s, h): c for s, h, c in hands.values()}
    counted = 0
    identical = 0
    readable = [*campaign.files, *(campaign.odd[k] for k in ("empty", "binary", "bomb"))]
    for path in readable:
        for line in read_lines(path, LINE_LIMIT):
            counted += 1
            if not line.too_long and not line.text.strip():
                continue
            where = (str(path), line.number)
            if where in hands or where in rejects:
                continue
            # the only other fate: an identical repeat of a hand already stored by this run
            r = replay_line(line.text, line=line.number)
            assert by_key.get((r.source, r.hand_id)) == r.content_hash, where
            identical += 1
    assert identical == dups - conflicts
    truncated = str(campaign.odd["truncated_gzip"])
    assert read - counted == sum(1 for f, _ in hands if f == truncated) + sum(
        1 for f, _ in rejects if f == truncated and rejects[(f, _)][0] != "file_error"
    )
    codes = {code for code, _ in rejects.values()}
    assert {"bad_json", "bad_record", "line_too_long", "duplicate_conflict", "file_error"} <= codes
    assert "internal" not in codes, [r for r in rejects.values() if r[0] == "internal"][:3]
    bomb = [v for (f, _), v in rejects.items() if f == str(campaign.odd["bomb"])]
    assert [code for code, _ in bomb] == ["line_too_long"]


def test_nothing_outside_the_folder_was_read(first_run, campaign: Campaign) -> None:
    db, _ = first_run
    files = {
        f for (f,) in _query(db, "SELECT DISTINCT file FROM hands UNION SELECT file FROM rejects")
    }
    allowed = (str(campaign.folder) + "/", str(campaign.folder.parent / "more") + "/")
    assert all(f.startswith(allowed) for f in files)
    assert not any("passwd" in raw for (raw,) in _query(db, "SELECT raw FROM rejects"))


def test_audit_survives_it(campaign: Campaign) -> None:
    odd = [campaign.odd[k] for k in ("audit_sample", "empty", "binary", "truncated_gzip", "bomb")]
    done = _shengji("audit", *map(str, odd))
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == 2  # the truncated gzip cannot be read to its end
    assert "line_too_long" in done.stdout and "bad_json" in done.stdout
    folder = _shengji("audit", str(campaign.odd["folder_named_jsonl"]), str(campaign.odd["fifo"]))
    assert folder.returncode == 2 and "Traceback" not in folder.stderr
    # a folder is walked as ingest walks it: this one holds no hand file
    assert "no .jsonl or .jsonl.gz file there" in folder.stderr
    assert "not a regular file" in folder.stderr


def test_a_second_run_loses_nothing_stored_earlier(first_run, campaign: Campaign) -> None:
    db, _ = first_run
    before = set(_query(db, "SELECT source, hand_id, content_hash FROM hands"))
    extra = campaign.folder.parent / "more"
    extra.mkdir(exist_ok=True)
    good = sample_hands()[-20:]
    for h in good:
        h["hand_id"] += "-second"
    (extra / "good.jsonl").write_text("".join(json.dumps(h) + "\n" for h in good))
    done = _shengji("ingest", str(extra), "--db", str(db))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    after = set(_query(db, "SELECT source, hand_id, content_hash FROM hands"))
    assert before <= after
    assert len(after - before) == 20


def test_long_keys_are_bad_records_naming_the_field(first_run) -> None:
    db, _ = first_run
    reasons = [r for (r,) in _query(db, "SELECT reason FROM rejects WHERE code = 'bad_record'")]
    long_keys = [r for r in reasons if "characters, longer than the" in r]
    assert long_keys
    assert {r.split(":")[0].split("[")[0] for r in long_keys} <= {
        "hand_id",
        "match_id",
        "source",
        "players",
    }
    ((longest,),) = _query(
        db,
        "SELECT max(greatest(length(source), length(hand_id), length(coalesce(match_id, '')), "
        "length(coalesce(player0, '')), length(coalesce(player1, '')), "
        "length(coalesce(player2, '')), length(coalesce(player3, '')))) FROM hands",
    )
    assert longest <= 256


def test_formula_text_is_stored_as_is_and_shown_inert(first_run) -> None:
    """The store keeps what the log said; every table the dashboard shows makes it inert."""
    import polars as pl

    db, _ = first_run
    con = open_reader(db)
    try:
        df = con.sql("SELECT hand_id, match_id, player0, player1, player2, player3 FROM hands").pl()
    finally:
        con.close()
    stored = {v for name in df.columns for v in df[name].to_list() if v}
    assert any(v.startswith(f) for v in stored for f in FORMULAS)
    shown = inert_cells(df)
    risky = pl.concat([shown[c] for c in shown.columns]).drop_nulls()
    assert not [v for v in risky.to_list() if v[:1] in "=+-@\t\r" and not re.match(PLAIN_NUMBER, v)]


def test_hostile_stores_exit_as_documented_and_stay_intact(tmp_path: Path) -> None:
    """Foreign database files, linked stores, link loops, a full disk, a read-only file system
    and stores of another schema, through ingest, report and export."""
    cases = store_campaign(tmp_path / "stores")
    assert len(cases) >= 20
    failed = [(c.name, c.code, c.err[-300:]) for c in cases if not c.ok]
    assert failed == []
    linked = tmp_path / "stores" / "user" / "lnk.duckdb"
    assert linked.is_symlink() and _query(linked, "SELECT count(*) FROM hands") == [(60,)]


# --- slow valid lines and option combinations ---------------------------------------------------


def test_slow_valid_lines_are_never_taken_for_hangs(tmp_path: Path) -> None:
    """Twelve copies of the slowest of the sample's first hands to ingest (the costs are measured,
    not assumed), through ingest with two workers and the default line timeout: every line
    stored, no timeout and no retry in the summary."""
    from bench.campaign import _dump, line_costs, slow_copies, slowest_lines
    from ingest.pipeline import ingest, summary

    lines = [_dump(h) for h in sample_hands(20)]
    _, index, _ = slowest_lines(lines, line_costs(lines))["ingest"]
    path = tmp_path / "slow.jsonl"
    path.write_bytes(b"".join(x + b"\n" for x in slow_copies(lines[index], 12)))
    result = ingest([path], tmp_path / "s.duckdb", workers=2, chunk_lines=4)
    assert result.counts.hands == 12 and result.counts.status["rejected"] == 0
    assert result.incidents == []
    assert "timeouts" not in summary(result)


def test_every_option_combination_replays_every_hand_without_a_program_error(
    tmp_path: Path,
) -> None:
    """Sample hands under every combination of the options a follow check reads: the plays
    were made under the defaults, so some follows break R5 under other options; each line ends
    ok, flagged or rejected with a data fault, never `internal`, and its costs are measured."""
    from bench.campaign import OPTION_COMBOS, line_costs, option_lines, slowest_lines

    lines = option_lines(sample_hands(6))
    assert len(lines) == 6 * len(OPTION_COMBOS) == 48
    costs = line_costs(lines)
    worst = slowest_lines(lines, costs)
    assert set(worst) == {"replay", "review", "ingest"}
    path = tmp_path / "options.jsonl"
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    db = tmp_path / "o.duckdb"
    done = _shengji("ingest", str(path), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert _query(db, "SELECT count(*) FROM rejects WHERE code = 'internal'") == [(0,)]
    rules = _query(db, "SELECT count(DISTINCT rules_options) FROM hands")
    assert rules[0][0] >= 2
    assert sum(n for (n,) in _query(db, "SELECT count(*) FROM hands")) == 48
    for line in lines[:16]:
        assert replay_line(line.decode()).status in ("ok", "flagged", "rejected")
