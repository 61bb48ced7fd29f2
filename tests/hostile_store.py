"""A store whose every log string is hostile: player names, hand ids, sources, match ids, a
persona's style, a finding's quoted token and a rejected line are HTML, Markdown, LaTeX and
Streamlit directives. The dashboard must show each of them as literal text (tests/
test_dashboard_escaping.py under AppTest, tests/test_dashboard_browser.py in Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from analytics_testdb import corpus_lines

# Every page of the app, for the tests that visit them all with a hostile store.
PAGES = (
    "views/overview.py",
    "views/bottom.py",
    "views/throws.py",
    "views/trump_length.py",
    "views/players.py",
    "views/coaching.py",
    "views/explorer.py",
    "views/replay.py",
    "views/hands.py",
    "views/audit.py",
    "views/import_files.py",
)

FRAME = '<iframe src="http://127.0.0.1:9/frame" id="evil-frame"></iframe>'
IMAGE = "<img src=x onerror=\"document.title='pwned'\" id=evil-img>"
FORM = '<form action="http://127.0.0.1:9/post" id="evil-form"><button>go</button></form>'
STYLE = "<style>body{display:none}</style>"
MD_IMAGE = "![t](http://127.0.0.1:9/x.png)"
BOLD = "**bold**"
LATEX = "$x^2$"
COLOUR = ":red[x]"

PLAYERS = (FRAME, IMAGE, FORM, STYLE, MD_IMAGE, BOLD, LATEX, COLOUR)
"""Eight names, seated four at a time."""
SOURCE = "<b>src</b> :blue[s] $y$"
MATCH = '<a href="http://127.0.0.1:9/">m</a> **m**'
HAND_PREFIX = "<i>h</i>![h](http://127.0.0.1:9/h.png)"
STYLE_NAME = '<img src=y id="evil-style"> _careful_'
BAD_CARD = "<img/id=evil-card/src=z>"
RAW_LINE = '{"hand_id": "<iframe id=evil-raw></iframe> **raw**" $z$'
REASON = '<img src=r id="evil-reason"> _why_ $r$ :green[r] [link](http://127.0.0.1:9/r)'
"""Written over every finding's and trick's reason after the ingest (the replay itself only
quotes cards in them)."""

ALL = (*PLAYERS, SOURCE, MATCH, HAND_PREFIX, STYLE_NAME, BAD_CARD, RAW_LINE, REASON)
"""Every element any of them could create has an id starting `evil-` or a source on 127.0.0.1:9."""


def hostile_lines(n_hands: int = 10) -> list[str]:
    """`corpus_lines` with hostile strings in every free-text field, then a hand playing a card
    that is a tag (rejected: its reason quotes the token) and a broken line holding markup."""
    lines = []
    for i, line in enumerate(corpus_lines(n_hands, seed=23)):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        obj["players"] = [PLAYERS[(i + k) % len(PLAYERS)] for k in range(4)]
        obj["source"] = SOURCE
        obj["match_id"] = MATCH
        obj["hand_id"] = f"{HAND_PREFIX}{i:03d}"
        obj.pop("shuffle_seed", None)
        if "_personas" in obj:
            obj["_personas"][0]["style"] = STYLE_NAME
        lines.append(obj)
    bad = json.loads(json.dumps(lines[1]))
    bad["hand_id"] = f"{HAND_PREFIX}bad-card"
    bad["plays"][3]["cards"] = BAD_CARD
    lines.append(bad)
    return [json.dumps(o, ensure_ascii=False) for o in lines] + [RAW_LINE]


def hostile_db(folder: Path, n_hands: int = 10) -> Path:
    """The hostile lines ingested by the real pipeline into a store under `folder`."""
    from ingest.pipeline import ingest

    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "hostile.jsonl"
    src.write_text("\n".join(hostile_lines(n_hands)) + "\n", encoding="utf-8")
    db = folder / "tractor.duckdb"
    ingest([src], db, workers=0, progress=False)
    con = duckdb.connect(str(db.resolve()))  # the published version, before any reader
    try:
        con.execute("UPDATE findings SET reason = ?", [REASON])
        con.execute("UPDATE tricks SET reason = ?", [REASON])
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return db
