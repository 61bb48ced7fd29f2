"""The two commands on a bare machine: `make test` installs the browser test's Chromium when it is
missing (.ci/chromium), CI only calls `make test`, and `make demo` serves on this machine only,
without telemetry or a Deploy button, unless told otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "chromium"


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _machine(tmp_path: Path, uid: int, sudo: bool, have: bool = False) -> Path:
    """A PATH of fake programs: `id`, `apt-get` (logs its arguments; `install` puts chromium and
    chromedriver on the PATH), optionally `sudo` (logs, then runs its command) and the two
    programs already there."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    chmod = shutil.which("chmod") or "/bin/chmod"
    _tool(bin_, "id", f"echo {uid}")
    _tool(
        bin_,
        "apt-get",
        f'echo "apt-get $*" >> {log}\n'
        f'case "$1" in install) for p in chromium chromedriver; do '
        f'printf "#!/bin/sh\\n" > {bin_}/$p; {chmod} +x {bin_}/$p; done;; esac',
    )
    if sudo:
        _tool(bin_, "sudo", f'echo "sudo $*" >> {log}\nexec "$@"')
    if have:
        _tool(bin_, "chromium", "true")
        _tool(bin_, "chromedriver", "true")
    return bin_


def _run(bin_: Path) -> subprocess.CompletedProcess[str]:
    sh = shutil.which("sh") or "/bin/sh"
    return subprocess.run(
        [sh, str(SCRIPT)], env={"PATH": str(bin_)}, capture_output=True, text=True, check=False
    )


def _log(tmp_path: Path) -> list[str]:
    log = tmp_path / "log"
    return log.read_text().splitlines() if log.exists() else []


def test_missing_chromium_is_installed_as_root(tmp_path: Path) -> None:
    bin_ = _machine(tmp_path, uid=0, sudo=False)
    done = _run(bin_)
    assert done.returncode == 0, done.stderr
    assert _log(tmp_path) == [
        "apt-get update -qq",
        "apt-get install -y -qq chromium chromium-driver",
    ]
    assert (bin_ / "chromedriver").exists()


def test_missing_chromium_is_installed_through_sudo(tmp_path: Path) -> None:
    done = _run(_machine(tmp_path, uid=1000, sudo=True))
    assert done.returncode == 0, done.stderr
    log = _log(tmp_path)
    assert "sudo apt-get install -y -qq chromium chromium-driver" in log
    assert log[-1] == "apt-get install -y -qq chromium chromium-driver"


def test_without_root_or_sudo_it_names_the_packages(tmp_path: Path) -> None:
    done = _run(_machine(tmp_path, uid=1000, sudo=False))
    assert done.returncode == 1
    assert "apt-get install chromium chromium-driver" in done.stderr
    assert "root" in done.stderr
    assert _log(tmp_path) == []


def test_nothing_is_installed_when_both_are_there(tmp_path: Path) -> None:
    done = _run(_machine(tmp_path, uid=0, sudo=False, have=True))
    assert done.returncode == 0 and _log(tmp_path) == []


def _make_n(*args: str) -> list[str]:
    done = subprocess.run(
        ["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_make_test_installs_chromium_before_the_suite() -> None:
    lines = _make_n("test")
    chromium = next(i for i, line in enumerate(lines) if ".ci/chromium" in line)
    pytest_ = next(i for i, line in enumerate(lines) if "pytest" in line)
    assert chromium < pytest_


def test_only_make_bench_installs_the_bench_extra() -> None:
    """The peers' libraries (pokerkit, python-chess) are for `make bench`, not for the suite."""
    assert not any(".[bench]" in line or ",bench]" in line for line in _make_n("test"))
    bench = _make_n("bench")
    install = next(i for i, line in enumerate(bench) if "bench]" in line and "pip install" in line)
    run = next(i for i, line in enumerate(bench) if line.endswith("-m bench"))
    assert install < run


def test_ci_only_calls_make_test(tmp_path: Path) -> None:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    _tool(bin_, "make", f'echo "make $*" >> {tmp_path / "log"}')
    _tool(bin_, "apt-get", f'echo "apt-get $*" >> {tmp_path / "log"}')
    for name in ("bash", "dirname"):  # and no chromium: CI leaves that to `make test`
        (bin_ / name).symlink_to(shutil.which(name) or f"/bin/{name}")
    env = {"PATH": str(bin_)}
    done = subprocess.run(
        [str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert _log(tmp_path) == ["make test"]


def test_make_demo_serves_on_this_machine_by_default() -> None:
    (run,) = [line for line in _make_n("demo") if "streamlit run" in line]
    assert "--server.address 127.0.0.1" in run and "--server.port 8501" in run
    # Through the middleware that spares deep links their 404s (dashboard/serve.py).
    assert "streamlit run dashboard/serve.py " in run
    (run,) = [
        line for line in _make_n("demo", "HOST=0.0.0.0", "PORT=8600") if "streamlit run" in line
    ]
    assert "--server.address 0.0.0.0" in run and "--server.port 8600" in run


def test_streamlit_reads_the_projects_config(tmp_path: Path) -> None:
    """`streamlit run` from the project root (as `make demo` does) takes .streamlit/config.toml;
    the user's own config (HOME) is kept out of the way."""
    env = {**os.environ, "HOME": str(tmp_path)}
    env = {k: v for k, v in env.items() if not k.startswith("STREAMLIT_")}
    done = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    for option, value in (
        ("browser.gatherUsageStats", "false"),
        ("client.toolbarMode", '"viewer"'),
        ("client.showErrorDetails", '"none"'),
        ("server.address", '"127.0.0.1"'),
        ("server.fileWatcherType", '"none"'),
        ("server.runOnSave", "false"),
    ):
        section, name = option.split(".")
        text = done.stdout.split(f"[{section}]", 1)[1].split("\n[", 1)[0]
        assert f"\n{name} = {value}\n" in text, (option, text[-1500:])


def test_make_demo_serves_before_the_compiled_core_is_built() -> None:
    """The dashboard must not wait on the compile (minutes on a fresh machine): the sample is loaded
    with whichever core is current and the build starts in the background, before serving."""
    lines = _make_n("demo")
    assert not any("bench.compiled ensure" in line for line in lines)
    ingest = next(i for i, line in enumerate(lines) if "shengji ingest" in line)
    build = next(i for i, line in enumerate(lines) if "bench.compiled background" in line)
    serve = next(i for i, line in enumerate(lines) if "streamlit run" in line)
    assert ingest < build < serve
    assert any(line.startswith("echo") and "==>" in line for line in lines)


def test_the_background_build_runs_in_a_session_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl+C of the demo must not kill the build, and the call must not wait for it."""
    from bench import compiled

    started: list[tuple[list[str], dict[str, object]]] = []

    class _Popen:
        def __init__(self, argv: list[str], **kwargs: object) -> None:
            started.append((argv, kwargs))

    monkeypatch.setattr(compiled, "current", lambda: None)
    monkeypatch.setattr(compiled, "LOG", tmp_path / "compiled.log")
    monkeypatch.setattr(compiled, "ROOT", tmp_path)
    monkeypatch.setattr(compiled.subprocess, "Popen", _Popen)
    assert compiled.main(["background"]) == 0
    ((argv, kwargs),) = started
    assert argv[-2:] == ["bench.compiled", "ensure"]
    assert kwargs["start_new_session"] is True
    assert "building in the background" in capsys.readouterr().out
    monkeypatch.setattr(compiled, "current", lambda: tmp_path)
    assert compiled.main(["background"]) == 0
    assert len(started) == 1 and "compiled core: current" in capsys.readouterr().out
