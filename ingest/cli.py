"""The ingest side of the `shengji` command: `ingest`, `export`."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

COMMAND_MODULES: tuple[str, ...] = ("ingest.commands.ingest", "ingest.commands.export")


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
