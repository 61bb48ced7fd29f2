"""The rules core's subcommands of the `shengji` command (referee, replay, audit, simulate, review,
analyse).

Each subcommand lives in `shengji.commands.<name>` and exposes `register(subparsers)`, which adds
its parser with `set_defaults(func=run)`; `run(args) -> int` returns the exit code. The console
script itself is `analytics.cli:main`, which adds the ingest and report subcommands on top; both
run through `run_command`, which keeps the promises of docs/cli.md: a wrong option prints the usage
of its subcommand, a reader that closes the pipe ends the command quietly (status 141), and no
traceback is ever shown.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any

COMMAND_MODULES: tuple[str, ...] = (
    "shengji.commands.referee",
    "shengji.commands.replay",
    "shengji.commands.audit",
    "shengji.commands.simulate",
    "shengji.commands.review",
    "shengji.commands.analyse",
)
PACKAGE = "shengji-analytics"
BROKEN_PIPE = 141
"""128 + SIGPIPE: what a program killed by the closed pipe would return."""
INTERRUPTED = 130
TRACEBACK_ENV = "SHENGJI_TRACEBACK"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)


def version_text() -> str:
    """`shengji --version`: the package version and whether the rules core runs compiled."""
    try:
        number = package_version(PACKAGE)
    except PackageNotFoundError:
        number = "unknown"
    return f"shengji {number} ({PACKAGE}); rules core: {core_build()}"


def core_build() -> str:
    """Which rules core this process runs: `compiled (N of M modules)` or `pure Python`."""
    importlib.import_module("shengji.replay")  # the engine and what it imports
    core = [m for name, m in sys.modules.items() if name.startswith("shengji.")]
    compiled = [
        m for m in core if str(getattr(m, "__file__", "")).endswith(tuple(EXTENSION_SUFFIXES))
    ]
    return f"compiled ({len(compiled)} of {len(core)} modules)" if compiled else "pure Python"


def parser_with(
    registers: tuple[Callable[[argparse._SubParsersAction[Any]], None], ...], description: str
) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shengji", description=description)
    parser.add_argument(
        "--version",
        action="version",
        version=version_text(),
        help="print the version and whether the rules core runs compiled, and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in registers:
        add(sub)
    return parser


def run_command(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    """Parse, run the chosen subcommand, and map what ends it to docs/cli.md's exit status."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        sub = _subparser(parser, args.command)
        (sub or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE
    except KeyboardInterrupt:
        print("shengji: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as e:
        if os.environ.get(TRACEBACK_ENV):
            raise
        print(
            f"shengji {args.command}: internal error: {type(e).__name__}: {e} "
            f"(set {TRACEBACK_ENV}=1 to see where; please report it)",
            file=sys.stderr,
        )
        return 1
    return code


def _subparser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            found: argparse.ArgumentParser = action.choices[name]
            return found
    return None


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    """The core commands alone (`python -m shengji`), for tooling without the data stack."""
    parser = parser_with((register,), "Replay and audit four-deck Tractor hand histories.")
    return run_command(parser, argv)
