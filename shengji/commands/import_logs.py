"""`shengji import [--from ENGINE] PATH… -o OUT.jsonl[.gz]`: other engines' logs as `tractor-hh/1`.

Each file is read as the format its content shows (`--from auto`, the default) or as the one named;
its hands are converted one at a time and written as they come (memory stays flat with the size
of the logs). A hand that cannot be converted is not written: it is listed with its file, its line
or turn, and the reason; a file already in `tractor-hh/1` is copied line by line. The summary says
which format each file was read as. docs/import.md tells what maps to what.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..hhfile import READ_ERRORS, read_lines, write_lines
from ..importers import ENGINES, HISTORY, Imported, detect_file, read_file
from ..record import format_hand
from ..sources import LOG_SUFFIXES, SourceError, find_sources

AUTO = "auto"
LISTED = 20
"""Faults listed one by one before the rest are only counted."""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="convert other engines' logs (jerryyyu, Botzone, ejfn) to tractor-hh/1",
        description=(
            "Convert jerryyyu room logs, Botzone matches and ejfn game logs (files, folders or "
            "globs) to tractor-hh/1 hands, each replayed later under its engine's preset "
            "(rules jerryyyu, botzone, ejfn). The format is recognised from each file's content "
            "unless --from names it. A hand that cannot be converted is listed with its file, "
            "line or turn and reason, and left out. Exit status 1 when a hand or a file could "
            "not be converted, 2 when a PATH names nothing. See docs/import.md."
        ),
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="log files, folders or globs to convert"
    )
    parser.add_argument(
        "--from",
        dest="engine",
        choices=(*ENGINES, AUTO),
        default=AUTO,
        help="the logs' format (default: auto, recognised from each file's content)",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=Path,
        metavar="OUT",
        help="the tractor-hh/1 file to write (.jsonl, or .jsonl.gz to compress)",
    )
    parser.set_defaults(func=run)


class _Run:
    """What one run converted, per file and in all."""

    def __init__(self) -> None:
        self.formats: dict[str, str] = {}
        self.hands: Counter[str] = Counter()
        self.faults: list[str] = []
        self.rejected = 0
        self.abandoned = 0
        self.warned = 0
        self.bad_files = 0

    def fault(self, text: str) -> None:
        self.faults.append(text)
        if len(self.faults) <= LISTED:
            print(f"shengji import: {text}", file=sys.stderr)


def _lines(files: list[Path], engine: str, run: _Run) -> Iterator[str]:
    for path in files:
        name = str(path)
        try:
            fmt = detect_file(path) if engine == AUTO else engine
        except READ_ERRORS as e:
            run.bad_files += 1
            run.fault(f"{name}: cannot be read: {e}")
            continue
        if fmt is None:
            run.bad_files += 1
            run.fault(f"{name}: not a log of a known format ({', '.join((HISTORY, *ENGINES))})")
            continue
        run.formats[name] = fmt
        if fmt == HISTORY:
            yield from _copy(path, run)
            continue
        for imported in read_file(path, fmt):
            yield from _hand(name, imported, run)


def _copy(path: Path, run: _Run) -> Iterator[str]:
    number = 0
    try:
        for line in read_lines(path):
            number = line.number
            if line.too_long:
                run.rejected += 1
                run.fault(f"{path}:{line.number}: a line of {line.size:,} bytes: not copied")
            elif line.text.strip():
                run.hands[str(path)] += 1
                yield line.text
    except READ_ERRORS as e:
        run.bad_files += 1
        run.fault(f"{path}:{number + 1}: cannot read on: {e}")


def _hand(name: str, imported: Imported, run: _Run) -> Iterator[str]:
    where = f"{name}:{imported.line}"
    label = f" {imported.hand_id}" if imported.hand_id else ""
    if imported.record is None:
        if imported.hand_id:
            run.rejected += 1
        else:
            run.bad_files += 1
        run.fault(f"{where}{label}: not imported: {imported.reason}")
        return
    for line, reason in imported.warnings:
        run.warned += 1
        at = f"{name}:{line}" if line is not None else where
        run.fault(f"{at}{label}: {reason}")
    if imported.record.end == "abandoned":
        run.abandoned += 1
    run.hands[name] += 1
    yield format_hand(imported.record)


def run(args: argparse.Namespace) -> int:
    """0 when every hand converted, 1 when a hand or a file could not be, 2 for a PATH naming
    nothing or an output that cannot be written."""
    try:
        sources = find_sources(args.paths, suffixes=LOG_SUFFIXES)
    except SourceError as e:
        print(f"shengji import: {e}", file=sys.stderr)
        return 2
    out: Path = args.output
    if not out.name.endswith((".jsonl", ".jsonl.gz")):
        print(
            f"shengji import: {out}: the output must be a .jsonl or .jsonl.gz file", file=sys.stderr
        )
        return 2
    target = Path(os.path.realpath(out))
    if target in sources.files:
        print(f"shengji import: {out} is also an input: not overwritten", file=sys.stderr)
        return 2
    for path, why in sources.skipped:
        print(f"shengji import: skipped {path}: {why}", file=sys.stderr)
    state = _Run()
    try:
        written = write_lines(out, _lines(sources.files, args.engine, state))
    except OSError as e:
        print(f"shengji import: {out}: cannot be written: {e}", file=sys.stderr)
        return 2
    print(_summary(state, written, out))
    return 1 if state.rejected or state.bad_files else 0


def _summary(run: _Run, written: int, out: Path) -> str:
    lines = [f"imported {written:,} hand(s) from {len(run.formats)} file(s) into {out}"]
    by_format: dict[str, list[str]] = {}
    for name, fmt in run.formats.items():
        by_format.setdefault(fmt, []).append(name)
    for fmt, names in sorted(by_format.items()):
        shown = ", ".join(f"{Path(n).name} ({run.hands[n]})" for n in names[:LISTED])
        more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
        lines.append(f"  read as {fmt}: {shown}{more}")
    lines.append(
        f"  hands: {written:,} written ({run.abandoned:,} abandoned) · {run.rejected:,} not "
        f"imported · {run.warned:,} warning(s)"
    )
    if run.bad_files:
        lines.append(f"  files or parts of files that could not be read: {run.bad_files}")
    hidden = len(run.faults) - LISTED
    if hidden > 0:
        lines.append(f"  ({hidden:,} more fault(s) not listed)")
    return "\n".join(lines)
