"""Input files: PATH arguments (files, folders, globs) to a sorted list, and their lines.

Lines are read here rather than with `shengji.hhfile.iter_lines` because the store must count blank
lines too (counts add up to lines read); the decoding is the same (UTF-8, undecodable bytes kept as
lone surrogates so the parser rejects that one line, not the file).
"""

from __future__ import annotations

import glob
import gzip
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, cast

SUFFIXES = (".jsonl", ".jsonl.gz")


class SourceError(ValueError):
    """A PATH argument that names no hand-history file."""


def is_history(path: Path) -> bool:
    return path.name.endswith(SUFFIXES)


def expand(paths: Iterable[str | Path]) -> list[Path]:
    """Every `.jsonl` / `.jsonl.gz` file named by `paths`, absolute, sorted, each once.

    A folder contributes its history files recursively; a glob pattern its matches. An argument that
    matches nothing is an error: a typo should not look like an empty corpus.
    """
    found: set[Path] = set()
    for arg in paths:
        text = str(arg)
        matches = (
            [Path(m) for m in sorted(glob.glob(text, recursive=True))]
            if glob.has_magic(text)
            else [Path(text)]
        )
        hits: list[Path] = []
        for m in matches:
            if m.is_dir():
                hits += [p for p in m.rglob("*") if p.is_file() and is_history(p)]
            elif m.is_file() and (is_history(m) or not glob.has_magic(text)):
                hits.append(m)
        if not hits:
            raise SourceError(f"{text}: no .jsonl or .jsonl.gz file there")
        found.update(p.resolve() for p in hits)
    return sorted(found)


READ_ERRORS = (OSError, EOFError, zlib.error)
"""What a damaged or vanished file raises while read (gzip.BadGzipFile is an OSError)."""


def _open(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def iter_all_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number from 1, text without its newline) for every line, blank ones included.

    Raises one of READ_ERRORS when the file cannot be read on; lines before it were yielded.
    """
    with _open(path) as fh:
        for number, raw in enumerate(fh, start=1):
            yield number, raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
