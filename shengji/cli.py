"""The rules core's subcommands of the `shengji` command (referee, replay, audit, simulate, review).

Each subcommand lives in `shengji.commands.<name>` and exposes `register(subparsers)`, which adds
its parser with `set_defaults(func=run)`; `run(args) -> int` returns the exit code. The console
script itself is `analytics.cli:main`, which adds the ingest and report subcommands on top.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

COMMAND_MODULES: tuple[str, ...] = (
    "shengji.commands.referee",
    "shengji.commands.replay",
    "shengji.commands.audit",
    "shengji.commands.simulate",
    "shengji.commands.review",
)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)


def main(argv: list[str] | None = None) -> int:
    """The core commands alone (`python -m shengji`), for tooling without the data stack."""
    parser = argparse.ArgumentParser(prog="shengji")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result
