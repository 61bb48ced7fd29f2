"""Input files for ingest: the core's walker (`shengji.sources`), which every command shares."""

from __future__ import annotations

from shengji.sources import (
    READ_ERRORS,
    SUFFIXES,
    SourceError,
    Sources,
    expand,
    find_sources,
    is_history,
)

__all__ = [
    "READ_ERRORS",
    "SUFFIXES",
    "SourceError",
    "Sources",
    "expand",
    "find_sources",
    "is_history",
]
