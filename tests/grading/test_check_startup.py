"""check's start-up (issue 23, item 4): the candidate process begins its import before the
grader child imports pytest (``harness.suite.early``), or else while it collects the
catalogue, and nothing a run reports changes for it; a grader child that fails takes its
early candidate with it.

Oracles: the plugin's stated RLIMIT_CPU (the load's CPU seconds plus twice each collected
test's, ``harness.suite.plugin._new_candidate``) in the confinement sentence; the verdicts
the spec names for a candidate that cannot load; the lazy imports checked by importing in a
fresh interpreter (``sys.modules`` afterwards).
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.grading.check import CheckOptions, run_check
from harness.sandbox import confine, isolated
from tests.support.helpers import confined, left_over

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"


@pytest.mark.e2e
@pytest.mark.parametrize("only", [("test_apply_mask",), ("test_apply_mask", "test_hand_example", "test_vocab_bytes")])
def test_the_early_candidate_has_the_rlimit_of_the_tests_collected(only):
    result = run_check(CheckOptions(only=only, timeout=7.0, load_seconds=11.0))
    assert result.exit_code == 0, [(t.name, t.status, t.reason) for t in result.tests]
    assert f"rlimits CPU {int(11 + 2 * 7 * len(only))} s," in result.load["confinement"]


@pytest.mark.e2e
def test_a_candidate_that_dies_while_loading_is_still_that_verdict():
    result = run_check(CheckOptions(impl=str(CANDIDATES / "exits_on_import.py"), only=("test_apply_mask",)))
    assert result.exit_code == 3 and result.load["status"] == "error", result.load
    assert "while loading" in result.load["reason"]
    assert [t.status for t in result.tests] == ["not run"]


@pytest.mark.e2e
def test_check_s_parent_imports_neither_numpy_nor_the_openai_client():
    code = ("import sys; from harness.cli import build_parser, _verb; build_parser(_verb(['check'])); "
            "import harness.grading.check; print(sorted(m for m in ('numpy', 'openai') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.e2e  # a fresh interpreter's sys.modules
def test_check_s_parser_declares_every_course_option_without_importing_the_course():
    """check's parser holds every option of a batch's course (``CourseOptions``' fields, which
    ``harness.commands.check.batch_options`` reads from it) and imports none of the batch's course,
    roster, gradebooks or the autograder's grading (``harness.grading.batch.options.course_arguments``)."""
    code = ("import dataclasses, json, sys; from harness.cli import build_parser; parser = build_parser('check'); "
            "check = next(a for a in parser._actions if a.choices and 'check' in a.choices).choices['check']; "
            "from harness.grading.batch.options import CourseOptions; "
            "heavy = [m for m in ('harness.grading.batch.course', 'harness.grading.batch.roster', "
            "'harness.grading.batch.similarity', 'harness.grading.autograder.grading') if m in sys.modules]; "
            "dests = {a.dest for a in check._actions}; "
            "missing = sorted(f.name for f in dataclasses.fields(CourseOptions) if f.name not in dests); "
            "print(json.dumps([heavy, missing]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[[], []]"


def test_the_course_s_options_read_as_before():
    """The course's own name for its options is the one declaration (``course_arguments``), so a
    batch parses them as before: ``--points``, ``--regrade`` (repeated) and ``--metadata``."""
    import argparse

    from harness.grading.batch import course, options

    assert course.add_arguments is options.course_arguments
    parser = argparse.ArgumentParser()
    options.course_arguments(parser)
    args = parser.parse_args(["--points", "8", "--regrade", "ada", "--regrade", "bo", "--metadata", "m.yml"])
    assert (args.points, args.regrade, args.metadata, args.roster) == (8.0, ["ada", "bo"], "m.yml", None)
    assert options.METADATA_NAME == "submission_metadata.yml"


def test_every_verb_parses_alike_with_only_its_own_module_imported():
    from harness import cli

    full = cli.build_parser()
    for verb in cli.VERBS:
        lazy = cli.build_parser(verb)
        assert lazy.parse_args([verb] + _minimal(verb)).verb == verb
        assert full.parse_args([verb] + _minimal(verb)).verb == verb


def _minimal(verb: str) -> list[str]:
    return {"dfa": ["ab"], "conform": ["--base-url", "http://127.0.0.1:1"], "golden": ["check"],
            "grade-tests": ["suite"], "corpus": [str(Path(__file__).parents[1] / "corpus")]}.get(verb, [])


# --------------------------------------------------------------------------- harness.suite.early

def _early_args(*extra: str) -> list[str]:
    return ["harness/suite", "-p", "harness.suite.plugin", "--timeout", "7", "--load-seconds", "11",
            "--only", "test_apply_mask,test_vocab_bytes", *extra]


@pytest.mark.e2e
@confined
def test_the_candidate_begun_before_pytest_is_taken_only_by_the_same_settings(monkeypatch):
    from harness.suite import early

    monkeypatch.setenv("CONSTRAIN_HARNESS_MARKER", marker := secrets.token_hex(8))
    same = (None, True, early.candidate_limits(11.0, 7.0, 2048, 2), marker, 11.0)
    begun = early._begin(_early_args("--ref-deps"))
    candidate = begun.take(*same)
    try:
        assert candidate is not None and candidate.start()["name"] == "oracles.automaton"
        assert f"rlimits CPU {int(11 + 2 * 7 * 2)} s," in candidate.load["confinement"]
        assert begun.take(*same) is None  # handed out once
    finally:
        candidate.close()
    begun = early._begin(_early_args("--ref-deps"))
    assert begun.take(None, False, *same[2:]) is None  # another --ref-deps: closed, not handed out
    assert left_over(marker) == []


@pytest.mark.parametrize("extra", [["--deep"], ["--impl", "no/such/file.py"]])
def test_nothing_begins_early_with_deep_or_a_spec_that_names_nothing(extra):
    from harness.suite import early

    assert early._begin(_early_args(*extra)) is None


def test_nothing_begins_early_unconfined(monkeypatch):
    from harness.sandbox import confine
    from harness.suite import early

    monkeypatch.setenv(confine.UNCONFINED_ENV, "1")
    assert early._begin(_early_args()) is None


@pytest.mark.e2e
@confined
@pytest.mark.parametrize("how", ["pytest refuses its arguments", "killed"])
def test_a_grader_child_that_fails_takes_its_early_candidate_with_it(tmp_path, how):
    marker = secrets.token_hex(8)
    env = isolated.environment({"CONSTRAIN_HARNESS_MARKER": marker, "TMPDIR": str(tmp_path)})
    args = _early_args("--no-such-pytest-option") if how != "killed" else _early_args()
    child = subprocess.Popen(isolated.command("harness.suite.early", *args), cwd=str(ROOT), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    if how == "killed":
        deadline = time.monotonic() + 60
        while not confine.marked_processes(f"CONSTRAIN_HARNESS_RUN={marker}".encode()):
            assert time.monotonic() < deadline and child.poll() is None, "no candidate process began"
            time.sleep(0.01)
        child.kill()
    output = child.communicate(timeout=120)[0].decode(errors="replace")
    if how != "killed":
        assert child.returncode == 4 and "no-such-pytest-option" in output, output  # pytest's usage error
    assert left_over(marker) == [], "the early candidate outlived its grader child"


# ------------------------------------------------------------------ the grader child's end
# (harness.suite.early._exit: SystemExit's status without the interpreter's teardown)

_END = """
import atexit, sys, threading, time
from harness.suite.early import _exit
out = open(sys.argv[1], "a", buffering=1)
out.write("a record\\n")
atexit.register(lambda: open(sys.argv[1], "a").write("atexit ran\\n"))
if sys.argv[2] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.3), out.write("the thread finished\\n"))).start()
sys.stdout.write("unflushed")
_exit({status})
"""


@pytest.mark.e2e  # the grader child's end is a Python child's exit
@pytest.mark.parametrize("status, code, printed", [(None, 0, ""), (0, 0, ""), (3, 3, ""), ("gave up", 1, "gave up\n")])
def test_the_grader_child_ends_with_systemexit_s_status_its_records_and_streams_whole(tmp_path, status, code, printed):
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", _END.format(status=repr(status)), str(log), "alone"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (code, "unflushed", printed)
    assert log.read_text() == "a record\natexit ran\n"


@pytest.mark.e2e  # a Python child's exit
def test_with_another_thread_running_the_grader_child_ends_the_usual_way(tmp_path):
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", _END.format(status=0), str(log), "thread"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "unflushed"
    assert log.read_text() == "a record\nthe thread finished\natexit ran\n"


# ------------------------------------------------------------------ the check verb's end
# (harness.exitcodes.exit_without_teardown: its exit status without the interpreter's teardown)

_VERB_END = """
import atexit, sys, threading, time
from harness.exitcodes import exit_without_teardown
out = open(sys.argv[1], "a", buffering=1)
atexit.register(lambda: open(sys.argv[1], "a").write("atexit ran\\n"))
if sys.argv[2] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.3), out.write("the thread finished\\n"))).start()
sys.stdout.write("unflushed")
sys.stderr.write("said")
exit_without_teardown({status})
out.write("returned\\n")
sys.exit({status})
"""


@pytest.mark.e2e  # the verb's end is a Python process's exit
@pytest.mark.parametrize("status", [0, 1, 4])
def test_the_check_verb_ends_with_its_status_its_exit_handlers_run_and_streams_flushed(tmp_path, status):
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", _VERB_END.format(status=status), str(log), "alone"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (status, "unflushed", "said")
    assert log.read_text() == "atexit ran\n"


@pytest.mark.e2e  # a Python process's exit
def test_with_another_thread_running_the_check_verb_ends_the_usual_way(tmp_path):
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", _VERB_END.format(status=0), str(log), "thread"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "unflushed"
    assert log.read_text() == "returned\nthe thread finished\natexit ran\n"
