"""Import speed per format: other engines' logs (data/engines) converted, replayed and ingested.

Three figures per format, each in hands per CPU-second of this process (the median of REPEAT runs):
the conversion alone (`shengji import`'s work: read, rebuild, write the canonical line), the
conversion with the replay of every hand, and `shengji ingest` of the same files end to end in
this process (`workers=0`, so its CPU time is all here), beside the tractor-hh/1 ingest section.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from shengji.cli import core_build
from shengji.importers import read_file
from shengji.record import format_hand
from shengji.replay import replay_record

ENGINES = Path(__file__).resolve().parent.parent / "data" / "engines"
REPEAT = 5
FORMATS: tuple[tuple[str, str], ...] = (
    ("jerryyyu", "jerryyyu/*.jsonl.gz"),
    ("botzone", "botzone/*.json.gz"),
    ("ejfn", "ejfn/seed000*.log.gz"),
)
"""The logs measured: each engine's complete logs (not the 2023 judge's, nor ejfn without hands)."""


@dataclass(frozen=True)
class Rates:
    files: int
    hands: int
    convert: float
    """Hands per CPU-second, conversion only."""
    replay: float
    """Hands per CPU-second, conversion and replay."""
    ingest: float
    """Hands per CPU-second, `ingest` end to end with no worker processes."""


def _convert(files: list[Path], engine: str, replay: bool) -> int:
    hands = 0
    for path in files:
        for imported in read_file(path, engine):
            if imported.record is None:
                continue
            format_hand(imported.record)
            if replay:
                replay_record(imported.record)
            hands += 1
    return hands


def _cpu(fn: Callable[[], int]) -> tuple[float, int]:
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def _ingest(files: list[Path], db: Path) -> int:
    from ingest.pipeline import ingest

    return ingest(files, db, workers=0, progress=False).counts.hands


def measure(engine: str, pattern: str, repeat: int = REPEAT) -> Rates:
    files = sorted(ENGINES.glob(pattern))
    convert, replay, stored = [], [], []
    hands = 0
    for _ in range(repeat):
        cpu, hands = _cpu(lambda: _convert(files, engine, False))
        convert.append(hands / max(cpu, 1e-9))
        cpu, _ = _cpu(lambda: _convert(files, engine, True))
        replay.append(hands / max(cpu, 1e-9))
        folder = Path(tempfile.mkdtemp(prefix="bench-import-"))
        try:
            cpu, n = _cpu(partial(_ingest, files, folder / "t.duckdb"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        stored.append(n / max(cpu, 1e-9))
    return Rates(
        len(files),
        hands,
        statistics.median(convert),
        statistics.median(replay),
        statistics.median(stored),
    )


def main() -> str:
    rows = []
    for engine, pattern in FORMATS:
        r = measure(engine, pattern)
        rows.append(
            f"| {engine} | {r.files} | {r.hands:,} | {r.convert:,.0f} | {r.replay:,.0f} | "
            f"{r.ingest:,.0f} |"
        )
    return "\n".join(
        [
            "## Import (`shengji import` and `shengji ingest` of other engines' logs)",
            "",
            "The logs of `data/engines` (docs/import.md), per format: hands per CPU-second of one "
            f"process running the {core_build()} rules core, the median of {REPEAT} runs. "
            "*Convert* is `shengji import`'s work (read "
            "the log, rebuild the deal, write each hand's canonical line); *convert + replay* "
            "adds the replay under the engine's preset; *ingest* is `shengji ingest` of the same "
            "files with no worker processes (reading, converting, replaying, the review, the "
            "store), to set beside the ingest section's tractor-hh/1 figure; on so few hands "
            "it is dominated by opening and publishing the store (a Botzone file is one hand).",
            "",
            "| format | files | hands | convert | convert + replay | ingest |",
            "|---|---:|---:|---:|---:|---:|",
            *rows,
        ]
    )


if __name__ == "__main__":
    print(main())
