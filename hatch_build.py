"""Build hook: the wheel carries the rules core's hot modules (and the simulator's table loop and
careful bot, which the analysis's rollouts run) compiled with mypyc.

`pip install .` (and any wheel build) compiles the modules of `MODULES` with mypyc and ships the
extension modules beside the pure sources; Python imports an extension module before a `.py` of
the same name, so the installed package runs compiled. Where compiling fails (no C compiler, no
Python headers, mypyc missing) the hook says so and the wheel is the pure package, which gives
identical results, only slower. SHENGJI_PURE=1 skips compiling on purpose; SHENGJI_PREBUILT=DIR
packages a checkout's current build (build/compiled) instead of compiling again.

An editable install (`pip install -e`) is not compiled here: compiled modules next to sources
being edited would shadow the edits. The checkout's build goes to build/compiled instead
(`python -m bench.compiled build`, run by `make`), and `shengji/__init__.py` uses it only while it
matches the sources.

`compile_core` is also what bench/compiled.py runs, so both builds are the same. Before compiling it
checks for what mypyc's C step needs (`missing_toolchain`), so a machine without a C compiler or
Python headers — a bare Debian with only python3.11 — falls back at once with a one-line note.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

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
    "coach.review",
    "coach.review_last",
    "coach.review_throw",
    "rungs",
    "memo",
    "flat",
    "sim.units",
    "sim.memory",
    "sim.table",
    "sim.bots.base",
    "sim.bots.careful",
)
"""The modules compiled (`shengji.<name>`: shengji/<name>.py, or shengji/sim/table.py for
`sim.table`); the others stay Python in every build. The simulator's table loop and the careful
bot are here for the analysis's rollouts (shengji/coach/analysis.py), which play hands out with
them."""


def module_file(name: str) -> str:
    """The source file of module `name` of `MODULES`, relative to the package: `sim/table.py`."""
    return name.replace(".", "/") + ".py"


def extension_file(name: str, suffix: str) -> str:
    """Where module `name`'s extension module goes, relative to the package."""
    return name.replace(".", "/") + suffix


GROUP = "shengji.native"
"""mypyc's shared runtime module, kept inside the package: `shengji/native__mypyc…so`."""

_SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="shengji-core-build",
    ext_modules=mypycify({targets!r}, opt_level="3", group_name={group!r}),
)
"""


class NoToolchain(RuntimeError):
    """What compiling needs is missing (no C compiler, no Python headers, no mypyc)."""


def missing_toolchain() -> str | None:
    """Why the core cannot be compiled on this machine, or None when it can be tried: mypyc,
    setuptools, the C compiler setuptools will call (`CC` or the one Python was built with) and
    Python.h."""
    for module in ("mypyc", "setuptools"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(command)
    if not words or shutil.which(words[0]) is None:
        return f"no C compiler ({words[0] if words else command!r} not found)"
    include = sysconfig.get_paths().get("include") or ""
    if not (Path(include) / "Python.h").is_file():
        return f"no Python headers ({include}/Python.h not found; Debian: python3-dev)"
    return None


def compile_core(source: Path, out: Path) -> list[Path]:
    """Compile `MODULES` of the package directory `source` (shengji/) into `out`, which receives
    the extension modules only; returns their paths. Raises `NoToolchain` when the machine lacks
    what compiling needs, another error when compiling fails."""
    why = missing_toolchain()
    if why is not None:
        raise NoToolchain(why)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    with tempfile.TemporaryDirectory(prefix="shengji-mypyc-") as tmp:
        work = Path(tmp)
        package = work / "shengji"
        package.mkdir()
        for path in source.rglob("*.py"):  # what mypyc type-checks the compiled modules against
            copy = package / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copy)
        targets = [f"shengji/{module_file(name)}" for name in MODULES]
        (work / "setup.py").write_text(_SETUP.format(targets=targets, group=GROUP))
        subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        built = sorted(p.relative_to(package).as_posix() for p in package.rglob(f"*{suffix}"))
        expected = {extension_file(name, suffix) for name in MODULES}
        missing = expected - set(built)
        if missing:
            raise RuntimeError(f"mypyc did not build {', '.join(sorted(missing))}")
        return _copy(package, built, out)


def _copy(package: Path, files: list[str], out: Path) -> list[Path]:
    """`files` (relative to `package`) copied to the same places under `out`."""
    result = []
    for name in files:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(package / name, target)
        result.append(target)
    return result


def source_digest(package: Path, files: list[str] | None = None) -> str:
    """sha256 over `package`'s modules with their paths in it: `files` (like `cards.py` or
    `sim/table.py`), or every top-level one (the same digest as `shengji.source_digest`, which
    the core computes itself: it imports nothing from here)."""
    digest = hashlib.sha256()
    names = sorted(p.name for p in package.glob("*.py")) if files is None else sorted(files)
    for name in names:
        digest.update(name.encode() + b"\0" + (package / name).read_bytes() + b"\0")
    return digest.hexdigest()


def built_from(package: Path) -> list[str]:
    """The files of `package` (shengji/) a build of `MODULES` depends on: those modules, every
    module of the package they import, directly or through another, and the `__init__.py` of
    each package on the way (which Python runs, and mypyc reads, before the module). A change to
    any other module (the CLI, the referee, the simulator's match runner) leaves the build
    current."""
    seen: set[str] = set()
    todo = [f"shengji.{name}" for name in MODULES]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        if name in seen or parts[0] != "shengji":
            continue
        seen.add(name)
        todo += [".".join(parts[:k]) for k in range(1, len(parts))]  # the packages on the way
        path = _source(package, parts[1:])
        if path is None:
            continue
        is_package = path.name == "__init__.py"
        here = parts if is_package else parts[:-1]  # what `from .` means in this file
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = here[: len(here) - node.level + 1] if node.level else []
                module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
                todo.append(module)
                # `from . import x` or `from shengji import x`: x may be a module.
                todo += [f"{module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
    files = {_relative(package, name) for name in seen}
    return sorted(f for f in files if f is not None)


def _source(package: Path, parts: list[str]) -> Path | None:
    """The file of module `shengji.<parts>`: a module or a package's `__init__.py`."""
    module = package.joinpath(*parts).with_suffix(".py") if parts else None
    if module is not None and module.is_file():
        return module
    init = package.joinpath(*parts, "__init__.py")
    return init if init.is_file() else None


def _relative(package: Path, name: str) -> str | None:
    path = _source(package, name.split(".")[1:])
    return path.relative_to(package).as_posix() if path is not None else None


def prebuilt(build: Path, source: Path, out: Path) -> list[Path]:
    """The extension modules of a checkout build (`build`: build/compiled, made by `compile_core`)
    copied into `out`, when its stamp says it was built from `source` as it is now by this
    Python; raises otherwise. The test of the wheel uses it to package the checkout's build
    instead of compiling the same modules a second time."""
    stamp = json.loads((build / "build.json").read_text(encoding="utf-8"))
    sources = source_digest(source, stamp.get("files"))
    if stamp.get("sources") != sources or stamp.get("python") != sys.version:
        raise RuntimeError(f"{build} was not built from the current sources")
    compiled = build / "shengji"
    return _copy(
        compiled, sorted(p.relative_to(compiled).as_posix() for p in compiled.rglob("*.so")), out
    )


def _describe(error: BaseException) -> str:
    stderr = getattr(error, "stderr", None)
    tail = stderr.strip().splitlines()[-3:] if isinstance(stderr, str) and stderr.strip() else []
    return " | ".join([str(error), *tail])


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # imported by bench/compiled.py, outside a build
    pass
else:

    class CompiledCoreHook(BuildHookInterface):  # type: ignore[type-arg]
        PLUGIN_NAME = "custom"

        def initialize(self, version: str, build_data: dict[str, Any]) -> None:
            if self.target_name != "wheel" or version == "editable":
                return
            if os.environ.get("SHENGJI_PURE"):
                self.app.display_info("SHENGJI_PURE is set: building the pure Python core")
                return
            out = Path(self.directory) / "shengji-compiled"
            shutil.rmtree(out, ignore_errors=True)
            source = Path(self.root) / "shengji"
            try:
                reuse = os.environ.get("SHENGJI_PREBUILT")
                files = prebuilt(Path(reuse), source, out) if reuse else compile_core(source, out)
            except Exception as e:  # no compiler, no headers, no mypyc: the pure core works
                self.app.display_warning(
                    f"could not compile the rules core ({_describe(e)}); "
                    "installing the pure Python core (same results, slower)"
                )
                return
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
            for path in files:
                build_data["force_include"][str(path)] = (
                    f"shengji/{path.relative_to(out).as_posix()}"
                )
            self.app.display_info(f"compiled the rules core with mypyc: {len(files)} modules")
