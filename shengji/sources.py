"""Input files: PATH arguments (files, folders, globs) to a sorted list, and their lines.

Every command that reads hand files walks its arguments here (audit and replay as ingest does).

Lines are read with `shengji.hhfile.read_lines` (bounded: a line over the limit is reported, not
held), blank ones included because the store counts them (counts add up to lines read).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .hhfile import READ_ERRORS

__all__ = [
    "LOG_SUFFIXES",
    "READ_ERRORS",
    "SourceError",
    "Sources",
    "expand",
    "find_sources",
    "is_history",
]

SUFFIXES = (".jsonl", ".jsonl.gz")
LOG_SUFFIXES = (*SUFFIXES, ".json", ".json.gz", ".ndjson", ".ndjson.gz", ".log", ".log.gz")
"""What `shengji import` and `shengji ingest` also read: other engines' logs (docs/import.md),
recognised by their content."""


class SourceError(ValueError):
    """A PATH argument that names no hand-history file."""


@dataclass
class Sources:
    """The files a run reads, and what was passed over on the way, with why."""

    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path as met, why it was not read)."""


def is_history(path: Path, suffixes: tuple[str, ...] = SUFFIXES) -> bool:
    return path.name.endswith(suffixes)


def _kinds(suffixes: tuple[str, ...]) -> str:
    """`.jsonl or .jsonl.gz` (the suffixes, for a message)."""
    if suffixes == LOG_SUFFIXES:
        return ".jsonl or .jsonl.gz file, nor an engine's log (.json, .ndjson, .log, each also .gz)"
    return (
        ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}" if len(suffixes) > 1 else suffixes[0]
    ) + " file"


def expand(
    paths: Iterable[str | Path], *, force: bool = False, suffixes: tuple[str, ...] = SUFFIXES
) -> list[Path]:
    """Every hand-history file named by `paths` (see `find_sources`)."""
    return find_sources(paths, force=force, suffixes=suffixes).files


def find_sources(
    paths: Iterable[str | Path], *, force: bool = False, suffixes: tuple[str, ...] = SUFFIXES
) -> Sources:
    """Every `.jsonl` / `.jsonl.gz` file (or file ending in one of `suffixes`) named by `paths`,
    absolute, sorted, each once.

    A folder contributes its history files recursively; a glob its matches (a matched folder all of
    its history files), walking from the folder before the first wildcard, its root. Links are
    never followed out of their root: a link to a file is read only when its target lies inside
    the root, a link to a folder met on the way is not entered, a broken link or a loop is passed
    over; each is listed in `skipped`. Only regular files are read (a FIFO would block).

    A file named as such is read whatever its links, as the user named it, but only if it is a
    history file (`force`: any regular file). An argument that names nothing readable is an
    error: a typo should not look like an empty corpus.
    """
    out = Sources()
    found: set[Path] = set()
    for arg in paths:
        text = str(arg)
        hits = (
            _glob(text, out, force, suffixes)
            if glob.has_magic(text)
            else _named(text, out, force, suffixes)
        )
        found.update(hits)
    out.files = sorted(found)
    return out


def _named(text: str, out: Sources, force: bool, suffixes: tuple[str, ...]) -> list[Path]:
    path = Path(text)
    if not os.path.lexists(path):
        raise SourceError(f"{text}: does not exist")
    if not path.exists():
        raise SourceError(f"{text}: a broken link or a link loop")
    if path.is_dir():
        root = path.resolve()
        hits = _walk(path, root, None, out, force=False, suffixes=suffixes)
        if not hits:
            raise SourceError(f"{text}: no {_kinds(suffixes)} there")
        return hits
    if not stat.S_ISREG(path.stat().st_mode):
        raise SourceError(f"{text}: not a regular file")
    if not (force or is_history(path, suffixes)):
        raise SourceError(
            f"{text}: not a {_kinds(suffixes)} (--force reads it as hand histories anyway)"
        )
    return [path.resolve()]


def _glob(text: str, out: Sources, force: bool, suffixes: tuple[str, ...]) -> list[Path]:
    parts = Path(text).parts
    fixed = 0
    while fixed < len(parts) and not glob.has_magic(parts[fixed]):
        fixed += 1
    base = Path(*parts[:fixed]) if fixed else Path(".")
    pattern = list(parts[fixed:])
    hits = (
        _walk(base, base.resolve(), pattern, out, force=force, suffixes=suffixes)
        if base.is_dir()
        else []
    )
    if not hits:
        raise SourceError(f"{text}: matches no {_kinds(suffixes)}")
    return hits


def _walk(
    top: Path,
    root: Path,
    pattern: list[str] | None,
    out: Sources,
    *,
    force: bool,
    suffixes: tuple[str, ...] = SUFFIXES,
) -> list[Path]:
    """History files under `top` (matching `pattern`, relative to `top`, when given), links checked
    against `root`. os.walk does not follow links to folders, so a loop cannot be entered."""
    hits: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        here = Path(dirpath)
        rel = here.relative_to(top).parts
        # a folder the pattern matches is taken whole, with everything under it
        whole = pattern is None or any(_match(list(rel[:k]), pattern) for k in range(len(rel) + 1))
        keep_dirs = []
        for name in sorted(dirnames):
            path = here / name
            if path.is_symlink():
                if whole or _could_match([*rel, name], pattern):
                    out.skipped.append((str(path), "a link to a folder: not followed"))
                continue
            if whole or _could_match([*rel, name], pattern):
                keep_dirs.append(name)
        dirnames[:] = keep_dirs
        for name in sorted(filenames):
            path = here / name
            if not whole and not _match([*rel, name], pattern or []):
                continue
            wanted = is_history(path, suffixes) or (force and pattern is not None)
            if not wanted:
                continue
            hit = _check_file(path, root, out)
            if hit is not None:
                hits.append(hit)
    return hits


def _check_file(path: Path, root: Path, out: Sources) -> Path | None:
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        if not target.exists():
            out.skipped.append((str(path), "a broken link or a link loop"))
            return None
        if not target.is_relative_to(root):
            out.skipped.append((str(path), f"links to {target}, outside {root}"))
            return None
    else:
        target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except OSError as e:
        out.skipped.append((str(path), f"cannot be read: {e.strerror or e}"))
        return None
    if not stat.S_ISREG(mode):
        out.skipped.append((str(path), "not a regular file"))
        return None
    return target


def _match(parts: list[str], pattern: list[str]) -> bool:
    """Path parts against glob parts: `**` is any number of folders, other wildcards stay inside
    one name; names starting with `.` match only a pattern part starting with `.` (as glob)."""
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        return any(_match(parts[i:], pattern[1:]) for i in range(len(parts) + 1))
    return bool(parts) and _name(parts[0], head) and _match(parts[1:], pattern[1:])


def _could_match(parts: list[str], pattern: list[str] | None) -> bool:
    """Whether something under the folder `parts` can match (a folder that matches whole counts)."""
    if pattern is None:
        return True
    if not parts:
        return True
    if not pattern:
        return False
    head = pattern[0]
    if head == "**":
        return True
    return _name(parts[0], head) and _could_match(parts[1:], pattern[1:])


def _name(name: str, part: str) -> bool:
    if name.startswith(".") and not part.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, part)
