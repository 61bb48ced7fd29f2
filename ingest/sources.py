"""Input files: PATH arguments (files, folders, globs) to a sorted list, and their lines.

Lines are read with `shengji.hhfile.read_lines` (bounded: a line over the limit is reported, not
held), blank ones included because the store counts them (counts add up to lines read).
"""

from __future__ import annotations

import glob
import zlib
from collections.abc import Iterable
from pathlib import Path

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
