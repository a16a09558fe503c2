"""Reproducible runs (issue 23, item 2): one run seed decides every random choice of a
``check`` run, it is printed and written in every report, ``--seed N`` replays the run,
and its default comes from the submission's content.

Oracles: the seed's definition (``harness.suite.seeding``: stream constant XOR run seed,
drawn through numpy's PCG64, whose raw stream is fixed by its algorithm, so the golden
words below hold on every Python and numpy); for the report, two runs of the same
submission and seed (timings aside) and a run with another seed.
"""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.grading import report as reports
from harness.grading.check import CheckOptions, run_check
from harness.policy import SEED_KEPT, SEED_TEST
from harness.suite import seeding
from harness.suite.inputs import random_patterns

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"


@pytest.fixture
def run_seed():
    """Set the run seed in this process for a test, and put 0 back after it."""
    yield seeding.set_run_seed
    seeding.set_run_seed(0)


def test_seed_zero_is_the_catalogues_own_constants_and_another_seed_changes_every_stream(run_seed):
    run_seed(0)
    assert seeding.derive(1234) == 1234
    assert seeding.seeded_rng(1234).bit_generator.random_raw(3).tolist() == \
        np.random.default_rng(1234).bit_generator.random_raw(3).tolist()
    zero = [seeding.seeded_rng(s).integers(1 << 30, size=4).tolist() for s in (3, 5, 77, 1234)]
    zero_patterns = random_patterns(seeding.derive(7), 10)
    run_seed(5)
    assert seeding.derive(1234) == 1234 ^ 5
    # golden: PCG64 seeded by SeedSequence(1234 ^ 5), its first three raw 64-bit words
    assert seeding.seeded_rng(1234).bit_generator.random_raw(3).tolist() == \
        [10510096400622732902, 11394533515314076572, 12616546124944198177]
    five = [seeding.seeded_rng(s).integers(1 << 30, size=4).tolist() for s in (3, 5, 77, 1234)]
    assert all(a != b for a, b in zip(zero, five))
    assert random_patterns(seeding.derive(7), 10) != zero_patterns
    assert len({seeding.derive(s) for s in range(100)}) == 100  # distinct streams stay distinct


def test_the_deep_properties_draw_from_the_run_seed(run_seed):
    run_seed(0)
    assert seeding.hypothesis_seed("test_deep_x") is None  # derandomized, as written
    run_seed(9)
    first = seeding.hypothesis_seed("test_deep_x")
    assert first == seeding.hypothesis_seed("test_deep_x") and first != seeding.hypothesis_seed("test_deep_y")
    run_seed(10)
    assert seeding.hypothesis_seed("test_deep_x") != first


def test_bad_seeds_are_refused_by_name():
    with pytest.raises(TypeError, match="run seed must be an int"):
        seeding.check_seed("3")
    with pytest.raises(TypeError, match="run seed must be an int"):
        seeding.check_seed(True)
    with pytest.raises(ValueError, match=r"run seed must be in 0 \.\. 4294967295, not -1"):
        seeding.check_seed(-1)
    with pytest.raises(ValueError, match="not 4294967296"):
        seeding.check_seed(1 << 32)
    for bad, why in (("x", "not an integer seed"), ("-3", "must be in 0 .. 4294967295")):
        err = io.StringIO()
        assert main(["check", "--seed", bad], io.StringIO(), err) == 2
        assert "--seed" in err.getvalue() and why in err.getvalue(), err.getvalue()


def test_the_default_seed_is_the_submissions_content(tmp_path):
    original = CANDIDATES / "wrong_numbering.py"
    copy = tmp_path / "elsewhere" / "constrain.py"
    copy.parent.mkdir()
    shutil.copy(original, copy)
    assert seeding.submission_seed(str(copy)) == seeding.submission_seed(str(original))
    copy.write_bytes(original.read_bytes() + b"\n# one more line\n")
    assert seeding.submission_seed(str(copy)) != seeding.submission_seed(str(original))
    package = tmp_path / "pkg"
    shutil.copytree(ROOT / "oracles" / "automaton", package, ignore=shutil.ignore_patterns("__pycache__"))
    assert seeding.submission_seed(str(package)) == seeding.submission_seed(None)  # the reference's files
    (package / "extra.py").write_text("X = 1\n")
    assert seeding.submission_seed(str(package)) != seeding.submission_seed(None)
    assert 0 <= seeding.submission_seed(None) <= seeding.MAX_SEED


def _without_timings(result) -> str:
    doc = json.loads(reports.json_text(result))
    doc.pop("duration")
    for test in doc["tests"]:
        test.pop("duration")
    for child in doc["children"]:
        child.pop("seconds")
        child["output_tail"] = re.sub(r" in \d+(\.\d+)?s\b", " in <time>", child["output_tail"])
    return json.dumps(doc, indent=1, sort_keys=True)


RANDOM_TEST = "test_masks_match_brute_force"  # random vocabularies and patterns: its counterexample is a draw


def _check(seed: int | None):
    return run_check(CheckOptions(impl=str(CANDIDATES / "wrong_trie_first_byte.py"), only=(RANDOM_TEST,), seed=seed))


@pytest.mark.e2e
def test_the_same_submission_and_seed_give_the_same_report_and_another_seed_other_draws():
    default = _check(None)
    assert default.seed == seeding.submission_seed(str(CANDIDATES / "wrong_trie_first_byte.py"))
    again = _check(default.seed)
    assert _without_timings(default) == _without_timings(again)
    assert default.tests[0].status == "failed" and default.tests[0].details
    other = _check(default.seed ^ 0x5A5A5A5A)
    assert other.tests[0].status == "failed"  # the same verdict: the mistake is found whatever the draws
    assert other.tests[0].details != default.tests[0].details  # from other random vocabularies and patterns


@pytest.mark.e2e
def test_the_seed_is_in_the_header_and_every_report(tmp_path):
    files = {name: tmp_path / name for name in ("r.json", "r.xml", "results.json", "r.md", "r.html")}
    out = io.StringIO()
    code = main(["check", "--seed", "77", "--only", "test_hand_example", "--json", str(files["r.json"]),
                 "--junit-xml", str(files["r.xml"]), "--gradescope", str(files["results.json"]),
                 "--md", str(files["r.md"]), "--html", str(files["r.html"])], out, io.StringIO())
    assert code == 0, out.getvalue()
    header = out.getvalue().splitlines()[:4]
    assert "seed: 77 (check --seed 77 replays this run)" in header
    policy = next(line for line in header if line.startswith("limits: "))
    assert "60 CPU s per test (wall: calibrated, at most the backstop 600 s)" in policy and "ref-deps on" in policy
    assert any(line.startswith("wall limit: ") and "x 60 CPU s" in line for line in header)  # the calibrated limit
    doc = json.loads(files["r.json"].read_text())
    assert doc["seed"] == 77 and doc["policy"] == policy
    properties = {p.get("name"): p.get("value") for p in ET.parse(files["r.xml"]).getroot().iter("property")}
    assert properties.pop("confinement").startswith(doc["isolation"][:20])  # where the candidate ran
    assert properties == {"seed": "77", "policy": policy}
    gradescope = json.loads(files["results.json"].read_text())   # student-visible: the seed in a hidden test
    assert gradescope["output"].startswith(f"{SEED_KEPT}\n{policy}\n") and "77" not in gradescope["output"]
    assert gradescope["tests"][-1] == {"name": SEED_TEST, "score": 0.0, "max_score": 0.0, "status": "passed",
                                       "visibility": "hidden", "output": "seed: 77 (check --seed 77 replays this run)"}
    assert "(seed 77)" in files["r.md"].read_text() and "(seed 77)" in files["r.html"].read_text()


def _interpreters() -> list[Path]:
    """The other supported Pythons on this machine (3.10 ... 3.13 under pyenv)."""
    found = sorted(Path("/root/.pyenv/versions").glob("3.1[0-9]*/bin/python3"))
    return [p for p in found if p.exists()]


@pytest.mark.e2e
def test_the_generated_mutants_sample_is_the_same_on_every_python():
    """``mutants --generated --sample N --seed S``: ``generation.pick`` shuffles site indices
    with ``random.Random(S)`` (the sites themselves are a deterministic walk of the
    reference); the shuffle must be the same on every supported Python."""
    others = _interpreters()
    if not others:
        pytest.skip("no other Python 3.10+ under /root/.pyenv/versions to compare with")
    code = "import random; order = list(range(5000)); random.Random({seed}).shuffle(order); print(order[:200])"
    for seed in (1, 7):
        here = list(range(5000))
        random.Random(seed).shuffle(here)
        for python in others:
            printed = subprocess.run([str(python), "-I", "-c", code.format(seed=seed)], capture_output=True,
                                     text=True, check=True, timeout=60).stdout
            assert printed.strip() == str(here[:200]), python


@pytest.mark.e2e
@pytest.mark.parametrize("candidate", ["exits_on_import.py", "wrong_names_its_module.py"])
def test_two_gradings_of_one_upload_give_the_same_record(candidate, tmp_path):
    """The batch and the autograder grade each upload on a private copy in a random folder;
    the record must not carry that folder (nor the module name derived from it): the same
    upload graded twice gives the same record but for timings, and no grading-machine path.
    An upload that crashes on import, and one that loads and fails tests with counterexamples
    and with an error naming its module (wrong_names_its_module: its name carries a hash of its
    path, which differs between the two copies; 6 CPU s for the two gradings)."""
    from dataclasses import asdict

    from harness.grading.autograder.grading import GradeOptions, grade_submission

    upload = tmp_path / "ana"
    upload.mkdir()
    shutil.copy2(CANDIDATES / candidate, upload / "constrain.py")
    options = GradeOptions(timeout=30.0)
    records = [asdict(grade_submission(upload, options)) for _ in range(2)]
    texts = []
    for record in records:
        record.pop("seconds"), record.pop("cpu_seconds")
        text = json.dumps(record, sort_keys=True)
        text = re.sub(r"wall limit: .*?backstop", "wall limit: <measured>", text)  # measured at the run's start
        text = re.sub(r"\(\d+ characters cut\)", "(<n> characters cut)", text)  # a clipped output: its times
        texts.append(re.sub(r"\d+(?:\.\d+)? ?(?:ms|s)\b", "<time>", text))
    assert texts[0] == texts[1]
    assert "constrain-harness-grade-" not in texts[0] and str(tmp_path) not in texts[0]
    assert not re.search(r"cand_\w+_[0-9a-f]{10}", texts[0])
    if candidate == "wrong_names_its_module.py":   # the name reached the record, without its hash
        assert "refused by cand_constrain" in texts[0]
    assert records[0]["verdict"] != "passed" and any(t["status"] != "passed" for t in records[0]["tests"])
