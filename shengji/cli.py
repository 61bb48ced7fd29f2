"""The rules core's subcommands of the `shengji` command (referee, replay, audit, simulate, review,
import, analyse).

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
from collections.abc import Callable, Sequence
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
    "shengji.commands.import_logs",
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


COMMAND_NAMES: dict[str, str] = {"shengji.commands.import_logs": "import"}
"""Command modules not named for their command (a module cannot be called `import`)."""


def command_of(module: str) -> str:
    """The subcommand a command module registers: its last name, unless COMMAND_NAMES says."""
    return COMMAND_NAMES.get(module) or module.rsplit(".", 1)[-1]


def registers_for(
    modules: Sequence[str], argv: Sequence[str]
) -> tuple[Callable[[argparse._SubParsersAction[Any]], None], ...]:
    """What to register for this command line: only the module of the subcommand it names, so
    that `shengji review` starts without importing the data stack (DuckDB, Arrow, polars) that
    `ingest` and `report` need; none for `--version` alone; every module when it names none of
    them (help, a typo), so that the usage lists every command."""
    command = next((a for a in argv if not a.startswith("-")), None)
    chosen = [m for m in modules if command is not None and command_of(m) == command]
    if not chosen and command is None and "--version" in argv:
        chosen_or_all: Sequence[str] = ()
    else:
        chosen_or_all = chosen or modules

    def add(subparsers: argparse._SubParsersAction[Any]) -> None:
        for name in chosen_or_all:
            importlib.import_module(name).register(subparsers)

    return (add,)


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
        action=_Version,
        nargs=0,
        help="print the version and whether the rules core runs compiled, and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in registers:
        add(sub)
    return parser


class _Version(argparse.Action):
    """`--version`, worked out only when asked: it imports the rules engine to tell which core
    runs, which every other command line need not pay for at start-up."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_text())
        parser.exit()


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
    parser = parser_with(
        registers_for(COMMAND_MODULES, sys.argv[1:] if argv is None else argv),
        "Replay and audit four-deck Tractor hand histories.",
    )
    return run_command(parser, argv)
