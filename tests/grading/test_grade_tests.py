"""grade-tests (issue 13): a student's suite graded against wheats and chaffs.

The default run grades small matrices (the example suites of ``tests/student_suites``
against one or two wheats and a few chaffs) and checks the gate and the reports in
process; ``tests/grading/test_grade_tests_slow.py`` grades every example suite against every
chaff. Each grading asserts the harness's files unchanged and no process left.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from harness.cli import main
from harness.grading.gradetests import report as reports
from harness.grading.gradetests.grade import GradeOptions, grade
from harness.grading.gradetests.hints import hint
from harness.grading.gradetests.relay import Gate, public_names
from harness.sandbox import channel
from tests.support.helpers import ROOT, SUITES, Burners, confined, fresh_collector, left_over

HARNESS_DIGEST_BYTECODE = False  # grading imports harness modules in this process while it runs (conftest.py)


def graded(suite: str, **options):
    options.setdefault("seed", 1)  # seed=None: the default, derived from the suite's files
    result = grade(GradeOptions(suite=SUITES / suite, **options))
    assert left_over(result.marker) == [], f"processes of the {suite} suite are still running"
    assert result.tampered == []
    return result


# ------------------------------------------------------------------ small matrices (confined)


@pytest.mark.e2e
@confined
def test_a_wrong_test_is_invalid_and_the_rest_is_scored(harness_unchanged, tmp_path):
    brzozowski = str(ROOT / "harness/grading/gradetests/wheats/brzozowski.py")
    result = graded("wheat_failing", wheats=("reference", brzozowski),
                    chaffs=("s01", "s05", "s10", "s13"))
    g = result.grade
    assert [i.test for i in g.invalid] == ["test_mixed.py::test_hand_example_has_eight_states"]
    bad = g.invalid[0]
    assert bad.wheat == "reference" and bad.outcome == "failed"
    assert "8 states" in bad.message and "assert 7 == 8" in bad.message
    assert bad.input == "constrain.regex_to_dfa('(cat|car|dog)s?')"
    assert sorted(g.caught) == ["s10", "s13"]          # 'a+' refuses b'' ; '^a' is refused
    assert g.caught["s10"] == ["test_mixed.py::test_plus_needs_one"]
    assert (g.total, g.score, g.flaky) == (4, 0.5, {})
    # every test runs on every implementation (the same selection everywhere); an invalid one never counts
    assert g.matrix["s01"]["test_mixed.py::test_hand_example_has_eight_states"] == "failed"
    assert "s01" not in g.caught
    text = reports.table(result, "pitfall")
    assert "INVALID test_mixed.py::test_hand_example_has_eight_states: failed on wheat reference" in text
    assert "score: 2/4 chaffs caught (50%)" in text and "survived: s01: pitfall 1:" in text
    assert "survived: s05: pitfall 4: EOS allowed everywhere" in text
    _check_reports(result)


def _check_reports(result) -> None:
    g = result.grade
    data = reports.to_json(result, "full")
    json.dumps(data)
    assert data["score"] == {"caught": 2, "total": 4, "fraction": 0.5, "incomplete": False}
    assert {c["id"]: c["hint"] for c in data["chaffs"]}["s01"] == hint("s01", "full")
    gradescope = reports.to_gradescope(result, "pitfall", max_score=40)
    assert gradescope["score"] == 20.0
    assert sum(t["max_score"] for t in gradescope["tests"]) == pytest.approx(40)
    assert sum(t["score"] for t in gradescope["tests"]) == pytest.approx(20)
    assert {t["name"] for t in gradescope["tests"]} >= {"pitfall 1", "pitfall 4", "pitfall 6", "pitfall 7"}
    stryker = reports.to_stryker(result)
    statuses = {m["id"]: m["status"] for f in stryker["files"].values() for m in f["mutants"]}
    assert statuses == {"s01": "Survived", "s05": "Survived", "s10": "Killed", "s13": "Killed"}
    assert stryker["schemaVersion"] == "2"
    page = reports.to_html(result, "none")
    assert "<script" not in page and "http" not in page.replace("https://git.io", "") and "2/4 chaffs caught" in page
    assert all(t in page for t in g.tests)


@pytest.mark.e2e
@confined
def test_a_suite_cannot_tell_implementations_apart_except_by_behaviour(harness_unchanged, copies_elsewhere):
    # copies_elsewhere: copies of the harness planted outside the checkout, which the suite's walk must not find
    result = graded("snooping", wheats=("reference",), chaffs=("s01", "s05"))
    g = result.grade
    assert len(g.tests) == 8 and g.invalid == [], [(i.test, i.message) for i in g.invalid]
    assert g.caught == {}, "the snooping suite told a chaff apart without its behaviour"
    assert all(o == "passed" for row in g.matrix.values() for o in row.values())


@pytest.mark.e2e
def test_the_snooping_probes_do_see_an_unprotected_implementation(tmp_path):
    """The control: the same suite against the reference imported in its own process
    (no wall) finds the reference by its file, source and error messages."""
    suite = tmp_path / "snooping"
    shutil.copytree(SUITES / "snooping", suite)
    code = ("import sys, types, oracles.automaton as m, pytest; sys.modules['tinyllm'] = types.ModuleType('tinyllm'); "
            "sys.modules['tinyllm.infer'] = types.ModuleType('tinyllm.infer'); "
            "sys.modules['tinyllm.infer'].constrain = m; "
            "sys.modules['tinyllm.infer.constrain'] = m; "
            f"sys.exit(pytest.main([{str(suite)!r}, '-q', '-p', 'no:cacheprovider', '-p', 'no:randomly', '--rootdir', "
            f"{str(suite)!r}, '-c', '/dev/null', '-k', 'module_file or source or error_messages']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert "3 failed" in proc.stdout, proc.stdout[-2000:]


@pytest.mark.e2e
@confined
def test_the_suite_gets_the_graders_packages_and_no_harness_file(tmp_path):
    """CI's venv lies inside the checkout the sandbox hides: the suite still runs that
    venv's interpreter (its packages: numpy, pytest), while the checkout's files stay
    hidden (the venv's editable-install hook points at them and finds nothing)."""
    from harness.grading.gradetests.implementations import wheat
    from harness.grading.gradetests.suite_run import run_suite

    suite = tmp_path / "interpreter"
    suite.mkdir()
    (suite / "test_interpreter.py").write_text(
        "import importlib.util, os, sys\n\nimport numpy\n\n\n"
        "def test_the_graders_interpreter():\n"
        f"    assert sys.prefix == {sys.prefix!r}, sys.prefix\n"
        f"    assert numpy.__version__ == {__import__('numpy').__version__!r}\n\n\n"
        "def test_no_harness_file():\n"
        f"    assert not os.path.exists({str(ROOT / 'harness')!r})\n"
        f"    assert not os.path.exists({str(ROOT / 'oracles')!r})\n"
        "    assert importlib.util.find_spec('harness') is None\n"
        "    assert importlib.util.find_spec('oracles') is None\n")
    result = run_suite(suite, wheat("reference"))
    assert result.verdict == "completed", (result.verdict, result.detail, result.output)
    assert result.outcomes == {"test_interpreter.py::test_the_graders_interpreter": "passed",
                               "test_interpreter.py::test_no_harness_file": "passed"}, result.messages


@pytest.mark.e2e
@confined
def test_a_suite_that_always_fails_scores_zero(harness_unchanged):
    result = graded("always_fails", wheats=("reference",), chaffs=("s10",))
    g = result.grade
    assert g.valid == [] and len(g.invalid) == 2 and g.score == 0.0
    assert g.chaff_verdicts == {"s10": "skipped"} and g.caught == {}
    assert reports.to_gradescope(result, "none")["score"] == 0.0
    assert "no test is valid" in reports.table(result, "none")


HANG_CPU = 0.5  # the hangs suite's per-test CPU seconds: its busy loop costs this per run (backstop: 10x, wall)
HANGS = {"wheats": ("reference",), "chaffs": ("s13",), "test_cpu": HANG_CPU, "timeout": 20.0, "budget": 120.0}
"""One chaff: the hanging test runs on a chaff as on the wheat and never counts (two chaffs, s10 and s13,
until 2026-12-07: a run more, quietly and beside the burners, each its 0.5 CPU s loop and its start)."""


@pytest.fixture(scope="module")
def hangs_quiet():
    """The hangs suite graded once on a quiet machine (``HANGS``), read by the hang test and
    by the burners' test; the harness's files checked around it (as ``harness_unchanged``)."""
    from tests.support.helpers import HOME_TARGETS, tree_digest

    before = tree_digest(bytecode=HARNESS_DIGEST_BYTECODE)
    result = graded("hangs", **HANGS)
    assert tree_digest(bytecode=HARNESS_DIGEST_BYTECODE) == before, "the harness's files changed"
    assert not any(p.exists() for p in HOME_TARGETS), "the candidate wrote into the grader's home"
    return result


@pytest.mark.e2e
@confined
def test_a_suite_that_hangs_gets_a_verdict_and_the_grading_goes_on(hangs_quiet):
    g = hangs_quiet.grade
    runs = [*g.wheat_runs["reference"], *g.chaff_runs.values()]
    # the hang is ended by its CPU seconds (0.5 per test), not by the wall clock: each run costs about that
    assert len(runs) == 3 and all(r.cpu_seconds < HANG_CPU + 10.0 and not r.backstop for r in runs), \
        [(r.cpu_seconds, r.detail) for r in runs]
    assert g.valid == ["test_hangs.py::test_fine"]
    assert [(i.test, i.outcome) for i in g.invalid] == [("test_hangs.py::test_hangs_forever", "timeout")]
    assert {r.verdict for r in runs} == {"timeout"}
    assert "more than 0.5 CPU seconds (the per-test limit)" in g.invalid[0].message
    assert g.caught == {}   # the hanging test runs on the chaffs too (the same tests everywhere) and never counts
    assert g.matrix == {"s13": {"test_hangs.py::test_fine": "passed", "test_hangs.py::test_hangs_forever": "timeout"}}


# ------------------------------------------------------------------ the gate, in process


def test_the_gate_serves_the_contract_and_nothing_else():
    gate = Gate(public_names())
    assert gate.refusal(["getattr", 1, "regex_to_dfa", [], {}]) is None
    for request, why in [(["getattr", 1, "__file__", [], {}], "private"), (["getattr", 1, "os", [], {}], "contract"),
                         (["repr", 1, None, [], {}], "not served"), (["load", 0, "oracles", [True], {}], "not served"),
                         (["getattr", 7, "trans", [], {}], "no object #7"), (["call", 1, None, [], {}], "contract"),
                         ("junk", "malformed")]:
        assert why in gate.refusal(request), request
    reply = gate.clean(["call", 1, "regex_to_dfa", ["ab"], {}],
                       ["ok", channel.Handle(40, "_MyDFA", ("step", "_private", "check_canonical")), None])
    dfa = reply[1]
    assert (dfa.kind, dfa.methods) == ("DFA", ("step", "matches"))  # the contract's, not the implementation's
    assert gate.refusal(["call", dfa.id, "step", [0, b"a"], {}]) is None
    assert gate.inward(["call", dfa.id, "step", [0, b"a"], {}])[1] == 40  # the implementation's own number
    assert "not part of the contract" in gate.refusal(["call", dfa.id, "check_canonical", [], {}])
    assert "cannot be passed" in gate.refusal(["call", dfa.id, "step", [channel.Handle(1, "module")], {}])
    assert "cannot be passed" in gate.refusal(["call", dfa.id, "step", [channel.Described("pickle", {})], {}])
    # the spec's tokenizer shapes are data the implementation's side rebuilds (harness.suite.shapes)
    assert gate.refusal(["call", dfa.id, "step", [channel.Described("shape", {"kind": "SpecTokenizer"})], {}]) is None
    assert gate.clean(["call", 1, "regex_to_dfa", ["ab"], {}], ["ok", [channel.Handle(3, "module")], None])[0] == "err"
    error = gate.clean(["call", dfa.id, "step", [0, b"a"], {}],
                       ["err", {"type": "StateOutOfRange", "kinds": ["ValueError"], "message": "in mutant_s05/x.py",
                                "where": "compile.py:12 in parse"}, None])[1]
    assert error == {"type": "ValueError", "kinds": ["ValueError", "Exception", "BaseException"],
                     "message": "DFA.step raised ValueError"}


def test_hints_at_each_level():
    assert hint("s05", "none") == ""
    assert hint("s05", "pitfall").startswith("pitfall 4: EOS allowed everywhere, or a dead sink kept as a state")
    assert hint("s05", "full") == "index: EOS allowed everywhere (e.g. in state 0 of the hand example)"
    assert hint("s19", "pitfall").startswith("apply_mask: what test_apply_mask checks")
    with pytest.raises(ValueError, match="--hints"):
        hint("s05", "everything")


@pytest.mark.e2e
def test_bad_options_are_usage_errors(tmp_path):
    for argv, needle in [([str(tmp_path / "missing")], "not a folder"),
                         ([str(tmp_path), "--module", "a..b"], "--module"),
                         ([str(tmp_path), "--timeout", "100", "--budget", "10"], "--timeout"),
                         ([str(tmp_path), "--chaffs", "s99"], "unknown catalogue mutant"),
                         ([str(tmp_path), "--wheats", "nowhere.py"], "--wheats")]:
        err = io.StringIO()
        assert main(["grade-tests", *argv], io.StringIO(), err) == 2, argv
        assert needle in err.getvalue(), (argv, err.getvalue())


@pytest.mark.e2e
def test_validity_flakiness_and_catches_follow_the_rules():
    from harness.grading.gradetests.scoring import score
    from harness.grading.gradetests.suite_run import RunResult

    def run(impl, role, **outcomes):
        return RunResult(impl, role, "completed", collected=list(outcomes), outcomes=dict(outcomes),
                         messages={t: f"{t} broke" for t, o in outcomes.items() if o == "failed"})

    wheats = {"reference": [run("reference", "wheat", a="passed", b="passed", c="passed", d="skipped"),
                            run("reference", "wheat", a="passed", b="failed", c="passed", d="skipped")],
              "fair": [run("fair", "wheat", a="passed", b="passed", c="failed", d="skipped")] * 2}
    chaffs = {"s01": run("s01", "chaff", a="passed", b="failed", c="failed", d="passed"),
              "s02": run("s02", "chaff", a="timeout", b="passed", c="passed", d="passed"),
              "s03": run("s03", "chaff", a="passed", b="passed", c="passed", d="failed"),
              "s04": RunResult("s04", "chaff", "not run", "the total budget (10 s) was spent")}
    g = score(wheats, chaffs)
    assert g.tests == ["a", "b", "c", "d"] and g.valid == ["a", "d"]
    got = [(i.test, i.wheat, i.message) for i in g.invalid]
    assert got == [("b", "reference", "b broke"), ("c", "fair", "c broke")]
    assert g.flaky == {"b": "reference"}
    assert g.caught == {"s02": ["a"], "s03": ["d"]}      # s01 failed only invalid tests
    assert (g.total, g.score, g.incomplete) == (4, 0.5, True)
    nothing_valid = score({"reference": [run("reference", "wheat", a="failed")] * 2},
                          {"s01": run("s01", "chaff", a="failed")})
    assert nothing_valid.score == 0.0 and nothing_valid.caught == {}


@pytest.mark.e2e
def test_unconfined_the_report_warns_that_nothing_is_hidden(harness_unchanged, monkeypatch):
    """--unconfined (no bubblewrap) hides no file from the suite: the header says so, and
    the snooping suite's filesystem probe indeed finds the chaffs there."""
    monkeypatch.setenv("CONSTRAIN_HARNESS_UNCONFINED", "1")
    result = graded("snooping", wheats=("reference",), chaffs=("s01",))
    assert result.mode == "unconfined" and result.confinement.startswith("UNCONFINED")
    assert "WARNING: no bubblewrap: the suite could read the implementations' files" in reports.table(result, "none")
    assert "test_snoop.py::test_filesystem" in {i.test for i in result.grade.invalid}


def test_a_run_that_cannot_start_within_the_budget_is_not_run():
    from harness.grading.gradetests.grade import _Runner
    from harness.grading.gradetests.implementations import wheat

    seen = []
    runner = _Runner(GradeOptions(suite=SUITES / "weak", budget=30.0, timeout=10.0), 1, "m", [], time.monotonic(),
                     1, lambda done, total, run: seen.append((done, total, run.verdict)))
    runner.cpu_used = 29.0   # CPU seconds the earlier runs used: less than a run's minimum is left
    result = runner.run_one(wheat("reference"))
    assert (result.verdict, result.detail) == ("not run", "the CPU budget (30 CPU s) was spent")
    assert seen == [(1, 1, "not run")]


# ------------------------------------------------------------------ attacks on the grading (issues 22 and 23)


@pytest.mark.e2e
@confined
def test_a_canary_suite_catches_nothing(harness_unchanged):
    """Tests that fail when an invalid canary did not run: with the same tests run on every
    implementation, the canary runs on chaffs too and the suite catches nothing. One chaff: the
    attack tells a chaff by the grader's selection, not by its behaviour (the suite's tests ask only
    ``regex_to_dfa("a")``, which every chaff answers as the reference does), so each chaff is the
    same case (s01 and s13 beside s10 until 2026-12-08: two runs more)."""
    g = graded("canary", wheats=("reference",), chaffs=("s10",)).grade
    assert [i.test for i in g.invalid] == ["test_canary.py::test_a_canary"]
    assert len(g.valid) == 2 and g.caught == {} and g.score == 0.0


@pytest.mark.e2e
@confined
def test_a_suite_that_looks_for_a_selection_catches_nothing(harness_unchanged):
    # one chaff, as the canary's: the suite tells a chaff by a selection, never by its behaviour (s01 and s10
    # until 2026-12-08)
    g = graded("tells_by_selection", wheats=("reference",), chaffs=("s10",)).grade
    assert g.invalid == [] and len(g.valid) == 3, [(i.test, i.message) for i in g.invalid]
    assert g.caught == {} and g.score == 0.0


@pytest.fixture(scope="module")
def weak_graded(tmp_path_factory):
    """The weak suite graded once for the module, seed 7, on the reference and the chaffs s01, s10
    and x99, a chaff that does not load (``CHAFF_SOURCES``' hook); every hello a student's process
    received recorded. (result, hellos): what the hello test and the not-loading chaff's test read
    (each graded it before, 3 CPU s a grading); the harness's files checked around it (as
    ``harness_unchanged``)."""
    from harness.grading.gradetests import implementations, suite_run
    from tests.support.helpers import HOME_TARGETS, tree_digest

    broken = tmp_path_factory.mktemp("chaff") / "broken_chaff.py"
    broken.write_text("raise ImportError('this chaff is broken')\n")
    chaff = implementations.Implementation("x99", "chaff", str(broken))
    hellos, send = [], suite_run.channel.send

    def recording(sock, value, *rest):
        if isinstance(value, dict) and "names" in value:
            hellos.append(value)
        return send(sock, value, *rest)

    before = tree_digest(bytecode=HARNESS_DIGEST_BYTECODE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suite_run.channel, "send", recording)
        patch.setattr(implementations, "CHAFF_SOURCES", [*implementations.CHAFF_SOURCES, lambda root, only: [chaff]])
        result = graded("weak", wheats=("reference",), chaffs=("s01", "s10"), seed=7)
    assert tree_digest(bytecode=HARNESS_DIGEST_BYTECODE) == before, "the harness's files changed"
    assert not any(p.exists() for p in HOME_TARGETS), "the candidate wrote into the grader's home"
    return result, hellos


@pytest.mark.e2e
@confined
def test_every_implementation_gets_the_same_hello(weak_graded):
    """The first frame the student's process receives is the same on wheats and chaffs."""
    result, hellos = weak_graded
    # the reference's two runs, s01's and s10's (x99's run ends before its relay starts: it did not load)
    assert len(hellos) == 4 and all(h == hellos[0] for h in hellos), hellos
    assert hellos[0]["seed"] == 7 and hellos[0]["skip"] == [] and "only" not in hellos[0]
    assert sorted(result.grade.caught) == ["s10"]


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["unconfined"])
def test_parallel_runs_do_not_end_each_other(harness_unchanged, monkeypatch, mode):
    """Without bubblewrap's PID namespace (``--unconfined``) a run's processes are ended by
    their marker: each run has its own, so runs two at a time leave every test valid. This
    sees a shared marker only when two runs overlap (the strong suite's runs last long
    enough, not always): ``test_every_run_gets_its_own_marker`` and
    ``test_ending_a_run_ends_only_the_processes_of_its_own_marker`` below decide it each time,
    in the default run; this one, six gradings of the strong suite, is ``slow``."""
    monkeypatch.setenv("CONSTRAIN_HARNESS_UNCONFINED", "1")
    # before each run had its own marker, the first run to end killed the other's processes: 16 of 32 tests
    # invalid with --jobs 2
    two = graded("strong", jobs=2, wheats=("reference",), chaffs=("s01", "s05", "s10", "s13"))
    assert two.mode == mode
    assert len(two.grade.tests) == 32 and two.grade.invalid == [] and two.grade.flaky == {}
    assert sorted(two.grade.valid) == sorted(two.grade.tests)
    assert sorted(two.grade.caught) == ["s01", "s05", "s10", "s13"]


def test_every_run_gets_its_own_marker(monkeypatch):
    """Two runs of one grading (one grading marker) get two markers: what ``end`` sweeps
    in the unconfined mode is one run's processes only. Deterministic, where the
    parallel grading above needs its runs to overlap to see a shared marker."""
    from harness.grading.gradetests import suite_run
    from harness.grading.gradetests.implementations import wheat

    markers = []

    class Recorded(suite_run._Run):
        def execute(self):
            markers.append(self.marker)

    monkeypatch.setattr(suite_run, "_Run", Recorded)
    reference = wheat("reference")
    for _ in range(2):
        suite_run.run_suite(SUITES / "strong", reference, marker="gradetests-0123")
    assert len(set(markers)) == 2 and all(m.startswith("gradetests-0123-") for m in markers), markers


@pytest.mark.e2e  # starts processes
def test_ending_a_run_ends_only_the_processes_of_its_own_marker():
    """``confine.kill_marked``: the processes carrying exactly the run's marker; not another
    run's, nor one whose marker the run's is a prefix of (the grading's ``gradetests-ab``
    of its run's ``gradetests-ab-cd``)."""
    from harness.sandbox import confine

    def sleeper(marker):
        env = {**os.environ, "CONSTRAIN_HARNESS_RUN": marker}
        return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)

    mine, longer, other = sleeper("gradetests-ab"), sleeper("gradetests-ab-cd"), sleeper("gradetests-ef")
    try:
        deadline = time.monotonic() + 30
        while not confine.marked_processes(b"CONSTRAIN_HARNESS_RUN=gradetests-ab-cd", whole_entry=True):
            assert time.monotonic() < deadline, "the sleepers did not start"
            time.sleep(0.01)
        assert confine.kill_marked("gradetests-ab") == 1
        assert mine.wait(timeout=30) == -9
        assert longer.poll() is None and other.poll() is None
    finally:
        for process in (mine, longer, other):
            process.kill()
            process.wait()
    assert left_over("gradetests-ab") == []


@pytest.mark.e2e
@confined
def test_what_a_suite_prints_cannot_draw_on_the_terminal(harness_unchanged):
    result = graded("prints_escapes", wheats=("reference",), chaffs=("s10",))
    g = result.grade
    text = reports.table(result, "full")
    data = reports.dumps(reports.to_json(result, "full"))
    for shown in (text, data, reports.to_html(result, "full"), reports.dumps(reports.to_gradescope(result, "full"))):
        assert not any(ch in shown for ch in "\x1b\r\x08\x07"), "a control character reached a report"
    assert [line for line in text.splitlines() if line.startswith("score:")] == ["score: 0/1 chaffs caught (0%)"]
    assert "\\x1b[32mscore: 27/27" in text      # the fake line is there, as visible text
    assert {(i.test, i.outcome) for i in g.invalid} == {
        ("test_escapes.py::test_fails_with_a_fake_score", "failed"),
        ("test_escapes.py::test_crashes_after_printing_a_fake_score", "crashed")}
    run = g.wheat_runs["reference"][0]
    assert "\\x1b[2K" in run.output and run.processes == 2      # a crash costs only its own test


@pytest.mark.e2e
@confined
def test_the_same_suite_and_seed_give_the_same_report(harness_unchanged):
    """The run seed reaches random, numpy and Hypothesis: the same seed, the same JSON
    (timings aside); another seed, other draws. The default seed comes from the suite."""
    from harness.grading.gradetests.grade import suite_seed
    from harness.grading.gradetests.implementations import wheat
    from harness.grading.gradetests.suite_run import run_suite

    options = {"wheats": ("reference",), "chaffs": ("s10",)}
    first = graded("draws", seed=None, **options)
    again = graded("draws", seed=None, **options)
    # another seed: one run of the suite on the wheat is enough to see other draws (a grading runs it so)
    other = run_suite(SUITES / "draws", wheat("reference"), seed=first.seed + 1, marker="gradetests-otherseed")
    assert left_over("gradetests-otherseed") == []
    assert first.seed == again.seed == suite_seed(SUITES / "draws")
    shown = {i.test: i.message for i in first.grade.invalid}
    runs = first.grade.wheat_runs["reference"]
    assert runs[0].messages == runs[1].messages   # the same seed, the same draws, in one grading too
    drawing = "test_draws.py::test_shows_its_draws"   # random's and numpy's (Hypothesis shrinks its draw to 0.0)
    assert other.outcomes[drawing] == "failed" and other.messages[drawing] != runs[0].messages[drawing]
    assert "drew 0." in shown["test_draws.py::test_shows_its_draws"]
    assert "hypothesis drew 0." in shown["test_draws.py::test_shows_hypothesis_draws"]
    # a new interpreter's collector, and the table the grader laid
    process = shown["test_draws.py::test_shows_its_process"]
    assert f"collector {fresh_collector()}" in process and "unicode table laid: True" in process
    assert "test_draws.py::test_a_literal_matches_itself" in first.grade.valid
    assert without_timings(first) == without_timings(again)
    assert f"seed: {first.seed}" in reports.table(first, "none")
    on_gradescope = reports.to_gradescope(first, "none")   # the seed is the staff's: a hidden test only
    assert str(first.seed) not in on_gradescope["output"] and on_gradescope["stdout_visibility"] == "hidden"
    assert [t["output"] for t in on_gradescope["tests"] if t["visibility"] == "hidden"] == \
        [f"seed: {first.seed} (grade-tests --seed {first.seed} replays this run)"]


def without_timings(result) -> str:
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("seconds", "cpu_seconds")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    data = reports.to_json(result, "full")
    assert json.loads(reports.dumps(data)) == data
    return json.dumps(strip(data), indent=1)


@pytest.mark.e2e
@confined
def test_a_chaff_that_does_not_load_is_not_graded(weak_graded):
    result, _ = weak_graded
    g = result.grade
    assert g.chaff_verdicts == {"s01": "completed", "s10": "completed", "x99": "implementation did not load"}
    assert g.not_graded.keys() == {"x99"} and "this chaff is broken" in g.not_graded["x99"]
    assert g.surviving == ["s01"] and (len(g.caught), g.total, g.incomplete) == (1, 2, True)
    text = reports.table(result, "pitfall")
    assert "not graded: x99: did not load (" in text and "survived: x99" not in text


@pytest.mark.e2e
@confined
def test_a_run_the_backstop_ends_says_so_and_is_run_once_more(harness_unchanged, tmp_path):
    """A test that sleeps uses no CPU: the wall-clock backstop (10x the CPU limit) ends it,
    the verdict says so, and the run is tried once more before it stands."""
    from harness.grading.gradetests.grade import _Runner
    from harness.grading.gradetests.implementations import wheat

    (tmp_path / "test_sleeps.py").write_text("import time\n\n\ndef test_sleeps():\n    time.sleep(3600)\n\n\n"
                                             "def test_after():\n    assert True\n")
    runner = _Runner(GradeOptions(suite=tmp_path, test_cpu=0.2, timeout=30.0), 1, "gradetests-backstop", [],
                     time.monotonic(), 1, None)
    result = runner.run_one(wheat("reference"))
    assert result.outcomes == {"test_sleeps.py::test_sleeps": "timeout", "test_sleeps.py::test_after": "passed"}
    assert "wall-clock backstop" in result.messages["test_sleeps.py::test_sleeps"]
    assert result.backstop and "run twice" in result.detail
    assert left_over("gradetests-backstop") == []


@pytest.mark.e2e
@confined
def test_a_suite_looking_for_the_harness_source_finds_none_in_a_checkout(harness_unchanged):
    """(tests/grading/test_grade_tests_wheel.py: the same suite in a wheel install.)"""
    g = graded("reads_the_harness", wheats=("reference",), chaffs=("s10",)).grade
    assert g.invalid == [] and len(g.valid) == 4, [(i.test, i.message) for i in g.invalid]
    assert g.caught == {}


@pytest.mark.e2e
@confined
def test_the_report_is_the_same_beside_cpu_burners(harness_unchanged, hangs_quiet):
    """Limits count CPU seconds, so a busy machine changes no verdict: the same suite and
    seed graded quietly and beside a CPU burner on every core give the same JSON report
    (timings aside), its hang ended by its CPU limit both times."""
    quiet = hangs_quiet  # graded once for the module (HANGS)
    with Burners():
        busy = graded("hangs", **HANGS)
    assert without_timings(quiet) == without_timings(busy)
    assert quiet.grade.matrix["s13"]["test_hangs.py::test_hangs_forever"] == "timeout"


@pytest.mark.e2e
@confined
def test_a_suite_that_hides_its_cpu_in_auto_reaped_children_is_stopped_at_its_limit(harness_unchanged):
    """Issue 48, item 4: the CPU of a student's process is counted over every process it ever
    ran (its cgroup), so children reaped by the kernel (SIGCHLD ignored) count too: the test
    that burns ~3 CPU s that way is stopped at its 0.5 CPU s limit (before: it passed, its
    children's CPU never read)."""
    result = graded("hides_its_cpu", wheats=("reference",), chaffs=("s10",), test_cpu=HANG_CPU, timeout=20.0,
                    budget=120.0)
    g = result.grade
    assert g.valid == ["test_hides_its_cpu.py::test_fine"]
    assert [(i.test, i.outcome) for i in g.invalid] == [("test_hides_its_cpu.py::test_hides_its_cpu", "timeout")]
    assert "more than 0.5 CPU seconds (the per-test limit)" in g.invalid[0].message
    assert not any(r.backstop for r in [*g.wheat_runs["reference"], *g.chaff_runs.values()])
