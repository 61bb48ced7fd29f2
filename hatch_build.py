"""Build hook: the wheel carries the rules core's hot modules compiled with mypyc.

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
    "review",
    "review_last",
    "review_throw",
    "rungs",
    "memo",
    "flat",
)
"""The modules compiled (shengji/<name>.py); the others stay Python in every build."""

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
        for path in source.glob("*.py"):  # what mypyc type-checks the compiled modules against
            shutil.copy2(path, package / path.name)
        targets = [f"shengji/{name}.py" for name in MODULES]
        (work / "setup.py").write_text(_SETUP.format(targets=targets, group=GROUP))
        subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        built = sorted(package.glob(f"*{suffix}"))
        expected = {f"{name}{suffix}" for name in MODULES}
        missing = expected - {p.name for p in built}
        if missing:
            raise RuntimeError(f"mypyc did not build {', '.join(sorted(missing))}")
        out.mkdir(parents=True, exist_ok=True)
        result = []
        for path in built:
            target = out / path.name
            shutil.copy2(path, target)
            result.append(target)
        return result


def source_digest(package: Path, files: list[str] | None = None) -> str:
    """sha256 over `package`'s modules with their names: `files`, or every one (the same digest
    as `shengji.source_digest`, which the core computes itself: it imports nothing from here)."""
    digest = hashlib.sha256()
    paths = sorted(package.glob("*.py")) if files is None else [package / f for f in sorted(files)]
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def built_from(package: Path) -> list[str]:
    """The files of `package` (shengji/) a build of `MODULES` depends on: those modules, every
    module of the package they import, directly or through another, and `__init__.py`. A change
    to any other module (the CLI, the simulator, the referee) leaves the build current."""
    seen: set[str] = set()
    todo = list(MODULES)
    while todo:
        name = todo.pop()
        path = package / f"{name}.py"
        if name in seen or not path.exists():
            continue
        seen.add(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level == 1 and not module:  # from . import x
                    todo += [a.name for a in node.names]
                elif node.level == 1:  # from .x import y
                    todo.append(module.split(".")[0])
                elif module == "shengji":  # from shengji import x
                    todo += [a.name for a in node.names]
                elif module.startswith("shengji."):
                    todo.append(module.split(".")[1])
            elif isinstance(node, ast.Import):
                todo += [a.name.split(".")[1] for a in node.names if a.name.startswith("shengji.")]
    return sorted({*(f"{n}.py" for n in seen), "__init__.py"})


def prebuilt(build: Path, source: Path, out: Path) -> list[Path]:
    """The extension modules of a checkout build (`build`: build/compiled, made by `compile_core`)
    copied into `out`, when its stamp says it was built from `source` as it is now by this
    Python; raises otherwise. The test of the wheel uses it to package the checkout's build
    instead of compiling the same modules a second time."""
    stamp = json.loads((build / "build.json").read_text(encoding="utf-8"))
    sources = source_digest(source, stamp.get("files"))
    if stamp.get("sources") != sources or stamp.get("python") != sys.version:
        raise RuntimeError(f"{build} was not built from the current sources")
    out.mkdir(parents=True, exist_ok=True)
    result = []
    for path in sorted((build / "shengji").glob("*.so")):
        shutil.copy2(path, out / path.name)
        result.append(out / path.name)
    return result


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
                build_data["force_include"][str(path)] = f"shengji/{path.name}"
            self.app.display_info(f"compiled the rules core with mypyc: {len(files)} modules")
