"""A class's data stays out of every sandbox, similarity looks at the whole submission, and
one run per class at a time (issue 50 items 7 and 8).

The attacks of the issue: a class export (with last week's ``grades.csv`` and the batch
state) kept inside the harness's checkout, which every candidate's sandbox could read (a
student's feedback held them; a module that only ``exec``'d a classmate's file passed);
``from tests.support.helpers import *`` over a classmate's code, or the code zlib-packed and ``exec``'d,
unflagged by a similarity that read the graded module only; every student who started
from the course stub flagged "near-identical"; two batch runs on one class overwriting
each other's state.
"""

from __future__ import annotations

import base64
import io
import json
import lzma
import os
import shutil
import zlib

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.batch import report, similarity
from harness.grading.batch.course import Course, submission_sources
from harness.grading.batch.options import CourseOptions
from harness.grading.batch.state import ClassLock, state_path
from harness.sandbox import Candidate
from tests.support.helpers import ROOT, confined, tree_digest

REFERENCE = "\n".join(p.read_text() for p in sorted((ROOT / "oracles" / "automaton").glob("*.py")))
OTHER = (ROOT / "harness" / "grading" / "gradetests" / "wheats" / "brzozowski.py").read_text()


def batch(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- the checkout


@pytest.fixture
def class_in_checkout():
    folder = ROOT / "class-export-test-8c1f"   # removed after the test, whatever happens
    folder.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    yield folder
    shutil.rmtree(folder)


def test_a_class_folder_inside_the_checkout_is_refused_in_one_line(class_in_checkout):
    before = tree_digest()
    code, out, err = batch(str(class_in_checkout))
    assert code == ExitCode.USAGE and out == "" and err.count("\n") == 1, err
    assert "--batch" in err and "inside the harness's folder" in err and "sandbox can read" in err
    assert not state_path(class_in_checkout).exists() and tree_digest() == before


@pytest.mark.parametrize("option", ["--csv", "--gradebook", "--feedback"])
def test_a_report_inside_the_checkout_is_refused_and_not_written(tmp_path, option):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    target = ROOT / f"grades-test-8c1f{'' if option == '--feedback' else '.csv'}"
    code, out, err = batch(str(folder), option, str(target))
    assert code == ExitCode.USAGE and f"{option} " in err and "inside the harness's folder" in err, err
    assert not target.exists()


@pytest.mark.e2e
@confined
def test_the_sandbox_holds_the_harness_packages_not_the_rest_of_the_checkout(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom oracles.automaton import *  # noqa: F401,F403\n"
                     "def seen(paths):\n    return [os.path.exists(p) for p in paths]\n")
    hidden = [ROOT / "tests" / "support" / "helpers.py", ROOT / "docs", ROOT / "pyproject.toml", ROOT / "README.md"]
    assert all(p.exists() for p in hidden)
    with Candidate(str(probe)) as cand:
        assert cand.module.seen([str(p) for p in hidden]) == [False] * len(hidden)
        assert cand.module.seen([str(ROOT / "harness" / "__init__.py"), str(ROOT / "oracles")]) == [True, True]


# --------------------------------------------------------------------------- similarity over the whole submission


def packed(source: str, how: str) -> str:
    """A module that runs ``source`` packed as a student would pack it."""
    if how == "zlib+base64":
        blob = base64.b64encode(zlib.compress(source.encode())).decode()
        return f"import base64, zlib\nexec(zlib.decompress(base64.b64decode({blob!r})))\n"
    if how == "lzma+base85":
        blob = base64.b85encode(lzma.compress(source.encode())).decode()
        return f"import base64, lzma\nexec(lzma.decompress(base64.b85decode({blob!r})))\n"
    if how == "hex of a zlib+base64 pack":   # two layers
        inner = packed(source, "zlib+base64").encode().hex()
        return f"exec(bytes.fromhex({inner!r}).decode())\n"
    raise AssertionError(how)


COPIED = "\n".join((ROOT / "oracles" / "automaton" / name).read_text() for name in ("parser.py", "compile.py"))
"""The reference's parser and compiler (31 KB), the code a classmate copies: packed, bob's copy is
near-identical to ann's (0.99) only once unpacked, as the whole reference (146 KB, 0.5 CPU s a comparison
instead of 0.1) was; in a helper file, reindented, it is flagged as the whole reference was."""


@pytest.mark.parametrize("how", ["zlib+base64", "lzma+base85", "hex of a zlib+base64 pack"])
def test_code_packed_and_execd_is_compared_as_the_code_it_runs(how):
    sim = similarity.compare({"ann": COPIED, "bob": packed(COPIED, how), "cat": OTHER})
    assert {(a, b) for a, b, _ in sim.pairs} == {("ann", "bob")}, sim
    assert "cat" not in sim.flags()


def test_prose_and_data_literals_are_not_unpacked():
    text = ('x = "internal: a single-byte escape produced a set of more than one byte"\n'
            f'y = {base64.b64encode(os.urandom(60)).decode()!r}\nz = "note: this is not code at all, just words"\n')
    assert similarity.unpacked(text) == []


def test_a_helper_file_holding_a_classmates_code_is_flagged(tmp_path):
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "constrain.py").write_text(COPIED)
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "constrain.py").write_text("from tests.support.helpers import *  # noqa\n")
    (tmp_path / "bob" / "helpers.py").write_text(COPIED.replace("    ", "  "))
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "constrain.py").write_text(OTHER)
    sources = {s: submission_sources(tmp_path / s) for s in ("ann", "bob", "cat")}
    sim = similarity.compare(sources)
    assert {(a, b) for a, b, _ in sim.pairs} | set(sim.groups) == {("ann", "bob")}, sim


def test_a_zip_upload_is_read_member_by_member(tmp_path):
    import zipfile

    (tmp_path / "dan").mkdir()
    with zipfile.ZipFile(tmp_path / "dan" / "submission.zip", "w") as z:
        z.writestr("python/tinyllm/infer/constrain.py", REFERENCE)
    assert submission_sources(tmp_path / "dan") == [REFERENCE]


STUB = OTHER   # a large starter every student keeps, and adds a little of their own to


def own_work(seed: int) -> str:
    """A short piece of a student's own code: each seed writes a different function body."""
    ops = ["+", "-", "*", "//", "%", "^", "|", "&"]
    lines = [f"def mine_{seed}(values, limit={seed + 3}):", "    acc = {}".format(seed)]
    for j in range(10):
        first, second = ops[(seed + j) % 8], ops[(seed * 3 + j) % 8]
        lines.append(f"    acc = (acc {first} values[{(seed * j) % 7}]) {second} {j + seed}")
    lines.append("    return [x for x in range(acc) if x < limit]")
    return "\n".join(lines) + "\n"


def test_the_course_stub_is_discounted_and_shared_stubs_are_not_flagged():
    students = {f"s{i}": STUB + own_work(i) for i in range(4)}
    assert similarity.compare(students).pairs, "without --starter, the stub makes them look alike"
    sim = similarity.compare(students, starter=STUB)
    assert sim.pairs == [] and sim.groups == []
    copied = similarity.compare({**students, "copy": STUB + own_work(2).replace("acc", "total")}, starter=STUB)
    assert copied.groups == [("copy", "s2")]                   # their own code, renamed: still identical
    alone = similarity.compare({"a": STUB, "b": STUB}, starter=STUB)
    assert alone.groups == [] and alone.pairs == []            # the stub as given: nothing of their own


def test_starter_option_reads_a_folder_and_the_similarity_flag_follows_the_diagnosis(tmp_path):
    (tmp_path / "stub").mkdir()
    (tmp_path / "stub" / "constrain.py").write_text(STUB)
    course = Course.open(CourseOptions(starter=str(tmp_path / "stub")), tmp_path)
    assert course.starter == [STUB]
    record = {"student": "ann", "verdict": "failed", "passed": 3, "total": 16, "seconds": 1.0, "problem": "",
              "failed_tests": ["test_hand_example"], "statuses": {"test_hand_example": "failed"},
              "tests": [{"name": "test_hand_example", "status": "failed", "reason": "r", "details": "d"}],
              "load": {}, "notes": [], "decisions": [], "decision_count": 0, "similar": "near-identical to bob (0.97)"}
    row = report.summary_table([record]).splitlines()[2]
    assert row.index("hand_example") < row.index("near-identical to bob")
    md = report.to_markdown(report.to_json([record], tmp_path, {}, []))
    line = next(x for x in md.splitlines() if x.startswith("| 1 |"))
    assert line.startswith("| 1 | ann | FAIL |") and line.index("near-identical") > line.index("3/16")


# --------------------------------------------------------------------------- one run per class, the state's place


def test_a_second_run_on_the_same_class_is_refused_while_the_first_holds_it(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    with ClassLock(folder):
        code, out, err = batch(str(folder))
        assert code == ExitCode.USAGE and "another check --batch is grading" in err, err
        assert not state_path(folder).exists()
    with ClassLock(folder):   # released: taken again
        pass


@pytest.mark.e2e
def test_the_state_goes_to_the_folder_of_the_reports_not_beside_the_class(tmp_path):
    folder, out_dir = tmp_path / "export" / "class", tmp_path / "out"
    folder.mkdir(parents=True)
    out_dir.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    code, out, err = batch(str(folder), "--csv", str(out_dir / "grades.csv"))
    assert code == ExitCode.OK, err
    assert (out_dir / "class.batch-state.json").is_file() and not state_path(folder).exists()
    assert sorted(p.name for p in (tmp_path / "export").iterdir()) == ["class"]
    assert json.loads((out_dir / "class.batch-state.json").read_text())["records"]["ann"]["verdict"] == "syntax error"
    code, out, err = batch(str(folder), "--csv", str(out_dir / "grades.csv"), "--resume")
    assert code == ExitCode.OK and "0 to grade (1 already graded" in out, out
