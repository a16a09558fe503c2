"""``autograder build`` on an install without the dev extra: the wheel is built with this
Python's own setuptools (``pip wheel --no-build-isolation``: nothing is downloaded), so
setuptools >= 77 is a runtime dependency, and where it is still missing or too old the verb
says so in one line, naming the requirement and how to install it, before pip runs (pip's own
error there is a setuptools traceback about ``project.license``, on 3.10/3.11's 65.5, or
``Cannot import 'setuptools.build_meta'`` on 3.12+, whose venvs have none).
"""

from __future__ import annotations

import importlib.metadata
import io
import re
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder import bundle

try:
    import tomllib
except ImportError:  # 3.10: pytest's own TOML reader
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _setuptools_is(monkeypatch, version: str | None) -> None:
    """This environment's setuptools, as ``bundle`` sees it: ``version``, or not installed; pip is
    never reached (the check comes first)."""
    real = importlib.metadata.version

    def version_of(name):
        if name != "setuptools":
            return real(name)
        if version is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return version

    real_run = bundle.subprocess.run

    def run(argv, *args, **kwargs):
        if "pip" in argv:
            pytest.fail("pip ran without a build backend")
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(bundle.importlib.metadata, "version", version_of)
    monkeypatch.setattr(bundle.subprocess, "run", run)


def test_the_build_backend_is_a_runtime_dependency_not_a_dev_one():
    """pyproject.toml: ``BUILD_BACKEND`` is among ``[project] dependencies`` (every install has it),
    is the ``[build-system]``'s one requirement, and no extra repeats it."""
    runtime = [Requirement(line) for line in PYPROJECT["project"]["dependencies"]]
    assert [str(r) for r in runtime if r.name == "setuptools"] == [str(bundle.BUILD_BACKEND)]
    backend = [Requirement(line) for line in PYPROJECT["build-system"]["requires"]]
    assert [str(r) for r in backend] == [str(bundle.BUILD_BACKEND)]   # no `wheel`: setuptools >= 70.1 writes wheels
    for extra, lines in PYPROJECT["project"]["optional-dependencies"].items():
        assert not [line for line in lines if Requirement(line).name in ("setuptools", "wheel")], extra


def test_this_environment_has_the_build_backend():
    found = importlib.metadata.version("setuptools")
    assert bundle.BUILD_BACKEND.specifier.contains(found), found
    bundle.check_build_backend()   # no error


@pytest.mark.parametrize("version, says", [(None, "setuptools is not installed"),
                                           ("65.5.0", "setuptools 65.5.0 is too old")])
def test_a_missing_or_old_setuptools_is_named_before_pip_runs(monkeypatch, tmp_path, version, says):
    _setuptools_is(monkeypatch, version)
    with pytest.raises(ValueError) as caught:
        bundle.build_wheel(tmp_path)
    message = str(caught.value)
    assert says in message and "needs setuptools>=77" in message and "autograder build" not in message
    assert f"{sys.executable} -m pip install 'setuptools>=77'" in message


def test_the_verb_refuses_in_one_line_and_writes_no_zip(monkeypatch, tmp_path):
    _setuptools_is(monkeypatch, "65.5.0")
    out, err = io.StringIO(), io.StringIO()
    assert main(["autograder", "build", "--out", str(tmp_path / "a.zip")], out, err) == ExitCode.USAGE
    assert re.fullmatch(r"autograder build: the bundle's wheel .* needs setuptools>=77: "
                        r"setuptools 65\.5\.0 is too old in .*\n", err.getvalue()), err.getvalue()
    assert not (tmp_path / "a.zip").exists()
