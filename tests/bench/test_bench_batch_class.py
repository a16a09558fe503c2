"""``bench batch --class DIR|worst-case`` (issue 50): the worst-case class is laid out from the
reference and tests/candidates, a class folder of one's own is graded on a copy, and a
mistyped ``--class`` is a one-line usage error. The worst case's time itself is measured by
``bench batch --class worst-case`` (docs/performance.md), never asserted in a timed test."""

from __future__ import annotations

import io

from harness.bench import batch
from harness.bench.timing import Report
from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder.locate import locate_module


def test_the_worst_case_class_is_ten_correct_and_the_three_that_cost_most(tmp_path):
    assert batch.build_worst_case_class(tmp_path / "worst") == 13
    entries = sorted(p.name for p in (tmp_path / "worst").iterdir())
    assert entries[:10] == [f"correct{i:02d}" for i in range(10)]
    assert entries[10:] == ["worst_loops_forever.py", "worst_resources_forks_to_the_limit.py", "worst_sleeps.py"]
    for name in entries[:10]:   # each correct one is the reference in the spec's layout, located as the batch does
        module = locate_module(tmp_path / "worst" / name)
        assert module.relative_to(tmp_path / "worst" / name).parts[:3] == ("python", "tinyllm", "infer"), module
    for name in batch.WORST_CASE:
        assert (tmp_path / "worst" / f"worst_{name}").read_bytes() == (batch.CANDIDATES / name).read_bytes()
    assert batch.build_worst_case_class(tmp_path / "correct", hostile=False) == 10
    assert len(list((tmp_path / "correct").iterdir())) == 10


def test_a_class_of_ones_own_is_graded_on_a_copy_and_its_state_untouched(tmp_path, monkeypatch):
    folder = tmp_path / "myclass"
    folder.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    (folder / "ben.py").write_text("def g(:\n")
    state = tmp_path / "myclass.batch-state.json"
    state.write_text("{}")
    graded = []
    monkeypatch.setattr(batch, "_grade_class", lambda copy, jobs: graded.append(sorted(
        p.name for p in copy.iterdir())) or (1.0, "2 syntax error", 0.1, 0.1))
    out = io.StringIO()
    batch.run(Report(out), quick=True, class_dir=str(folder))
    assert graded == [["ann.py", "ben.py"]]
    assert state.read_text() == "{}" and sorted(p.name for p in folder.iterdir()) == ["ann.py", "ben.py"]
    assert "2 submissions, the class myclass, --jobs 2" in out.getvalue()


def test_a_mistyped_class_is_a_one_line_usage_error(tmp_path):
    err = io.StringIO()
    code = main(["bench", "batch", "--class", str(tmp_path / "nowhere")], io.StringIO(), err)
    assert code == ExitCode.USAGE and err.getvalue().count("\n") == 1 and "nowhere" in err.getvalue()
    err = io.StringIO()
    code = main(["bench", "compile", "--class", "worst-case"], io.StringIO(), err)
    assert code == ExitCode.USAGE and "batch" in err.getvalue()
