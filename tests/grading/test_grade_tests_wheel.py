"""grade-tests installed from a wheel, as the Gradescope bundle installs it (issue 22).

The wheel ships the default wheats (package data: ``harness/grading/gradetests/wheats``), so a
student's own tests are graded, not "not graded"; and although the harness then lives in
the interpreter's site-packages, which the suite's sandbox binds, a suite looking for the
harness's source (the reference, the chaff catalogue, the wheats) finds none of it.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.helpers import ROOT, SUITES, confined, left_over

HARNESS_DIGEST_BYTECODE = False  # as in test_grade_tests.py (conftest.py)


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    """A throwaway venv with the harness installed from its wheel (no checkout on its path);
    the dependencies come from this venv's site-packages through a ``.pth`` line (which
    adds the folder, not its editable-install hooks)."""
    from harness.grading.autograder.bundle import build_wheel

    folder = tmp_path_factory.mktemp("wheel")
    # from a copy of the source, as the bundle builds it: `pip wheel ROOT` built in the checkout
    # (its build/ and egg-info), which another worker's test could read half-written (-n 4)
    build_wheel(folder / "dist", ROOT)
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    wheel = next((folder / "dist").glob("constrain_harness-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
                   check=True, timeout=600, cwd=folder)
    purelib = subprocess.run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python, Path(purelib)


@pytest.mark.e2e
@confined
def test_from_a_wheel_the_default_wheats_grade_and_no_harness_source_is_readable(wheel_venv, tmp_path,
                                                                                  harness_unchanged):
    python, purelib = wheel_venv
    # the control: the installed harness is real and readable by the grader
    assert (purelib / "harness" / "grading" / "gradetests" / "wheats" / "brzozowski.py").is_file()
    assert (purelib / "oracles" / "automaton").is_dir() and (purelib / "harness" / "mutants" / "catalogue.py").is_file()
    # what the sandbox masks there: the site folder it binds holds the harness's packages
    shown = subprocess.run([str(python), "-I", "-c",
                            "from harness.grading.gradetests.suite_run import harness_locations; "
                            "print('\\n'.join(map(str, harness_locations())))"], capture_output=True, text=True,
                           check=True, cwd=tmp_path).stdout.split()
    assert {str(purelib / name) for name in ("harness", "oracles", "golden", "facts", "strategies")} <= set(shown)
    suite = tmp_path / "upload"
    shutil.copytree(SUITES / "reads_the_harness", suite)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([str(python), "-I", "-m", "harness.cli", "grade-tests", str(suite), "--chaffs", "s10",
                           "--json", str(tmp_path / "grade.json")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1800, env=env)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]   # graded: s10 survives
    assert (tmp_path / "grade.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]  # not a traceback's exit 1
    data = json.loads((tmp_path / "grade.json").read_text())
    assert data["wheats"] == ["reference", "fair_derivatives_reversal", "fair_glushkov_hopcroft", "fair_literal_sre",
                              "fair_postfix_numpy", "fair_reparse_reversal", "fair_sre_tablefill",
                              "fair_thompson_moore", "brzozowski"]
    assert data["invalid"] == [], [(i["test"], i["message"][:300]) for i in data["invalid"]]
    assert len(data["valid"]) == 4 and data["score"]["caught"] == 0
    assert data["mode"].startswith("bubblewrap")
    assert left_over(str(python.parent.parent)) == []   # no process of the venv's interpreter is left


@pytest.mark.e2e
def test_the_wheel_states_its_license_as_an_spdx_expression_and_ships_the_file(wheel_venv):
    """pyproject.toml's ``project.license`` is PEP 639's SPDX expression (setuptools 77+, which
    ``[build-system]`` requires, deprecates the TOML table form), ``license-files`` ships LICENSE."""
    _, purelib = wheel_venv
    [info] = purelib.glob("constrain_harness-*.dist-info")
    metadata = (info / "METADATA").read_text(encoding="utf-8").splitlines()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert not any(line.startswith("License: ") for line in metadata)   # the deprecated field
    assert (info / "licenses" / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
