"""The file edge of the core: read and write `tractor-hh/1` files (`.jsonl`, `.jsonl.gz`).

The only module of `shengji` that touches the file system. Lines are decoded one by one so that one
undecodable line becomes one rejected hand, not a failed file: bytes that are not UTF-8 come through
as lone surrogates (`surrogateescape`), which `record.parse_hand` rejects.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, cast


def _open_read(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number from 1, text without its newline) for every line that is not blank."""
    with _open_read(Path(path)) as fh:
        for number, raw in enumerate(fh, start=1):
            text = raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
            if text.strip():
                yield number, text


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
