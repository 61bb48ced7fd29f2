"""`shengji referee [FILE] [--explain]`: judge JSON Lines requests, one verdict line per request."""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO

from ..referee import MAX_LINE_BYTES, answer, read_lines


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="judge leads, follows, tricks, bottoms and outcomes given as JSON Lines",
        description=(
            "Read JSON Lines requests (FILE, or stdin) and write one JSON verdict line per "
            "request, in order, as each line arrives, echoing its id. A line that cannot be "
            f"judged (not UTF-8, not JSON, longer than {MAX_LINE_BYTES} bytes, a bad request) "
            "gets an `error` verdict and the rest still run. See docs/referee.md."
        ),
    )
    parser.add_argument("file", nargs="?", type=Path, help="JSON Lines input (default: stdin)")
    parser.add_argument(
        "--explain", action="store_true", help="write an account of each verdict to stderr"
    )
    parser.set_defaults(func=run)


def _input(args: argparse.Namespace) -> BinaryIO:
    if args.file is not None:
        path: Path = args.file
        return path.open("rb")
    stdin = sys.stdin
    buffer: BinaryIO | None = getattr(stdin, "buffer", None)
    if buffer is not None:
        return buffer
    # A text stream without bytes beneath it (tests): read it as UTF-8 bytes, line by line.
    return io.BytesIO(stdin.read().encode("utf-8", "surrogatepass"))


def _write(line: str) -> None:
    """One answer line, flushed at once (a caller may wait for it before sending the next
    request). A lone surrogate echoed from an id is written as its JSON escape `\\udxxx`."""
    data = (line + "\n").encode("utf-8", "backslashreplace")
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(data.decode("utf-8"))
    else:
        out.flush()
        buffer.write(data)
        buffer.flush()
    out.flush()


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def run(args: argparse.Namespace) -> int:
    try:
        stream = _input(args)
    except OSError as err:
        print(f"shengji referee: cannot read input: {err}", file=sys.stderr)
        return 2
    try:
        for number, line in enumerate(read_lines(stream.readline), 1):
            # Blank lines separate nothing in JSON Lines; they get no verdict.
            if line is not None and not line.strip():
                continue
            out, explanation = answer(line, number)
            _write(out)
            if args.explain:
                sys.stderr.write(explanation + "\n")
                sys.stderr.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and let nothing write to the pipe again.
        _silence_stdout()
        return 0
    except OSError as err:
        print(f"shengji referee: cannot read input: {err}", file=sys.stderr)
        return 2
    finally:
        if args.file is not None:
            stream.close()
    return 0
