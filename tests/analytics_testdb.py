"""Small databases for the analytics and dashboard tests, built from ingest/schema.py.

`insert` writes hand-built rows (missing columns are NULL or a harmless default) so a metric test
can state its few rows and compute the right answer itself. `synthetic_db` writes a few hundred
coherent random hands — every card dealt, played and counted, outcomes scored by
`shengji.scoring` — for the page tests and the browser test, which need volume, not exact answers.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from store_factory import BIT_COLUMNS, SEAT_BITS

from ingest import rollups
from ingest.schema import BY_NAME, create_all
from shengji.cards import (
    card_points,
    format_cards,
    full_deck,
    points_of,
    rank_token,
)
from shengji.rules import FOUR_DECK
from shengji.scoring import level_change
from shengji.trump import TRUMP, trump_context

_DEFAULTS: dict[str, dict[str, Any]] = {
    "hands": {
        "file": "/data/test.jsonl",
        "line": 1,
        "status": "ok",
        "n_findings": 0,
        "n_tricks": 0,
        "content_hash": "x",
        "ingest_run": 1,
        "rules_preset": "four-deck",
        "rules_options": "{}",
        "decks": 4,
        "level_step": 80,
        "bottom_multiplier_rule": "power",
        "end_state": "complete",
        "throw_penalty_points": 0,
        "played_at": dt.datetime(2026, 11, 1, 20, 0),
    },
    "seats": {"n_findings": 0},
    "tricks": {
        "lead_suit": "S",
        "lead_shape": "single",
        "n_components": 1,
        "components": "AS",
        "n_cards": 1,
        "throw": False,
        "points": 0,
        "trump_in": False,
        "attackers_total": 0,
    },
    "plays": {"kind": "follow", "legal": True, "suit": "S", "n_cards": 1},
    "findings": {"reason": "a reason"},
    "rejects": {"raw": "{}", "ingest_run": 1, "reason": "a reason"},
}


_NEUTRAL: dict[str, Any] = {
    "VARCHAR": "",
    "BOOLEAN": False,
    "DOUBLE": 0.0,
    "TIMESTAMP": dt.datetime(2026, 1, 1),
}


def connect(path: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path))
    create_all(con)
    return con


def insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
    """Insert `rows` into `table`, filling unnamed columns with the defaults above or NULL, and
    the derived team columns from their seats."""
    if not rows:
        return
    spec = BY_NAME[table]
    full = []
    for i, row in enumerate(rows, start=1):
        r = dict(_DEFAULTS.get(table, {}))
        r.update(row)
        if table == "hands" and r.get("banker") is not None:
            r.setdefault("banker_team", r["banker"] % 2)
        if table == "seats":
            r.setdefault("team", r["seat"] % 2)
        if table == "tricks":
            r.setdefault("leader_team", r["leader"] % 2)
            r.setdefault("winner_team", r["winner"] % 2)
        if table == "findings":
            r.setdefault("finding_no", i)
        for col in spec.columns:
            # Required columns this helper does not know (the schema grows) get a neutral value.
            if col.required and r.get(col.name) is None:
                r[col.name] = _NEUTRAL.get(col.sql, 0)
        full.append({c: r.get(c) for c in spec.column_names})
    arrow = pa.Table.from_pylist(full, schema=spec.arrow_schema)
    con.register("_rows", arrow)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _rows")
    finally:
        con.unregister("_rows")
    if table in ("hands", "tricks"):
        # Ingest derives them from the hand's tricks (ingest/rows.py); so does this helper.
        cols = ", ".join(f"{c} = b.{c}" for c in BIT_COLUMNS)
        con.execute(
            f"UPDATE hands h SET {cols} FROM ({SEAT_BITS}) b "
            "WHERE b.source = h.source AND b.hand_id = h.hand_id"
        )
    rollups.refresh(con)  # as an ingest run does after writing hands


# --- synthetic coherent hands ----------------------------------------------------------------

ROSTER = ("lin", "mei", "jun", "hao", "yan", "bo", "qing", "tao", "wei", "xin", "ping", "fang")
STYLE = {name: ("careful", "bold", "novice")[i // 4] for i, name in enumerate(ROSTER)}
"""The simulator's styles of these names (shengji/sim/personas.py)."""
SOURCES = ("club-server", "night-table")


def _shape_of(n: int) -> str:
    return {1: "single", 2: "pair", 3: "triple", 4: "tractor<2-2>"}[n]


def synthetic_hands(n_hands: int, seed: int = 7) -> dict[str, list[dict[str, Any]]]:
    """Rows of every table for `n_hands` random hands (a few flagged, a few rejected)."""
    rng = random.Random(seed)
    out: dict[str, list[dict[str, Any]]] = {
        t: [] for t in ("hands", "seats", "tricks", "plays", "findings", "rejects", "ingest_runs")
    }
    start = dt.datetime(2026, 9, 1, 19, 0)
    for i in range(n_hands):
        source = SOURCES[i % 2]
        hand_id = f"h{i:05d}"
        players = rng.sample(ROSTER, 4)
        banker = rng.randrange(4)
        level = rng.randrange(2, 15)
        trump_suit = rng.choice([0, 1, 2, 3, 0, 1, 2, 3, None])
        ctx = trump_context(trump_suit, level)
        shoe = list(full_deck(4))
        rng.shuffle(shoe)
        holdings = [shoe[s * 52 : (s + 1) * 52] for s in range(4)]
        bottom = shoe[208:]
        before_bury = holdings[banker] + bottom
        rng.shuffle(before_bury)
        buried = before_bury[:8]
        holdings[banker] = before_bury[8:]
        status = "ok"
        if i % 17 == 5:
            status = "flagged"
        if i % 53 == 11:
            status = "rejected"
        tricks, plays = [], []
        seat_stats = [
            {"points_won": 0, "tricks_won": 0, "tricks_led": 0, "ta": 0, "tf": 0, "ruffs": 0}
            for _ in range(4)
        ]
        remaining = [list(h) for h in holdings]
        leader = banker
        attackers_total = 0
        t = 0
        last_size = 1
        failed_by: list[int] = []
        while remaining[0]:
            t += 1
            size = min(len(remaining[0]), rng.choice([1, 1, 1, 2, 2, 3, 4]))
            is_throw = size >= 3 and rng.random() < 0.5
            failed = is_throw and rng.random() < 0.3
            played = []
            if is_throw:
                # A throw leads one effective suit, so the rules core can read it (R4.1).
                by_suit: dict[int, list[int]] = {}
                for c in remaining[leader]:
                    by_suit.setdefault(ctx.eff[c], []).append(c)
                suits = [x for x, cs in by_suit.items() if len(cs) >= size]
                if suits:
                    pick = sorted(by_suit[rng.choice(suits)])[:size]
                    for c in pick:
                        remaining[leader].remove(c)
                    remaining[leader][:0] = pick
            for pos in range(4):
                seat = (leader + pos) % 4
                cards = sorted(remaining[seat][:size])
                del remaining[seat][:size]
                played.append((seat, cards))
            winner = played[rng.randrange(4)][0]
            pts = sum(points_of(c) for _, c in played)
            if winner % 2 != banker % 2:
                attackers_total += pts
            seat_stats[winner]["points_won"] += pts
            seat_stats[winner]["tricks_won"] += 1
            seat_stats[leader]["tricks_led"] += 1
            if is_throw:
                seat_stats[leader]["ta"] += 1
                seat_stats[leader]["tf"] += int(failed)
                if failed:
                    failed_by.append(leader)
            lead_cards = played[0][1]
            lead_suit = (
                "trump" if ctx.eff[lead_cards[0]] == TRUMP else "SHCD"[ctx.eff[lead_cards[0]]]
            )
            for pos, (seat, cards) in enumerate(played, start=1):
                kind = "lead" if pos == 1 else rng.choice(["follow"] * 6 + ["ruff", "discard"])
                if kind == "ruff":
                    seat_stats[seat]["ruffs"] += 1
                plays.append(
                    {
                        "source": source,
                        "hand_id": hand_id,
                        "trick": t,
                        "position": pos,
                        "seat": seat,
                        "cards": format_cards(cards),
                        "n_cards": len(cards),
                        "suit": lead_suit if kind != "discard" else "mixed",
                        "kind": kind,
                        "legal": not (status == "flagged" and t == 3 and pos == 2),
                        "play_index": (t - 1) * 4 + pos - 1,
                    }
                )
            tricks.append(
                {
                    "source": source,
                    "hand_id": hand_id,
                    "trick": t,
                    "leader": leader,
                    "lead_suit": lead_suit,
                    "lead_shape": "throw" if is_throw and not failed else _shape_of(min(size, 4)),
                    "n_components": 2 if is_throw and not failed else 1,
                    "components": format_cards(lead_cards),
                    "n_cards": size,
                    "throw": is_throw,
                    "throw_failed": failed if is_throw else None,
                    "throw_cards": format_cards(lead_cards) if is_throw else None,
                    "forced_cards": format_cards(lead_cards[:1]) if failed else None,
                    "blocker": (leader + 1) % 4 if failed else None,
                    "blocking_cards": format_cards(played[1][1][:1]) if failed else None,
                    "winner": winner,
                    "points": pts,
                    "trump_in": rng.random() < 0.05,
                    "attackers_total": attackers_total,
                }
            )
            leader = winner
            last_size = size
        bottom_points = points_of(buried)
        captured = tricks[-1]["winner"] % 2 != banker % 2
        multiplier = 2 ** min(last_size, 4) if captured else 0
        added = bottom_points * multiplier if captured else 0
        total = attackers_total + added
        outcome = level_change(total, FOUR_DECK)
        up_team = outcome.winning_team(banker)
        levels = [rng.randrange(2, 15), rng.randrange(2, 15)]
        levels[banker % 2] = level
        out["hands"].append(
            {
                "source": source,
                "hand_id": hand_id,
                "file": f"/data/{source}.jsonl",
                "line": i + 1,
                "match_id": f"m{i // 10}",
                "hand_no": i % 10 + 1,
                "played_at": start + dt.timedelta(hours=7 * i),
                "player0": players[0],
                "player1": players[1],
                "player2": players[2],
                "player3": players[3],
                "banker": banker,
                "level": rank_token(level),
                "level_team0": rank_token(levels[0]),
                "level_team1": rank_token(levels[1]),
                "trump": "NT" if trump_suit is None else "SHCD"[trump_suit],
                "trump_source": rng.choice(["show", "show", "overturn", "fry", "bottom"]),
                "status": status,
                "n_findings": 0 if status == "ok" else 1,
                "n_tricks": len(tricks),
                "attackers_points": total,
                "trick_points": attackers_total,
                "bottom_points": bottom_points,
                "bottom_captured": captured,
                "bottom_winner": tricks[-1]["winner"],
                "last_lead_shape": tricks[-1]["lead_shape"],
                "bottom_multiplier": multiplier if captured else 1,
                "bottom_added": added,
                "level_up_team": up_team,
                "level_up": outcome.levels,
                "banker_won": outcome.winner == "banker",
                "next_banker": (banker + 2) % 4 if outcome.winner == "banker" else (banker + 1) % 4,
            }
        )
        for seat in range(4):
            st = seat_stats[seat]
            role = (
                "banker"
                if seat == banker
                else "banker_partner"
                if seat % 2 == banker % 2
                else "attacker"
            )
            held = holdings[seat]
            out["seats"].append(
                {
                    "source": source,
                    "hand_id": hand_id,
                    "seat": seat,
                    "player": players[seat],
                    "style": STYLE[players[seat]],
                    "role": role,
                    "cards_start": format_cards(sorted(held)),
                    "n_cards_start": len(held),
                    "trumps_start": sum(1 for c in held if ctx.eff[c] == TRUMP),
                    "cards_before_bury": format_cards(sorted(before_bury))
                    if seat == banker
                    else None,
                    "trumps_before_bury": sum(1 for c in before_bury if ctx.eff[c] == TRUMP)
                    if seat == banker
                    else None,
                    "point_cards_start": sum(1 for c in held if card_points(c)),
                    "points_start": points_of(held),
                    "points_won": st["points_won"],
                    "tricks_won": st["tricks_won"],
                    "tricks_led": st["tricks_led"],
                    "throws_attempted": st["ta"],
                    "throws_failed": st["tf"],
                    "ruffs": st["ruffs"],
                    "ladder_points": 3 * outcome.levels * (seat % 2 == up_team)
                    - failed_by.count(seat),
                    "n_findings": int(status != "ok" and seat == (banker + 1) % 4),
                }
            )
        if status != "ok":
            out["findings"].append(
                {
                    "source": source,
                    "hand_id": hand_id,
                    "finding_no": 1,
                    "code": "illegal-follow" if status == "flagged" else "card-not-held",
                    "trick": 3,
                    "seat": (banker + 1) % 4,
                    "reason": "seat played 7H while holding hearts",
                    "line": i + 1,
                }
            )
        if status == "rejected":
            # A rejected hand keeps the tricks before its fault only.
            tricks = [tr for tr in tricks if tr["trick"] < 3]
            plays = [p for p in plays if p["trick"] < 3]
            out["hands"][-1].update(
                {
                    "n_tricks": 2,
                    "attackers_points": None,
                    "bottom_captured": None,
                    "banker_won": None,
                    "level_up": None,
                    "level_up_team": None,
                }
            )
            out["rejects"].append(
                {
                    "file": f"/data/{source}.jsonl",
                    "line": i + 1,
                    "source": source,
                    "hand_id": hand_id,
                    "code": "card-not-held",
                    "reason": "seat 1 played 7H it does not hold",
                    "raw": json.dumps({"hand_id": hand_id}),
                }
            )
        out["tricks"].extend(tricks)
        out["plays"].extend(plays)
    out["rejects"].append(
        {
            "file": "/data/club-server.jsonl",
            "line": n_hands + 1,
            "code": "bad-json",
            "reason": "line 1 is not json: expecting value",
            "raw": "{not json",
        }
    )
    return out


def synthetic_db(path: Path, n_hands: int = 120, seed: int = 7) -> Path:
    rows = synthetic_hands(n_hands, seed)
    con = connect(path)
    try:
        for table in ("hands", "seats", "tricks", "plays", "findings", "rejects"):
            insert(con, table, rows[table])
        now = dt.datetime(2026, 12, 1, 12, 0)
        ok = sum(1 for h in rows["hands"] if h["status"] == "ok")
        flagged = sum(1 for h in rows["hands"] if h["status"] == "flagged")
        rejected = len(rows["rejects"])
        insert(
            con,
            "ingest_runs",
            [
                {
                    "run_id": 1,
                    "started": now,
                    "finished": now,
                    "files": 2,
                    "file_list": "[]",
                    "lines_read": ok + flagged + rejected,
                    "blank_lines": 0,
                    "hands_ok": ok,
                    "hands_flagged": flagged,
                    "hands_rejected": rejected,
                    "duplicates": 0,
                    "conflicts": 0,
                    "inserted": ok + flagged,
                    "replaced": 0,
                    "unchanged": 0,
                    "findings": flagged,
                    "findings_by_code": "{}",
                    "duration_s": 1.5,
                    "hands_per_s": 100.0,
                    "version": "0.1.0",
                    "schema_version": 1,
                }
            ],
        )
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return path


# --- real hands through the real pipeline ------------------------------------------------------


def corpus_lines(n_hands: int, seed: int = 11) -> list[str]:
    """`n_hands` legal random hands (tests/hh_builder.py) as `tractor-hh/1` lines, dated an evening
    apart and seated from the roster, then one hand whose server claimed a wrong score (flagged),
    one with an unknown field (rejected) and one line that is not JSON (rejected, no key). Three
    hands in four carry the simulator's `_personas` field for their players."""
    from hh_builder import played_hand

    from shengji.record import format_hand
    from shengji.sim.personas import persona
    from shengji.sim.table import personas_field

    rng = random.Random(seed)
    start = dt.datetime(2026, 10, 1, 19, 30)
    lines = []
    for i in range(n_hands + 2):
        record = played_hand(
            seed * 1000 + i,
            banker=i % 4,
            levels=(2 + i % 7, 2 + (i * 3) % 9),
            hand_id=f"g{i:04d}",
            throw_rate=0.2,
        )
        obj = json.loads(format_hand(record))
        obj["source"] = SOURCES[i % 2]
        obj["players"] = rng.sample(ROSTER, 4)
        if i % 4 != 3:
            obj["_personas"] = personas_field([persona(name) for name in obj["players"]])
        obj["match_id"] = f"m{i // 8}"
        obj["hand_no"] = i % 8 + 1
        obj["played_at"] = (start + dt.timedelta(days=i // 3, minutes=20 * (i % 3))).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        if i == n_hands:
            obj["claimed"] = {"attackers_points": 5}  # a server that got the score wrong
        if i == n_hands + 1:
            obj["shuffle_seed"] = 1  # an unknown field without `_`: rejected
        lines.append(json.dumps(obj, separators=(",", ":")))
    lines.append("{this is not json")
    return lines


def ingested_db(folder: Path, n_hands: int = 40, seed: int = 11) -> Path:
    """A store pointer under `folder` holding `corpus_lines` ingested by the real pipeline; the
    source file stays at `folder/corpus.jsonl`, so the replay page can re-read it."""
    from ingest.pipeline import ingest

    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "corpus.jsonl"
    src.write_text("\n".join(corpus_lines(n_hands, seed)) + "\n")
    db = folder / "tractor.duckdb"
    ingest([src], db, workers=0, progress=False)
    return db
