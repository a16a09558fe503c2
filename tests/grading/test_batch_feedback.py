"""Feedback a student can act on (issue 26): per failed test the why, the hint and the
counterexample in every batch format; a diagnosis ranking the spec's pitfalls; a load
failure in words; the class view counting only tests that ran; near-miss file names.

The failures diagnosed here are real: the catalogue's own test functions run in this
process on the candidates of ``tests/candidates`` (trusted test data, each documenting the
spec pitfall it has), and the ``CatalogueFailure`` they raise is what ``check`` reports.
The oracle for the diagnosis is the candidate's documentation (the pitfall it was written
to have), never the diagnosis's own output.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from harness.grading.autograder.grading import Grade, TestOutcome
from harness.grading.autograder.locate import SubmissionError, locate_module
from harness.grading.batch import charts, feedback
from harness.grading.batch import report as reports
from harness.grading.batch.records import DECISION_MARK, record
from harness.mutants.witness import reproducing
from harness.suite import test_dfa, test_masks, test_sampling, test_schema, test_vocab
from harness.suite.catalogue import BY_NAME, NAMES
from harness.suite.diagnosis import diagnose, unexplained
from harness.suite.explain import CatalogueFailure
from harness.suite.pitfalls import BY_MUTANT

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
MACHINERY = re.compile(r"rlimit|bwrap|bubblewrap|namespace|nobody|root:|/tmp/|allowlisted|CPU s per test",
                       re.IGNORECASE)

# candidate -> (the pitfall its docstring names, the catalogue tests its check run fails)
DOCUMENTED = {
    "wrong_depth_first_numbering": (3, ["test_hand_example", "test_hand_example_masks", "test_canonical_form",
                                        "test_constraint_lifecycle", "test_greedy_takes_the_best_allowed_token"]),
    "wrong_numbering": (3, ["test_hand_example", "test_hand_example_masks", "test_canonical_form",
                            "test_constraint_lifecycle", "test_greedy_takes_the_best_allowed_token"]),
    "wrong_no_minimization": (2, ["test_hand_example", "test_canonical_form"]),
    "wrong_dead_sink": (4, ["test_hand_example", "test_hand_example_masks", "test_every_state_is_live",
                            "test_canonical_form", "test_constraint_lifecycle"]),
    "wrong_eos_everywhere": (4, ["test_hand_example_masks", "test_masks_match_brute_force",
                                 "test_constraint_lifecycle"]),
    "wrong_trie_first_byte": (5, ["test_masks_match_brute_force"]),
    "wrong_dot_newline": (1, ["test_matches_python_re"]),
    "wrong_ignores_keywords": (11, ["test_json_schema_rejects_keywords_outside_the_subset"]),
    "wrong_utf8_tokens": (12, ["test_vocab_bytes"]),
}
FUNCTIONS = {f.__name__: f for f in (
    test_dfa.test_hand_example, test_dfa.test_canonical_form, test_dfa.test_every_state_is_live,
    test_dfa.test_matches_python_re, test_masks.test_hand_example_masks, test_masks.test_constraint_lifecycle,
    test_masks.test_masks_match_brute_force,
    test_sampling.test_greedy_takes_the_best_allowed_token,
    test_schema.test_json_schema_rejects_keywords_outside_the_subset, test_vocab.test_vocab_bytes)}


def _candidate(name: str):
    spec = importlib.util.spec_from_file_location(f"feedback_{name}", CANDIDATES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def real_failures(name: str) -> list[dict]:
    """The catalogue's failures of candidate ``name``, as a batch record holds them."""
    impl, out = _candidate(name), []
    for test in DOCUMENTED[name][1]:
        with pytest.raises(CatalogueFailure) as failure:
            FUNCTIONS[test](impl)
        out.append({"name": test, "status": "failed", "reason": failure.value.reason,
                    "details": failure.value.details, "pitfalls": BY_NAME[test].pitfalls})
    return out


def _grade(tests: list[dict], notes=(), **extra) -> Grade:
    failed = {t["name"]: t for t in tests}
    outcomes = tuple(TestOutcome(n, failed[n]["status"], failed[n]["reason"], failed[n]["details"],
                                 BY_NAME[n].pitfalls, tuple(failed[n].get("notes", ()))) if n in failed
                     else TestOutcome(n, "passed", pitfalls=BY_NAME[n].pitfalls) for n in NAMES)
    return Grade(extra.pop("verdict", "failed" if tests else "passed"), outcomes, notes=tuple(notes), **extra)


# --------------------------------------------------------------------------- the diagnosis


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_the_diagnosis_ranks_first_the_pitfall_the_candidate_was_written_with(name):
    pitfall, failing = DOCUMENTED[name]
    found = diagnose(real_failures(name), reproducing)
    assert found and found[0]["pitfall"] == pitfall, [(d["label"], d["score"]) for d in found]


def test_one_depth_first_numbering_bug_is_one_root_cause_not_five_hints():
    failures = real_failures("wrong_depth_first_numbering")
    found = diagnose(failures)
    top = found[0]
    assert top["pitfall"] == 3 and top["strength"] == "strong"
    assert set(top["explains"]) == {f["name"] for f in failures}                 # all five, one cause
    assert not unexplained(failures, found)
    assert any("numbered in another order" in e for e in top["evidence"])
    view = feedback.student_view(record("chen", _grade(failures), "f"), "pitfall")
    assert {f["pitfall"] for f in view["failures"]} == {3}                       # no EOS, no minimization hint
    assert all(f["hint"].startswith("pitfall 3: numbering in another order") for f in view["failures"])


def test_a_failure_no_pitfall_explains_says_what_its_test_checks():
    tests = [{"name": "test_apply_mask", "status": "failed", "reason": "apply_mask must return a copy", "details": ""}]
    found = diagnose(tests)
    assert found == [] and unexplained(tests, found)[0]["checks"] == BY_NAME["test_apply_mask"].checks
    (item,) = feedback.failures(record("x", _grade(tests), "f"), "pitfall")
    assert item["hint"].startswith("what test_apply_mask checks (section 4)") and item["pitfall"] is None


def test_tests_that_did_not_run_are_no_evidence():
    tests = [{"name": n, "status": "not run", "reason": "not run: the candidate crashed while loading",
              "details": ""} for n in NAMES]
    assert diagnose(tests) == [] and unexplained(tests, []) == []


# --------------------------------------------------------------------------- load failures in words


@pytest.mark.parametrize("grade, words", [
    (Grade("syntax error", (), problem="SyntaxError in constrain.py line 12: '(' was never closed"),
     "syntax error at constrain.py:12: '(' was never closed"),
    (Grade("crashed", (), load=(("status", "error"), ("reason", "the candidate crashed while loading: no answer "
                                                                "within the deadline (load)"), ("problems", ()))),
     "the import did not finish in 60 CPU s"),
    (Grade("crashed", (), load=(("status", "error"), ("reason", "the candidate crashed while loading: killed by the "
                                                                "harness: CPU-time limit of the grader child: 120 CPU "
                                                                "s while loading"),)),
     "the import did not finish in 60 CPU s"),
    (Grade("crashed", (), load=(("status", "error"), ("reason", "the candidate crashed while loading: the candidate "
                                                                "process died during load"),)),
     "the process ended while your module was being imported"),
    (Grade("crashed", (), load=(("status", "error"), ("reason", "importing the candidate failed: ModuleNotFoundError:"
                                                                " No module named 'tinyllm' (at /tmp/x/submission/"
                                                                "constrain.py:3)"),)),
     "importing your module raised ModuleNotFoundError: No module named 'tinyllm' at constrain.py:3"),
    (Grade("failed", (), load=(("status", "ok"), ("problems", ("regex_to_dfa: missing (expected (pattern: str) -> "
                                                               "DFA)", "TokenIndex.next_state: missing (expected ...)",
                                                               "Constraint: missing (a class)")))),
     "no function `regex_to_dfa`; no method `TokenIndex.next_state`; no class `Constraint`"),
])
def test_a_load_failure_says_what_happened_in_words(grade, words):
    rec = record("s", grade, "f")
    assert words in feedback.load_words(rec)
    assert "/tmp/" not in feedback.load_words(rec)


# --------------------------------------------------------------------------- what a student reads


def _chen() -> dict:
    decisions = [f"{DECISION_MARK}: mask_out_of_range_valueerror: mask(7) with 7 states: nothing was raised"] * 1
    return record("chen", _grade(real_failures("wrong_depth_first_numbering"), notes=decisions), "f")


def test_the_feedback_file_shows_what_the_hint_level_allows():
    rec = _chen()
    none, pitfall, full = (feedback.markdown(rec, level) for level in ("none", "pitfall", "full"))
    assert "### `test_hand_example`: FAILED" in none and "Why:" not in none and "Diagnosis" not in none
    assert "Why: accepting states differ from section 3" in pitfall and "## Diagnosis" in pitfall
    assert "Most likely: **pitfall 3: numbering in another order** (strong evidence; it explains 5 of your 5" in pitfall
    assert "Counterexample:" not in pitfall and "Counterexample:" in full and "look at: the numbering step" in full
    for text in (none, pitfall, full):
        assert not MACHINERY.search(text), text
        assert "<details><summary>1 contract decisions not met (not graded" in text   # apart, folded, counted


def test_every_batch_format_carries_why_hint_and_counterexample(tmp_path):
    rec = _chen()
    doc = reports.to_json([rec], tmp_path, {}, [], "pitfall")
    why = "accepting states differ from section 3 (expected {5, 6})"
    counterexample = "numbered in another order"
    hint = "pitfall 3: numbering in another order"
    (row,) = list(csv.DictReader(io.StringIO(reports.csv_text([rec], "pitfall"))))
    assert why in row["feedback"] and hint in row["feedback"] and counterexample in row["feedback"]
    assert row["ungraded_notes"] == "1" and DECISION_MARK not in row["notes"]
    assert row["diagnosis"].startswith("pitfall 3: numbering in another order (strong, explains 5)")
    student = json.loads(reports.json_text(doc))["students"][0]["feedback"]
    assert {f["why"] for f in student["failures"]} >= {why} and student["diagnosis"][0]["pitfall"] == 3
    assert any(counterexample in f["counterexample"] and f["hint"].startswith(hint) for f in student["failures"])
    page = reports.to_html(doc)
    assert page.count("<details><summary>test_") == 5 and "1 ungraded notes</summary>" in page
    assert "<pre>" in page and "hint: pitfall 3: numbering in another order" in page
    md = reports.to_markdown(doc)
    assert why in md and hint in md and counterexample in md and "| 1 | chen | FAIL | 11/16 | pitfall 3" in md


def test_html_escapes_every_student_string_including_the_failures(tmp_path):
    tests = [{"name": "test_vocab_bytes", "status": "failed", "reason": "<script>alert(1)</script>",
              "details": "  got: '<img src=x onerror=alert(1)>'"}]
    page = reports.to_html(reports.to_json([record("<b>mallory</b>", _grade(tests), "f")], tmp_path, {}, []))
    assert "<script>" not in page and "<img" not in page and "&lt;b&gt;mallory&lt;/b&gt;" in page


# --------------------------------------------------------------------------- the class view


def _statuses_record(name: str, statuses: dict[str, str], **extra) -> dict:
    tests = [{"name": n, "status": s, "reason": "", "details": ""} for n, s in statuses.items() if s != "passed"]
    return record(name, _grade(tests, **extra), "f") | {"statuses": statuses}


def test_the_histogram_counts_only_tests_that_ran():
    everything = dict.fromkeys(NAMES, "passed")
    hung_import = _statuses_record("ned", dict.fromkeys(NAMES, "not run"), verdict="crashed")
    one_timeout = _statuses_record("rae", everything | {"test_hand_example": "timeout",
                                                        "test_vocab_bytes": "not reported"}, verdict="timed out")
    stopped = _statuses_record("sid", dict.fromkeys(NAMES, "not run"), verdict="timed out",
                               problem="timed out (540 CPU s): ...")
    wrong = _statuses_record("bob", everything | {"test_hand_example": "failed"})
    rows = {row["test"]: row for row in reports.histogram([hung_import, one_timeout, stopped, wrong])}
    assert rows["test_hand_example"] == {"test": "test_hand_example", "failed": 2, "ran": 2,
                                         "pitfalls": BY_NAME["test_hand_example"].pitfalls}
    assert rows["test_vocab_bytes"]["failed"] == 0 and rows["test_vocab_bytes"]["ran"] == 1
    assert "2 submissions ran; 2 left out" in reports.histogram_text([hung_import, one_timeout, stopped, wrong])


def test_the_score_distribution_and_root_causes_count_students(tmp_path):
    chen = _chen()
    alice = record("alice", _grade([]), "f")
    doc = reports.to_json([chen, alice], tmp_path, {}, [])
    scores = {s["passed"]: s["students"] for s in doc["scores"]}
    assert scores[16] == 1 and scores[11] == 1 and sum(scores.values()) == 2
    causes = {p["pitfall"]: p for p in doc["pitfalls"]}
    assert causes[3]["first"] == 1 and sum(p["first"] for p in doc["pitfalls"]) == 1
    page = reports.to_html(doc)
    assert page.count("<svg") == 3 and 'aria-label="students per number of tests passed"' in page
    assert "pitfall 3: numbering in another order" in page


def test_charts_draw_one_bar_per_item_and_escape_labels():
    svg = charts.horizontal_bars([charts.Bar("<x>", 3), charts.Bar("y", 0)], "a & b")
    assert svg.count("<rect") == 2 and "&lt;x&gt;" in svg and 'aria-label="a &amp; b"' in svg
    assert charts.columns([charts.Bar(str(i), i) for i in range(17)], "scores").count("<rect") == 17


def test_feedback_files_have_safe_unique_names(tmp_path):
    recs = [record(name, _grade([]), "f") for name in ("a/b", "a_b", "..hidden", "caf\\xe9")]
    paths = feedback.write_all(recs, tmp_path / "fb")
    assert [p.name for p in paths] == ["a_b.md", "a_b-2.md", "hidden.md", "caf_xe9.md"]
    assert all(p.parent == tmp_path / "fb" for p in paths)


# --------------------------------------------------------------------------- no module found


def test_a_misspelled_module_gets_a_did_you_mean(tmp_path):
    (tmp_path / "python" / "tinyllm" / "infer").mkdir(parents=True)
    (tmp_path / "python" / "tinyllm" / "infer" / "constrian.py").write_text("x = 1\n")
    (tmp_path / "README.md").write_text("hi\n")
    with pytest.raises(SubmissionError) as error:
        locate_module(tmp_path)
    assert "did you mean constrain.py? found python/tinyllm/infer/constrian.py (rename it to constrain.py)" \
        in str(error.value)


def test_a_zip_upload_is_looked_into_never_unpacked(tmp_path):
    with zipfile.ZipFile(tmp_path / "submission.zip", "w") as z:
        z.writestr("python/tinyllm/infer/constrain.py", "x = 1\n")
    with pytest.raises(SubmissionError) as error:
        locate_module(tmp_path)
    assert "submission.zip is an archive (it holds python/tinyllm/infer/constrain.py): upload the files" \
        in str(error.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["submission.zip"]
    (tmp_path / "submission.zip").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(SubmissionError, match="unreadable: BadZipFile"):
        locate_module(tmp_path)


def test_unrelated_names_get_no_suggestion(tmp_path):
    (tmp_path / "main.py").write_text("x = 1\n")
    with pytest.raises(SubmissionError) as error:
        locate_module(tmp_path)
    assert "did you mean" not in str(error.value) and "files seen: main.py" in str(error.value)


# --------------------------------------------------------------------------- the diagnosis of every mutant (slow)


@pytest.mark.slow
@pytest.mark.parametrize("mutant_id", sorted(BY_MUTANT))
def test_the_diagnosis_of_each_mutants_real_check_run_names_its_pitfall_first(tmp_path, mutant_id):
    """Each spec mutant graded by the real check (confined, the policy's defaults): the
    pitfall its catalogue entry belongs to is ranked first, and explains every failure."""
    from harness.grading.autograder.grading import grade_module
    from harness.mutants.apply import materialize
    from harness.mutants.catalogue import BY_ID

    package = materialize(BY_ID[mutant_id], tmp_path)
    rec = record(mutant_id, grade_module(package), "f")
    found = diagnose(rec["tests"], reproducing)
    assert rec["failed_tests"] and found, rec["verdict"]
    assert found[0]["pitfall"] == BY_MUTANT[mutant_id].number, [(d["label"], d["explains"]) for d in found]


def test_an_exception_from_the_students_code_is_no_pitfall_evidence_and_shows_no_grader_paths():
    tests = [{"name": name, "status": "failed",
              "reason": "TypeError: regex_to_dfa() missing 1 required positional argument: 'flags'",
              "details": "impl = <module 'cand' from '/tmp/constrain-harness-grade-x/submission/constrain.py'>\n\n"
                         "    def test_x(impl):\n>       dfa = compile_ok(impl, HAND_PATTERN)\n"
                         "E           candidate.TypeError: regex_to_dfa() missing 1 required positional argument\n"
                         "/work/x/harness/suite/test_dfa.py:42: TypeError"}
             for name in ("test_every_state_is_live", "test_vocab_bytes")]
    assert diagnose(tests) == []
    items = feedback.failures(record("lee", _grade(tests), "f"), "full")
    assert [i["counterexample"] for i in items] == ["candidate.TypeError: regex_to_dfa() missing 1 "
                                                    "required positional argument"] * 2   # pytest's E line, bare
    assert all(i["hint"].startswith("what ") for i in items)


def test_the_problem_is_said_once_and_check_load_line_not_at_all():
    grade = Grade("no submission", (), problem="no constrain.py in the submission: " + "x" * 400)
    view = feedback.student_view(record("pat", grade, "f"))
    assert view["notes"] == [] and view["load"].startswith("no constrain.py in the submission")
    crashed = Grade("crashed", (), notes=("load: the candidate crashed while loading: ... /tmp/a/constrain.py",),
                    load=(("status", "error"), ("reason", "the candidate crashed while loading: the candidate process "
                                                          "died during load /tmp/a/constrain.py (exit status 0)")))
    view = feedback.student_view(record("mia", crashed, "f"))
    assert view["notes"] == [] and "/tmp/" not in feedback.markdown(record("mia", crashed, "f"), "full")


def test_every_format_of_the_class_view_shows_the_pitfall_each_test_catches(tmp_path):
    doc = reports.to_json([_chen(), record("alice", _grade([]), "f")], tmp_path, {}, [])
    page, md = reports.to_html(doc), reports.to_markdown(doc)
    label = BY_NAME["test_hand_example"].pitfalls
    assert f"pitfall {label}" in page                                  # visible beside the bar, not only a tooltip
    assert f"- test_hand_example: 1 of 2 (the spec's pitfall {label})" in md
    assert label in reports.histogram_text([_chen()])


def test_checks_own_table_gives_the_diagnosed_hint_not_each_tests_table_row():
    """``check --impl`` prints the same diagnosis: a depth-first numbering's five failures
    all hint at pitfall 3 (the spec's table alone would say EOS everywhere, no minimization)."""
    from harness.grading import report as check_reports
    from harness.grading.check import CheckOptions, CheckResult, Verdict
    from harness.suite.catalogue import CATALOGUE

    failed = {f["name"]: f for f in real_failures("wrong_depth_first_numbering")}
    result = CheckResult(CheckOptions(impl="chen/constrain.py"), load={"status": "ok"})
    for entry in CATALOGUE:
        f = failed.get(entry.name)
        result.tests.append(Verdict(entry.name, entry.kinds, "failed" if f else "passed", f["reason"] if f else "",
                                    f["details"] if f else ""))
    text = check_reports.render_table(result)
    hints = [line.strip() for line in text.splitlines() if line.strip().startswith("hint:")]
    assert len(hints) == 5 and all(h.startswith("hint: the spec's pitfall 3. numbering in another order (strong")
                                   for h in hints), hints
    assert "EOS allowed everywhere" not in text and "diagnosis: pitfall 3: numbering in another order" in text


def test_gradescope_gives_each_failure_the_diagnosed_hint():
    from harness.grading.autograder import gradescope

    grade = _grade(real_failures("wrong_depth_first_numbering"))
    results = gradescope.to_results(grade, hints="pitfall")
    gradescope.validate(results)
    outputs = [t["output"] for t in results["tests"] if t["status"] == "failed"]
    assert len(outputs) == 5 and all("hint: pitfall 3: numbering in another order (symptom: " in o for o in outputs)
    assert not any("EOS allowed everywhere" in o or "no minimization" in o for o in outputs)
