"""The command line as docs/cli.md promises it: usage per command, exit codes, quiet broken pipes,
`--version`, what `ingest` reads and what it refuses or skips (links out of a folder, loops)."""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from analytics.cli import main
from ingest.sources import find_sources
from ingest.store import open_reader

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "hands.jsonl.gz"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as fh:
        return [next(fh).rstrip("\n") for _ in range(6)]


@pytest.fixture(scope="module")
def small(tmp_path_factory, lines: list[str]) -> Path:
    path = tmp_path_factory.mktemp("cli") / "six.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory, small: Path) -> Path:
    target = tmp_path_factory.mktemp("clidb") / "t.duckdb"
    assert main(["ingest", str(small), "--db", str(target), "--workers", "0"]) == 0
    return target


def _shengji(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "analytics.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        **kw,
    )


# --- usage and help ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["report", "ingest", "audit", "replay", "export"])
def test_a_wrong_flag_prints_the_usage_of_its_command(command: str, capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main([command, *(["--parquet", "x"] if command == "export" else ["x"]), "--no-such-flag"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"usage: shengji {command}" in err
    assert "unrecognized arguments:" in err and "--no-such-flag" in err


def test_report_help_prints_a_plain_percent(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    out = capsys.readouterr().out
    assert "95%" in out and "%%" not in out


def test_version_says_which_core_runs() -> None:
    done = _shengji("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("shengji ")
    assert "rules core: pure Python" in done.stdout or "rules core: compiled" in done.stdout


# --- exit codes ----------------------------------------------------------------------------------


def test_a_missing_path_does_not_exist(tmp_path: Path, capsys) -> None:
    assert main(["ingest", str(tmp_path / "nope"), "--db", str(tmp_path / "x.duckdb")]) == 2
    assert "nope: does not exist" in capsys.readouterr().err
    assert not (tmp_path / "x.duckdb").exists()


@pytest.mark.parametrize("command", ["audit", "replay"])
def test_audit_and_replay_of_a_missing_file(command: str, tmp_path: Path, capsys) -> None:
    assert main([command, str(tmp_path / "nope")]) == 2
    captured = capsys.readouterr()
    assert "nope: does not exist" in captured.err
    assert "0 hands" not in captured.out + captured.err


def test_ingest_refuses_a_file_that_is_no_hand_history(tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.duckdb"
    assert main(["ingest", str(ROOT / "README.md"), "--db", str(db)]) == 2
    assert "README.md: not a .jsonl or .jsonl.gz file" in capsys.readouterr().err
    assert not db.exists()
    assert main(["ingest", str(ROOT / "README.md"), "--db", str(db), "--force"]) == 0
    assert "0 ok" in capsys.readouterr().out


def test_missing_database_is_status_3_everywhere(tmp_path: Path, capsys) -> None:
    missing = str(tmp_path / "none.duckdb")
    assert main(["report", "--db", missing]) == 3
    assert main(["export", "--db", missing, "--parquet", str(tmp_path / "out")]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("none.duckdb") >= 2


def test_an_unreadable_file_is_reported_and_the_rest_stored(
    tmp_path: Path, lines: list[str], capsys, monkeypatch
) -> None:
    """Made unreadable by the open call itself: permissions do not stop root, which tests may run
    as."""
    import shengji.hhfile as hhfile

    (tmp_path / "a.jsonl").write_text(lines[0] + "\n")
    (tmp_path / "b.jsonl").write_text(lines[1] + "\n")
    real = hhfile._open_read

    def refuse(path: Path):
        if path.name == "b.jsonl":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(hhfile, "_open_read", refuse)
    db = tmp_path / "u.duckdb"
    assert main(["ingest", str(tmp_path), "--db", str(db), "--workers", "0"]) == 1
    out = capsys.readouterr().out
    assert "could not be read to the end: 1" in out
    con = open_reader(db)
    try:
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(1,)]
        ((code, reason),) = con.execute("SELECT code, reason FROM rejects").fetchall()
    finally:
        con.close()
    assert code == "file_error" and "Permission denied" in reason


# --- broken pipes ----------------------------------------------------------------------------------


def _head(args: list[str]) -> subprocess.CompletedProcess:
    """`shengji ARGS | head -n 1`, with the reader closing after one line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "analytics.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    with proc:
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, "", err)


def test_replay_into_a_closed_pipe_stops_quietly() -> None:
    done = _head(["replay", str(SAMPLE)])
    assert done.returncode == 141
    assert done.stderr == ""


def test_report_json_into_a_closed_pipe_stops_quietly(db: Path) -> None:
    done = _head(["report", "--db", str(db), "--json"])
    assert done.returncode in (0, 141)  # the whole report may fit the pipe before it closes
    assert "Traceback" not in done.stderr and "Error" not in done.stderr


def test_report_json_into_a_pipe_closed_early_stops_quietly(db: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "analytics.cli", "report", "--db", str(db), "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    with proc:
        proc.stdout.close()  # before the command wrote anything
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert code == 141
    assert err == ""


# --- what ingest reads -----------------------------------------------------------------------------


def _tree(tmp_path: Path, lines: list[str]) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.jsonl").write_text(lines[5] + "\n")
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    (root / "a.jsonl").write_text(lines[0] + "\n")
    (root / "sub" / "b.jsonl").write_text(lines[1] + "\n")
    (root / "x.jsonl").symlink_to(outside / "passwd")
    (root / "out_dir").symlink_to(outside, target_is_directory=True)
    (root / "inside.jsonl").symlink_to(root / "a.jsonl")
    (root / "loop.jsonl").symlink_to(root / "loop2.jsonl")
    (root / "loop2.jsonl").symlink_to(root / "loop.jsonl")
    (root / "sub" / "again").symlink_to(root, target_is_directory=True)
    os.mkfifo(root / "fifo.jsonl")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(root / "sock.jsonl"))
    return root, outside


@pytest.mark.parametrize("form", ["folder", "glob"])
def test_links_out_of_the_root_are_not_followed(tmp_path: Path, lines: list[str], form) -> None:
    root, _ = _tree(tmp_path, lines)
    arg = str(root) if form == "folder" else str(root / "**" / "*.jsonl")
    found = find_sources([arg])
    assert found.files == sorted([root / "a.jsonl", root / "sub" / "b.jsonl"])
    skipped = dict(found.skipped)
    assert "outside" in skipped[str(root / "x.jsonl")]
    assert "not followed" in skipped[str(root / "out_dir")]
    assert "not followed" in skipped[str(root / "sub" / "again")]
    assert "loop" in skipped[str(root / "loop.jsonl")]
    assert skipped[str(root / "fifo.jsonl")] == "not a regular file"
    assert skipped[str(root / "sock.jsonl")] == "not a regular file"


def test_ingest_names_what_it_skipped(tmp_path: Path, lines: list[str], capsys) -> None:
    root, _ = _tree(tmp_path, lines)
    db = tmp_path / "s.duckdb"
    assert main(["ingest", str(root), "--db", str(db), "--workers", "0"]) == 0
    captured = capsys.readouterr()
    assert f"skipped {root / 'x.jsonl'}: links to" in captured.err
    assert "2 inserted" in captured.out
    con = open_reader(db)
    try:
        assert con.execute("SELECT count(*) FROM rejects").fetchall() == [(0,)]
        raw = con.execute("SELECT string_agg(file, ' ') FROM hands").fetchall()[0][0]
    finally:
        con.close()
    assert "outside" not in raw


def test_a_named_fifo_is_refused_not_opened(tmp_path: Path, capsys) -> None:
    os.mkfifo(tmp_path / "f.jsonl")
    assert main(["ingest", str(tmp_path / "f.jsonl"), "--db", str(tmp_path / "f.duckdb")]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_the_readme_names_every_option_of_ingest(capsys) -> None:
    """The README's command table lists each `shengji ingest` option that `--help` offers."""
    import re

    with pytest.raises(SystemExit):
        main(["ingest", "--help"])
    help_text = capsys.readouterr().out
    offered = set(re.findall(r"^\s+(--[a-z][a-z-]+)", help_text, re.MULTILINE)) - {"--help"}
    rows = [line for line in (ROOT / "README.md").read_text().splitlines()]
    named = {
        opt
        for line in rows
        if line.startswith("| `shengji ingest")
        for opt in re.findall(r"(--[a-z][a-z-]+)", line)
    }
    assert {"--force", "--max-line-bytes", "--fresh"} <= offered
    assert offered <= named, sorted(offered - named)
