"""Other engines' logs as `tractor-hh/1` hands: one reader per engine, and recognising which.

`detect(head)` names the format of a file from its first lines: `tractor-hh/1`, `jerryyyu`,
`botzone` or `ejfn` (None when it is none of them). `read(engine, lines, stem)` turns the lines of
one file (as `shengji.hhfile.read_lines` gives them) into `Imported` hands, streaming: a reader
holds one round (one match for Botzone, which is one JSON document) at a time. `stem` is the
file's name without its suffixes, the match id where the log names none. docs/import.md says what
maps to what and what is lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from ..hhfile import MAX_LINE_BYTES, READ_ERRORS, Line, read_lines
from . import botzone, ejfn, jerryyyu
from .common import ENGINES, Imported, LogError

__all__ = [
    "ENGINES",
    "FORMATS",
    "HISTORY",
    "Imported",
    "LogError",
    "detect",
    "detect_file",
    "read",
    "read_file",
    "stem_of",
]

HISTORY: Final = "tractor-hh/1"
FORMATS: Final = (HISTORY, *ENGINES)
HEAD_BYTES: Final = 1 << 16
"""How much of a file `detect` looks at."""
_BOTZONE_KEYS: Final = re.compile(r'"(?:initdata|keep_running|log)"\s*:')
_SUFFIXES: Final = (".jsonl", ".json", ".ndjson", ".log", ".gz")


def detect(head: Iterable[str]) -> str | None:
    """The format of a file from its first lines (at most HEAD_BYTES of them are looked at)."""
    texts: list[str] = []
    size = 0
    for text in head:
        texts.append(text)
        size += len(text)
        if size >= HEAD_BYTES:
            break
    lines = [t for t in texts if t.strip()]
    if not lines:
        return None
    try:
        obj = json.loads(lines[0])
    except (json.JSONDecodeError, RecursionError, ValueError):
        obj = None
    if isinstance(obj, dict):
        if obj.get("format") == HISTORY:
            return HISTORY
        if "e" in obj and ("room" in obj or "round" in obj):
            return jerryyyu.ENGINE
        if "event" in obj and ("gameId" in obj or "sequenceNumber" in obj):
            return ejfn.ENGINE
        if "log" in obj and ("initdata" in obj or isinstance(obj.get("log"), list)):
            return botzone.ENGINE
        if "hand_id" in obj or "deal" in obj:
            return HISTORY  # a damaged hand history reads as one, with its faults
        return None
    if lines[0].lstrip().startswith("{") and _BOTZONE_KEYS.search("\n".join(lines)):
        return botzone.ENGINE  # a pretty-printed match, or a truncated one-line match
    return None


def read(engine: str, lines: Iterable[Line], stem: str) -> Iterator[Imported]:
    """The hands of one engine's log (`engine` one of ENGINES)."""
    if engine == jerryyyu.ENGINE:
        return jerryyyu.read(lines, stem)
    if engine == botzone.ENGINE:
        return botzone.read(lines, stem)
    if engine == ejfn.ENGINE:
        return ejfn.read(lines, stem)
    raise ValueError(f"no reader for {engine!r} (known: {', '.join(ENGINES)})")


def stem_of(name: str) -> str:
    """A file name without its suffixes: `s6008.json.gz` → `s6008`."""
    while True:
        for suffix in _SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                break
        else:
            return name


def detect_file(path: str | Path, max_bytes: int = MAX_LINE_BYTES) -> str | None:
    """The format of the file at `path` (see `detect`), from its first lines. Raises what
    `read_lines` raises when the file cannot be read."""
    head: list[str] = []
    size = 0
    for line in read_lines(path, max_bytes):
        head.append(line.text)
        size += len(line.text)
        if size >= HEAD_BYTES or len(head) >= 64:
            break
    return detect(head)


def read_file(path: str | Path, engine: str, max_bytes: int = MAX_LINE_BYTES) -> Iterator[Imported]:
    """The hands of the engine's log at `path`, streaming. A file that cannot be read to its end
    (a truncated gzip, a read error) ends the log there: the round it stops in is read as far as
    it goes, and a last `Imported` without a hand names the line and the error."""
    failure: list[tuple[int, str]] = []

    def lines() -> Iterator[Line]:
        last = 0
        try:
            for line in read_lines(path, max_bytes):
                last = line.number
                yield line
        except READ_ERRORS as e:
            failure.append((last + 1, f"line {last + 1}: cannot read on: {e}"))

    yield from read(engine, lines(), stem_of(Path(path).name))
    for number, reason in failure:
        yield Imported(engine, "", number, reason=reason)
