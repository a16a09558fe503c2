"""``constrain-harness autograder build``: a Gradescope autograder bundle (a zip).

Contents (Gradescope unpacks the zip into ``/autograder/source``)::

    setup.sh                              installs the wheel + pinned dependencies into /autograder/venv
    run_autograder                        grades /autograder/submission -> /autograder/results/results.json
    constrain-harness-autograder.json     the settings (lab, tier, points, hints, limits, version, commit)
    constrain-harness-course-secret       the course secret, made for this bundle (64 hex digits,
                                          ``secrets.token_bytes``): every run seed is a keyed hash of
                                          the upload under it (``harness.suite.seeding.course_seed``), so
                                          no student computes it offline; staff-only (the bundle is the
                                          staff's; ``run_autograder`` makes it readable by root alone
                                          before anything is graded, and no sandbox sees that folder)
    constraints.txt                       the version of every distribution the wheel needs at run time
                                          (its core dependencies' closure) on the machine that built it
                                          (applied when Gradescope's Python is the same minor version)
    wheels/constrain_harness-V-py3-none-any.whl   this exact source tree, built with
                                          ``pip wheel . --no-deps --no-build-isolation``

The wheel is built from a copy of the source tree in a temporary folder, so the
checkout is never written to (no ``build/`` or ``*.egg-info`` left behind). Nothing is
downloaded at build time; ``setup.sh`` downloads the pinned dependencies when Gradescope
builds its image (``CONSTRAIN_HARNESS_OFFLINE=1`` installs the wheel alone, for tests).

Example::

    >>> build_bundle(Path("autograder.zip"), AutograderConfig(points=50))
    BundleInfo(path=PosixPath('autograder.zip'), wheel='constrain_harness-0.1.0-py3-none-any.whl', ...)
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness import __version__
from harness.grading.autograder.config import CONFIG_NAME, SECRET_NAME, AutograderConfig
from harness.suite.seeding import new_course_secret

__all__ = ["BUILD_BACKEND", "BundleInfo", "build_bundle", "build_wheel", "check_build_backend", "source_root",
           "runtime_closure"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
DISTRIBUTION = "constrain-harness"
_SOURCE_PARTS = ("pyproject.toml", "README.md", "LICENSE", "facts", "harness", "oracles", "strategies", "golden")
_EXECUTABLE = 0o100755 << 16
_FILE = 0o100644 << 16
_OWNER_ONLY = 0o100600 << 16


@dataclasses.dataclass(frozen=True)
class BundleInfo:
    path: Path
    wheel: str
    config: AutograderConfig
    files: tuple[str, ...]


def source_root() -> Path:
    """The checkout this harness runs from: the folder holding ``pyproject.toml``
    next to ``harness/``. Raises ValueError for an installed (non-editable) copy."""
    root = Path(__file__).resolve().parents[3]
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or 'name = "constrain-harness"' not in pyproject.read_text(encoding="utf-8"):
        raise ValueError(f"autograder build needs the constrain-harness source checkout (pyproject.toml next "
                         f"to harness/); none at {root}: run it from an editable install (pip install -e .)")
    return root


BUILD_BACKEND = Requirement("setuptools>=77")
"""What ``pip wheel --no-build-isolation`` needs in this Python's environment: pyproject.toml's
``[build-system]`` backend (77: PEP 639's license metadata; since 70.1 it writes wheels itself).
A runtime dependency of constrain-harness, so every install has it (pyproject.toml says why)."""


def check_build_backend() -> None:
    """A ValueError naming the missing or too old setuptools, and how to install it, unless this
    Python's environment holds ``BUILD_BACKEND`` (without it pip's own error is a setuptools
    traceback about ``project.license``, or ``Cannot import 'setuptools.build_meta'``)."""
    try:
        found = importlib.metadata.version(BUILD_BACKEND.name)
    except importlib.metadata.PackageNotFoundError:
        found = None
    if found is not None and BUILD_BACKEND.specifier.contains(found, prereleases=True):
        return
    what = f"setuptools {found} is too old" if found else "setuptools is not installed"
    raise ValueError(f"the bundle's wheel is built with this Python's own build backend (nothing is "
                     f"downloaded), which needs {BUILD_BACKEND}: {what} in {sys.prefix}; install it with "
                     f"{sys.executable} -m pip install '{BUILD_BACKEND}'")


def build_wheel(out_dir: Path, root: Path | None = None) -> Path:
    """Build this source tree's wheel into ``out_dir`` without touching the checkout (a
    ValueError first if this environment lacks ``BUILD_BACKEND``)."""
    root = root or source_root()
    check_build_backend()
    with tempfile.TemporaryDirectory(prefix="constrain-harness-wheel-") as scratch:
        copy = Path(scratch) / "src"
        copy.mkdir()
        for part in _SOURCE_PARTS:
            source = root / part
            if source.is_dir():
                shutil.copytree(source, copy / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(source, copy / part)
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                               "--quiet", "-w", str(out_dir)], cwd=copy, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ValueError(f"pip wheel failed (exit {proc.returncode}): {proc.stderr.strip()[-1500:]}")
    wheels = sorted(Path(out_dir).glob("constrain_harness-*.whl"))
    if len(wheels) != 1:
        raise ValueError(f"pip wheel left {len(wheels)} constrain-harness wheels in {out_dir}, expected 1")
    return wheels[0]


def _constraints() -> str:
    lines = ["# the dependency versions of the machine that built this bundle",
             f"# built with Python {sys.version_info.major}.{sys.version_info.minor}"]
    lines += [f"{name}=={version}" for name, version in runtime_closure()]
    return "\n".join(lines) + "\n"


def runtime_closure(distribution: str = DISTRIBUTION) -> list[tuple[str, str]]:
    """Every installed distribution that ``distribution``'s core dependencies (no extras) need,
    transitively, with its version here: (canonical name, version), sorted by name.

    A requirement whose marker does not hold on this Python (``python_version < "3.11"`` on
    3.13, ``extra == "dev"``) is left out; so is one that is not installed (nothing to pin).
    Pinning the whole closure, not only the direct dependencies, is what makes a Gradescope
    image grade with the same code as the machine that built the bundle."""
    pinned: dict[str, str] = {}
    pending = list(_core_requirements(distribution, extras=()))
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        if name in pinned:
            continue
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        pinned[name] = version
        pending += _core_requirements(name, extras=tuple(requirement.extras))
    return sorted(pinned.items())


def _core_requirements(distribution: str, extras: tuple[str, ...]) -> list[Requirement]:
    """``distribution``'s requirements whose markers hold here, for the given extras."""
    environments = [{"extra": extra} for extra in ("", *extras)]
    chosen = []
    for line in importlib.metadata.requires(distribution) or ():
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate(env) for env in environments):
            chosen.append(requirement)
    return chosen


def _commit(root: Path) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=12"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def build_bundle(out: Path, config: AutograderConfig = AutograderConfig()) -> BundleInfo:
    """Write the bundle to ``out`` (atomically) and return what it holds."""
    root = source_root()
    check_build_backend()
    config = dataclasses.replace(config, version=__version__, commit=_commit(root))
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="constrain-harness-bundle-") as scratch:
        wheel = build_wheel(Path(scratch), root)
        partial = out.with_name(out.name + ".partial")
        try:  # the CLI checked --out before the work (args.output_file); this is the backstop
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as bundle:
                for name in ("setup.sh", "run_autograder"):
                    _add(bundle, name, (TEMPLATES / name).read_bytes(), _EXECUTABLE)
                _add(bundle, CONFIG_NAME, (json.dumps(config.to_json(), indent=1, allow_nan=False) + "\n").encode(),
                     _FILE)
                _add(bundle, SECRET_NAME, (new_course_secret() + "\n").encode(), _OWNER_ONLY)
                _add(bundle, "constraints.txt", _constraints().encode(), _FILE)
                _add(bundle, f"wheels/{wheel.name}", wheel.read_bytes(), _FILE)
                files = tuple(bundle.namelist())
            partial.replace(out)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise ValueError(f"cannot write {out}: {exc.strerror or exc}") from None
    return BundleInfo(out, wheel.name, config, files)


def _add(bundle: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = mode
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, data)
