"""Every table's "Download as CSV" (and a copy of its cells) holds no text a spreadsheet would run
as a formula: a log whose player names, hand ids, source and lines start with `=`, `+`, `-`, `@`,
a tab or a carriage return is shown with those cells prefixed by `'`; numbers stay numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from analytics_testdb import corpus_lines
from hostile_store import PAGES
from streamlit.testing.v1 import AppTest

from dashboard import ui

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")

PLAYERS = (
    '=HYPERLINK("http://127.0.0.1:9/x","click")',
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
)
RISKY = re.compile(r"^[=+\-@\t\r]")
NUMBER = re.compile(ui.PLAIN_NUMBER)


def _formula_lines(n_hands: int = 8) -> list[str]:
    lines = []
    for i, line in enumerate(corpus_lines(n_hands, seed=29)):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        obj["players"] = [PLAYERS[(i + k) % len(PLAYERS)] for k in range(4)]
        obj["source"] = "+src"
        obj["match_id"] = "=m"
        obj["hand_id"] = f"@h{i:03d}"
        lines.append(json.dumps(obj))
    return [*lines, '=cmd|" /C calc"!A0 is no hand']


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ingest.pipeline import ingest

    folder = tmp_path_factory.mktemp("formulas")
    src = folder / "formulas.jsonl"
    src.write_text("\n".join(_formula_lines()) + "\n")
    db = folder / "tractor.duckdb"
    ingest([src], db, workers=0, progress=False)
    return db


def test_inert_cells_prefixes_formula_text_only() -> None:
    df = pl.DataFrame(
        {
            "who": [*PLAYERS, "ann", None, "-5", "- 5", "—"],
            "n": [-5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            "rate": [-0.5, 0.1, None, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        }
    )
    shown = ui.inert_cells(df)
    assert shown["who"].to_list() == [
        *(f"'{p}" for p in PLAYERS),
        "ann",
        None,
        "-5",
        "'- 5",
        "—",
    ]
    assert shown["n"].to_list() == df["n"].to_list() and shown["n"].dtype == pl.Int64
    assert shown["rate"].dtype == pl.Float64


@pytest.mark.parametrize("page", PAGES)
def test_no_table_cell_starts_a_formula(
    store: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    cells = []
    for frame in at.dataframe:
        df = frame.value
        for name in df.columns:
            cells += [v for v in df[name].tolist() if isinstance(v, str)]
    risky = [v for v in cells if RISKY.match(v) and not NUMBER.match(v)]
    assert risky == [], (page, risky[:5])
    if page in ("views/players.py", "views/audit.py"):
        assert any(v.startswith("'") for v in cells), page  # the hostile text was shown
