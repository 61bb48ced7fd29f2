"""The `shengji` console script: the core commands, the ingest commands and `report`."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from ingest import cli as ingest_cli
from shengji import cli as core_cli

COMMAND_MODULES: tuple[str, ...] = ("analytics.report",)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)


def main(argv: list[str] | None = None) -> int:
    modules = core_cli.COMMAND_MODULES + ingest_cli.COMMAND_MODULES + COMMAND_MODULES
    parser = core_cli.parser_with(
        core_cli.registers_for(modules, sys.argv[1:] if argv is None else argv),
        "Replay, audit and analyse four-deck Tractor hand histories.",
    )
    return core_cli.run_command(parser, argv)


if __name__ == "__main__":
    sys.exit(main())
