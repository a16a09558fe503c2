"""``check --batch`` against a hostile class folder (issue 22 item 5 and its lower items).

The attacks, as a TA and hostile students found them:

- ``mallory.py`` is ``from alice import *``: it passed on alice's code while every
  submission saw the class folder on ``sys.path``. Each submission is now graded on a
  private copy holding its own files only (``harness.intake``): mallory's import
  finds no ``alice`` and she gets the verdict her own file earns (it crashes on import);
- a student file named ``numpy.py`` was imported by every classmate's process (alice
  16/16 -> 2/16): alice must get 16/16;
- a link to ``/dev/zero`` made the fingerprint read forever (MemoryError), a FIFO hung the
  batch: at the top of the class folder both are "ignored" with the reason; inside a
  student's folder both are skipped with a note, and the student is graded on the rest;
- a newline (or any control character, an ANSI escape) in a file name broke the table;
  a name that is not UTF-8 made the CSV trace back after the JSON was written: every
  report (terminal, progress, CSV, JSON, HTML, Markdown) holds the escaped name;
- an empty folder exited 0: it is a usage error (exit 2).

Each run asserts that the harness's files are unchanged and that nothing of the class is
left running. The oracle for each verdict is the candidate's own documentation
(``tests/candidates/README.md``) and the seed (a file that fails to import earns no test).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from harness import intake
from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder.grading import display_name
from harness.grading.batch.submissions import Submission, discover, fingerprint
from harness.suite.catalogue import NAMES

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
WHEATS = ROOT / "harness" / "grading" / "gradetests" / "wheats"  # grade-tests' wheats (package data)
SPEC_LAYOUT = Path("python", "tinyllm", "infer", "constrain.py")
EVIL_NAME = "eve\n\x1b[32mPASSED 16 of 16\x1b[0m"
NOT_UTF8 = os.fsdecode(b"caf\xe9")            # the byte 0xe9 alone is not UTF-8
NUMPY_HIJACK = "raise ImportError('numpy.py of a classmate: hijacked')\n"


def harness_files() -> dict[str, str]:
    """Path -> SHA-256 of every file the grader runs or reads (the tree a run must not change)."""
    digests = {}
    for top in ("harness", "oracles", "golden", "tests/candidates"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digests[str(path.relative_to(ROOT))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes holding ``text`` (the run's private folder)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z" and int(pid) != os.getpid():
            found.append(f"{pid}: {cmdline[:200]}")
    return found


def batch(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    folder = work / "class"
    folder.mkdir()
    shutil.copy2(WHEATS / "brzozowski.py", folder / "alice.py")          # correct, imports numpy
    (folder / "mallory.py").write_text("from alice import *  # noqa\n")
    (folder / "numpy.py").write_text(NUMPY_HIJACK)
    (folder / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe.py")
    linky = folder / "linky"
    (linky / SPEC_LAYOUT).parent.mkdir(parents=True)
    shutil.copy2(WHEATS / "brzozowski.py", linky / SPEC_LAYOUT)
    (linky / "python" / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(linky / "python" / "pipe")
    (linky / "python" / "alice.py").symlink_to(folder / "alice.py")
    shutil.copy2(CANDIDATES / "wrong_numbering.py", folder / f"{EVIL_NAME}.py")
    (folder / f"{NOT_UTF8}.py").write_text("def regex_to_dfa(pattern:\n")   # a syntax error: no run
    files = {ext: work / f"grades.{ext}" for ext in ("csv", "json", "html", "md")}
    before = harness_files()
    private = work / "private-tmp"   # every copy, so every process of the run, names this folder
    private.mkdir()
    saved, tempfile.tempdir = tempfile.tempdir, str(private)
    try:
        code, out, err = batch(str(folder), "--jobs", "2", "--csv", str(files["csv"]),
                               "--json", str(files["json"]), "--html", str(files["html"]), "--md", str(files["md"]))
    finally:
        tempfile.tempdir = saved
    return {"folder": folder, "files": files, "code": code, "out": out, "err": err, "before": before,
            "after": harness_files(), "left": processes_mentioning(str(private)), "private": private}


def students(hostile_class) -> dict[str, dict]:
    doc = json.loads(hostile_class["files"]["json"].read_text(encoding="utf-8"))
    return {s["student"]: s for s in doc["students"]}


@pytest.mark.e2e
def test_the_batch_ends_with_every_verdict_and_leaves_nothing_behind(hostile_class):
    assert hostile_class["code"] == ExitCode.OK, hostile_class["out"] + hostile_class["err"]
    assert hostile_class["after"] == hostile_class["before"]
    assert hostile_class["left"] == []
    assert list(hostile_class["private"].iterdir()) == []          # every private copy removed


@pytest.mark.e2e
def test_mallory_does_not_pass_on_alices_code(hostile_class):
    graded = students(hostile_class)
    assert (graded["alice"]["verdict"], graded["alice"]["passed"]) == ("passed", 16), graded["alice"]["notes"]
    mallory = graded["mallory"]
    assert mallory["passed"] == 0 and mallory["verdict"] == "crashed", mallory
    assert any("alice" in note for note in mallory["notes"]), mallory["notes"]    # her own import failed


@pytest.mark.e2e
def test_a_classmates_numpy_reaches_nobody(hostile_class):
    graded = students(hostile_class)
    assert graded["alice"]["passed"] == 16 and graded["linky"]["passed"] == 16      # both import numpy
    assert graded["numpy"]["passed"] == 0                                           # graded on its own merits
    assert "hijacked" not in json.dumps(graded["alice"]) + json.dumps(graded["linky"])


@pytest.mark.e2e
def test_links_and_fifos_are_never_opened_and_say_why(hostile_class):
    out = hostile_class["out"]
    assert "zero.py (a symbolic link: not followed)" in out and "pipe.py (not a regular file)" in out
    notes = students(hostile_class)["linky"]["notes"]
    assert "skipped python/zero.py: a symbolic link (only regular files are graded)" in notes
    assert "skipped python/pipe: a FIFO (named pipe) (only regular files are graded)" in notes
    assert "skipped python/alice.py: a symbolic link (only regular files are graded)" in notes
    doc = json.loads(hostile_class["files"]["json"].read_text(encoding="utf-8"))
    assert sorted(doc["ignored"]) == ["pipe.py (not a regular file)", "zero.py (a symbolic link: not followed)"]


@pytest.mark.e2e
def test_names_are_escaped_in_every_table_and_report(hostile_class):
    evil, odd = display_name(EVIL_NAME), display_name(NOT_UTF8)
    assert evil == "eve\\x0a\\x1b[32mPASSED 16 of 16\\x1b[0m" and odd == "caf\\xe9"
    graded = students(hostile_class)
    assert graded[evil]["verdict"] == "failed" and "test_hand_example" in graded[evil]["failed_tests"]
    assert graded[odd]["verdict"] == "syntax error" and "SyntaxError in caf\\xe9.py line 1" in graded[odd]["notes"][0]
    terminal = hostile_class["out"] + hostile_class["err"]
    texts = {"terminal": terminal, **{ext: path.read_text(encoding="utf-8")
                                      for ext, path in hostile_class["files"].items()}}
    for kind, text in texts.items():
        shown = evil.replace("\\", "\\\\") if kind in ("md", "json") else evil   # their own quoting doubles "\\"
        shown = shown.replace("[", "\\[") if kind == "md" else shown   # and Markdown escapes "[" (no link)
        assert shown in text, kind
        assert "\x1b" not in text and "\udce9" not in text and "eve\n" not in text, kind
        assert not any(line.lstrip("| ").startswith(("PASSED", "[32m")) for line in text.splitlines()), kind
    table = [line for line in hostile_class["out"].splitlines() if evil in line]
    assert len(table) == 1 and " failed " in table[0]
    rows = list(csv.DictReader(io.StringIO(texts["csv"])))
    assert len(rows) == len(graded) and {r["student"] for r in rows} == set(graded)


@pytest.mark.e2e
def test_an_empty_class_folder_is_a_usage_error(tmp_path):
    code, out, err = batch(str(tmp_path))
    assert code == ExitCode.USAGE and "holds no submissions" in err
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "pipe.py")
    code, out, err = batch(str(tmp_path))
    assert code == ExitCode.USAGE and "zero.py (a symbolic link: not followed)" in err
    assert "pipe.py (not a regular file)" in err


def _bounded_call(function, seconds: float = 60.0):
    """``function()``'s result; fails the test (rather than hanging it) past ``seconds``."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("value", function()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s (a FIFO or an endless file was opened)"
    return box["value"]


def test_the_fingerprint_reads_only_regular_files_with_a_cap(tmp_path):
    student = tmp_path / "ann"
    student.mkdir()
    (student / "constrain.py").write_text("x = 1\n")
    plain = _bounded_call(lambda: fingerprint(Submission("ann", student)))
    (student / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(student / "pipe")
    (student / "dev").symlink_to("/dev")
    hostile = _bounded_call(lambda: fingerprint(Submission("ann", student)))
    assert hostile != plain and hostile == _bounded_call(lambda: fingerprint(Submission("ann", student)))
    single = tmp_path / "bob.py"
    single.symlink_to("/dev/zero")                           # never a submission, but never read either
    assert discover(tmp_path).ignored == ("bob.py (a symbolic link: not followed)",)


def test_the_copy_holds_regular_files_only_world_readable_and_no_bytecode(tmp_path):
    source = tmp_path / "upload"
    (source / "pkg" / "__pycache__").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("x = 1\n")
    (source / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0" * 16)
    (source / "pkg" / "stale.pyc").write_bytes(b"\0" * 16)
    (source / "pkg" / "up").symlink_to("..")
    (source / "secret").write_text("s")
    (source / "secret").chmod(0o600)
    took = intake.copy_submission(source, tmp_path / "copy")
    copied = sorted(str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*"))
    assert copied == ["pkg", "pkg/mod.py", "secret"]
    assert took.files == 2 and took.skipped == ("skipped pkg/up: a symbolic link (only regular files are graded)",)
    assert (tmp_path / "copy" / "secret").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "copy" / "pkg").stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("bound, value, build, message", [
    ("MAX_FILES", 3, lambda d: [(d / f"f{i}.py").write_text("") for i in range(4)], "more than 3 files"),
    ("MAX_BYTES", 1000, lambda d: (d / "big.py").write_bytes(b"#" * 1001), "holds more than"),
    ("MAX_DEPTH", 2, lambda d: (d / "a" / "b" / "c" / "d").mkdir(parents=True), "more than 2 folders deep"),
    ("MAX_ENTRIES", 5, lambda d: [(d / f"e{i}").mkdir() for i in range(6)], "more than 5 files and folders"),
])
def test_a_submission_past_a_bound_is_refused_whole_before_anything_is_copied(tmp_path, monkeypatch, bound, value,
                                                                               build, message):
    monkeypatch.setattr(intake, bound, value)
    source = tmp_path / "upload"
    source.mkdir()
    build(source)
    with pytest.raises(intake.IntakeError, match=message):
        intake.copy_submission(source, tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_display_name_is_one_line_and_keeps_distinct_names_distinct():
    names = ["a\nb", "a\\x0ab", "a\\nb", "tab\there", "\u202eevil.py", os.fsdecode(b"\xff"), "\\xff", "plain é"]
    shown = [display_name(n) for n in names]
    assert len(set(shown)) == len(names)
    assert all(s.isprintable() and s.encode("utf-8") for s in shown)
    assert shown[-1] == "plain é" and shown[4] == "\\u202eevil.py"


@pytest.mark.e2e
def test_every_catalogue_test_is_in_the_hostile_records(hostile_class):
    for record in students(hostile_class).values():
        assert set(record["statuses"]) == set(NAMES)
