"""Where a replay worker's instructions go: `pipeline.replay_chunk` (replay, audit, review, rows,
Arrow: all a worker does with a chunk) counted by valgrind's callgrind, by part.

Two runs of a chunk: the base corpus's first `FEW` lines, and all of it; a part's cost per line is
the difference of its inclusive counts over the lines' difference, so start-up, imports and first
calls cancel. All of it, not a sample of its first lines: a few hands cost tens of times the
median (one hand in 1,149 counts its thrown tractor's odds in 91,000 steps), and the first 300
lines held one of them: the throws' odds came to 0.89 M instructions a line there, 0.49 M over all
the lines (2026-12-04). A count does not drift with the machine's load as timings do, but it
weighs an instruction that waits on memory like one that does not. Part of `bench ingest`;
measured only where valgrind is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FEW = 1
PARTS: tuple[tuple[str, str], ...] = (
    ("replay and audit (`replay_record`)", r"CPyDef_replay___replay_record"),
    ("· the play walk (`_play`)", r"CPyDef_replay____Replay____play"),
    ("· · the follow check (R5, `follow_is_legal`)", r"CPyDef_follow___follow_is_legal"),
    ("· · the trick's winner (R6, `resolve_trick`)", r"CPyDef_trick___resolve_trick"),
    ("· the result, with the content hash (`_result`)", r"CPyDef_replay____Replay____result"),
    ("· · the canonical line (`format_hand`)", r"CPyDef_record___format_hand"),
    ("reading the line (`hand_from_json`)", r"CPyDef_record___hand_from_json"),
    ("coaching review (`review_for_store`)", r"CPyDef_review___review_for_store"),
    ("· throws' odds (`_throw`)", r"CPyDef_review____Review____throw"),
    ("· fourth seats (`_last_seat`)", r"CPyDef_review____Review____last_seat"),
    ("rows (`flat.add_hand`)", r"CPyDef_flat___add_hand"),
    ("Arrow tables (`pyarrow.array`)", r"pyarrow_3lib_\d+array\b"),
    ("sha256 (line hash, content hash)", r"_hashlib_openssl_sha256\b"),
    ("cycle collector", r"gc_collect_main\b"),
)
"""(name, regex of callgrind_annotate's function name); `·` marks a part of the row above."""

_TOTAL = re.compile(r"^\s*([\d,]+)\s.*PROGRAM TOTALS", re.MULTILINE)
_LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$")


def inclusive(annotated: str) -> dict[str, int]:
    """Each part's inclusive count in `callgrind_annotate --inclusive=yes` output (the largest
    line matching its pattern: recursion shows a function again with a `'2` suffix, below) and
    `total`, the program's."""
    total = _TOTAL.search(annotated)
    if total is None:
        raise ValueError("no PROGRAM TOTALS in callgrind_annotate's output")
    out = {"total": int(total.group(1).replace(",", ""))}
    patterns = [(name, re.compile(rx)) for name, rx in PARTS]
    for line in annotated.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        count = int(m.group(1).replace(",", ""))
        function = m.group(2).split(" [", 1)[0]
        for name, rx in patterns:
            if rx.search(function) and count > out.get(name, -1):
                out[name] = count
    return out


def per_line(few: dict[str, int], many: dict[str, int], lines: int) -> dict[str, float]:
    """Instructions per line of each part (and `total`): the difference over `lines - FEW`, where
    `many` counted `lines` lines."""
    return {k: (many[k] - few.get(k, 0)) / (lines - FEW) for k in many}


def corpus_lines(lines: int | None = None) -> list[str]:
    """The base corpus's first `lines` non-blank lines (None: all of them)."""
    import gzip

    from bench.ingest import base_corpus

    with gzip.open(base_corpus(), "rt", encoding="utf-8") as f:
        texts = [t for t in f if t.strip()]
    return texts if lines is None else texts[:lines]


def chunk_run(lines: int | None) -> None:
    """Replay a chunk of the base corpus's first `lines` lines (None: all) as a worker does (run
    under callgrind by `measure`)."""
    from ingest.pipeline import Chunk, _NoPandas, replay_chunk

    sys.meta_path.insert(0, _NoPandas())  # as in a worker: pyarrow would import pandas
    texts = corpus_lines(lines)
    replay_chunk(Chunk("bench.jsonl", 1, list(enumerate(texts, 1))))
    os._exit(0)  # the interpreter's shutdown is not the worker's cost


def measure(env: dict[str, str], root: Path) -> dict[str, float] | None:
    """Instructions per line by part, or None where valgrind (or its annotate script) is not
    installed."""
    valgrind, annotate = shutil.which("valgrind"), shutil.which("callgrind_annotate")
    if valgrind is None or annotate is None:
        return None

    def count(lines: int | None) -> dict[str, int]:
        with tempfile.TemporaryDirectory() as tmp:
            out = f"{tmp}/callgrind.out"
            subprocess.run(
                [
                    valgrind,
                    "--tool=callgrind",
                    f"--callgrind-out-file={out}",
                    sys.executable,
                    "-c",
                    f"from bench.worker_profile import chunk_run; chunk_run({lines})",
                ],
                cwd=root,
                env=env,
                capture_output=True,
                check=True,
            )
            shown = subprocess.run(
                [annotate, "--inclusive=yes", "--threshold=100", out],
                capture_output=True,
                text=True,
                check=True,
            )
        return inclusive(shown.stdout)

    with ThreadPoolExecutor(max_workers=2) as pool:
        few, many = pool.map(count, (FEW, None))
    lines = len(corpus_lines())
    return {**per_line(few, many, lines), "lines": lines}


def table(counts: dict[str, float] | None) -> list[str]:
    """The report's lines: each part's instructions a line and share of the worker's."""
    if counts is None:
        return ["A worker's instructions by part: not measured (valgrind is not installed).", ""]
    total = counts["total"]
    lines = [
        f"Where a replay worker's instructions go (valgrind's callgrind; `replay_chunk` of the "
        f"base corpus's {counts['lines']:,.0f} lines against its first {FEW}, the "
        "difference a line, so "
        "start-up and first calls cancel; inclusive counts, `·` a part of the row above; a count "
        "does not drift with the machine's load, but weighs an instruction that waits on memory "
        "like one that does not):",
        "",
        "| part | instructions a line | share |",
        "|---|---:|---:|",
        f"| all of `replay_chunk` | {total / 1e6:.2f} M | 100% |",
    ]
    for name, _ in PARTS:
        value = counts.get(name)
        if value is None:
            continue
        lines.append(f"| {name} | {value / 1e6:.2f} M | {value / total:.0%} |")
    rest = total - sum(counts.get(name, 0.0) for name, _ in PARTS if not name.startswith("·"))
    lines += [
        f"| the rest (decoding with orjson, the Python between) | {rest / 1e6:.2f} M | "
        f"{rest / total:.0%} |",
        "",
    ]
    return lines
