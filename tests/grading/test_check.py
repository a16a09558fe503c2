"""End to end: `constrain-harness check` grades the reference, correct alternatives and
wrong candidates (tests/candidates/), each in a child process.

No false failures: the reference passes all 16 tests (a candidate with different internals,
Brzozowski minimization, passes all 16 in ``tests/grading/test_batch_isolation.py``, as alice and
linky: its whole catalogue was graded here too until 2026-12-07, a duplicate of theirs, 4 CPU s);
the reference copied under another module name is loaded under that name and passes the tests
that raise the package's own errors (the whole catalogue on a renamed copy of the reference's
package: ``tests/grading/test_batch.py``'s alice, and the Gradescope bundle's
``test_the_reference_as_a_package_in_the_specs_layout_scores_full_marks``).
Wrong candidates fail the test the spec names for their mistake, with a counterexample.
"""

from __future__ import annotations

import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.check import CheckOptions, run_check
from harness.policy import POLICY
from harness.suite.catalogue import DEEP_NAMES, NAMES

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"


def check(candidate: str | None, *only: str, **options):
    impl = None if candidate is None else str(CANDIDATES / candidate) if candidate.endswith(".py") else candidate
    return run_check(CheckOptions(impl=impl, only=tuple(only), **options))


def statuses(result) -> dict[str, str]:
    return {t.name: t.status for t in result.tests}


@pytest.mark.e2e
def test_the_reference_passes_through_the_cli_and_writes_every_report(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    files = {name: tmp_path / name for name in ("r.json", "r.xml", "results.json")}
    code = main(["check", "--json", str(files["r.json"]), "--junit-xml", str(files["r.xml"]),
                 "--gradescope", str(files["results.json"])], out, err)
    text = out.getvalue()
    assert code == ExitCode.OK, text + err.getvalue()
    assert text.splitlines()[-1] == "verdict: passed (exit 0)"
    assert text.splitlines()[-2].startswith("16 tests: 16 passed, 0 failed")
    assert all(f"{name} " in text or text.rstrip().endswith(name) for name in NAMES)
    doc = json.loads(files["r.json"].read_text())
    assert doc["counts"]["passed"] == 16 and doc["candidate"] is None
    assert ET.parse(files["r.xml"]).getroot().find("testsuite").get("failures") == "0"
    assert json.loads(files["results.json"].read_text())["score"] == 16.0


RENAMED_COPY_TESTS = ("test_hand_example", "test_unsupported_syntax_raises", "test_constraint_lifecycle",
                      "test_json_schema_rejects_keywords_outside_the_subset", "test_vocab_bytes")
"""The tests a module's own name could fail: its errors (raised from the renamed package's modules,
which the catalogue tells by their kinds), and the tables and bytes every other test starts from."""


@pytest.mark.e2e
def test_the_reference_copied_under_another_module_name_passes(tmp_path):
    # RENAMED_COPY_TESTS, not the whole catalogue (4.2 CPU s until 2026-12-07): that runs on renamed
    # copies of the reference's package in the batch (test_batch's alice) and in the Gradescope bundle
    copy = tmp_path / "student_constrain"
    shutil.copytree(ROOT / "oracles" / "automaton", copy, ignore=shutil.ignore_patterns("__pycache__"))
    result = check(str(copy), *RENAMED_COPY_TESTS)
    assert result.load["module"].startswith("cand_student_constrain_")
    assert result.load["file"].startswith(str(copy))
    assert statuses(result) == dict.fromkeys(RENAMED_COPY_TESTS, "passed"), [(t.name, t.reason) for t in result.tests]
    assert result.exit_code == ExitCode.OK


WRONG = [
    ("wrong_numbering.py", "test_hand_example", "edge 0 --b'c'--> differs from section 3"),
    ("wrong_eos_everywhere.py", "test_hand_example_masks", "token:    id 13 None"),
    ("wrong_no_minimization.py", "test_canonical_form", "'a|b' and '[ab]'"),
    ("wrong_dot_newline.py", "test_matches_python_re", "pattern:  'a.c'"),
    ("wrong_dead_sink.py", "test_every_state_is_live", "dead_states:"),
    ("wrong_trie_first_byte.py", "test_masks_match_brute_force", "path:"),
    ("wrong_ignores_keywords.py", "test_json_schema_rejects_keywords_outside_the_subset", "pattern"),
    ("wrong_leading_zeros.py", "test_json_schema_documents", "document:"),
    ("wrong_utf8_tokens.py", "test_vocab_bytes", "token_id:"),
    ("wrong_greedy_ties.py", "test_greedy_takes_the_best_allowed_token", "expected: id 8 b'ca'"),
    ("wrong_apply_mask_in_place.py", "test_apply_mask", "apply_mask"),
    ("wrong_apply_mask_writes_float64.py", "test_apply_mask", "modified its input logits"),
    ("wrong_advance_after_eos.py", "test_constraint_lifecycle", "nothing may follow EOS"),
]
FAST = {"wrong_numbering.py", "wrong_eos_everywhere.py", "wrong_trie_first_byte.py", "wrong_ignores_keywords.py"}


@pytest.mark.e2e
@pytest.mark.parametrize("candidate, test, evidence", [
    pytest.param(*case, marks=() if case[0] in FAST else pytest.mark.slow, id=case[0]) for case in WRONG])
def test_a_wrong_candidate_fails_the_test_the_spec_names(candidate, test, evidence):
    result = check(candidate, test)
    (verdict,) = result.tests
    assert verdict.status == "failed", (verdict.status, verdict.reason, verdict.details[-500:])
    assert verdict.reason and "\n" not in verdict.reason
    assert evidence in verdict.reason + "\n" + verdict.details, verdict.details
    assert result.exit_code == ExitCode.FAILED


@pytest.mark.e2e
def test_missing_names_fail_only_the_tests_that_need_them():
    out = io.StringIO()
    only = "test_hand_example_masks,test_apply_mask,test_greedy_takes_the_best_allowed_token"
    code = main(["check", "--impl", str(CANDIDATES / "wrong_missing_names.py"), "--only", only], out, io.StringIO())
    text = out.getvalue()
    assert code == ExitCode.FAILED, text
    assert "TokenIndex.next_state: missing" in text and "constrained_sample: missing" in text
    assert "regex_to_dfa: requires arguments the spec's call does not pass" in text  # a note, not a refusal
    rows = {line.split()[1]: line for line in text.splitlines() if line[:2].strip().isdigit()}
    assert "PASS" in rows["test_apply_mask"]  # needs nothing that is missing
    assert "FAIL" in rows["test_hand_example_masks"] and "FAIL" in rows["test_greedy_takes_the_best_allowed_token"]
    assert text.splitlines()[-1] == "verdict: failed (exit 1)"


@pytest.mark.e2e
def test_ref_deps_supply_sampling_and_the_byte_map():
    tests = ("test_greedy_takes_the_best_allowed_token", "test_constrained_generation_parses", "test_vocab_bytes")
    # spec 000: "Needs: ... M05.2 the GPT-2 byte map (unicode_to_bytes) (or --ref-deps)": a
    # vocab_bytes that decodes through M05.2's unicode_to_bytes fails without it
    without = check("needs_ref_deps.py", "test_vocab_bytes", ref_deps=False)
    first = without.tests[0]
    assert first.status == "failed" and "unicode_to_bytes" in first.reason, first.reason
    assert {p.split(":")[0] for p in without.load["problems"]} == {"SamplingParams", "sample", "bytes_to_unicode",
                                                                   "unicode_to_bytes"}
    with_deps = check("needs_ref_deps.py", *tests)  # on by default: harness.policy
    assert POLICY.ref_deps and with_deps.options.ref_deps
    assert set(statuses(with_deps).values()) == {"passed"}, [(t.name, t.reason) for t in with_deps.tests]
    assert sorted(with_deps.load["ref_deps"]) == sorted(["SamplingParams", "sample", "bytes_to_unicode",
                                                         "unicode_to_bytes"])


@pytest.mark.e2e
def test_only_runs_a_deep_test_by_name_and_implies_the_deep_tier(tmp_path):
    """``check --only test_deep_x`` runs that deep test and nothing else (it implies --deep):
    the reference passes it; with a catalogue test beside it, a candidate whose tables are not
    minimal passes the catalogue test and fails the deep one, and no other deep test runs."""
    step = "test_deep_step_refuses_every_state_out_of_range"
    long_tables = "test_deep_long_patterns_equal_the_derivative_oracle"
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--only", step, "--json", str(tmp_path / "r.json")], out, err)
    assert code == ExitCode.OK, out.getvalue() + err.getvalue()
    tests = json.loads((tmp_path / "r.json").read_text())["tests"]
    assert [(t["name"], t["status"]) for t in tests] == [(step, "passed")]
    result = check("wrong_no_minimization.py", long_tables, "test_apply_mask")
    assert result.options.deep
    assert statuses(result) == {"test_apply_mask": "passed", long_tables: "failed"}, \
        [(t.name, t.reason) for t in result.tests]
    failed = next(t for t in result.tests if t.name == long_tables)
    assert "differs from the derivative oracle's canonical DFA" in failed.reason


@pytest.mark.e2e
def test_usage_errors_exit_2():
    err = io.StringIO()
    assert main(["check", "--only", "test_nonexistent"], io.StringIO(), err) == ExitCode.USAGE
    assert "unknown test(s): test_nonexistent" in err.getvalue() and DEEP_NAMES[0] in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "--impl", "no/such/file.py", "--only", "test_apply_mask"], out, err) == ExitCode.USAGE
    assert "no such .py file" in err.getvalue() and err.getvalue().count("\n") == 1 and out.getvalue() == ""


def test_a_candidate_folder_past_the_copy_bounds_is_named_and_the_walk_stops(tmp_path, monkeypatch):
    from harness.sandbox import view

    folder = tmp_path / "crowded"
    folder.mkdir()
    for i in range(6):
        (folder / f"f{i}.py").write_bytes(b"x" * 100)
    assert view._past_copy_bounds(folder) is None
    monkeypatch.setattr(view, "MAX_COPY_BYTES", 250)
    assert view._past_copy_bounds(folder) == "holds more than 250 bytes"
    monkeypatch.setattr(view, "MAX_COPY_BYTES", 1 << 20)
    monkeypatch.setattr(view, "MAX_COPY_ENTRIES", 3)
    walked = []
    real_rglob = Path.rglob
    monkeypatch.setattr(Path, "rglob", lambda self, pattern: (walked.append(p) or p for p in real_rglob(self, pattern)))
    assert view._past_copy_bounds(folder) == "holds more than 3 files and folders"
    assert len(walked) == 4  # stopped at the first entry past the bound, not after all six


@pytest.mark.e2e
def test_a_candidate_whose_folder_cannot_be_copied_for_it_is_a_usage_error(tmp_path):
    """A candidate in a crowded folder nobody else may read (a home, /tmp) is refused with the
    reason and exit 2 before any test runs, not reported as a crash of its load."""
    from harness.sandbox import confine, view

    if not confine.runs_as_nobody():
        pytest.skip("the candidate runs as this user here: its folder is never copied")
    folder = tmp_path / "crowded"
    folder.mkdir(mode=0o700)
    (folder / "constrain.py").write_text("from oracles.automaton import *  # noqa: F401,F403\n")
    for i in range(view.MAX_COPY_ENTRIES):
        (folder / f"{i}.txt").touch()
    out = io.StringIO()
    code = main(["check", "--impl", str(folder / "constrain.py"), "--only", "test_apply_mask"], out, io.StringIO())
    assert code == ExitCode.USAGE, out.getvalue()
    assert f"holds more than {view.MAX_COPY_ENTRIES} files and folders and is not world-readable" in out.getvalue()
    assert "crashed" not in out.getvalue() and "INTERNALERROR" not in out.getvalue(), out.getvalue()


@pytest.mark.e2e
@pytest.mark.slow
def test_deep_passes_on_the_reference_and_catches_a_wrong_dot():
    reference = check(None, "test_apply_mask", deep=True, timeout=300)
    deep = [t for t in reference.tests if "deep" in t.kinds]
    assert len(deep) == len(DEEP_NAMES) and {t.status for t in reference.tests} == {"passed"}, \
        [(t.name, t.reason) for t in reference.tests]
    wrong = check("wrong_dot_newline.py", "test_apply_mask", deep=True, timeout=300)
    tables = next(t for t in wrong.tests if t.name == "test_deep_tables_equal_the_derivative_oracle")
    assert tables.status == "failed" and "pattern:" in tables.details, tables.details
