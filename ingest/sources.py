"""Input files for ingest: the core's walker (`shengji.sources`), which every command shares, and
the reading of each file as the format its content shows (docs/import.md).

A `tractor-hh/1` file reads exactly as before: its lines, numbered, blank ones included. Another
engine's log is converted hand by hand (`shengji.importers`): each hand becomes the canonical line
of its `tractor-hh/1` record, numbered by the log line its round starts at; a hand that cannot be
converted becomes an `ImportFault` that the store keeps as a rejected hand (`bad_import`), and the
faults a converted hand was read despite travel with it (`import_warning`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from shengji.hhfile import MAX_LINE_BYTES, Line, read_lines
from shengji.importers import ENGINES, HISTORY, detect_file, read_file
from shengji.record import format_hand
from shengji.sources import (
    LOG_SUFFIXES,
    READ_ERRORS,
    SUFFIXES,
    SourceError,
    Sources,
    expand,
    find_sources,
    is_history,
)

__all__ = [
    "LOG_SUFFIXES",
    "READ_ERRORS",
    "SUFFIXES",
    "ImportFault",
    "SourceError",
    "Sources",
    "expand",
    "file_format",
    "find_sources",
    "is_history",
    "read_items",
]


@dataclass(frozen=True, slots=True)
class ImportFault:
    """A hand of another engine's log that could not be converted (`hand_id` set: a rejected
    hand), or a fault of the log outside any hand; `reason` names the line or the turn."""

    line: int
    hand_id: str
    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class ImportNote:
    """The faults a converted hand (the hand at `line`) was read despite."""

    line: int
    reasons: tuple[str, ...]


def file_format(path: Path, max_line_bytes: int = MAX_LINE_BYTES) -> str | None:
    """The format `path` is read as: `tractor-hh/1`, an engine of `shengji.importers`, or None
    for a file that is not a `.jsonl` / `.jsonl.gz` file and that no reader recognises. A history
    file that no reader recognises reads as `tractor-hh/1`, as it always did: its faults are then
    the replay's findings. Raises READ_ERRORS when the file cannot be read."""
    found = detect_file(path, max_line_bytes)
    if found is None and is_history(path, SUFFIXES):
        return HISTORY
    return found


def read_items(
    path: Path, fmt: str, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Line | ImportFault | ImportNote]:
    """The file's lines for `tractor-hh/1`; for an engine's log, each hand's canonical line (a
    `Line` numbered by where the hand starts), preceded by its `ImportNote` when it has warnings,
    and an `ImportFault` for each hand or part of the log that could not be converted. Raises
    READ_ERRORS when a `tractor-hh/1` file cannot be read on (an engine's log reports that as
    its last `ImportFault`)."""
    if fmt == HISTORY:
        yield from read_lines(path, max_line_bytes)
        return
    if fmt not in ENGINES:
        raise ValueError(f"no reader for {fmt!r}")
    for imported in read_file(path, fmt, max_line_bytes):
        if imported.record is None:
            yield ImportFault(imported.line, imported.hand_id, fmt, imported.reason or "")
            continue
        if imported.warnings:
            yield ImportNote(
                imported.line,
                tuple(
                    reason
                    if number is None
                    else f"line {number}: {reason}"
                    if not reason.startswith(f"line {number}")
                    else reason
                    for number, reason in imported.warnings
                ),
            )
        text = format_hand(imported.record)
        yield Line(imported.line, text, len(text.encode("utf-8")))
