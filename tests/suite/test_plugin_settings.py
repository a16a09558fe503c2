"""The catalogue plugin's run (``harness.suite.plugin.run_of``): read once, either whole from
``--run`` (what ``check`` gives) or from a hand run's separate options, every default
``harness.policy.POLICY``'s, bad limits refused."""

from __future__ import annotations

import math

import pytest

from harness.policy import POLICY, WallCalibration
from harness.run import CatalogueRun
from harness.suite.plugin import run_of


class _Config:
    """What ``run_of`` reads of a pytest config: ``getoption`` over the plugin's defaults."""

    DEFAULTS = {"--impl": None, "--ref-deps": False, "--deep": False, "--timeout": POLICY.test_cpu_seconds,
                "--load-seconds": POLICY.load_cpu_seconds, "--seed": 0, "--memory": POLICY.memory_mb,
                "--results-file": None, "--results-key-fd": None, "--golden-file": None, "--only": "",
                "--skip": "", "strict": False, "--run": None}

    def __init__(self, **given):
        self.options = {**self.DEFAULTS, **given}

    def getoption(self, name, default=None):
        return self.options.get(name, default)


@pytest.mark.unit
def test_defaults_are_the_policys(monkeypatch):
    monkeypatch.delenv("CONSTRAIN_HARNESS_MARKER", raising=False)
    run = run_of(_Config())
    assert run.policy == POLICY.with_(ref_deps=False)  # --ref-deps is a flag: off unless given
    assert run == CatalogueRun(policy=POLICY.with_(ref_deps=False))
    assert (run.test_cpu_seconds, run.load_cpu_seconds) == (POLICY.test_cpu_seconds, POLICY.load_cpu_seconds)
    assert run.strict is False and run.only == frozenset() and run.selects("test_anything")


@pytest.mark.unit
def test_options_read_once_into_typed_fields(monkeypatch):
    monkeypatch.setenv("CONSTRAIN_HARNESS_MARKER", "abc")
    run = run_of(_Config(**{"--timeout": 2.5, "--load-seconds": 7.0, "--memory": 512, "--ref-deps": True,
                            "strict": True, "--seed": 9, "--only": "test_a,test_b", "--skip": "test_b",
                            "--wall-reference": "0.5:0.25"}))
    assert run.policy == POLICY.with_(tier="strict", ref_deps=True, test_cpu_seconds=2.5, load_cpu_seconds=7.0,
                                      memory_mb=512)
    assert run.strict and run.seed == 9 and run.marker == "abc"
    assert run.wall_calibration == WallCalibration(0.5, 0.25)
    assert run.only == {"test_a", "test_b"} and run.skip == {"test_b"}
    assert [run.selects(n) for n in ("test_a", "test_b", "test_c")] == [True, False, False]
    with pytest.raises(AttributeError):
        run.seed = 1  # frozen


@pytest.mark.unit
def test_the_run_document_is_read_whole_and_the_separate_options_are_not(monkeypatch):
    monkeypatch.setenv("CONSTRAIN_HARNESS_MARKER", "from-the-environment")
    given = CatalogueRun(impl="/x/constrain.py", seed=11, marker="from-the-run",
                         policy=POLICY.with_(test_cpu_seconds=3.0, tier="strict"), skip=frozenset({"test_dfa"}))
    run = run_of(_Config(**{"--run": given.to_json(), "--timeout": 99.0, "--seed": 4}))
    assert run == given


@pytest.mark.boundary
@pytest.mark.parametrize("option, value", [("--timeout", math.nan), ("--timeout", 0.0), ("--timeout", math.inf),
                                           ("--load-seconds", -1.0), ("--memory", 10)])
def test_bad_limits_are_usage_errors(option, value):
    with pytest.raises(pytest.UsageError, match=f"^harness.suite.plugin: {option} "):
        run_of(_Config(**{option: value}))


@pytest.mark.boundary
@pytest.mark.parametrize("document, field", [('{"seed": -1}', "seed"), ('{"policy": {"memory_mb": 10}}', "policy"),
                                             ('{"only": "test_a"}', "only")])
def test_a_bad_run_document_is_a_usage_error_naming_the_field(document, field):
    with pytest.raises(pytest.UsageError, match=rf"^harness.suite.plugin: CatalogueRun\.{field}\b"):
        run_of(_Config(**{"--run": document}))


# --------------------------------------------------------------------------- the session's state

_TWO_SESSIONS = r'''
import json, sys
import pytest
from harness.run import CatalogueRun
from harness.run.launch import pytest_arguments
from harness.policy import POLICY
from harness.suite import early, plugin, seeding, tiers
from harness.suite import session as catalogue_session

out, marker, folder = sys.argv[1], sys.argv[2], sys.argv[3]
seen = []


class Probe:
    def pytest_configure(self, config):
        self.config = config

    def pytest_sessionfinish(self, session):
        run = plugin.run_of_session(session.config)
        seen.append({"seed": run.settings.seed, "id": id(run),
                     "registered": session.config.pluginmanager.get_plugin("harness.suite.plugin.run") is run,
                     "in_force": [seeding.run_seed(), tiers.is_strict(), catalogue_session.current() is run.state]})


for seed, tier in ((5, "strict"), (6, "default")):
    probe = Probe()
    run = CatalogueRun(seed=seed, marker=marker, only=frozenset({"test_hand_example"}),
                       policy=POLICY.with_(tier=tier), results_file=f"{folder}/results-{seed}.jsonl")
    code = pytest.main(pytest_arguments(run), plugins=[probe])
    seen[-1].update(code=int(code), after=probe.config.pluginmanager.get_plugin("harness.suite.plugin.run") is None,
                    released=catalogue_session._IN_FORCE == [])
json.dump({"sessions": seen, "module_global": [m.__name__ + "." + name for m, name in
                                               ((plugin, "_RUN"), (seeding, "_RUN"), (tiers, "_STATE"),
                                                (early, "_EARLY")) if hasattr(m, name)]}, open(out, "w"))
'''


@pytest.mark.e2e
def test_two_sessions_in_one_process_keep_their_state_in_their_own_config(tmp_path):
    """The session's state is its config's (``config.stash``), never a module global: two
    ``pytest.main`` sessions in one grader process, each with its own run value, see their own
    seed and tier (the catalogue's helpers read them: ``harness.suite.session``), their hooks
    are registered only while they run, and each grades the reference."""
    import json
    import secrets
    import subprocess
    import sys

    from harness.sandbox import confine, isolated
    from tests.support.helpers import left_over, tree_digest

    if confine.unavailable() is not None:
        pytest.skip(f"no confinement here: {confine.unavailable()}")
    marker = secrets.token_hex(8)
    before = tree_digest(bytecode=False)
    out = tmp_path / "seen.json"
    done = subprocess.run([sys.executable, "-c", _TWO_SESSIONS, str(out), marker, str(tmp_path)], cwd=tmp_path,
                          env=isolated.environment({"TMPDIR": str(tmp_path)}), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(out.read_text())
    assert seen["module_global"] == []
    assert [s["seed"] for s in seen["sessions"]] == [5, 6]
    # the run seed and the tier the catalogue's helpers read are the session's own, and leave with it
    assert [s["in_force"] for s in seen["sessions"]] == [[5, True, True], [6, False, True]]
    assert all(s["released"] for s in seen["sessions"])
    assert seen["sessions"][0]["id"] != seen["sessions"][1]["id"]
    assert all(s["registered"] and s["after"] and s["code"] == 0 for s in seen["sessions"]), seen
    for seed in (5, 6):
        records = [json.loads(line) for line in (tmp_path / f"results-{seed}.jsonl").read_text().splitlines()]
        assert [(r["test"], r["outcome"]) for r in records if r["event"] == "result"] == \
            [("test_hand_example", "passed")]
    assert tree_digest(bytecode=False) == before   # the harness's files unchanged
    assert left_over(marker) == []                 # nothing of either session's candidate left running


_A_SESSION_AFTER_ANOTHER = '''
import json, sys
import pytest
from harness.run import CatalogueRun
from harness.run.launch import pytest_arguments
from harness.suite import inputs

out, marker, folder = sys.argv[1], sys.argv[2], sys.argv[3]
inputs._SHAPE.update(shape="the last candidate's shape, which this one does not take")
run = CatalogueRun(seed=5, marker=marker, only=frozenset({"test_constraint_lifecycle"}),
                   results_file=f"{folder}/results.jsonl")
code = pytest.main(pytest_arguments(run))
json.dump({"code": int(code), "shape": inputs.known_constraint_shape()}, open(out, "w"))
'''


@pytest.mark.e2e
def test_a_session_finds_its_candidates_constraint_shape_anew(tmp_path):
    """The ``Constraint`` shape the catalogue found is the run's (``inputs._SHAPE``): a second
    session in one process (another candidate) does not inherit the last one's."""
    import json
    import secrets
    import subprocess
    import sys

    from harness.sandbox import confine, isolated
    from harness.suite.inputs import CONSTRAINT_SHAPES
    from tests.support.helpers import left_over

    if confine.unavailable() is not None:
        pytest.skip(f"no confinement here: {confine.unavailable()}")
    marker = secrets.token_hex(8)
    out = tmp_path / "seen.json"
    done = subprocess.run([sys.executable, "-c", _A_SESSION_AFTER_ANOTHER, str(out), marker, str(tmp_path)],
                          cwd=tmp_path, env=isolated.environment({"TMPDIR": str(tmp_path)}), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(out.read_text())
    assert seen["code"] == 0 and seen["shape"] in [name for name, *_ in CONSTRAINT_SHAPES], seen
    assert left_over(marker) == []
