"""``scripts/group_tests.py``'s rewrite of the names of moved test files, on examples read by
hand: paths, imports and module names in strings (an executor task's ``"module:function"``, a
``-p`` plugin), bare helper names that only worked while ``tests/`` was on ``sys.path``, and
paths joined from parts. A second pass changes nothing; a name already in place or naming no
moved file is left alone; graded code and the harness get no test-code rewrite.
"""

from __future__ import annotations

from tests.support.scripts import load_script

WHERE = {"test_executor.py": "fanout/test_executor.py", "helpers.py": "support/helpers.py",
         "fairness_probe.py": "support/fairness_probe.py"}
"""Where the script's ``places()`` would find three moved files."""


GROUP = load_script("group_tests")

BEFORE = '''\
from tests.test_executor import record_start
tasks = [Task("t1", "tests.test_executor:record_start", {}), Task("t2", 'tests.test_executor:held_square', {})]
sleepers = [Task("s1", "helpers:worker_pid", {})]
cmd = [python, "-p", "tests.fairness_probe", "-m", "tests.test_executor"]
hidden = [ROOT / "tests" / "helpers.py", ROOT / "tests" / "conftest.py"]
left = ["tests.fanout.test_executor:record_start", "tests.test_unknown:f", "unknown:f", "tests.values"]
tests.values()
'''
AFTER = '''\
from tests.fanout.test_executor import record_start
tasks = [Task("t1", "tests.fanout.test_executor:record_start", {}), \
Task("t2", 'tests.fanout.test_executor:held_square', {})]
sleepers = [Task("s1", "tests.support.helpers:worker_pid", {})]
cmd = [python, "-p", "tests.support.fairness_probe", "-m", "tests.fanout.test_executor"]
hidden = [ROOT / "tests" / "support" / "helpers.py", ROOT / "tests" / "conftest.py"]
left = ["tests.fanout.test_executor:record_start", "tests.test_unknown:f", "unknown:f", "tests.values"]
tests.values()
'''


def _rewrite(text: str, origin: str) -> str:
    problems: list[str] = []
    new = GROUP.rewrite_text(text, WHERE, problems, origin)
    assert problems == []
    return new


def test_module_names_in_a_test_module_are_rewritten():
    assert _rewrite(BEFORE, "tests/grading/test_x.py") == AFTER


def test_a_second_pass_changes_nothing():
    assert _rewrite(AFTER, "tests/grading/test_x.py") == AFTER


def test_outside_the_tests_only_dotted_names_and_paths_are_rewritten():
    """The harness and the docs name test modules only by their dotted name or path; a bare
    ``"helpers:x"`` there is not a test helper (``tests/`` is not on the harness's path)."""
    text = 'Run "tests.test_executor:record_start" (tests/test_executor.py); "helpers:worker_pid" stays.\n'
    assert _rewrite(text, "harness/fanout/executor.py") == (
        'Run "tests.fanout.test_executor:record_start" (tests/fanout/test_executor.py); "helpers:worker_pid" stays.\n')


def test_left_alone_code_is_listed_for_a_dotted_name(tmp_path, monkeypatch):
    """Graded code is never rewritten; an old dotted name it holds is listed with its new place."""
    wheat = tmp_path / "harness" / "grading" / "gradetests" / "wheats" / "fair_x.py"
    wheat.parent.mkdir(parents=True)
    wheat.write_text('"""See tests.test_executor and tests/test_executor.py."""\n', encoding="utf-8")
    monkeypatch.setattr(GROUP, "ROOT", tmp_path)
    monkeypatch.setattr(GROUP, "text_files", lambda: [wheat])
    assert GROUP.stale_in_left_alone(WHERE) == [
        "harness/grading/gradetests/wheats/fair_x.py:1: tests/test_executor.py (now tests/fanout/test_executor.py)",
        "harness/grading/gradetests/wheats/fair_x.py:1: tests.test_executor (now tests.fanout.test_executor)",
    ]
