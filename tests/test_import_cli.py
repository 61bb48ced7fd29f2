"""`shengji import` and `shengji ingest` on other engines' logs: detection by content (a
tractor-hh/1 file still reads as before), the summary's formats, and import → replay stability."""

from __future__ import annotations

import gzip
import json
import shutil
import time
from pathlib import Path

import pytest

from ingest.pipeline import ingest
from ingest.sources import file_format, read_items
from ingest.store import open_reader
from shengji.cli import main
from shengji.hhfile import read_lines
from shengji.importers import HISTORY, detect_file
from shengji.replay import replay_line

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "data" / "engines"
SAMPLE = ROOT / "data" / "sample" / "hands.jsonl.gz"


def _some_logs(tmp_path: Path) -> Path:
    """A folder with a log of each engine, the crashed match and the log without hands."""
    root = tmp_path / "logs"
    for part in (
        "jerryyyu/SMA1.jsonl.gz",
        "botzone/r1001.json.gz",
        "botzone/s6008.json.gz",
        "ejfn/seed0003.log.gz",
        "ejfn/seed0101.log.gz",
    ):
        target = root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ENGINES / part, target)
    return root


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (ENGINES / "jerryyyu" / "HEU1.jsonl.gz", "jerryyyu"),
        (ENGINES / "botzone" / "g2001.json.gz", "botzone"),
        (ENGINES / "botzone" / "judge2023" / "real-botzone-sample.json.gz", "botzone"),
        (ENGINES / "ejfn" / "seed0002.log.gz", "ejfn"),
        (ENGINES / "ejfn" / "seed0101.log.gz", "ejfn"),
        (SAMPLE, HISTORY),
    ],
)
def test_the_format_is_recognised_by_content(path: Path, fmt: str) -> None:
    assert detect_file(path) == fmt


def test_detection_does_not_go_by_the_name(tmp_path: Path) -> None:
    doc = json.loads(gzip.decompress((ENGINES / "botzone" / "r1001.json.gz").read_bytes()))
    pretty = tmp_path / "match.jsonl"
    pretty.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert detect_file(pretty) == "botzone"
    room = tmp_path / "room.log"
    room.write_bytes(gzip.decompress((ENGINES / "jerryyyu" / "SMA1.jsonl.gz").read_bytes()))
    assert detect_file(room) == "jerryyyu"
    other = tmp_path / "server.log"
    other.write_text("2026-12-05 started\n", encoding="utf-8")
    assert detect_file(other) is None


def test_a_history_file_reads_exactly_as_before(tmp_path: Path) -> None:
    """ingest reads a tractor-hh/1 file's lines as they are, blank, bad and too long included;
    a .jsonl file no reader recognises is still read as hand histories (its faults are the
    replay's findings), while another file no reader recognises is not read."""
    path = tmp_path / "h.jsonl"
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as fh:
        lines = [next(fh).rstrip("\n") for _ in range(3)]
    path.write_text("\n".join([lines[0], "", "{not json", *lines[1:]]) + "\n", encoding="utf-8")
    assert file_format(path) == HISTORY
    assert list(read_items(path, HISTORY)) == list(read_lines(path))
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n", encoding="utf-8")
    assert file_format(junk) == HISTORY
    other = tmp_path / "junk.log"
    other.write_text("{not json\n", encoding="utf-8")
    assert file_format(other) is None


def test_import_writes_the_hands_and_says_how_each_file_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl.gz"
    assert main(["import", str(_some_logs(tmp_path)), "-o", str(out)]) == 1  # seed0101
    printed = capsys.readouterr()
    assert "imported 52 hand(s) from 5 file(s)" in printed.out
    assert "read as jerryyyu: SMA1.jsonl.gz (26)" in printed.out
    assert "read as botzone: r1001.json.gz (1), s6008.json.gz (1)" in printed.out
    assert "read as ejfn: seed0003.log.gz (24), seed0101.log.gz (0)" in printed.out
    assert "52 written (1 abandoned) · 34 not imported" in printed.out
    assert "seed0101.log.gz:" in printed.err and "the deal cannot be rebuilt" in printed.err
    assert "turn 346" in printed.err and "Unknown Error" in printed.err
    got = [json.loads(line.text) for line in read_lines(out)]
    assert len(got) == 52
    assert {h["source"] for h in got} == {"jerryyyu", "botzone", "ejfn"}
    assert {h["rules"] for h in got} == {"jerryyyu", "botzone", "ejfn"}


def test_import_from_a_named_engine_and_its_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = _some_logs(tmp_path)
    out = tmp_path / "out.jsonl"
    room = logs / "jerryyyu" / "SMA1.jsonl.gz"
    assert main(["import", "--from", "jerryyyu", str(room), "-o", str(out)]) == 0
    assert "read as jerryyyu" in capsys.readouterr().out
    assert main(["import", "--from", "botzone", str(room), "-o", str(out)]) == 1
    assert "not a Botzone match" in capsys.readouterr().err
    stray = tmp_path / "notes.log"
    stray.write_text("hello\n", encoding="utf-8")
    assert main(["import", str(stray), "-o", str(out)]) == 1
    assert "not a log of a known format" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "nothing"), "-o", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["import", str(out), "-o", str(out)]) == 2
    assert "is also an input" in capsys.readouterr().err


def test_import_then_replay_is_stable(tmp_path: Path) -> None:
    """Importing twice gives the same bytes, so the same hands and content hashes; importing the
    output again copies it unchanged; replaying a hand twice gives the same result."""
    logs = _some_logs(tmp_path)
    first, second, again = tmp_path / "1.jsonl", tmp_path / "2.jsonl", tmp_path / "3.jsonl"
    for out in (first, second):
        main(["import", str(logs), "-o", str(out)])
    assert first.read_bytes() == second.read_bytes()
    assert main(["import", str(first), "-o", str(again)]) == 0
    assert again.read_bytes() == first.read_bytes()
    for line in read_lines(first):
        a, b = replay_line(line.text), replay_line(line.text)
        assert a.content_hash == b.content_hash and a.status == b.status
        assert a.findings == b.findings and a.tricks == b.tricks


def test_ingest_reads_engine_logs_directly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = _some_logs(tmp_path)
    shutil.copy(SAMPLE, logs / "sample.jsonl.gz")
    db = tmp_path / "t.duckdb"
    result = ingest([logs], db, workers=0, progress=False)
    formats = {Path(k).name: v for k, v in result.formats.items()}
    assert formats == {
        "SMA1.jsonl.gz": "jerryyyu",
        "r1001.json.gz": "botzone",
        "s6008.json.gz": "botzone",
        "seed0003.log.gz": "ejfn",
        "seed0101.log.gz": "ejfn",
        "sample.jsonl.gz": HISTORY,
    }
    con = open_reader(db)
    try:
        per_source = dict(
            con.execute(
                "SELECT source, count(*) FROM hands WHERE status <> 'rejected' GROUP BY source"
            ).fetchall()
        )
        rejects = con.execute(
            "SELECT count(*), min(reason) FROM rejects WHERE code = 'bad_import'"
        ).fetchall()
        crashed = con.execute(
            "SELECT status, end_state FROM hands WHERE hand_id = 's6008'"
        ).fetchall()
    finally:
        con.close()
    assert per_source["jerryyyu"] == 26 and per_source["botzone"] == 2
    assert per_source["ejfn"] == 24 and len(per_source) == 4
    assert rejects[0][0] == 34 and "the deal cannot be rebuilt" in rejects[0][1]
    assert crashed == [("flagged", "abandoned")]
    again = ingest([logs], db, workers=0, progress=False)
    assert again.counts.inserted == 0 and again.counts.replaced == 0


def test_the_import_page_ingests_engine_logs_as_uploaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard's Import page takes a Botzone match and a jerryyyu room log as they are."""
    from streamlit.testing.v1 import AppTest

    target = tmp_path / "db" / "tractor.duckdb"
    monkeypatch.setenv("SHENGJI_DB", str(target))
    match = gzip.decompress((ENGINES / "botzone" / "r1001.json.gz").read_bytes())
    room = (ENGINES / "jerryyyu" / "SMA1.jsonl.gz").read_bytes()
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.switch_page("views/import_files.py").run()
    assert "Botzone" in " ".join(c.value for c in at.caption)
    at.file_uploader(key="im_files").set_value(
        [
            ("r1001.json", match, "application/json"),
            ("SMA1.jsonl.gz", room, "application/gzip"),
        ]
    )
    at.run()
    at.button(key="im_go").click().run()
    # The page imports in a process of its own and polls it (a browser's timer; AppTest reruns).
    deadline = time.monotonic() + 300
    while any(b.key == "im_cancel" for b in at.button):
        assert time.monotonic() < deadline, "the import did not finish"
        time.sleep(0.2)
        at.run()
    assert not at.exception and not at.error
    report = at.code[0].value
    assert "read as botzone: 1 file(s)" in report and "read as jerryyyu: 1 file(s)" in report
    con = open_reader(target)
    try:
        sources = dict(con.execute("SELECT source, count(*) FROM hands GROUP BY source").fetchall())
    finally:
        con.close()
    assert sources == {"botzone": 1, "jerryyyu": 26}


def test_a_staged_ray_chunk_is_named_by_its_import_faults_too() -> None:
    """The Ray engine reuses a staged chunk by its name: two chunks that differ only in the hands
    that could not be converted must not share one."""
    from ingest.pipeline import Chunk
    from ingest.ray_engine import chunk_id
    from ingest.sources import ImportFault

    plain = Chunk("f.log.gz", 1, [])
    faulty = Chunk("f.log.gz", 1, [], faults=(ImportFault(3, "g-1", "ejfn", "no hands"),))
    assert chunk_id(plain) != chunk_id(faulty)
