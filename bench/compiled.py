"""The compiled build of the rules core in a source checkout: the hot modules compiled with mypyc.

`python -m bench.compiled build` compiles the modules of `hatch_build.MODULES` (the very build a
wheel gets: the rules core, and the simulator's table loop and careful bot that the analysis's
rollouts run) into extension modules in `build/compiled/shengji` (`sim/` and `sim/bots/` below it
for the simulator's; git ignores `build/`) and records a digest of the sources it was built from
(those modules and the package modules they import) in `build/compiled/build.json`.
`shengji/__init__.py` puts that directory first on the package's path while the digest matches
the sources, and `shengji/sim` and `shengji/sim/bots` put theirs on their own paths under the same
rule, so every process of the checkout (tests, `make demo`, the CLI) runs compiled; any other
module comes from the sources. `ensure` (what `make` runs) builds only when the build is missing or stale and, where
compiling is not possible (no C compiler or Python headers) or fails, says so in one line and
goes on with the pure modules, which give the same results.

A new build is made beside the old one, checked, and only then put in its place: after
compiling, it replays the fixed corpus of tests/replay_equivalence.py with the compiled modules
and checks its digests against tests/data/replay_equivalence.json, then simulates matches with the
bots and analyses a hand at small settings and checks those digests against
tests/data/play_equivalence.json, so a build is kept only when it says exactly what the pure
modules say (`verify` checks it again).

SHENGJI_PURE=1 in the environment makes a process use the pure modules whatever is built:
`pure_environment()` and `environment()` give the two environments the benchmarks compare.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

from shengji import BUILD_ENV, CHECKOUT_BUILD, build_is_current, source_digest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "shengji"
BUILD = CHECKOUT_BUILD
STAMP = BUILD / "build.json"


def hook() -> ModuleType:
    """hatch_build.py, the wheel's build hook, which holds the module list and the compile step."""
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def modules() -> tuple[str, ...]:
    return tuple(hook().MODULES)


def current() -> Path | None:
    """The build directory when a build exists, was made from the sources as they are now (the
    compiled modules and those they import: `hatch_build.built_from`) and compiled the modules
    `MODULES` names now."""
    if not build_is_current(BUILD):
        return None
    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return BUILD if stamp.get("modules") == list(modules()) else None


def environment(path: Path | None = None) -> dict[str, str]:
    """The environment of a process that runs the build at `path` (the checkout's by default)."""
    env = dict(os.environ)
    env.pop("SHENGJI_PURE", None)
    env.pop(BUILD_ENV, None)
    if path is not None and path != BUILD:
        env[BUILD_ENV] = str(path)
    return env


def pure_environment() -> dict[str, str]:
    """The environment of a process that runs the pure modules."""
    env = dict(os.environ, SHENGJI_PURE="1")
    env.pop(BUILD_ENV, None)
    return env


def build(*, force: bool = True) -> Path:
    """Compile the hot modules into a new build directory, verify it, and put it in place of the
    checkout's build; returns the directory. Raises when compiling fails or a digest differs
    (the old build, if any, is left as it was). One process builds at a time (a lock beside the
    build); without `force`, a build another process made current meanwhile is kept."""
    BUILD.parent.mkdir(parents=True, exist_ok=True)
    with (BUILD.parent / f"{BUILD.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not force and current() is not None:
            return BUILD
        return _build()


def _build() -> Path:
    files = hook().built_from(SOURCE)
    digest = source_digest(SOURCE, files)
    staging = BUILD.with_name(f"{BUILD.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        hook().compile_core(SOURCE, staging / "shengji")
        stamp = {
            "sources": digest,
            "files": files,
            "python": sys.version,
            "modules": list(modules()),
        }
        (staging / "build.json").write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
        verify(staging)
        # Processes running the old build keep the modules they loaded (a removed file stays
        # mapped); new processes see either no current build (pure) or the new one.
        shutil.rmtree(BUILD, ignore_errors=True)
        staging.rename(BUILD)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BUILD


def ensure() -> int:
    """Build when the build is missing or stale; where that is not possible, say so in one line
    and go on with the pure modules (exit 0: they give the same results)."""
    if current() is not None:
        print("compiled core: current")
        return 0
    start = time.monotonic()
    try:
        build(force=False)
    except Exception as e:  # no compiler, no headers, a failed compile: the pure core works
        print(
            f"compiled core: not built ({describe(e)}); using the pure Python core (same results)"
        )
        return 0
    print(f"compiled core: built and verified in {time.monotonic() - start:.0f} s")
    return 0


def describe(error: BaseException) -> str:
    """One line: the error and the last lines of a failed command's error output."""
    stderr = getattr(error, "stderr", None)
    tail = stderr.strip().splitlines()[-2:] if isinstance(stderr, str) and stderr.strip() else []
    return " | ".join(" ".join(part.split()) for part in [str(error), *tail])


def verify(path: Path) -> None:
    """Replay the equivalence corpus, simulate and analyse with the build at `path`; raises when
    a digest differs."""
    script = ROOT / "tests" / "replay_equivalence.py"
    subprocess.run(
        [sys.executable, str(script), "verify", "--compiled"],
        cwd=ROOT,
        env=environment(path),
        check=True,
        capture_output=True,
        text=True,
    )


LOG = BUILD.with_name(f"{BUILD.name}.log")
"""Where a build started in the background (`make demo`) writes what it did."""


def background() -> int:
    """Start `ensure` in a process of its own and return at once, so that `make demo` serves the
    dashboard on the pure core meanwhile; processes started after the build is in place (the
    next ingest, an upload, the next `make demo`) run compiled. The build outlives a Ctrl+C of
    the demo (its own session) and a second demo waits on the same lock instead of building
    twice."""
    if current() is not None:
        print("compiled core: current")
        return 0
    LOG.parent.mkdir(parents=True, exist_ok=True)
    with LOG.open("w") as log:
        subprocess.Popen(
            [sys.executable, "-m", "bench.compiled", "ensure"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    print(
        f"compiled core: building in the background (about two and a half minutes of CPU; "
        f"{LOG.relative_to(ROOT)}); the pure core serves meanwhile, with the same results"
    )
    return 0


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "build"
    if command == "build":
        path = build()
        print(f"compiled {', '.join(modules())} into {path.relative_to(ROOT)}; verified")
        return 0
    if command == "ensure":
        return ensure()
    if command == "background":
        return background()
    if command == "path":
        found = current()
        if found is not None:
            print(found)
        return 0
    if command == "verify":
        found = current()
        if found is None:
            print("no current compiled build (python -m bench.compiled build)", file=sys.stderr)
            return 1
        verify(found)
        return 0
    print(
        "usage: python -m bench.compiled [build | ensure | background | path | verify]",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
