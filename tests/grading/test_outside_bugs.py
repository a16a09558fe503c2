"""A diagnosis that says what it knows (issue 50, item 1).

A pitfall is called "likely" only on separating evidence: a witness (the failing input)
on which that pitfall's mutants give the student's answer and no other pitfall's do
(``harness.mutants.witness``). Otherwise the feedback shows the first failure (the
function, the input, expected and got) and says no known pitfall matches; a call that
never answered is named with its input.

The fast tests replay the issue's own cases on records; the slow one grades the 23 bugs of
``tests/outside_bugs`` (realistic mistakes none of the mutants makes, each with its true
cause in its docstring) and asserts that no feedback names a wrong pitfall as likely.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.grading.batch import feedback
from harness.mutants.witness import reproducing
from harness.suite.diagnosis import diagnose

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "outside_bugs"))
import measure  # noqa: E402 - tests/outside_bugs/measure.py, the measurement's reading

MATCHES = "test_matches_python_re"


def matches_failure(pattern: str, data: bytes, expected: bool) -> dict:
    """A failure of the catalogue's comparison with ``re``, as check records it."""
    return {"name": MATCHES, "status": "failed", "reason": "DFA.matches disagrees with Python's re.fullmatch",
            "details": f"  pattern:  {pattern!r}\n  data:     {data!r}\n  expected: {expected}\n"
                       f"  got:      {not expected}\n"}


def record(*tests: dict) -> dict:
    return {"student": "ann", "verdict": "failed", "passed": 16 - len(tests), "total": 16,
            "statuses": {t["name"]: t["status"] for t in tests}, "tests": list(tests)}


# --------------------------------------------------------------------------- the witness


def test_a_witness_a_repeat_mutant_reproduces_separates_pitfall_6():
    # spec pitfall 6: "{2,3} accepts only 2 copies" (s09); re accepts b'aaa' for 'a{2,3}'
    assert reproducing(matches_failure("a{2,3}", b"aaa", True)) == {6}


def test_a_witness_no_mutant_reproduces_separates_nothing():
    # the student: \s without \f and \v; re.fullmatch(rb'\s+7', b'\x0b7') matches, the student refuses it
    import re

    assert re.fullmatch(rb"\s+7", b"\x0b7")
    assert reproducing(matches_failure(r"\s+7", b"\x0b7", True)) == set()


def test_a_document_a_schema_mutant_reproduces_is_replayed_on_the_schema_mutants():
    # pitfall 8: "integers with leading zeros" (s23); the catalogue's "tool" schema and a document it lists as invalid
    test = {"name": "test_json_schema_documents", "status": "failed",
            "reason": "a document's match differs from json + jsonschema",
            "details": "  schema:   'tool'\n  document: b'{\"city\":\"a\",\"days\":01}'\n  expected: False\n"
                       "  got:      True\n"}
    assert reproducing(test) == {8}


def test_what_cannot_be_replayed_is_none():
    assert reproducing({"name": "test_apply_mask", "status": "failed", "reason": "x", "details": ""}) is None
    assert reproducing(matches_failure("a", b"b", True) | {"details": "  pattern: 'a'\n  got: True\n"}) is None


# --------------------------------------------------------------------------- the diagnosis and the feedback


def test_a_repeat_in_the_pattern_is_no_longer_likely_evidence_of_pitfall_6():
    tests = [matches_failure(r"\s+7", b"\x0b7", True)]
    found = diagnose(tests, reproducing)
    assert all(entry["strength"] == "possible" for entry in found), found
    text = feedback.markdown(record(*tests), "full")
    advice = measure.first_advice(text)
    assert advice.startswith("Your failures match no known pitfall of the spec"), text
    assert r"`regex_to_dfa('\\s+7').matches(b'\x0b7')`: expected True, got False" in advice, advice
    assert "Most likely" not in text


def test_a_separating_witness_is_likely_and_comes_first():
    tests = [matches_failure("a{2,3}", b"aaa", True)]
    (top, *_) = diagnose(tests, reproducing)
    assert (top["pitfall"], top["strength"]) == (6, "likely")
    text = feedback.markdown(record(*tests), "full")
    assert "Most likely: **pitfall 6: repetition built wrong" in text


def test_without_a_replay_nothing_but_a_strong_finding_is_likely():
    assert all(entry["strength"] == "possible" for entry in diagnose([matches_failure("a{2,3}", b"aaa", True)]))


def test_a_timeout_names_the_call_and_its_input_and_no_pitfall():
    # the reason check writes for a call past its CPU budget (harness.sandbox.wording.what)
    reason = ("CPU-time limit: the candidate's processes used more than 60 CPU s "
              "(reads regex_to_dfa on '(cat|car|dog)s?' (a batched loop))")
    tests = [{"name": "test_hand_example", "status": "timeout", "reason": reason, "details": ""},
             {"name": "test_canonical_form", "status": "timeout", "reason": reason, "details": ""}]
    assert diagnose(tests, reproducing) == []
    text = feedback.markdown(record(*tests), "full")
    assert "`regex_to_dfa` did not finish within 60 CPU s on `'(cat|car|dog)s?'` (test_hand_example)" in text, text
    assert "pitfall" not in text.split("## Tests that did not pass")[0].lower().replace("no pitfall", "")


@pytest.mark.parametrize("how", [
    "died of SIGXCPU, killed at its own CPU-time limit (RLIMIT_CPU)",
    "died of SIGKILL, killed by the kernel at its own memory limit (its cgroup's OOM killer)",
    "died of SIGKILL, killed by a signal from outside the harness, or the kernel",
    "died of SIGSEGV, a segmentation fault"])
def test_a_crash_says_how_the_process_ended_in_the_graders_words_whole(how):
    # the reason check writes for a candidate that died in a call (harness.sandbox.wording.how)
    reason = f"the candidate process died during call regex_to_dfa on 'dog' ({how})"
    tests = [{"name": "test_hand_example", "status": "crashed", "reason": reason, "details": ""}]
    assert f"`regex_to_dfa` ended the process ({how}) (test_hand_example)" in feedback.first_failure(tests)


# --------------------------------------------------------------------------- 23 bugs outside the catalogue


def test_every_outside_bug_records_its_true_cause():
    bugs = measure.bugs()
    assert len(bugs) >= 20
    assert all(truth["function"] and truth["cause"] for truth in bugs.values())


@pytest.mark.e2e
@pytest.mark.slow
def test_no_outside_bug_gets_a_wrong_pitfall_called_likely(tmp_path):
    import json

    records = json.loads(measure.grade(tmp_path).read_text())["students"]
    table = measure.rows(records, feedback.markdown)
    detected = {name: row for name, row in table.items() if not row["undetected"]}
    assert len(detected) >= 20, table
    assert not [name for name, row in detected.items() if row["wrong_likely"]], table
    assert sum(row["points"] for row in detected.values()) >= 0.9 * len(detected), table
