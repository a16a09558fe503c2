"""The calibrated wall limit (issue 50 item 2): a sleeping or blocked candidate is stopped
within a wall limit set from the reference's own time for the same work, measured on the
same machine at the same moment, instead of the fixed 10x backstop; a candidate that only
computes slowly still reaches its CPU-seconds verdict, since the limit grows with the
measured stretch (``harness.policy.WallCalibration``, ``harness.grading.wall_calibration``).
"""

from __future__ import annotations

import math

import pytest

from harness.grading.check import CheckOptions, run_check
from harness.grading.wall_calibration import measure
from harness.policy import (
    BACKSTOP_FACTOR,
    POLICY,
    WALL_FACTOR,
    WALL_FLOOR_SECONDS,
    WallCalibration,
    use_wall_calibration,
    wall_calibration_in_force,
)
from tests.support.helpers import CANDIDATES, confined, left_over, tree_digest


@pytest.fixture
def no_calibration_after():
    yield
    use_wall_calibration(None)


def test_the_limit_grows_with_the_references_measured_time_for_the_same_work():
    cpu = 60.0
    limits = [WallCalibration(wall, 0.1).limit(cpu) for wall in (0.1, 0.15, 0.2, 0.3, 0.5, 1.0)]
    assert limits == sorted(limits) and limits[0] < limits[-1]
    assert limits[0] == WALL_FACTOR * cpu                    # a quiet machine: 2 x 60 s, not 600 s
    assert limits[2] == pytest.approx(WALL_FACTOR * 2 * cpu)  # twice the wall per CPU second: twice the limit


@pytest.mark.parametrize("stretch", [1.0, 1.7, 3.0, 4.9])
def test_a_candidate_that_only_computes_always_has_the_wall_time_its_whole_cpu_budget_costs_now(stretch):
    for cpu in (0.5, 3.0, 60.0, 540.0):
        limit = WallCalibration(stretch * 0.2, 0.2).limit(cpu)
        # its CPU budget, at the measured wall-per-CPU rate, ends before the wall limit: the CPU verdict stands
        assert limit >= min(BACKSTOP_FACTOR * cpu, WALL_FACTOR * stretch * cpu) > stretch * cpu * 0.99


def test_the_limit_is_never_longer_than_the_fixed_backstop_nor_shorter_than_the_floor():
    assert WallCalibration(10.0, 0.1).limit(60.0) == BACKSTOP_FACTOR * 60.0   # a hundredfold stretch: capped
    assert WallCalibration(0.1, 0.1).limit(1.0) == WALL_FLOOR_SECONDS         # 2 x 1 s is below the floor
    assert WallCalibration(0.1, 0.1).limit(0.1) == pytest.approx(BACKSTOP_FACTOR * 0.1)  # below the floor: the cap
    assert WallCalibration(0.05, 0.1).stretch == 1.0                          # wall < CPU (clock noise): no shrink


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan, True, "1"])
def test_bad_measurements_and_budgets_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="reference_wall"):
        WallCalibration(bad, 0.1)
    with pytest.raises(ValueError, match="reference_cpu"):
        WallCalibration(0.1, bad)
    with pytest.raises(ValueError, match="cpu_seconds"):
        WallCalibration(0.1, 0.1).limit(bad)


def test_the_calibration_crosses_to_the_grader_child_as_one_word_and_back():
    calibration = WallCalibration(0.123456789, 0.1)
    assert WallCalibration.parse(calibration.argument()) == calibration
    for bad in ("", "0.1", "x:0.1", "0.1:0", "-1:1"):
        with pytest.raises(ValueError, match="WALL:CPU"):
            WallCalibration.parse(bad)


def test_in_force_it_is_the_policys_wall_limit_and_without_it_the_fixed_backstop(no_calibration_after):
    assert wall_calibration_in_force() is None and POLICY.backstop(60.0) == 600.0
    use_wall_calibration(WallCalibration(0.3, 0.2))
    assert POLICY.backstop(60.0) == pytest.approx(WALL_FACTOR * 1.5 * 60.0)
    use_wall_calibration(None)
    assert POLICY.backstop(60.0) == 600.0
    with pytest.raises(TypeError, match="WallCalibration"):
        use_wall_calibration(2.0)


def test_the_measurement_is_the_references_own_work_on_this_machine_now():
    calibration = measure(0.02)
    assert calibration.reference_cpu >= 0.02 and calibration.stretch >= 1.0
    assert "wall limit: " in calibration.describe(60.0) and "x 60 CPU s" in calibration.describe(60.0)
    with pytest.raises(ValueError, match="work_cpu_seconds"):
        measure(0)


@confined
@pytest.mark.e2e
def test_a_sleeping_candidate_is_stopped_within_the_calibrated_limit_long_before_the_old_backstop():
    # the old backstop: 25 s (50 s granted twice on a loaded machine); the calibrated limit, 2 x 2.5 s, is the
    # floor (the wait this test costs: 3 CPU s, a 6 s limit, until 2026-12-07)
    cpu = 2.5
    calibration = WallCalibration(0.1, 0.1)   # injected: a quiet machine's stretch, 1
    limit = calibration.limit(cpu)
    assert limit == 2 * cpu == WALL_FLOOR_SECONDS
    before = tree_digest(bytecode=False)
    result = run_check(CheckOptions(impl=str(CANDIDATES / "sleeps.py"), only=("test_hand_example",), timeout=cpu,
                                    wall_calibration=calibration))
    [test] = result.tests
    assert test.status == "timeout", (test.status, test.reason)
    assert test.reason.startswith(f"wall-clock backstop: {limit:g} s, the candidate slept or blocked"), test.reason
    assert test.duration < 2 * limit + 5 < BACKSTOP_FACTOR * cpu, test.duration   # stopped at 5 s (10 s loaded)
    assert result.wall_limit.startswith(f"wall limit: {limit:4.0f} s per test")
    assert result.integrity == [] and tree_digest(bytecode=False) == before   # the harness's files unchanged
    assert left_over(result.marker) == []                                      # nothing of the sleeper left


def test_the_grader_child_reads_the_run_s_calibration_and_refuses_a_bad_one(no_calibration_after):
    """The calibration crosses to the grader child inside the run value (``--run``), and the
    child's early start reads it back the same; a bad one in the document is refused, naming it."""
    from harness.run import CatalogueRun
    from harness.run.launch import pytest_arguments
    from harness.suite import early

    options = CheckOptions(timeout=4.0)
    run = options.catalogue_run(seed=3, marker="m", wall_calibration=WallCalibration(0.5, 0.25))
    arguments = pytest_arguments(run)
    assert early._run_value(arguments).wall_calibration == WallCalibration(0.5, 0.25)
    assert CatalogueRun.from_json(arguments[arguments.index("--run") + 1]) == run
    use_wall_calibration(run.wall_calibration)
    assert POLICY.backstop(4.0) == pytest.approx(WALL_FACTOR * 2 * 4.0)   # in force in the grader's process
    use_wall_calibration(None)
    assert wall_calibration_in_force() is None
    with pytest.raises(ValueError, match="^CatalogueRun.wall_calibration: "):
        CatalogueRun.from_json('{"wall_calibration": [0.5, -1]}')
    assert early._run_value(["--run", '{"wall_calibration": [0.5, -1]}']) is None   # no early start


def test_the_wall_limit_line_has_one_length_whatever_the_load():
    """Two gradings of one upload under different loads give records of one length (a report
    clipped in the middle then cuts the same text from both: tests/grading/test_reproducible.py)."""
    from harness.policy import WallCalibration

    quiet, loaded = WallCalibration(reference_wall=0.031, reference_cpu=0.030), \
        WallCalibration(reference_wall=12.5, reference_cpu=0.031)
    for seconds in (3.0, 30.0, 60.0):
        assert len(quiet.describe(seconds)) == len(loaded.describe(seconds))
