"""The wall: hostile candidates (tests/candidates/, the gallery in its README) get the verdict
they must get from `check` and from `golden replay --impl`, the harness's files are
unchanged afterwards, and no process of the candidate is left.

Every attack runs in the default run at least once: the combined candidates
(``attacks_files.py``, ``attacks_processes.py``) carry the file and process attacks; the
one-attack-per-file gallery runs in full under ``-m slow``.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.check import CheckOptions, run_check
from harness.grading.report import render_table
from harness.run import launch
from harness.sandbox import Candidate, confine
from tests.support.helpers import CANDIDATES, ROOT, confined, left_over

TWO = ("test_hand_example", "test_apply_mask")  # the first is attacked, the second must still pass


def grade(candidate: str, only=TWO, **options):
    result = run_check(CheckOptions(impl=str(CANDIDATES / candidate), only=tuple(only), **options))
    assert left_over(result.marker) == [], f"processes of {candidate} are still running"
    return result, {t.name: t for t in result.tests}


def replay(candidate: str, *extra: str, marker: str = "replay-marker-7f3a") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    os.environ["CONSTRAIN_HARNESS_MARKER"] = marker
    try:
        code = main(["golden", "replay", "--impl", str(CANDIDATES / candidate), "--timeout", "60", *extra], out, err)
    finally:
        del os.environ["CONSTRAIN_HARNESS_MARKER"]
    assert left_over(marker) == [], f"processes of {candidate} are still running after the replay"
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- every attack, default run


@pytest.mark.e2e
@confined
def test_process_attacks_change_no_verdict_and_leave_nothing_running(harness_unchanged, monkeypatch):
    # setsid + double-fork daemon, kill the parent and the grader, read /proc/*/environ,
    # flood stdout, a fake PASS row with ANSI escapes: the grader is untouched.
    monkeypatch.setenv("CONSTRAIN_HARNESS_TEST_SECRET", "s3cr3t-grader-value")
    result, tests = grade("attacks_processes.py", only=("test_hand_example", "test_canonical_form"))
    assert tests["test_hand_example"].status == "passed", tests["test_hand_example"].reason
    assert tests["test_canonical_form"].status == "failed"
    assert result.exit_code == ExitCode.FAILED
    text = render_table(result)
    assert "s3cr3t" not in text and "s3cr3t" not in str(result.to_dict())
    assert not any(ch in text for ch in "\x1b\r\x08"), "a control character reached the report"
    assert text.splitlines()[-1] == "verdict: failed (exit 1)"
    code, out, err = replay("attacks_processes.py", "--file", "masks")
    assert code in (ExitCode.OK, ExitCode.FAILED) and "s3cr3t" not in out + err
    assert "\x1b" not in out + err


@pytest.mark.e2e
@confined
def test_file_attacks_are_refused_and_the_tree_stays_as_it_was(harness_unchanged, tmp_path):
    # remount/umount, rewrite golden and a test, plant files, relink a golden file
    result, tests = grade("attacks_files.py", only=("test_hand_example",))
    assert tests["test_hand_example"].status == "passed" and result.exit_code == ExitCode.OK, render_table(result)
    assert result.integrity == []
    assert any(words in result.isolation for words in ("a uid of its own", "nobody", "user namespace"))
    code, out, err = replay("attacks_files.py", "--file", "masks")
    assert code == ExitCode.OK, out + err


@pytest.mark.e2e
@confined
def test_nothing_of_the_machine_outside_the_system_and_the_interpreter_is_in_the_sandbox(copies_elsewhere, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom oracles.automaton import *  # noqa: F401,F403\n"
                     "def seen(paths):\n    return [os.path.exists(p) for p in paths]\n"
                     "def listing(path):\n    return sorted(os.listdir(path)) if os.path.isdir(path) else None\n"
                     "def home():\n    return os.environ['HOME']\n")
    planted = [str(decoy / "oracles" / "derivatives.py") for decoy in copies_elsewhere]
    with Candidate(str(probe)) as cand:
        assert cand.module.seen([*planted, *map(str, copies_elsewhere), "/usr/lib", "/etc/passwd"]) == \
            [False] * 4 + [True, True]
        # the checkout's folder holds only the way to what the sandbox binds: the harness, the interpreter,
        # and (a checkout directly in /tmp, whose sandbox /tmp is private) the probe's folder and its home
        bound = [ROOT, *confine.interpreter_paths(), tmp_path, Path(cand.module.home())]
        ways = {p.relative_to(ROOT.parent).parts[0] for p in bound if ROOT.parent in p.parents}
        assert set(cand.module.listing(str(ROOT.parent))) == ways
        assert "harness" in cand.module.listing(str(ROOT))
    assert all(os.path.exists(p) for p in planted), "the planted copies are the grader's: untouched"


@pytest.mark.e2e
@confined
def test_writes_into_the_graders_home_never_arrive(harness_unchanged):
    result, tests = grade("writes_grader_home.py", only=("test_apply_mask",))
    assert tests["test_apply_mask"].status == "passed" and result.exit_code == ExitCode.OK


@pytest.mark.writes_checkout
@pytest.mark.e2e
def test_unconfined_file_attacks_are_tampered_listed_and_undone(harness_unchanged, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("as an ordinary user the candidate cannot write the harness's files at all")
    monkeypatch.setenv(confine.UNCONFINED_ENV, "1")  # --unconfined: no wall, the verification still holds
    victim = Path("/tmp/constrain-harness-victim.txt")
    victim.write_text("outside the checkout\n")
    try:
        result, tests = grade("attacks_files.py", only=("test_hand_example",))
        assert result.isolation.startswith(confine.UNCONFINED_HEADLINE)
        assert result.exit_code == ExitCode.TAMPERED, render_table(result)
        changes = "\n".join(result.integrity)
        for expected in ("golden/masks_golden.json: changed", "harness/suite/test_dfa.py: changed",
                         "golden/constrain_golden.json: a file replaced by a link", "golden/planted.json: added",
                         "oracles/planted.py: added", "harness/suite/test_planted.py: added"):
            assert expected in changes, changes
        assert victim.read_text() == "outside the checkout\n", "the restore wrote through the link"
        assert render_table(result).splitlines()[-1] == "verdict: tampered (exit 4)"
    finally:
        victim.unlink()


@pytest.mark.e2e
@pytest.mark.parametrize("unconfined", [False, True], ids=["confined", "unconfined"])
def test_forged_results_count_for_nothing(harness_unchanged, monkeypatch, unconfined):
    if unconfined:  # the candidate can reach the result file here: its records are unsigned
        monkeypatch.setenv(confine.UNCONFINED_ENV, "1")
        # it finds the file in its grader child's command line, which only a new interpreter's shows
        # (a child forked from a warm process shows that one's, harness.run.launch): so started here
        monkeypatch.setenv(launch.FORK_ENV, "0")
    result, tests = grade("forges_results.py")
    assert {t.status for t in tests.values()} == {"failed"}, [(t.name, t.reason) for t in tests.values()]
    assert result.exit_code == ExitCode.FAILED
    if unconfined:
        assert sum(child["forged_records"] for child in result.children) >= 17


@pytest.mark.e2e
def test_without_confinement_check_refuses_and_runs_nothing(harness_unchanged, monkeypatch):
    monkeypatch.setenv("CONSTRAIN_HARNESS_NO_BWRAP", "1")
    with pytest.raises(confine.ConfinementUnavailable, match="CONSTRAIN_HARNESS_NO_BWRAP"):
        confine.plan(confine.Limits(), [], [], Path("/tmp/h"), "m")
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--impl", str(CANDIDATES / "writes_grader_home.py")], out, err)
    assert code == ExitCode.USAGE and out.getvalue() == "" and err.getvalue().count("\n") == 1


@pytest.mark.e2e
def test_patching_the_harness_at_import_changes_only_the_candidates_process(harness_unchanged):
    result, tests = grade("patches_harness.py", only=("test_hand_example",))
    assert tests["test_hand_example"].status == "failed" and result.exit_code == ExitCode.FAILED
    code, out, _ = replay("patches_harness.py", "--file", "masks")
    assert code == ExitCode.FAILED, out


@pytest.mark.e2e
def test_os_exit_on_import_is_a_crash_of_the_load_for_check_and_replay(harness_unchanged):
    result, tests = grade("exits_on_import.py")
    assert {t.status for t in tests.values()} == {"not run"} and result.exit_code == ExitCode.CRASHED
    assert "loading" in result.load["reason"]
    code, _, err = replay("exits_on_import.py")
    assert code == ExitCode.CRASHED, err


@pytest.mark.e2e
def test_a_flood_of_the_channel_is_a_protocol_crash_and_the_next_test_runs(harness_unchanged):
    start = time.monotonic()
    result, tests = grade("floods_channel.py")
    assert tests["test_hand_example"].status == "crashed"
    assert tests["test_hand_example"].reason.startswith("protocol violation"), tests["test_hand_example"].reason
    assert tests["test_apply_mask"].status == "passed" and result.exit_code == ExitCode.CRASHED
    assert time.monotonic() - start < 40  # no 4 GB read, no wait for the candidate's sleep


@pytest.mark.e2e
def test_an_infinite_loop_times_out_and_the_rest_still_runs(harness_unchanged):
    result, tests = grade("loops_forever.py", timeout=1)  # test_apply_mask needs some 0.02 CPU s of it
    assert tests["test_hand_example"].status == "timeout", tests["test_hand_example"].reason
    assert tests["test_apply_mask"].status == "passed" and result.exit_code == ExitCode.CRASHED


@pytest.mark.e2e
def test_an_interpreter_crash_is_that_tests_verdict(harness_unchanged):
    result, tests = grade("crashes_interpreter.py")
    assert tests["test_hand_example"].status == "crashed" and "SIGSEGV" in tests["test_hand_example"].reason
    assert tests["test_apply_mask"].status == "passed" and result.exit_code == ExitCode.CRASHED


@pytest.mark.e2e
def test_unbounded_allocation_hits_the_memory_limit(harness_unchanged):
    result, tests = grade("allocates_forever.py", memory=1024)
    assert tests["test_hand_example"].status == "crashed" and "memory" in tests["test_hand_example"].reason.lower()
    assert tests["test_apply_mask"].status == "passed" and result.exit_code == ExitCode.CRASHED


@pytest.mark.e2e
@pytest.mark.parametrize("candidate, status, words", [
    ("exits_os.py", "crashed", "exit status 0"),
    ("exits_sys.py", "failed", "SystemExit"),
    ("skips_tests.py", "failed", "Skipped"),
    ("writes_golden.py", "passed", ""),
    ("monkeypatches.py", "failed", ""),
])
def test_the_older_gallery_keeps_its_verdicts(harness_unchanged, candidate, status, words):
    result, tests = grade(candidate, only=("test_hand_example",))
    verdict = tests["test_hand_example"]
    assert verdict.status == status and words in verdict.reason, (verdict.status, verdict.reason)


@pytest.mark.e2e
def test_the_ordinary_user_mode_confines_too(harness_unchanged, monkeypatch):
    if confine.unavailable() is not None or os.geteuid() != 0:
        pytest.skip("needs bubblewrap and a root grader to force the ordinary-user mode")
    monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    result, tests = grade("attacks_files.py", only=("test_hand_example",))
    assert "user namespace" in result.isolation
    assert tests["test_hand_example"].status == "passed" and result.exit_code == ExitCode.OK, render_table(result)


# --------------------------------------------------------------------------- one attack per candidate (slow)

GALLERY = [  # candidate, check verdict of test_hand_example / test_apply_mask, check exit, replay exit (masks_golden,
    # which replays the hand example: a candidate that misbehaves on it crashes the replay)
    ("remounts_and_writes.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("plants_files.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("relinks_a_golden_file.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("writes_grader_home.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("leaves_a_daemon.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("kills_the_grader.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("reads_the_environment.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("floods_stdout.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("prints_a_fake_pass_row.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("forges_results.py", "failed", "failed", ExitCode.FAILED, ExitCode.FAILED),
    ("patches_harness.py", "failed", "passed", ExitCode.FAILED, ExitCode.FAILED),
    ("exits_on_import.py", "not run", "not run", ExitCode.CRASHED, ExitCode.CRASHED),
    ("floods_channel.py", "crashed", "passed", ExitCode.CRASHED, ExitCode.CRASHED),
    ("loops_forever.py", "timeout", "passed", ExitCode.CRASHED, ExitCode.CRASHED),
    ("crashes_interpreter.py", "crashed", "passed", ExitCode.CRASHED, ExitCode.CRASHED),
    ("exits_os.py", "crashed", "passed", ExitCode.CRASHED, ExitCode.CRASHED),
    ("writes_golden.py", "passed", "passed", ExitCode.OK, ExitCode.OK),
    ("monkeypatches.py", "failed", "passed", ExitCode.FAILED, ExitCode.OK),  # numbering: masks_golden cannot see it
]


@pytest.mark.e2e
@pytest.mark.slow
@confined
@pytest.mark.parametrize("candidate, hand, apply, check_exit, replay_exit", GALLERY, ids=[g[0] for g in GALLERY])
def test_the_gallery_against_check_and_golden_replay(harness_unchanged, monkeypatch, candidate, hand, apply,
                                                     check_exit, replay_exit):
    monkeypatch.setenv("CONSTRAIN_HARNESS_TEST_SECRET", "s3cr3t-grader-value")
    result, tests = grade(candidate, timeout=5)
    assert (tests["test_hand_example"].status, tests["test_apply_mask"].status) == (hand, apply), \
        [(t.name, t.status, t.reason) for t in tests.values()]
    assert result.exit_code == check_exit
    text = render_table(result)
    assert "s3cr3t" not in text and not any(ch in text for ch in "\x1b\r\x08")
    code, out, err = replay(candidate, "--file", "masks", "--timeout", "15")
    assert code == replay_exit, out[-2000:] + err[-2000:]
    assert "s3cr3t" not in out + err and "\x1b" not in out + err
