"""The compiled build of the rules core: the hot modules of `shengji` compiled with mypyc.

`python -m bench.compiled build` compiles the modules of `MODULES` into extension modules in
`build/compiled/shengji` (git ignores `build/`) and records a digest of the sources it was built
from. That directory holds only the extension modules and an `__init__.py` whose package path goes
on to the source tree, so every other module (the simulator, the CLI, …) is always the current
source. The repository's own `shengji` stays pure Python and is what `make test` and every import
use by default; the compiled build is used only by a process that puts its directory first on
`sys.path`:

    PYTHONSAFEPATH=1 PYTHONPATH=build/compiled python -m ...

(`PYTHONSAFEPATH` keeps the current directory, which holds the pure package, off the path; the
rest of the project still comes from the editable install.) `python -m bench.compiled path`
prints that directory when the build is current — built from the core's sources as they are now
— and nothing otherwise, so a recipe can fall back to pure Python:
`PYTHONPATH=$(python -m bench.compiled path)`.

After compiling, the build replays the fixed corpus of tests/replay_equivalence.py with the
compiled modules and checks its digests against tests/data/replay_equivalence.json: the build is
kept only when it says exactly what the pure modules say (`verify` checks it again).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "shengji"
BUILD = ROOT / "build" / "compiled"
STAMP = BUILD / "build.json"

MODULES: tuple[str, ...] = (
    "cards",
    "trump",
    "combos",
    "throws",
    "trick",
    "ladder",
    "follow",
    "replay",
    "record",
    "results",
    "shape",
    "rules",
    "scoring",
    "bidding",
)
"""The modules compiled (shengji/<name>.py); the others stay Python in the build too."""


def source_digest() -> str:
    """sha256 over the core's modules (`shengji/*.py`, which the compiled ones are built and
    type-checked against), with their names; the subpackages are not part of the build."""
    digest = hashlib.sha256()
    for path in sorted(SOURCE.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def current() -> Path | None:
    """The build directory when a build exists and was made from the sources as they are now."""
    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if stamp.get("sources") != source_digest() or stamp.get("python") != sys.version:
        return None
    return BUILD


def environment(path: Path) -> dict[str, str]:
    """The environment of a process that imports `shengji` from `path` (see the module doc)."""
    env = dict(os.environ)
    env["PYTHONSAFEPATH"] = "1"
    env["PYTHONPATH"] = str(path)
    return env


def build() -> Path:
    """Compile `MODULES` into a fresh build directory and verify it; returns the directory."""
    digest = source_digest()
    if BUILD.exists():
        shutil.rmtree(BUILD)
    package = BUILD / "shengji"
    package.mkdir(parents=True)
    for path in SOURCE.glob("*.py"):  # what mypyc type-checks the compiled modules against
        shutil.copy2(path, package / path.name)
    targets = [f"shengji/{name}.py" for name in MODULES]
    subprocess.run(
        [sys.executable, "-m", "mypyc", *targets],
        cwd=BUILD,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    shutil.rmtree(BUILD / "build", ignore_errors=True)  # mypyc's C sources and objects
    for path in package.glob("*.py"):
        path.unlink()
    init = (SOURCE / "__init__.py").read_text(encoding="utf-8")
    (package / "__init__.py").write_text(
        init
        + "\n# The compiled build: extension modules here, every other module from the sources.\n"
        + f"__path__.append({str(SOURCE)!r})\n",
        encoding="utf-8",
    )
    verify(BUILD)
    STAMP.write_text(
        json.dumps({"sources": digest, "python": sys.version, "modules": list(MODULES)}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    return BUILD


def verify(path: Path) -> None:
    """Replay the equivalence corpus with the build at `path`; raises when a digest differs."""
    script = ROOT / "tests" / "replay_equivalence.py"
    subprocess.run(
        [sys.executable, str(script), "verify", "--compiled"],
        cwd=ROOT,
        env=environment(path),
        check=True,
    )


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "build"
    if command == "build":
        path = build()
        print(f"compiled {', '.join(MODULES)} into {path.relative_to(ROOT)}; verified")
        return 0
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
    print("usage: python -m bench.compiled [build | path | verify]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
