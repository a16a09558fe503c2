"""``harness.seconds``: the one check of a time limit, and the typed values that use it refuse
alike (the grading policy, the wall calibration, the autograder's wall and configuration; the
batch's CPU limits are checked in ``tests/grading/test_batch_options.py``, the developer verbs'
--timeout in ``tests/project/test_developer_options.py``)."""

from __future__ import annotations

import doctest
import math

import pytest

from harness import seconds
from harness.grading.autograder.config import MAX_SECONDS, AutograderConfig
from harness.grading.autograder.grading import GradeOptions
from harness.policy import POLICY, GradingPolicy, WallCalibration
from harness.seconds import check_seconds

NOT_SECONDS = [0, -1, -0.5, math.inf, -math.inf, math.nan, True, False, "1", None, 1j]


def test_the_module_s_examples_hold():
    assert doctest.testmod(seconds).failed == 0


@pytest.mark.parametrize("value", [1, 0.001, 5e-324, 1e300, 86400])
def test_a_finite_positive_number_is_returned_unchanged(value):
    assert check_seconds("t", value) is value


@pytest.mark.parametrize("value", NOT_SECONDS)
def test_anything_else_is_refused_naming_the_limit_and_the_value(value):
    with pytest.raises(ValueError) as caught:
        check_seconds("--timeout", value)
    assert str(caught.value) == f"--timeout must be a finite number of seconds > 0, not {value!r}"


def test_an_upper_bound_is_inclusive_and_named():
    assert check_seconds("wall", 10, at_most=10) == 10
    with pytest.raises(ValueError, match=r"^wall must be a finite number of seconds in \(0, 10\], not 10\.5$"):
        check_seconds("wall", 10.5, at_most=10)


@pytest.mark.parametrize("build, name", [
    (lambda v: GradingPolicy(**{**POLICY.__dict__, "test_cpu_seconds": v}), "test_cpu_seconds"),
    (lambda v: WallCalibration(v, 1.0), "WallCalibration.reference_wall"),
    (lambda v: WallCalibration(1.0, 1.0).limit(v), "cpu_seconds"),
    (lambda v: GradeOptions(wall=v), "wall"),
])
@pytest.mark.parametrize("value", [0, math.inf, math.nan, True])
def test_every_typed_limit_refuses_alike(build, name, value):
    with pytest.raises(ValueError) as caught:
        build(value)
    assert str(caught.value) == f"{name} must be a finite number of seconds > 0, not {value!r}"


def test_the_autograder_configuration_bounds_its_seconds():
    with pytest.raises(ValueError, match=rf"^timeout must be a finite number of seconds in \(0, {MAX_SECONDS:g}\], "):
        AutograderConfig(timeout=MAX_SECONDS * 2)

