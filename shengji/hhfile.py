"""The file edge of the core: read and write `tractor-hh/1` files (`.jsonl`, `.jsonl.gz`).

The only module of `shengji` that touches the file system. Lines are decoded one by one so that one
undecodable line becomes one rejected hand, not a failed file: bytes that are not UTF-8 come through
as lone surrogates (`surrogateescape`), which `record.parse_hand` rejects.

Memory is bounded whatever the file holds: a line is read at most `MAX_LINE_BYTES` at a time, and a
longer one (a gzip bomb of zeros is one endless line) is skipped to its end in bounded pieces and
reported as too long, never held whole.
"""

from __future__ import annotations

import gzip
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

MAX_LINE_BYTES = 1 << 20
"""The longest line read (1 MiB, newline excluded). A four-deck hand is 4–6 KB; a longer line is
rejected as `line_too_long` without being held in memory."""
MAX_LINES = 2**31 - 1
"""Lines per file: line numbers are stored as 32-bit integers."""
PREVIEW_BYTES = 200
"""What is kept of a line that is too long: its beginning, for the report."""
_SKIP_BYTES = 1 << 20


READ_ERRORS = (OSError, EOFError, zlib.error)
"""What a damaged or vanished file raises while read (gzip.BadGzipFile is an OSError)."""


class FileTooLongError(OSError):
    """A file with more than MAX_LINES lines: read no further."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a file. A line longer than the limit has `too_long` set, `size` its length in
    bytes, and `text` only its first PREVIEW_BYTES (undecodable bytes escaped)."""

    number: int
    text: str
    size: int
    too_long: bool = False


def _open_read(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def read_lines(path: str | Path, max_bytes: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """Every line of the file, blank ones included, numbered from 1, without its newline.

    Raises OSError (gzip.BadGzipFile, FileTooLongError), EOFError or zlib.error when the file
    cannot be read on; the lines before were yielded.
    """
    with _open_read(Path(path)) as fh:
        number = 0
        while raw := fh.readline(max_bytes + 1):
            number += 1
            if number > MAX_LINES:
                raise FileTooLongError(f"more than {MAX_LINES:,} lines")
            if len(raw) > max_bytes and not raw.endswith(b"\n"):
                yield _too_long(fh, number, raw)
                continue
            text = raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
            yield Line(number, text, len(raw))


def unreadable(path: str | Path) -> str | None:
    """Why `path` cannot be read as a hand-history file (does not exist, a folder, a FIFO that
    would block the reader…), or None when it is a regular file."""
    target = Path(path)
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return "a broken link" if target.is_symlink() else "does not exist"
    except OSError as e:
        return f"cannot be read: {e.strerror or e}"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return None


def too_long_reason(size: int, limit: int) -> str:
    """The `line_too_long` finding's reason."""
    return f"a line of {size:,} bytes, longer than the limit of {limit:,}: not read"


def _too_long(fh: BinaryIO, number: int, first: bytes) -> Line:
    """Skip the rest of an overlong line in bounded pieces; keep its beginning only."""
    size = len(first)
    piece = first
    while not piece.endswith(b"\n"):
        piece = fh.readline(_SKIP_BYTES)
        if not piece:
            break
        size += len(piece)
    else:
        size -= 1  # the newline is not part of the line
    preview = first[:PREVIEW_BYTES].decode("utf-8", "backslashreplace")
    return Line(number, preview, size, too_long=True)


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number from 1, text without its newline) for every line that is not blank and not
    too long (see `read_lines` for those)."""
    for line in read_lines(path):
        if not line.too_long and line.text.strip():
            yield line.number, line.text


def write_lines(path: str | Path, lines: Iterable[str]) -> int:
    """Write one line per item (a newline is added); gzip when the name ends in `.gz`. Returns the
    number of lines written."""
    target = Path(path)
    count = 0
    if target.name.endswith(".gz"):
        # No name and mtime=0 in the header: the same lines give the same bytes.
        with (
            target.open("wb") as raw,
            gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as fh,
        ):
            for line in lines:
                fh.write(line.encode("utf-8") + b"\n")
                count += 1
    else:
        with target.open("w", encoding="utf-8", newline="\n") as out:
            for line in lines:
                out.write(line + "\n")
                count += 1
    return count
