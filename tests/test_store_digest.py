"""What ingest stores, byte for byte: every table of a fixed corpus digested, so speed work on the
pipeline (decoding, row building, Arrow, the merge) cannot change a stored value unnoticed.

The corpus: the first lines of the bundled sample, the bundled faulty file, and hostile lines that
two JSON decoders could read differently (NaN, Infinity, integers past 64 bits, lone surrogate
escapes, duplicate keys, deep nesting, a byte-order mark, bytes that are not UTF-8) and the same
key twice. tests/data/store_digest.json holds the digests; after a deliberate change of what is
stored, rewrite it with `python tests/test_store_digest.py`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ingest.decode import replay_text
from ingest.pipeline import ingest
from ingest.schema import INGEST_RUNS, TABLES
from ingest.store import open_reader
from shengji.replay import replay_line

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "hands.jsonl.gz"
FAULTY = ROOT / "data" / "faulty" / "faulty.jsonl.gz"
DIGEST = Path(__file__).resolve().parent / "data" / "store_digest.json"
SAMPLE_LINES = 120


def _sample(n: int) -> list[str]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as fh:
        return [next(fh).rstrip("\n") for _ in range(n)]


def _edit(line: str, **change: Any) -> str:
    obj = json.loads(line)
    obj.update(change)
    return json.dumps(obj)


def hostile_lines(good: list[str]) -> list[str]:
    """Lines where decoders part ways, each a variant of a good hand under its own id."""
    g = good
    text = g[0]
    head = text[: text.index("{") + 1]
    return [
        _edit(g[1], hand_id="nan", hand_no=float("nan")),  # json.dumps writes NaN
        _edit(g[1], hand_id="inf", _x=float("inf")),
        _edit(g[1], hand_id="big-no", hand_no=2**63 + 5),
        _edit(g[1], hand_id="big-u64", hand_no=2**64 - 1),
        _edit(g[1], hand_id="big-neg", hand_no=-(2**63) - 1),
        _edit(g[1], hand_id="big-nested", _x={"y": [10**30]}),
        _edit(g[1], hand_id="big-19", _x=1234567890123456789),
        _edit(g[1], hand_id="digits-in-text", _x="12345678901234567890123"),
        _edit(g[1], hand_id="big-step", rules={"preset": "four-deck", "level_step": 8 * 10**21}),
        _edit(g[1], hand_id="float-no", hand_no=3.0),
        _edit(g[1], hand_id="exp-no", hand_no=7).replace('"hand_no": 7', '"hand_no": 7e0'),
        _edit(g[1], hand_id="neg-zero", hand_no=0).replace('"hand_no": 0', '"hand_no": -0'),
        _edit(g[1], hand_id="sur", players=["\ud800", "b", "c", "d"]),
        _edit(g[1], hand_id="sur-pair", players=["\U0001f600", "b", "c", "d"]),
        _edit(g[1], hand_id="sur-low", _x="\udc00a"),
        _edit(g[1], hand_id="ctl-escaped", _x="a\u0000b\u2028c"),
        head + '"hand_id": "dup-key", ' + _edit(g[2], hand_id="dup-key-2")[1:],
        head + '"players": ["x"], ' + _edit(g[2], hand_id="dup-players")[1:],
        _edit(g[2], hand_id="dup-key-2"),  # the same key again, different content
        "[" * 5000 + "]" * 5000,
        '{"a":' * 2000 + "1" + "}" * 2000,
        "\ufeff" + _edit(g[3], hand_id="bom"),
        _edit(g[3], hand_id="trailing") + " x",
        _edit(g[3], hand_id="tab").replace('"tab"', '"t\tab"'),
        '"a string"',
        "[1, 2, 3]",
        "{}",
        _edit(g[3], hand_id="digits")[:-1] + ',"_n":' + "9" * 5000 + "}",
        _edit(g[3], hand_id="float-level", levels=[2.0, "3"]),
        g[3],  # a good line, the same key as the sample's: a duplicate of identical content
    ]


def _write_corpus(folder: Path) -> list[Path]:
    good = _sample(SAMPLE_LINES)
    folder.mkdir(parents=True, exist_ok=True)
    a = folder / "a.jsonl.gz"
    a.write_bytes(gzip.compress(("\n".join(good) + "\n").encode()))
    b = folder / "b.jsonl"
    body = ("\n".join(hostile_lines(good)) + "\n").encode("utf-8")
    # bytes that are not UTF-8 inside a hand's text, and a line of them alone
    body += _edit(good[5], hand_id="latin").encode().replace(b'"latin"', b'"lat\xe9n"') + b"\n"
    body += b"\xff\xfe\x00\n"
    b.write_bytes(body)
    c = folder / "c.jsonl.gz"
    c.write_bytes(FAULTY.read_bytes())
    return [a, b, c]


def table_digests(db: Path, root: Path) -> dict[str, Any]:
    """Row count and SHA-256 of every stored table's sorted rows (paths made relative to `root`);
    the `ingest_runs` row is left out (times, durations, version)."""
    con = open_reader(db)
    out: dict[str, Any] = {}
    try:
        for t in TABLES:
            if t is INGEST_RUNS:
                continue
            rows = con.execute(f"SELECT * FROM {t.name} ORDER BY ALL").fetchall()
            text = json.dumps(rows, default=repr, ensure_ascii=False).replace(str(root), "<root>")
            out[t.name] = [len(rows), hashlib.sha256(text.encode()).hexdigest()]
    finally:
        con.close()
    return out


def digest_of_ingest(tmp: Path, workers: int) -> dict[str, Any]:
    files = _write_corpus(tmp / "in")
    ingest(files, tmp / "db" / "t.duckdb", workers=workers, progress=False)
    return table_digests(tmp / "db" / "t.duckdb", tmp / "in")


@pytest.mark.parametrize("workers", [0, 1])
def test_stored_tables_are_unchanged(tmp_path: Path, workers: int) -> None:
    expected = json.loads(DIGEST.read_text(encoding="utf-8"))
    assert digest_of_ingest(tmp_path, workers) == expected


def test_the_corpus_has_what_it_is_for(tmp_path: Path) -> None:
    """Every table has rows (so each digest compares something), and the hostile lines are there."""
    expected = json.loads(DIGEST.read_text(encoding="utf-8"))
    assert all(count > 0 for count, _ in expected.values())
    assert len(hostile_lines(_sample(SAMPLE_LINES))) >= 30


def test_fast_decoding_replays_exactly_as_the_core(tmp_path: Path) -> None:
    """`replay_text` (orjson) and `replay_line` (json) give equal replays, line by line."""
    files = _write_corpus(tmp_path)
    lines: list[str] = []
    for f in files:
        raw = gzip.decompress(f.read_bytes()) if f.name.endswith(".gz") else f.read_bytes()
        lines += raw.decode("utf-8", "surrogateescape").split("\n")
    fast = [replay_text(x, line=i, strict=False) for i, x in enumerate(lines)]
    core = [replay_line(x, line=i, strict=False) for i, x in enumerate(lines)]
    assert [repr(x) for x in fast] == [repr(x) for x in core]
    assert sum(r.status == "rejected" for r in core) >= 25


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        DIGEST.write_text(json.dumps(digest_of_ingest(Path(tmp), 0), indent=1) + "\n")
    print(f"wrote {DIGEST}", file=sys.stderr)
