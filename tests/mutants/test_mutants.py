"""The mutant catalogue: the table is sound, every patch applies and changes behaviour,
the runner checks itself, and the catalogue's run kills every mutant by an expected test
(each mutant up to its first kill; ``slow``: the full run gives the same verdicts)."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import jsonschema
import pytest

import oracles.automaton as reference
import oracles.tools as tools_reference
from golden.replay import CHECKS
from golden.tools_replay import CHECKS as TOOLS_CHECKS
from harness.mutants import report
from harness.mutants.apply import PatchDoesNotApply, load, materialize
from harness.mutants.catalogue import ALIASES, BY_ID, CATALOGUE, MUTANTS, REPLAY, TOOLS_REPLAY, Edit, Mutant, resolve
from harness.mutants.runner import (
    FORCED_FAILURE,
    NULL_MUTANT,
    NULL_TOOLS_MUTANT,
    MutantResult,
    Outcome,
    run_all,
    run_mutant,
)
from harness.suite.catalogue import NAMES
from tests.mutants import reference_answers

REPLAY_CHECKS = set(CHECKS) - {"masks_match_the_golden_file"}  # the checks of constrain_golden.json
KILLERS = {CATALOGUE: set(NAMES), REPLAY: REPLAY_CHECKS, TOOLS_REPLAY: set(TOOLS_CHECKS)}
REFERENCE = {CATALOGUE: reference, REPLAY: reference, TOOLS_REPLAY: tools_reference}

SPEC_002_KILLERS = {  # spec 002_..., section 5: the pitfall table's "Caught by" column, s01-s11
    "s01": "dfa_matches_python_l8_7", "s02": "dfa_matches_python_l8_7",
    "s03": "constrained_output_always_parses", "s04": "dfa_matches_python_l8_7",
    "s05": "constrained_output_always_parses", "s06": "masks_match_python_l8_7", "s07": "token_index_rules",
    "s08": "subset_errors_are_refused", "s09": "dumps_matches_python", "s10": "masks_match_python_l8_7",
    "s11": "constrained_sample_hand_example",
}


def test_ids_are_unique_and_complete():
    ids = [m.id for m in MUTANTS]
    assert len(ids) == len(set(ids))
    assert sorted(i for i in ids if re.fullmatch(r"s\d\d", i)) == [f"s{i:02d}" for i in range(1, 28)]
    port = sorted(i for i in ids if i.startswith("l10_9:"))
    assert port[:11] == [f"l10_9:s{i:02d}" for i in range(1, 12)]
    assert all(re.fullmatch(r"l10_9:s\d\d", i) for i in port)
    assert port[11:16] == [f"l10_9:s{i}" for i in range(12, 17)]  # the tool surface's, run like the others
    assert {BY_ID[i].kind for i in port[11:16]} == {TOOLS_REPLAY}
    assert port[16:] == ["l10_9:s17"] and BY_ID["l10_9:s17"].kind == REPLAY  # ours: vocab_bytes_marks_specials
    assert set(ids) <= {*(f"s{i:02d}" for i in range(1, 28)), *port}  # no third namespace, no old p-ids


def test_port_mutants_keep_the_specs_ids_and_killers():
    for number, killer in SPEC_002_KILLERS.items():
        mutant = BY_ID[f"l10_9:{number}"]
        assert mutant.kind == REPLAY and mutant.killers == (killer,), (mutant.id, mutant.killers)


def test_old_port_ids_are_aliases():
    assert resolve("p03") == "l10_9:s03" and resolve("s03") == "s03" and resolve("nope") == "nope"
    assert set(ALIASES.values()) <= set(BY_ID) and not set(ALIASES) & set(BY_ID)
    assert all(m.package.isidentifier() for m in MUTANTS)  # importable package names (no ':')


def test_mutants_verb_refuses_an_unknown_id():
    import io

    from harness.cli import main
    from harness.exitcodes import ExitCode

    err = io.StringIO()
    assert main(["mutants", "--only", "p03,p12", "--no-self-check"], io.StringIO(), err) == ExitCode.USAGE
    assert "unknown id(s) p12" in err.getvalue() and "l10_9:s03" in err.getvalue()


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_every_entry_describes_itself(mutant):
    assert mutant.pitfall and mutant.stage and mutant.edits and mutant.killers
    known = KILLERS[mutant.kind]
    assert set(mutant.killers) <= known, f"{mutant.id}: unknown killers {set(mutant.killers) - known}"


# Each mutant's patch applies and changes its own example: tests/mutants/test_mutants_anchors.py::
# test_anchors_apply_to_the_reformatted_reference_and_make_the_same_program (every mutant: its copy of the
# reference, patched, answers its example otherwise than the reference; a tools mutant's compared by repr).


def test_the_null_mutant_changes_nothing(tmp_path):
    clean = {kind: load(materialize(null, tmp_path / kind.replace(" ", "_")))
             for kind, null in ((CATALOGUE, NULL_MUTANT), (TOOLS_REPLAY, NULL_TOOLS_MUTANT))}
    clean[REPLAY] = clean[CATALOGUE]
    for mutant in MUTANTS:  # repr: a copy's ToolCall is another class than the reference's
        same = repr if mutant.kind == TOOLS_REPLAY else (lambda x: x)
        assert same(mutant.example(clean[mutant.kind])) == same(mutant.example(REFERENCE[mutant.kind])), mutant.id


def test_the_copy_is_not_the_reference(tmp_path):
    mutated = load(materialize(BY_ID["s01"], tmp_path))
    assert mutated.regex_to_dfa(".").matches(b"\n") and not reference.regex_to_dfa(".").matches(b"\n")
    assert Path(mutated.__file__).parent == tmp_path / "mutant_s01"


def test_a_stale_patch_is_reported(tmp_path):
    stale = Mutant("sXX", "parser", "x", ("test_hand_example",),
                   (Edit("parser.py", "text that is not there", "x"),), lambda m: None)
    with pytest.raises(PatchDoesNotApply, match="occurs 0 times"):
        materialize(stale, tmp_path)
    assert run_mutant(stale, tmp_path).outcome is Outcome.STALE


# --- the replay mutants' first kill: the replay's parts are the whole replay ------------------

@pytest.fixture(scope="module")
def replay_docs() -> dict[bool, dict]:
    from harness.mutants.replay_child import document

    return {tools: document(tools) for tools in (False, True)}


def _whole_replay(doc, impl, tools: bool):
    from golden.replay import replay_constrain
    from golden.tools_replay import replay_tools
    from harness.suite.shapes import SpecTokenizer

    return replay_tools(doc, impl) if tools else replay_constrain(doc, impl, tokenizer=SpecTokenizer)


def _parts_replay(doc, impl, tools: bool):
    from golden.replay import ReplayReport, _Cache
    from harness.mutants.replay_child import steps
    from harness.suite.shapes import SpecTokenizer

    report, cache = ReplayReport("parts"), None if tools else _Cache(impl)
    for step in steps(tools):
        before = set(report.assertions)
        step.run(report, impl, cache, doc, SpecTokenizer)
        assert set(report.assertions) - before <= set(step.checks), (step.checks, set(report.assertions) - before)
    return report


def _copy(mutant, tmp_path):
    return load(materialize(mutant, tmp_path))


@pytest.mark.golden
@pytest.mark.parametrize("mutant_id", ["l10_9:s10", "l10_9:s14"])
def test_the_replay_parts_replay_what_the_whole_replay_does(mutant_id, replay_docs, tmp_path):
    """``replay_child``'s parts (the first kill's unit), run in order, make the whole replay's
    assertions, failures and findings, each part reporting only the checks it declares; the
    parts together declare every check of the file (in-process: the copies are ours). On a
    mutant of each file, so failures and findings are compared too (a clean copy's whole
    replay: ``test_a_replays_first_kill_stops_...``)."""
    from harness.mutants.replay_child import steps

    mutant = BY_ID[mutant_id]
    tools = mutant.kind == TOOLS_REPLAY
    impl = _copy(mutant, tmp_path)
    # the tools replay's grammar patterns compiled by the reference once for both replays (each its own copy)
    with reference_answers.reference_dfas_once({}) if tools else contextlib.nullcontext():
        whole, parts = _whole_replay(replay_docs[tools], impl, tools), _parts_replay(replay_docs[tools], impl, tools)
    assert (parts.assertions, parts.failures, parts.findings) == (whole.assertions, whole.failures, whole.findings)
    declared = [check for step in steps(tools) for check in step.checks]
    assert len(declared) == len(set(declared)) and set(declared) == (set(TOOLS_CHECKS) if tools else REPLAY_CHECKS)
    assert not whole.ok


def test_a_replays_first_kill_stops_on_an_expected_check_only_in_the_expected_parts(replay_docs, tmp_path):
    """l10_9:s10 fails token_index_rules before masks_match_python_l8_7, both reported by the
    masks' part: the first kill goes on to its expected killer (by_expected, as the whole replay)."""
    from harness.mutants.replay_child import first_kill
    from harness.suite.shapes import SpecTokenizer

    impl = _copy(BY_ID["l10_9:s10"], tmp_path)
    for expected, stops_at in ((("masks_match_python_l8_7",), "masks_match_python_l8_7"),
                               (("token_index_rules",), "token_index_rules")):
        report, stopped, finished = first_kill(replay_docs[False], impl, tools=False, expected=expected,
                                               tokenizer=SpecTokenizer)
        assert stopped == stops_at and finished == [] and report.failures[stops_at] == 1
    report, stopped, _ = first_kill(replay_docs[False], _copy(NULL_MUTANT, tmp_path / "clean"), tools=False,
                                    expected=("dfa_matches_python_l8_7",), tokenizer=SpecTokenizer)
    whole = _whole_replay(replay_docs[False], _copy(NULL_MUTANT, tmp_path / "whole"), False)
    assert stopped is None and report.ok and report.assertions == whole.assertions   # nothing fails: all of it ran


def test_the_replay_child_refuses_an_unknown_check(capsys):
    from harness.mutants import replay_child

    assert replay_child.main(["--first-kill=dfa_matches_python_l8_7,nope", "/nowhere"]) == 2
    assert json.loads(capsys.readouterr().out) == {"error": "replay_child: unknown check(s) nope"}
    assert replay_child.main(["--tools", "--first-kill=dfa_matches_python_l8_7", "/nowhere"]) == 2
    assert "unknown check(s) dfa_matches_python_l8_7" in capsys.readouterr().out


def test_first_kill_is_the_catalogues_option():
    import io

    from harness.cli import main
    from harness.exitcodes import ExitCode

    err = io.StringIO()
    assert main(["mutants", "--generated", "--first-kill", "--no-self-check"], io.StringIO(), err) == ExitCode.USAGE
    assert "--first-kill is the catalogue's" in err.getvalue()


@pytest.mark.e2e
def test_the_verb_with_first_kill_reports_in_the_same_shape(tmp_path, monkeypatch):
    """``mutants --first-kill``: the same report (JSON keys, score), each mutant with only the
    tests or checks it ran up to its first kill, an expected one. Without the oracle memo: its
    recording run would be most of this run's CPU (one catalogue mutant)."""
    import io

    from harness.cli import main
    from tests.support.helpers import without_oracle_memo

    without_oracle_memo(monkeypatch)
    out, path = io.StringIO(), tmp_path / "m.json"
    code = main(["mutants", "--only", "s15,l10_9:s01", "--no-self-check", "--first-kill", "--jobs", "1",
                 "--json", str(path)], out, io.StringIO())
    assert code == 0 and "2/2 killed (2 by an expected test)" in out.getvalue(), out.getvalue()
    doc = json.loads(path.read_text())
    assert doc["score"]["mutants"] == 2 and doc["score"]["killed_by_expected"] == 2
    assert set(doc) == set(report.to_json(_fake_results()))
    by_id = {m["id"]: m for m in doc["mutants"]}
    assert set(by_id["s15"]) == set(report.to_json(_fake_results())["mutants"][0])
    assert by_id["s15"]["killed_by"] == ["test_constrained_generation_parses"]   # the catalogue's order: -x
    assert by_id["l10_9:s01"]["tests"] == {"dfa_matches_python_l8_7": "failed"}   # the replay stopped there


def test_first_kill_is_for_the_catalogues_own_run():
    from harness.mutants.runner import GeneratedOptions

    with pytest.raises(ValueError, match="first_kill= is for the catalogue's own run"):
        run_all([], first_kill=True, generated=GeneratedOptions())
    with pytest.raises(ValueError, match="first_kill= is for the catalogue's own run"):
        run_all([], first_kill=True, run=run_mutant)


def test_a_catalogue_task_carries_first_kill_to_the_worker(monkeypatch):
    """A Dask task of a catalogue mutant: ``first_kill`` crosses as a flag (absent when off: the
    payload of a full run is as before) and the worker's ``run_task`` runs the mutant with it."""
    from harness.mutants import runner, tasks
    from harness.mutants.apply import prepare
    from harness.mutants.runner import mutant_task

    ran = []

    def fake_run_mutant(mutant, root, timeout, first_kill=False):
        ran.append((mutant.id, first_kill))
        return MutantResult(mutant.id, Outcome.KILLED, mutant.killers, list(mutant.killers), {}, 0.0)

    monkeypatch.setattr(runner, "run_mutant", fake_run_mutant)
    prepare([BY_ID["s05"]])
    full, first = mutant_task(BY_ID["s05"], timeout=120.0), mutant_task(BY_ID["s05"], timeout=120.0, first_kill=True)
    assert sorted(full.payload) == ["edited", "id", "kind", "timeout"] and first.payload["first_kill"] is True
    assert [tasks.run_task(t.payload)["outcome"] for t in (full, first)] == ["killed", "killed"]
    assert ran == [("s05", False), ("s05", True)]


# --- the catalogue's run -----------------------------------------------------------------

@pytest.fixture(scope="module")
def full_run() -> dict[str, MutantResult]:
    """The runner on every mutant of the catalogue and on the forced failure, each up to its
    first kill, expected killers first (``first_kill``: the full run's verdicts, checked by
    ``test_first_kill_gives_the_full_runs_verdicts``, for a tenth of its CPU: 35 CPU s), once per
    session, read by the tests below. On one thread, without the oracle memo: its recording run
    (the whole default tier against the reference, 4-6 CPU s a warm grader) saves a run up to its
    first kill nothing measurable (45 runs of 0.4-1.6 CPU s each either way; the run 39.5 -> 29.5
    CPU s at load ~12, 2026-12-07), and the memo changes no verdict (``test_mutants_errors``' fast
    path, memo included, against the slow path; the memo's own tests)."""
    from tests.support.helpers import without_oracle_memo

    with pytest.MonkeyPatch.context() as patch:
        without_oracle_memo(patch)
        return {r.id: r for r in run_all([FORCED_FAILURE, *MUTANTS], jobs=1, first_kill=True)}


@pytest.mark.e2e
def test_runner_kills_a_forced_failure_and_a_catalogue_and_a_replay_mutant(full_run):
    forced, s10, p03 = full_run[FORCED_FAILURE.id], full_run["s10"], full_run["l10_9:s03"]
    assert forced.outcome is Outcome.KILLED
    assert s10.outcome is Outcome.KILLED and s10.by_expected, s10
    assert p03.outcome is Outcome.KILLED and p03.by_expected, p03


# --- reports ---------------------------------------------------------------------------

STRYKER_SCHEMA = json.loads((Path(__file__).parents[1] / "fixtures" / "mutation-testing-report-schema.json")
                            .read_text(encoding="utf-8"))
"""Stryker's mutation-testing-report-schema (schemaVersion 2), vendored whole: tests/fixtures/README.md."""


def _fake_results() -> list[MutantResult]:
    return [MutantResult(m.id, Outcome.KILLED if i % 5 else Outcome.SURVIVED, m.killers,
                         list(m.killers) if i % 5 else [], {k: "failed" if i % 5 else "passed" for k in m.killers},
                         1.0) for i, m in enumerate(MUTANTS)]


def test_stryker_report_follows_the_schema():
    doc = report.to_stryker(_fake_results())
    jsonschema.validate(doc, STRYKER_SCHEMA)
    parser = doc["files"]["oracles/automaton/parser.py"]
    s01 = next(m for m in parser["mutants"] if m["id"] == "s01")
    line = parser["source"].splitlines()[s01["location"]["start"]["line"] - 1]
    assert "DOT = FULL_MASK & ~NEWLINE" in line


def test_json_and_table_and_html_reports():
    results = _fake_results()
    doc = json.loads(report.dumps(report.to_json(results)))
    assert doc["score"]["mutants"] == len(MUTANTS) and doc["score"]["survived"] == len(MUTANTS[::5])
    text = report.table(results)
    assert text.splitlines()[-1].startswith(f"{len(MUTANTS) - len(MUTANTS[::5])}/{len(MUTANTS)} killed")
    page = report.to_html(results)
    assert page.startswith("<!doctype html>") and "s27" in page
    assert not re.search(r"(src|href)=\"?https?:", page)  # readable offline


@pytest.mark.e2e
def test_full_run_kills_every_mutant_by_an_expected_test(full_run):
    # in the default run, so CI proves 27/27 and 16/16 (L8.7's s01-s27, L10.9's l10_9:s01-s16)
    results = [full_run[m.id] for m in MUTANTS]
    bad = [(r.id, r.outcome.value, r.killed_by, r.detail)
           for r in results if not (r.outcome is Outcome.KILLED and r.by_expected)]
    assert not bad, bad


@pytest.mark.slow
@pytest.mark.e2e
def test_first_kill_gives_the_full_runs_verdicts(full_run):
    """The full run (every expected killer, every replay check; what ``constrain-harness
    mutants`` reports by default) and the first-kill run agree on every mutant: the same
    outcome, killed by an expected test or not alike, the first kill's killers among the
    full run's."""
    full = {r.id: r for r in run_all([FORCED_FAILURE, *MUTANTS], jobs=2)}
    for mutant_id, first in full_run.items():
        whole = full[mutant_id]
        assert (first.outcome, first.by_expected) == (whole.outcome, whole.by_expected), (first, whole)
        assert first.killed_by and set(first.killed_by) <= set(whole.killed_by), (first, whole)
        assert all(whole.tests[name] == outcome for name, outcome in first.tests.items()), (first, whole)
