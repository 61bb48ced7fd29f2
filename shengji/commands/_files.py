"""What the file-reading commands (replay, audit, review) share: their PATH arguments walked as
ingest walks them (folders, globs, links kept inside their root), and a cheap test that lets
`--hand ID` pass over the other lines without replaying them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..sources import SourceError, find_sources


def add_paths(parser: argparse.ArgumentParser) -> None:
    """The PATH arguments and `--force`, as `shengji ingest` has them."""
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help=".jsonl / .jsonl.gz files, folders (read recursively) or globs",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="read a named file that is not .jsonl/.jsonl.gz as hand histories anyway",
    )


def named_files(command: str, paths: Sequence[str], *, force: bool) -> tuple[list[Path], bool]:
    """The hand files the arguments name, in order, each once, and whether any argument named
    nothing readable. Every such argument, and every file passed over in a folder, is reported on
    stderr as `shengji COMMAND: PATH: why`; the other arguments are still read. A file named as
    such keeps the path as the user wrote it, so that reports quote it."""
    files: list[Path] = []
    seen: set[Path] = set()
    failed = False
    for arg in paths:
        try:
            found = find_sources([arg], force=force)
        except SourceError as e:
            print(f"shengji {command}: {e}", file=sys.stderr)
            failed = True
            continue
        for where, why in found.skipped:
            print(f"shengji {command}: {where}: passed over: {why}", file=sys.stderr)
        given = Path(arg)
        direct = len(found.files) == 1 and not given.is_dir() and found.files[0] == given.resolve()
        for path in found.files:
            if path in seen:
                continue
            seen.add(path)
            files.append(given if direct else path)
    return files, failed


def may_be_hand(text: str, hand_id: str) -> bool:
    """Whether the line `text` may hold the hand `hand_id`, decided without parsing it: the id
    must appear in it as JSON writes it, unless the line has escapes that could spell it
    otherwise. Lines that may be it are parsed and replayed, and their id compared."""
    return json.dumps(hand_id, ensure_ascii=False)[1:-1] in text or "\\" in text
