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
    parser = argparse.ArgumentParser(
        prog="shengji", description="Replay, audit and analyse four-deck Tractor hand histories."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    core_cli.register(sub)
    ingest_cli.register(sub)
    register(sub)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
