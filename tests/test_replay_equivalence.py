"""The replay says exactly what it said when tests/data/replay_equivalence.json was written: the
same JSON for every hand of a fixed generated corpus (clean and corrupted hands, several rule
options, the golden hands) and the same verdicts and reasons from the public rule functions on
every trick (tests/replay_equivalence.py). Speed work on the rules core must keep both digests;
a deliberate change of a verdict or a reason regenerates the file
(`python tests/replay_equivalence.py write`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from replay_equivalence import DIGEST, corpus, digest

from bench import compiled
from shengji.replay import replay_line
from shengji.scoring import TrickScore, score_hand
from shengji.shape import Reading
from shengji.trump import parse_trump


@pytest.fixture(scope="module")
def expected() -> dict[str, object]:
    return json.loads(DIGEST.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return corpus()


def test_the_corpus_is_the_one_digested(lines: list[str], expected: dict[str, object]) -> None:
    """The generator still makes the same lines, so a digest change below is the replay's."""
    assert len(lines) == expected["hands"]
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == expected["corpus_sha256"]


def test_replay_and_verdicts_are_unchanged(lines: list[str], expected: dict[str, object]) -> None:
    assert digest(lines) == expected


def test_the_corpus_holds_faults_of_every_play_kind(expected: dict[str, object]) -> None:
    codes = expected["codes"]
    assert isinstance(codes, dict)
    for code in (
        "must_follow_suit",
        "must_follow_shape",
        "throw_claim_mismatch",
        "bad_split",
        "not_in_hand",
        "out_of_turn",
        "wrong_count",
        "mixed_lead",
        "incomplete_hand",
        "claim_mismatch",
        "bad_json",
        "bad_record",
    ):
        assert codes.get(code, 0) > 0, code
    statuses = expected["statuses"]
    assert isinstance(statuses, dict)
    assert set(statuses) == {"ok", "flagged", "rejected"}


def test_the_replay_scores_every_hand_as_score_hand_does(lines: list[str]) -> None:
    """R7, R4.5: the replay totals the score itself, without `score_hand`'s explaining rows;
    both must agree on every hand that is scored."""
    scored = 0
    for text in lines:
        r = replay_line(text, strict=False)
        if r.attackers_points is None:
            continue
        assert r.banker is not None and r.trump is not None and r.level is not None
        assert r.rules is not None and r.bottom is not None and r.level_change is not None
        last = r.tricks[-1]
        winning = next(p.cards for p in last.plays if p.seat == last.winner)
        failed = [t.leader for t in r.tricks if t.throw is not None and t.throw.failed]
        table = score_hand(
            r.banker,
            [TrickScore(t.winner, t.points) for t in r.tricks],
            Reading(last.suit, last.components),
            winning,
            r.bottom_buried,
            parse_trump(r.trump, r.level),
            r.rules,
            failed,
        )
        assert table.bottom is not None
        assert r.attackers_points == table.attackers_points
        assert (
            r.bottom.bottom_points,
            r.bottom.captured,
            r.bottom.multiplier,
            r.bottom.points,
        ) == (
            table.bottom.bottom_points,
            table.bottom.captured,
            table.bottom.multiplier,
            table.bottom.points,
        )
        outcome = table.outcome
        assert (r.level_change.team, r.level_change.levels, r.level_change.banker_won) == (
            outcome.winning_team(r.banker),
            outcome.levels,
            outcome.winner == "banker",
        )
        assert r.next_banker == table.next_banker
        assert r.ladder_points == table.ladder_points
        scored += 1
    assert scored > 100


def _verify(env: dict[str, str], *, compiled_core: bool, cwd: Path | None = None) -> str:
    script = Path(__file__).resolve().parent / "replay_equivalence.py"
    args = [sys.executable, str(script), "verify", *(["--compiled"] if compiled_core else [])]
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _version(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "shengji", "--version"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_current_compiled_build_replays_to_the_same_digests() -> None:
    """The checkout's mypyc build (`make core`), which every process of the checkout uses while
    it is current, says exactly what the pure modules say, and `shengji --version` says it runs.
    Without a build made from the current sources the test makes one, so the check runs wherever
    a C compiler and Python's headers are found; where they are not, `make core` must go on with
    the pure core (`test_without_a_compiler_make_core_goes_on_with_the_pure_core`)."""
    missing = compiled.hook().missing_toolchain()
    if missing is not None:
        assert compiled.current() is None
        assert "rules core: pure Python" in _version(compiled.environment())
        return
    build = compiled.current()
    if build is None:
        made = subprocess.run(
            [sys.executable, "-m", "bench.compiled", "ensure"], capture_output=True, text=True
        )
        assert made.returncode == 0, made.stdout + made.stderr
        build = compiled.current()
        assert build is not None, made.stdout + made.stderr
    assert "identical (compiled:" in _verify(compiled.environment(), compiled_core=True)
    assert "rules core: compiled (" in _version(compiled.environment())


def _module_files(env: dict[str, str]) -> dict[str, str]:
    """Where a process of `env` imports each compiled module from: `ext` or `py`."""
    names = [f"shengji.{m}" for m in compiled.modules()]
    code = (
        "import importlib, json, sys\n"
        f"names = {names!r}\n"
        "print(json.dumps({n: 'py' if importlib.import_module(n).__file__.endswith('.py') "
        "else 'ext' for n in names}))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found: dict[str, str] = json.loads(done.stdout)
    return found


def test_the_simulators_modules_come_from_the_same_build_as_the_core(tmp_path: Path) -> None:
    """`shengji.sim` and `shengji.sim.bots` take their compiled modules from the build the package
    uses (a current one), and none with SHENGJI_PURE or a stale build: never a mix."""
    pure = _module_files(compiled.pure_environment())
    assert set(pure.values()) == {"py"}
    if compiled.hook().missing_toolchain() is not None:
        return
    build = compiled.current() or compiled.build(force=False)
    assert set(_module_files(compiled.environment(build)).values()) == {"ext"}
    stale = tmp_path / "stale"
    shutil.copytree(build, stale)
    stamp = json.loads((stale / "build.json").read_text(encoding="utf-8"))
    (stale / "build.json").write_text(json.dumps(stamp | {"sources": "0" * 64}), encoding="utf-8")
    assert set(_module_files(compiled.environment(stale)).values()) == {"py"}


def test_the_pure_core_replays_to_the_same_digests() -> None:
    """SHENGJI_PURE=1 (and any process without a current build) runs the pure modules: the same
    digests, and `shengji --version` says so."""
    out = _verify(compiled.pure_environment(), compiled_core=False)
    assert "identical (pure Python)" in out
    assert "rules core: pure Python" in _version(compiled.pure_environment())


def test_without_a_compiler_make_core_goes_on_with_the_pure_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bare machine (no C compiler): `make core` (`ensure`) says so in one line, exits 0 and
    leaves no build, so `make test` and `make demo` go on with the pure core."""
    monkeypatch.setattr(compiled, "BUILD", tmp_path / "compiled")
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    assert compiled.ensure() == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert out.startswith("compiled core: not built (no C compiler")
    assert "using the pure Python core" in out
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == []  # no build, no staging


def test_without_python_headers_the_toolchain_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Debian's python3.11 without python3.11-dev: a compiler but no Python.h."""
    hook = compiled.hook()
    paths = dict(sysconfig.get_paths(), include=str(tmp_path))
    monkeypatch.setattr(hook.sysconfig, "get_paths", lambda: paths)
    why = hook.missing_toolchain()
    assert why is not None and why.startswith("no Python headers")


def _wheel(tmp: Path, env: dict[str, str]) -> tuple[Path, str]:
    """The wheel `pip install .` would install, built by the project's build files, unpacked."""
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(root),
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp / "dist"),
            "-v",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("*.whl")
    site = tmp / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    return site, wheel.name + "\n" + done.stdout + done.stderr


def _installed_env(site: Path) -> dict[str, str]:
    """A process that imports the unpacked wheel's `shengji` (not the checkout's), with the
    tests folder for the equivalence corpus's helpers."""
    tests = Path(__file__).resolve().parent
    env = compiled.environment()
    env["PYTHONSAFEPATH"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(tests)])
    return env


def test_the_wheel_users_install_is_compiled_and_replays_to_the_same_digests(
    tmp_path: Path,
) -> None:
    """`pip install .` gets the core compiled by hatch_build.py where a C compiler is found: the
    wheel holds an extension module for every compiled module, is tagged for this platform, and
    says exactly what the pure modules say. To spare a second compile of the same modules, the
    hook packages the checkout's current build (made by the same `compile_core`, checked by the
    test above) instead of compiling again."""
    if compiled.hook().missing_toolchain() is not None:
        return  # the wheel is the pure core: the test below checks it
    build = compiled.current() or compiled.build(force=False)
    env = compiled.environment()
    env["SHENGJI_PREBUILT"] = str(build)
    site, log = _wheel(tmp_path, env)
    package = site / "shengji"
    built = {
        p.relative_to(package).as_posix().split(".")[0].replace("/", ".")
        for p in package.rglob("*.so")
    }
    assert set(compiled.modules()) <= built, log
    assert "-none-any" not in log.splitlines()[0], log
    out = _verify(_installed_env(site), compiled_core=True, cwd=tmp_path)
    assert "identical (compiled:" in out
    assert "rules core: compiled (" in _version(_installed_env(site))


def test_without_a_compiler_the_wheel_is_the_pure_core(tmp_path: Path) -> None:
    """Where compiling is not possible (here: no C compiler), the build says so and the wheel is
    the pure package, which gives the same digests."""
    env = compiled.environment()
    env.pop("SHENGJI_PREBUILT", None)
    env["CC"] = str(tmp_path / "no-such-compiler")
    site, log = _wheel(tmp_path, env)
    assert not list((site / "shengji").glob("*.so")), log
    assert "-none-any" in log.splitlines()[0], log
    assert "installing the pure Python core" in log, log
    out = _verify(_installed_env(site), compiled_core=False, cwd=tmp_path)
    assert "identical (pure Python)" in out
    assert "rules core: pure Python" in _version(_installed_env(site))


def test_the_build_hook_and_the_core_agree_on_the_source_digest() -> None:
    """A checkout build is packaged (SHENGJI_PREBUILT) and used (`shengji/__init__.py`) only when
    its stamp matches the sources; both sides must compute the same digest."""
    import shengji

    assert compiled.hook().source_digest(compiled.SOURCE) == shengji.source_digest()


def test_a_build_is_stale_only_when_a_module_it_uses_changes(tmp_path: Path) -> None:
    """`make core` rebuilds when a compiled module or a core module one of them imports changes,
    not when the CLI (a module no compiled one imports) does."""
    import shengji

    hook = compiled.hook()
    package = tmp_path / "shengji"
    shutil.copytree(compiled.SOURCE, package, ignore=shutil.ignore_patterns("__pycache__"))
    files = hook.built_from(package)
    compiled_files = {hook.module_file(m) for m in hook.MODULES}
    assert compiled_files <= set(files)
    assert "cli.py" not in files
    # The simulator's compiled modules bring their packages' `__init__.py`, not the match runner.
    assert {"sim/__init__.py", "sim/bots/__init__.py", "sim/table.py"} <= set(files)
    assert "sim/run.py" not in files
    imported = [f for f in files if f not in compiled_files and not f.endswith("__init__.py")]
    assert imported  # a module compiled ones import, not compiled itself
    assert hook.source_digest(package, files) == shengji.source_digest(package, files)
    build = tmp_path / "build"
    build.mkdir()
    stamp = {"sources": shengji.source_digest(package, files), "files": files}
    (build / "build.json").write_text(json.dumps(stamp | {"python": sys.version}))
    assert shengji.build_is_current(build, package)
    unused = [p for p in package.rglob("*.py") if p.relative_to(package).as_posix() not in files]
    assert package / "cli.py" in unused
    assert package / "sim" / "run.py" in unused
    for path in unused:
        path.write_text(path.read_text() + "\n# edited\n")
    assert shengji.build_is_current(build, package)
    dep = package / imported[0]
    dep.write_text(dep.read_text() + "\n# edited\n")
    assert not shengji.build_is_current(build, package)
