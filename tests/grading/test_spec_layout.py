"""The spec's repository layout is a submission (issue 50, item 3).

The spec ("You build python/tinyllm/infer/constrain.py", "Needs L8.1 sampling, M05.2 the
GPT-2 byte map (or --ref-deps)") puts the module inside the student's packages, and the
module imports its neighbours from there. ``tests/candidates/spec_layout`` is such a
repository: a correct module that takes ``sample`` from ``tinyllm.infer.sampling`` (an
absolute import; its ``constrained_sample`` draws with it, so a broken sampler there fails the
generation tests) and the byte map from ``..tokenizer.byte_map`` (a relative one; re-exported
only: the catalogue's ``vocab_bytes`` is the reference's). Graded without ``--ref-deps``, every
test passes only when the submission's own packages are importable: in ``check --impl`` (the
repository, its ``python/`` folder, the module file), the batch and the Gradescope bundle
(``tests/grading/test_autograder.py``). A module importing something the submission lacks is
told which module and where it was looked for.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.sandbox.candidate import import_place
from harness.suite.catalogue import NAMES

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = ROOT / "tests" / "candidates" / "spec_layout"
MODULE = Path("python", "tinyllm", "infer", "constrain.py")


def copy_repository(dest: Path, part: str = "") -> Path:
    shutil.copytree(REPOSITORY / part, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


# --------------------------------------------------------------------------- where a module is imported from


def test_the_specs_layout_is_imported_as_its_packages_module_from_python(tmp_path):
    repository = copy_repository(tmp_path / "repo")
    place = import_place(repository / MODULE)
    assert place.root == (repository / "python").resolve()
    assert place.name == "tinyllm.infer.constrain"
    assert place.folders == [(repository / "python").resolve(), (repository / MODULE).parent.resolve()]


def test_a_module_outside_a_package_is_imported_from_its_own_folder(tmp_path):
    (tmp_path / "class").mkdir()
    module = tmp_path / "class" / "alice.py"
    module.write_text("")
    place = import_place(module)
    assert (place.root, place.name, place.folders) == (module.parent, "alice", [module.parent])


def test_a_folder_with_an_init_is_a_package_and_a_name_that_is_no_identifier_stops_the_climb(tmp_path):
    package = tmp_path / "my-repo" / "src" / "mine"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (tmp_path / "my-repo" / "src" / "__init__.py").write_text("")  # src is a package too
    (tmp_path / "my-repo" / "__init__.py").write_text("")          # but "my-repo" is no module name
    place = import_place(package / "constrain.py")
    assert (place.root, place.name) == (tmp_path / "my-repo", "src.mine.constrain")


def test_only_the_specs_package_names_count_without_an_init(tmp_path):
    folder = tmp_path / "python" / "other" / "infer"
    folder.mkdir(parents=True)
    place = import_place(folder / "constrain.py")   # "infer" continues the spec's path, "other" does not
    assert (place.root, place.name) == (tmp_path / "python" / "other", "infer.constrain")


# --------------------------------------------------------------------------- check --impl


def run_check(impl: Path, tmp_path: Path, only: tuple[str, ...] = ()) -> dict:
    report = tmp_path / "report.json"
    out, err = io.StringIO(), io.StringIO()
    selection = ["--only", ",".join(only)] if only else []
    code = main(["check", "--no-ref-deps", "--impl", str(impl), "--json", str(report), *selection], out, err)
    result = json.loads(report.read_text())
    result["exit_code"], result["terminal"] = code, out.getvalue() + err.getvalue()
    return result


OWN_PACKAGES_TESTS = ("test_greedy_takes_the_best_allowed_token", "test_constrained_generation_parses",
                      "test_vocab_bytes")
"""The catalogue tests that need L8.1's sampling or M05.2's byte map (tests/grading/test_check.py's
ref-deps test), the names this module takes from its own packages."""


@pytest.mark.e2e
@pytest.mark.parametrize("given", ["repository", "python", "module"])
def test_check_grades_the_specs_layout_with_its_own_packages(tmp_path, given):
    # given whole, as its python/ folder or as the module file, what differs is the load: the same
    # files as the same module with nothing supplied (asserted below; a package it cannot import fails
    # the load, and every test with it), then the tests that need the names it takes from its own
    # packages (cost audit: 4.6 CPU s a whole catalogue, 2.2 these). The whole repository passes the
    # whole catalogue, --no-ref-deps too, in the batch's test below (alice), and in the Gradescope
    # bundle (tests/grading/test_autograder.py)
    repository = copy_repository(tmp_path / "repo")
    impl = {"repository": repository, "python": repository / "python", "module": repository / MODULE}[given]
    result = run_check(impl, tmp_path, OWN_PACKAGES_TESTS)
    assert result["exit_code"] == ExitCode.OK, result["terminal"]
    assert [(t["name"], t["status"]) for t in result["tests"]] == [(name, "passed") for name in NAMES
                                                                   if name in OWN_PACKAGES_TESTS]
    assert result["load"]["module"] == "tinyllm.infer.constrain"
    assert result["load"]["problems"] == [] and result["load"]["ref_deps"] == []   # nothing supplied: its own


@pytest.mark.e2e
def test_a_module_the_submission_lacks_is_named_with_where_it_was_looked_for(tmp_path):
    repository = copy_repository(tmp_path / "repo")
    (repository / "python" / "tinyllm" / "infer" / "sampling.py").unlink()
    result = run_check(repository, tmp_path)
    assert result["exit_code"] == ExitCode.CRASHED
    reason = result["load"]["reason"]
    assert reason.startswith("importing the candidate failed: ModuleNotFoundError: No module named "
                             "'tinyllm.infer.sampling': not in the submission (no tinyllm/infer/sampling.py or "
                             "tinyllm/infer/sampling/) and not installed; looked in python/, "
                             "python/tinyllm/infer/ "), reason
    assert reason.endswith("(at constrain.py:7 in <module>)"), reason   # the student's import line


@pytest.mark.e2e
def test_a_folder_without_a_module_is_a_usage_error_naming_the_expected_place(tmp_path):
    (tmp_path / "empty").mkdir()
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "--impl", str(tmp_path / "empty")], out, err) == ExitCode.USAGE
    assert "no constrain.py in the submission: expected it at python/tinyllm/infer/constrain.py" in err.getvalue()


# --------------------------------------------------------------------------- the batch


@pytest.mark.e2e
def test_the_batch_grades_the_specs_layout_and_names_a_missing_module_in_the_feedback(tmp_path):
    folder = tmp_path / "class"
    copy_repository(folder / "alice")                     # the whole repository
    copy_repository(folder / "bob", "python")             # only its python/ folder
    copy_repository(folder / "carol")
    shutil.rmtree(folder / "carol" / "python" / "tinyllm" / "tokenizer")   # M05.2's package left out
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", str(folder), "--jobs", "2", "--no-ref-deps", "--json", str(tmp_path / "c.json"),
                 "--feedback", str(tmp_path / "feedback"), "--hints", "full"], out, err)
    assert code == ExitCode.OK, out.getvalue() + err.getvalue()     # every submission graded
    rows = {r["student"]: r for r in json.loads((tmp_path / "c.json").read_text())["students"]}
    assert (rows["alice"]["verdict"], rows["alice"]["passed"]) == ("passed", len(NAMES))
    assert (rows["bob"]["verdict"], rows["bob"]["passed"]) == ("passed", len(NAMES))
    assert rows["carol"]["passed"] == 0
    feedback = (tmp_path / "feedback" / "carol.md").read_text()
    assert "No module named 'tinyllm.tokenizer': not in the submission (no tinyllm/tokenizer.py or " \
           "tinyllm/tokenizer/) and not installed" in feedback, feedback
    assert "at constrain.py:20" in feedback          # the student's relative import
    assert "looked in python/, python/tinyllm/infer/" in feedback, feedback   # the upload's folders, no path
    assert "/tmp" not in feedback and "constrain-harness-grade" not in feedback
