"""The batch's typed options (``harness.grading.batch.options``): made once from the command line
in ``harness.commands.check``, validated when made, frozen; the batch and the reports never read
an argparse ``Namespace``."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import math
from pathlib import Path

import pytest

from harness.commands.check import add_arguments, batch_options
from harness.grading.batch.options import MAX_JOBS, BatchOptions, CourseOptions
from harness.policy import POLICY

ROOT = Path(__file__).resolve().parents[2]


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_command_line_becomes_one_typed_value(tmp_path):
    out = tmp_path / "out"
    args = parse("--batch", "class", "--jobs", "3", "--resume", "--strict", "--no-ref-deps", "--timeout", "7",
                 "--memory", "300", "--submission-limit", "40", "--class-limit", "900", "--hints", "full",
                 "--csv", str(out / "g.csv"), "--feedback", str(out / "fb"), "--points", "10", "--regrade", "ann",
                 "--regrade", "bob", "--due", "2026-12-01T23:59:00-08:00", "--late-policy", "flag",
                 "--gradebook", str(out / "book.csv"), "--allow-missing-students")
    made = batch_options(args)
    course = CourseOptions(points=10.0, regrade=("ann", "bob"), due="2026-12-01T23:59:00-08:00", late_policy="flag",
                           gradebook=out / "book.csv", allow_missing_students=True)
    assert made == BatchOptions(folder=Path("class"), jobs=3, resume=True, tier="strict", ref_deps=False, timeout=7.0,
                                memory=300, submission_limit=40.0, class_limit=900.0, hints="full",
                                feedback=out / "fb", reports={"csv": out / "g.csv"}, course=course)
    assert (made.grade.tier, made.grade.ref_deps, made.grade.timeout, made.grade.memory,
            made.grade.submission_cpu, made.grade.twin) == ("strict", False, 7.0, 300, 40.0, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.jobs = 4
    with pytest.raises(TypeError):
        made.reports["json"] = Path("x.json")   # a read-only mapping: the value cannot change under the batch


def test_the_defaults_are_the_policy_s():
    made = batch_options(parse("--batch", "class", "--jobs", "1"))
    assert (made.grade.policy, made.class_limit, made.hint_level, made.course) == \
        (dataclasses.replace(made.grade, twin=True).policy, None, POLICY.hints, CourseOptions())
    assert made.grade.submission_cpu == POLICY.submission_cpu_seconds


@pytest.mark.parametrize("field, value, said", [
    ("jobs", 0, f"--jobs must be between 1 and {MAX_JOBS}, not 0"),
    ("jobs", MAX_JOBS + 1, f"--jobs must be between 1 and {MAX_JOBS}, not {MAX_JOBS + 1}"),
    ("jobs", True, "--jobs must be between 1 and"),
    ("submission_limit", math.inf, "--submission-limit must be a finite number of CPU seconds > 0, not inf"),
    ("class_limit", -1.0, "--class-limit must be a finite number of CPU seconds > 0, not -1.0"),
    ("class_limit", "10", "--class-limit must be a finite number of CPU seconds > 0, not '10'"),
    ("hints", "loud", "--hints must be one of none, pitfall, full, not 'loud'"),
    ("reports", {"pdf": Path("x.pdf")}, "BatchOptions.reports: no report format pdf"),
    ("tier", "lenient", "tier"),
    ("memory", 0, "memory"),
])
def test_a_bad_field_is_a_value_error_naming_it(field, value, said):
    with pytest.raises(ValueError) as refused:
        BatchOptions(**{"folder": Path("class"), "jobs": 1, field: value})
    assert said in str(refused.value)


def test_the_course_options_are_checked_when_made():
    with pytest.raises(ValueError, match="--points must be a finite number > 0, not 0"):
        CourseOptions(points=0)
    with pytest.raises(ValueError, match="--regrade takes names"):
        CourseOptions(regrade="ann")
    assert CourseOptions(regrade=["ann"]).regrade == ("ann",)
    with pytest.raises(TypeError, match="BatchOptions.course must be a CourseOptions, not dict"):
        BatchOptions(folder=Path("class"), jobs=1, course={"points": 3})


def test_a_one_run_option_with_batch_is_refused_when_the_value_is_made():
    with pytest.raises(ValueError, match=r"--impl, --only cannot be combined with --batch"):
        batch_options(parse("--batch", "class", "--impl", "x.py", "--only", "test_hand_example"))


def test_argparse_stops_at_the_commands():
    """No module of the batch or the reports reads a Namespace: no ``args`` name, no ``getattr(args, ...)``
    (read from the syntax tree, so a comment or a string naming them does not count). Either node's source
    text holds "args" (an identifier is never split), so an ASCII file without it is not parsed (NFKC could
    spell ``args`` with other characters)."""
    readers = []
    for folder in ("harness/grading/batch", "harness/report"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "args" not in text and text.isascii():
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Name) and node.id == "args" or isinstance(node, ast.arg) and node.arg == "args":
                    readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert readers == []
