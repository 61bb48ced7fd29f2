"""The command line starts lean and reads files in flat memory (docs/cli.md): a subcommand imports
only what it needs, and the file commands keep counts, never the hands they have written."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from itertools import islice
from pathlib import Path

import pytest

from analytics.cli import main
from shengji.cli import COMMAND_MODULES, command_of
from shengji.hhfile import iter_lines, write_lines

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "hands.jsonl.gz"
DATA_STACK = ("duckdb", "polars", "pyarrow", "numpy", "streamlit")


def _modules_after(*argv: str) -> set[str]:
    code = (
        "import sys\n"
        "from analytics.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(done.stderr.split())


@pytest.mark.parametrize("argv", [("--version",), ("review", "--help"), ("referee", "--help")])
def test_core_commands_start_without_the_data_stack(argv: tuple[str, ...]) -> None:
    loaded = _modules_after(*argv)
    assert not [m for m in DATA_STACK if m in loaded], argv


def test_every_command_module_registers_the_command_it_is_named_for() -> None:
    """The lean start picks a module by its name: each must register exactly that command."""
    import argparse
    import importlib

    from analytics.cli import COMMAND_MODULES as REPORT_MODULES
    from ingest.cli import COMMAND_MODULES as INGEST_MODULES

    for module in COMMAND_MODULES + INGEST_MODULES + REPORT_MODULES:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(module).register(sub)
        assert list(sub.choices) == [command_of(module)], module


def test_help_and_typos_still_list_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["no-such-command"])
    err = capsys.readouterr().err
    for command in ("referee", "replay", "audit", "review", "ingest", "export", "report"):
        assert f"'{command}'" in err


def _peak(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    tracemalloc.start()
    try:
        main(argv)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        capsys.readouterr()


@pytest.mark.parametrize(
    "command", [["replay", "--json"], ["replay"], ["audit", "--json"], ["review", "--json"]]
)
def test_memory_does_not_grow_with_the_file(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file seven times longer may not need more memory: each hand kept would cost tens of KB.
    The long file is read first, so the core's bounded caches are as full for both runs."""
    lines = [text for _, text in islice(iter_lines(SAMPLE), 70)]
    short, long = tmp_path / "short.jsonl", tmp_path / "long.jsonl"
    write_lines(short, lines[:10])
    write_lines(long, lines)
    _peak([*command, str(long)], capsys)
    small = _peak([*command, str(short)], capsys)
    large = _peak([*command, str(long)], capsys)
    assert large - small < 1_500_000, (small, large)  # 60 more hands kept: 2.4 MB or more
