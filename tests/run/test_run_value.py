"""The catalogue run value (``harness.run.CatalogueRun``): frozen, validated once, one JSON
document that reads back equal, and a bad field a clear error naming it."""

from __future__ import annotations

import json
import math

import pytest

from harness.argtypes import MAX_SEED
from harness.policy import POLICY, WallCalibration
from harness.run import CatalogueRun
from harness.run.value import MAX_DOCUMENT


def _every_field_set() -> CatalogueRun:
    return CatalogueRun(impl="/tmp/sub/constrain.py",
                        policy=POLICY.with_(tier="strict", ref_deps=False, test_cpu_seconds=2.5,
                                            load_cpu_seconds=7.25, memory_mb=512),
                        deep=True, seed=MAX_SEED, only=frozenset({"test_apply_mask", "test_vocab_bytes"}),
                        skip=frozenset({"test_vocab_bytes"}), golden_file="/tmp/g.json", marker="abc123",
                        wall_calibration=WallCalibration(0.1234567890123, 0.1 + 0.2),
                        results_file="/tmp/r.jsonl", results_key_fd=7, twin_tests=frozenset({"test_sampling"}),
                        twin_in_fd=8, twin_out_fd=9, test_budgets={"test_hand_example": 1.125, "test_apply_mask": 3})


@pytest.mark.unit
@pytest.mark.parametrize("run", [CatalogueRun(), _every_field_set()], ids=["defaults", "every-field"])
def test_one_json_document_reads_back_equal(run):
    text = run.to_json()
    assert "\n" not in text and json.loads(text)["seed"] == run.seed
    back = CatalogueRun.from_json(text)
    assert back == run and back.to_json() == text
    # the floats cross exactly (repr round trip), so the limits and the calibration are the same numbers
    assert back.policy.load_cpu_seconds == run.policy.load_cpu_seconds
    assert back.wall_calibration == run.wall_calibration


@pytest.mark.unit
def test_absent_fields_take_the_defaults_and_the_value_is_frozen():
    assert CatalogueRun.from_json("{}") == CatalogueRun()
    run = CatalogueRun.from_json('{"seed": 5, "only": ["test_apply_mask"]}')
    assert run.seed == 5 and run.selects("test_apply_mask") and not run.selects("test_sampling")
    with pytest.raises(AttributeError):
        run.seed = 1  # frozen
    assert run.with_(seed=6).seed == 6 and run.seed == 5


@pytest.mark.unit
def test_the_candidates_limits_follow_the_policy():
    """RLIMIT_CPU: the load and every test's allowance, twice over; memory and each call's deadline."""
    run = CatalogueRun(policy=POLICY.with_(test_cpu_seconds=3.0, load_cpu_seconds=10.0, memory_mb=300))
    limits = run.limits(16)
    assert (limits.cpu_seconds, limits.memory_mb, limits.call_seconds) == (10 + 2 * 3 * 16, 300, 3.0)
    assert run.limits(0).cpu_seconds == 10 + 2 * 3  # at least one test's allowance


@pytest.mark.unit
def test_a_tests_budget_is_its_own_where_given_never_above_the_policys():
    run = CatalogueRun(policy=POLICY.with_(test_cpu_seconds=10.0),
                       test_budgets={"test_hand_example": 1.5, "test_apply_mask": 25.0})
    assert run.test_budgets == (("test_apply_mask", 25.0), ("test_hand_example", 1.5))   # sorted pairs
    assert run.budget_of("test_hand_example") == 1.5
    assert run.budget_of("test_apply_mask") == 10.0        # the policy's bounds it
    assert run.budget_of("test_sampling") == 10.0          # none given: the policy's
    assert CatalogueRun().budget_of("test_hand_example") == POLICY.test_cpu_seconds


BAD_FIELDS = [
    ("seed", -1), ("seed", MAX_SEED + 1), ("seed", True), ("seed", 1.5), ("seed", "7"),
    ("deep", 1), ("impl", ""), ("impl", 3), ("golden_file", "a\0b"), ("marker", ""),
    ("results_key_fd", -1), ("twin_in_fd", True), ("twin_out_fd", "3"),
    ("only", "test_a"), ("only", ["test a"]), ("skip", [3]), ("twin_tests", ["a,b"]),
    ("wall_calibration", [0.0, 1.0]), ("wall_calibration", [1.0]), ("wall_calibration", "1:1"),
    ("policy", {"test_cpu_seconds": 0}), ("policy", {"test_cpu_seconds": -1.0}), ("policy", {"memory_mb": 10}),
    ("policy", {"load_cpu_seconds": "60"}), ("policy", {"tier": "lenient"}), ("policy", {"no_such": 1}),
    ("policy", [60.0]),
    ("test_budgets", {"test a": 1.0}), ("test_budgets", {"test_a": 0}), ("test_budgets", {"test_a": -1.0}),
    ("test_budgets", {"test_a": True}), ("test_budgets", {"test_a": "1"}), ("test_budgets", "test_a"),
    ("test_budgets", [["test_a"]]),
]


@pytest.mark.boundary
@pytest.mark.parametrize("field, value", BAD_FIELDS, ids=[f"{f}={v!r}" for f, v in BAD_FIELDS])
def test_a_bad_field_in_the_document_is_a_value_error_naming_it(field, value):
    text = json.dumps({field: value})
    with pytest.raises(ValueError, match=rf"^CatalogueRun\.{field}\b"):
        CatalogueRun.from_json(text)


@pytest.mark.boundary
@pytest.mark.parametrize("text, said", [
    ("[]", "one JSON object"), ("not json", "one JSON object"), ('{"seed": NaN}', "NaN"),
    ('{"sed": 1}', "unknown field"), (" " * (MAX_DOCUMENT + 1), "at most"),
])
def test_a_bad_document_is_a_value_error_saying_why(text, said):
    with pytest.raises(ValueError, match=said):
        CatalogueRun.from_json(text)


@pytest.mark.boundary
def test_the_constructor_refuses_bad_values_naming_the_field():
    with pytest.raises(ValueError, match=r"CatalogueRun\.seed: the run seed must be in 0 \.\. "):
        CatalogueRun(seed=MAX_SEED + 1)
    with pytest.raises(TypeError, match=r"CatalogueRun\.policy must be a GradingPolicy"):
        CatalogueRun(policy={"test_cpu_seconds": 1.0})
    with pytest.raises(TypeError, match=r"CatalogueRun\.only must be a set of test names"):
        CatalogueRun(only="test_apply_mask")
    with pytest.raises(ValueError, match="test_cpu_seconds must be a finite number"):
        CatalogueRun(policy=POLICY.with_(test_cpu_seconds=math.inf))
    with pytest.raises(TypeError):
        CatalogueRun.from_json(b"{}")


# --------------------------------------------------------------------------- the check job's request


@pytest.mark.unit
def test_check_options_are_one_json_document_that_reads_back_equal():
    from harness.grading.check import CheckOptions

    options = CheckOptions(impl="/x/constrain.py", ref_deps=False, deep=True, timeout=2.123456789, memory=512,
                           only=("test_apply_mask",), golden_file="/g.json", strict=True, load_seconds=7.5,
                           seed=MAX_SEED, wall_calibration=WallCalibration(0.5, 0.25))
    assert CheckOptions.from_json(options.to_json()) == options   # the exact float: no "%g" on the way
    assert CheckOptions.from_json("{}") == CheckOptions()


@pytest.mark.boundary
@pytest.mark.parametrize("document, said", [
    ('{"timeout": 0}', r"^CheckOptions\.timeout: "), ('{"memory": 10}', r"^CheckOptions\.memory: "),
    ('{"load_seconds": -1}', r"^CheckOptions\.load_seconds: "), ('{"seed": -1}', r"^CheckOptions\.seed: "),
    ('{"memory": true}', r"^CheckOptions\.memory: "), ('{"only": "test_a"}', r"^CheckOptions\.only: "),
    ('{"wall_calibration": {"reference_wall": 0}}', r"^CheckOptions\.wall_calibration: "),
    ('{"timeout": NaN}', r"^CheckOptions\.timeout: "), ('{"impl": 3}', r"^CheckOptions\.impl: "),
    ('{"x": 1}', "unknown field"), ("[]", "one JSON object"),
])
def test_bad_check_options_are_a_value_error_naming_the_field(document, said):
    from harness.grading.check import CheckOptions

    with pytest.raises(ValueError, match=said):
        CheckOptions.from_json(document)


@pytest.mark.boundary
@pytest.mark.parametrize("request_text, said", [
    ("not json", "check --request: "), ('{"options": {"timeout": 0}}', "CheckOptions.timeout"),
    ('{"options": {}, "reports": {"pdf": "/tmp/x"}}', "reports maps a format"),
    ('{"options": {}, "extra": 1}', "a check request is"),
])
def test_a_bad_check_request_is_a_usage_error_before_any_work(request_text, said, capsys):
    from harness.commands import check_entry

    assert check_entry.main(["--request", request_text]) == 2
    assert said in capsys.readouterr().err
