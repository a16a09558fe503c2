"""No answer of the harness's is in a student's sandbox (``harness.sandbox.lending``).

The attacks: a whole submission of one line, ``from oracles.automaton import *`` (the
reference) or ``from harness.grading.gradetests.wheats.fair_thompson_moore import *`` (a
wheat of grade-tests), answered every call with a correct implementation's answer and
passed ``check`` 16/16. A student's sandbox now holds, of the harness, its candidate server's
files only: nothing of ``oracles``, ``strategies``, the catalogue or the wheats; under
``--ref-deps`` the spec's "Needs" besides, L8.1's sampler and M05.2's byte map, and nothing
reachable from them. The test suite lends the harness to its own gallery (``tests/conftest.py``);
every test here takes that away first, as a grader of students runs.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.check import CheckOptions, run_check
from harness.sandbox import Candidate
from harness.sandbox.lending import LEND_VARIABLE
from tests.support.helpers import CANDIDATES, confined, left_over

pytestmark = [pytest.mark.e2e, confined]

CHEATS = {"reference": "from oracles.automaton import *  # noqa: F401,F403 - the whole submission\n",
          "wheat": "from harness.grading.gradetests.wheats.fair_thompson_moore import *  # noqa: F401,F403\n"}
CHEAT = CHEATS["reference"]
REACH = ("oracles.automaton", "oracles.automaton.compile", "oracles.automaton.index", "oracles.automaton.constraint",
         "oracles.derivatives", "oracles.stdlib", "oracles.tools", "strategies.patterns", "harness.suite",
         "harness.suite.test_schema", "harness.grading.gradetests.wheats.fair_thompson_moore", "harness.mutants",
         "golden.cases", "facts.hand")
PROBE = f'''import importlib, sys

def reach():
    found = {{}}
    for name in {REACH!r}:
        try:
            module = importlib.import_module(name)
            found[name] = "imported" if getattr(module, "__file__", None) else "empty"
        except ImportError as exc:
            found[name] = type(exc).__name__
    return found

def reference_modules():
    """What of the reference this process holds after using what it was lent."""
    sample, params = globals().get("sample"), globals().get("SamplingParams")
    if sample is not None:
        import numpy as np
        sample(np.array([0.0, 2.0, 1.0]), params(temperature=0.0), [], np.random.default_rng(0))
    return sorted(name for name, module in list(sys.modules.items())
                  if name.startswith(("oracles", "strategies", "golden", "facts", "harness.suite", "harness.grading"))
                  and getattr(module, "__file__", None))  # a namespace package (an empty folder) holds no file

def harness_bytecode():
    """What of harness/__pycache__ this sandbox holds."""
    import os, harness
    folder = os.path.join(os.path.dirname(harness.__file__), "__pycache__")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []
'''
LENT_FILES = {"oracles", "oracles.automaton", "oracles.automaton.sampling", "oracles.automaton.bytemap",
              "oracles.automaton.errors"}


@pytest.fixture
def as_for_students(monkeypatch):
    monkeypatch.delenv(LEND_VARIABLE, raising=False)


def test_of_the_harness_s_top_level_bytecode_only_its_init_is_there(as_for_students, harness_unchanged, tmp_path):
    """``harness/__pycache__`` holds the compiled ``cli``, ``policy``, ``intake``... once
    ``harness.sandbox.bytecode`` (or a wheel's install) wrote them: a student's sandbox gets the
    package's ``__init__`` bytecode alone, no other module of the package's top level."""
    import sys

    from harness.paths import PACKAGE_ROOT, protected_roots
    from harness.sandbox import bytecode

    bytecode.refresh(protected_roots())
    tag = sys.implementation.cache_tag
    outside = sorted(p.name for p in (PACKAGE_ROOT / "harness" / "__pycache__").glob(f"*.{tag}.pyc"))
    assert f"policy.{tag}.pyc" in outside and f"cli.{tag}.pyc" in outside  # what there is to lend
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    path.chmod(0o644)
    tmp_path.chmod(0o755)
    with Candidate(str(path)) as cand:
        inside = list(cand.module.harness_bytecode())
        marker = cand.marker
    assert inside == [f"__init__.{tag}.pyc"]
    assert left_over(marker) == []


def _probe(tmp_path, ref_deps: bool) -> tuple[dict, list[str], dict]:
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    path.chmod(0o644)
    tmp_path.chmod(0o755)
    with Candidate(str(path), ref_deps=ref_deps) as cand:
        reach = dict(cand.module.reach())
        modules = list(cand.module.reference_modules())
        load, marker = cand.load, cand.marker
    assert left_over(marker) == []
    return reach, modules, load


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_submission_that_imports_a_correct_implementation_gets_nothing_from_it(as_for_students, harness_unchanged,
                                                                                 tmp_path, cheat):
    submission = tmp_path / "cheat" / "constrain.py"
    submission.parent.mkdir()
    submission.write_text(CHEATS[cheat])
    result = run_check(CheckOptions(impl=str(submission), seed=1))
    assert left_over(result.marker) == []
    assert result.exit_code == ExitCode.CRASHED and not any(t.status == "passed" for t in result.tests)
    assert "No module named '" in str(result.load), result.load


def test_without_ref_deps_nothing_of_the_harness_but_its_server_is_there(as_for_students, harness_unchanged,
                                                                          tmp_path):
    reach, modules, load = _probe(tmp_path, ref_deps=False)
    assert reach == {name: "ModuleNotFoundError" for name in REACH}
    assert modules == []
    assert "the harness: its candidate server only, nothing of the reference" in load["confinement"]


def test_ref_deps_lends_the_sampler_and_the_byte_map_and_nothing_behind_them(as_for_students, harness_unchanged,
                                                                            tmp_path):
    reach, modules, load = _probe(tmp_path, ref_deps=True)
    assert {name for name, how in reach.items() if how == "imported"} == {"oracles.automaton"}
    assert set(modules) <= LENT_FILES and "oracles.automaton.sampling" in modules
    assert set(load["ref_deps"]) == {"SamplingParams", "sample", "bytes_to_unicode", "unicode_to_bytes"}
    assert "the reference's sampler and byte map (--ref-deps)" in load["confinement"]


def test_the_staff_lend_it_to_their_own_candidates_only_by_saying_so(monkeypatch, harness_unchanged, tmp_path):
    monkeypatch.setenv(LEND_VARIABLE, "1")
    reach, _, load = _probe(tmp_path, ref_deps=False)
    assert all(how == "imported" for how in reach.values()), reach
    assert "whole, lent" in load["confinement"]


def test_in_a_batch_the_cheat_gets_nothing_and_an_honest_classmate_its_due(as_for_students, harness_unchanged,
                                                                          tmp_path):
    from harness.paths import PACKAGE_ROOT

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "cheat.py").write_text(CHEAT)
    shutil.copy2(PACKAGE_ROOT / "harness" / "grading" / "gradetests" / "wheats" / "fair_thompson_moore.py",
                 folder / "honest.py")
    report = tmp_path / "grades.json"
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", str(folder), "--jobs", "2", "--timeout", "30", "--json", str(report)], out, err)
    assert code == ExitCode.OK, out.getvalue() + err.getvalue()
    students = {s["student"]: s for s in json.loads(report.read_text())["students"]}
    assert students["cheat"]["passed"] == 0, students["cheat"]
    assert students["honest"]["passed"] == 16 and not students["honest"]["failed_tests"], students["honest"]


def test_the_gallerys_wrappers_need_the_loan_the_suite_gives_them(as_for_students, harness_unchanged):
    """The other side of the rule: the gallery's wrong candidates import the reference, so
    without the loan they cannot even load (and with it they get their pitfall's verdict,
    as every other test of the suite shows)."""
    result = run_check(CheckOptions(impl=str(CANDIDATES / "wrong_numbering.py"), seed=1, only=("test_hand_example",)))
    assert left_over(result.marker) == []
    assert result.exit_code == ExitCode.CRASHED and "No module named 'oracles" in str(result.load), result.load


def test_a_file_of_the_harness_itself_is_the_staffs_own_and_loads_with_its_harness(as_for_students, harness_unchanged):
    # a wheat shipped in the harness's own packages: the staff's code (a submission never lives there); it
    # imports nothing of the harness, but its folder is one the student view leaves out, so it needs the whole
    from harness.sandbox.lending import PACKAGE_ROOT, is_the_harness_own

    wheat = PACKAGE_ROOT / "harness" / "grading" / "gradetests" / "wheats" / "brzozowski.py"
    assert is_the_harness_own(str(wheat)) and not is_the_harness_own(str(CANDIDATES / "wall_regex_helper"))
    assert not is_the_harness_own("tinyllm.infer.constrain")  # a module name is the grader's folder's
    result = run_check(CheckOptions(impl=str(wheat), only=("test_canonical_form", "test_vocab_bytes")))
    assert [(t.name, t.status) for t in result.tests] == [("test_canonical_form", "passed"),
                                                        ("test_vocab_bytes", "passed")]
    assert "the harness: whole (the candidate is the reference or the staff's own)" in result.isolation


def test_a_submission_linked_to_a_wheat_is_not_the_staffs(as_for_students, harness_unchanged, tmp_path):
    # the new rule (a file of the harness is the staff's) must not be reachable from a student's folder:
    # a constrain.py linked to a wheat is refused where the batch and check find the module
    from harness.sandbox.lending import PACKAGE_ROOT

    wheat = PACKAGE_ROOT / "harness" / "grading" / "gradetests" / "wheats" / "fair_thompson_moore.py"
    submission = tmp_path / "student"
    submission.mkdir()
    (submission / "constrain.py").symlink_to(wheat)
    tmp_path.chmod(0o755)
    submission.chmod(0o755)
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--impl", str(submission)], out, err)
    assert code == ExitCode.USAGE and "no constrain.py in the submission" in err.getvalue(), err.getvalue()
    assert out.getvalue() == ""
