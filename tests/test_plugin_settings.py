"""The catalogue plugin's settings (``harness.suite.plugin.CatalogueSettings``): read once
from the command line, every default ``harness.policy.POLICY``'s, bad limits refused."""

from __future__ import annotations

import math

import pytest

from harness.policy import POLICY
from harness.suite.plugin import CatalogueSettings


class _Config:
    """What ``from_config`` reads of a pytest config: ``getoption`` over the plugin's defaults."""

    DEFAULTS = {"--impl": None, "--ref-deps": False, "--deep": False, "--timeout": POLICY.test_cpu_seconds,
                "--load-seconds": POLICY.load_cpu_seconds, "--seed": 0, "--memory": POLICY.memory_mb,
                "--results-file": None, "--results-key-fd": None, "--golden-file": None, "--only": "",
                "--skip": "", "strict": False}

    def __init__(self, **given):
        self.options = {**self.DEFAULTS, **given}

    def getoption(self, name, default=None):
        return self.options.get(name, default)


@pytest.mark.unit
def test_defaults_are_the_policys():
    settings = CatalogueSettings.from_config(_Config())
    assert settings.policy == POLICY.with_(ref_deps=False)  # --ref-deps is a flag: off unless given
    assert settings == CatalogueSettings(policy=POLICY.with_(ref_deps=False))
    assert (settings.test_cpu_seconds, settings.load_cpu_seconds) == (POLICY.test_cpu_seconds, POLICY.load_cpu_seconds)
    assert settings.strict is False and settings.only == frozenset() and settings.selects("test_anything")


@pytest.mark.unit
def test_options_read_once_into_typed_fields():
    settings = CatalogueSettings.from_config(_Config(**{"--timeout": 2.5, "--load-seconds": 7.0, "--memory": 512,
                                                        "--ref-deps": True, "strict": True, "--seed": 9,
                                                        "--only": "test_a,test_b", "--skip": "test_b"}))
    assert settings.policy == POLICY.with_(tier="strict", ref_deps=True, test_cpu_seconds=2.5, load_cpu_seconds=7.0,
                                           memory_mb=512)
    assert settings.strict and settings.seed == 9
    assert settings.only == {"test_a", "test_b"} and settings.skip == {"test_b"}
    assert [settings.selects(n) for n in ("test_a", "test_b", "test_c")] == [True, False, False]
    with pytest.raises(AttributeError):
        settings.seed = 1  # frozen


@pytest.mark.unit
def test_candidate_limits_follow_the_settings():
    """RLIMIT_CPU: the load and every test's allowance, twice over; memory and each call's deadline."""
    settings = CatalogueSettings(policy=POLICY.with_(test_cpu_seconds=3.0, load_cpu_seconds=10.0, memory_mb=300))
    limits = settings.limits(16)
    assert (limits.cpu_seconds, limits.memory_mb, limits.call_seconds) == (10 + 2 * 3 * 16, 300, 3.0)
    assert settings.limits(0).cpu_seconds == 10 + 2 * 3  # at least one test's allowance


@pytest.mark.boundary
@pytest.mark.parametrize("option, value", [("--timeout", math.nan), ("--timeout", 0.0), ("--timeout", math.inf),
                                           ("--load-seconds", -1.0), ("--memory", 10)])
def test_bad_limits_are_usage_errors(option, value):
    with pytest.raises(pytest.UsageError, match=f"^harness.suite.plugin: {option} "):
        CatalogueSettings.from_config(_Config(**{option: value}))
