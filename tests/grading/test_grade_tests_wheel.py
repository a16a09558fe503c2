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

from tests.support.helpers import ROOT, SUITES, confined, left_over, sample_random

HARNESS_DIGEST_BYTECODE = False  # as in test_grade_tests.py (conftest.py)
DEFAULT_WHEATS = ["reference", "fair_derivatives_reversal", "fair_glushkov_hopcroft", "fair_literal_sre",
                  "fair_postfix_numpy", "fair_reparse_reversal", "fair_sre_tablefill", "fair_thompson_moore",
                  "brzozowski"]
"""The wheats grade-tests takes by default (``implementations.default_wheats``), in its order."""


def wheat_kinds(source: str | None) -> set[str]:
    """The ways a default wheat is loaded from the wheel behind the suite's wall (``source``: its file's
    text; None: the reference, the installed package): the reference's package, a file that imports the
    installed reference's packages (brzozowski), a file whose sampling ``--ref-deps`` lends it from the
    reference (no ``sample`` of its own) or one with its own."""
    if source is None:
        return {"the reference's package"}
    if "\nfrom oracles" in source or "\nimport oracles" in source:   # its sampling the reference's own import
        return {"imports the reference's packages"}
    return {"its own sampling"} if "\ndef sample(" in source else {"sampling lent by --ref-deps"}


def sampled_wheats(folder: Path) -> list[str]:
    """Default wheats (``folder``: the installed wheats) holding every kind of ``wheat_kinds``, drawn
    from the run's seed (``helpers.sample_random``, as ``seeded_cases`` draws a parametrization's):
    for each kind no wheat drawn so far has, one wheat of that kind; in the default order."""
    sources = {name: None if name == "reference" else (folder / f"{name}.py").read_text(encoding="utf-8")
               for name in DEFAULT_WHEATS}
    rng, covered, chosen = sample_random("grade_tests_wheel.wheats"), set(), set()
    for kind in sorted(set().union(*map(wheat_kinds, sources.values()))):
        if kind not in covered:
            name = rng.choice([n for n in DEFAULT_WHEATS if kind in wheat_kinds(sources[n])])
            chosen.add(name)
            covered |= wheat_kinds(sources[name])
    return [name for name in DEFAULT_WHEATS if name in chosen]


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
@pytest.mark.parametrize("wheats", ["sample", pytest.param("default", marks=pytest.mark.slow)])
def test_from_a_wheel_the_default_wheats_grade_and_no_harness_source_is_readable(wheel_venv, tmp_path,
                                                                                  harness_unchanged, wheats):
    """The installed grade-tests finds the nine default wheats in site-packages, and a grading from
    the wheel reads none of the harness's source. ``sample`` (the default run) grades the wheats of a
    seeded sample holding every way a wheat is loaded (``wheat_kinds``: the reference, brzozowski and
    a file of each sampling, 4 wheats, each run twice), given by their installed paths; ``default``
    (``-m slow``) grades with no ``--wheats``, all nine (19 runs, 11.8 CPU s at load ~11 on 2026-12-08,
    against some 5)."""
    python, purelib = wheel_venv
    folder = purelib / "harness" / "grading" / "gradetests" / "wheats"
    listed = json.loads(subprocess.run(
        [str(python), "-I", "-c", "import json; from harness.grading.gradetests.implementations import "
         "default_wheats; print(json.dumps([[w.id, w.spec] for w in default_wheats()]))"],
        capture_output=True, text=True, check=True, cwd=tmp_path).stdout)
    assert [name for name, _ in listed] == DEFAULT_WHEATS
    assert all(spec == str(folder / f"{name}.py") for name, spec in listed[1:]) and listed[0][1] is None, listed
    names = DEFAULT_WHEATS if wheats == "default" else sampled_wheats(folder)
    given = [] if wheats == "default" else \
        ["--wheats", ",".join(name if name == "reference" else str(folder / f"{name}.py") for name in names)]
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
    proc = subprocess.run([str(python), "-I", "-m", "harness.cli", "grade-tests", str(suite), *given, "--chaffs", "s10",
                           "--json", str(tmp_path / "grade.json")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1800, env=env)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]   # graded: s10 survives
    assert (tmp_path / "grade.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]  # not a traceback's exit 1
    data = json.loads((tmp_path / "grade.json").read_text())
    assert data["wheats"] == names
    # each wheat loaded from the wheel behind the wall and ran the suite, twice (a wheat that did not load
    # left the rest of this test passing until 2026-12-08)
    runs = data["wheat_runs"]
    assert {w: [r["verdict"] for r in runs[w]] for w in runs} == {w: ["completed"] * 2 for w in names}, \
        {w: [r["detail"] for r in runs[w]] for w in runs}
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
