"""The tool-surface port mutants l10_9:s12-s16: each changes its example, and the tools
replay kills it with exactly the checks it declares (the spec's named killer first);
the clean reference copy survives every check."""

from __future__ import annotations

import pytest

from golden import fileformat
from golden.tools_replay import CHECKS, replay_tools
from harness.mutants.apply import load, materialize
from harness.mutants.catalogue import TOOLS_REPLAY, Mutant
from harness.mutants.tools_mutants import TOOLS_MUTANTS, kill_matrix
from tests.mutants import reference_answers

SPEC_KILLER = {"l10_9:s12": "parse_tool_request_hand_example", "l10_9:s13": "grammar_by_tool_choice",
               "l10_9:s14": "parser_hand_example", "l10_9:s15": "parser_holds_back_only_real_markup",
               "l10_9:s16": "message_and_delta_json_shapes"}


@pytest.fixture(scope="module")
def doc():
    return fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["tools_golden"], "tools_golden")


@pytest.fixture(scope="module")
def grammar_dfas() -> dict:
    return {}


@pytest.fixture
def compiled_once(grammar_dfas):
    """The reference's DFA of each grammar pattern the in-process replays compile, made once for the
    module (``reference_answers.reference_dfas_once``: each call its own copy; ~0.7 of a replay's ~0.9
    CPU s), within the tests that ask; the runner's replays behind the wall (the e2e test) compute their own."""
    with reference_answers.reference_dfas_once(grammar_dfas):
        yield


@pytest.mark.golden
def test_the_table_has_the_specs_ids_and_killers():
    assert [m.id for m in TOOLS_MUTANTS] == list(SPEC_KILLER)
    assert all(m.killers[0] == SPEC_KILLER[m.id] for m in TOOLS_MUTANTS)


@pytest.mark.golden
@pytest.mark.usefixtures("compiled_once")
def test_a_clean_copy_passes_every_check(doc, tmp_path):
    clean = Mutant("l10_9:null", "none", "no edit", (), (), lambda m: None, kind=TOOLS_REPLAY)
    assert replay_tools(doc, load(materialize(clean, tmp_path))).ok


@pytest.mark.golden
@pytest.mark.parametrize("mutant", TOOLS_MUTANTS, ids=lambda m: m.id)
def test_each_mutant_changes_its_example(mutant, tmp_path):
    import oracles.tools as reference

    assert mutant.example(reference) != mutant.example(load(materialize(mutant, tmp_path)))


@pytest.mark.golden
@pytest.mark.usefixtures("compiled_once")
def test_each_mutant_is_killed_by_exactly_its_declared_checks(doc, tmp_path):
    matrix = kill_matrix(doc, tmp_path)
    assert matrix == {m.id: set(m.killers) for m in TOOLS_MUTANTS}


@pytest.mark.golden
@pytest.mark.usefixtures("compiled_once")
def test_the_newline_between_parallel_calls_is_no_content(doc, tmp_path):
    """Spec 002's parser_parallel_calls checks "the newline between calls": a parser that
    keeps it as content fails that check on the parallel streams (it passed before issue 24)."""
    from harness.mutants.catalogue import Edit

    newline_is_content = Mutant("l10_9:reading", "tools.parser", "whitespace after a call is content", (),
                                (Edit("parser.py", "            self._separator = gap\n            return text\n",
                                      "            self._separator = \"\"\n            return gap + text\n"),),
                                lambda m: None,
                                kind=TOOLS_REPLAY)
    report = replay_tools(doc, load(materialize(newline_is_content, tmp_path)))
    failed = {f.where for f in report.findings if f.level == "fail"}
    assert {c for c, n in report.failures.items() if n} == {"parser_parallel_calls"}, report.lines()
    assert "stream two_calls_newline" in failed and "stream four_calls" in failed, failed


@pytest.mark.golden
@pytest.mark.parametrize("edit, ok", [
    (("render.py", 'return ("# Tools\\n\\nYou may call', 'return ("# Functions\\n\\nYou can call'), True),  # wording
    (("render.py", "turns[at] = (\"system\", turns[at][1] + \"\\n\\n\" + text)", "turns.insert(0, (\"system\", text))"),
     False),  # a second system turn instead of appending to the first
    (("render.py", 'return ("user", f"<tool_response>\\n{content}\\n</tool_response>")', 'return ("user", content)'),
     False),  # a tool result without its markup
], ids=["other wording", "not appended", "no tool_response"])
@pytest.mark.usefixtures("compiled_once")
def test_rendering_is_held_to_the_specs_rules_not_the_references_wording(doc, tmp_path, edit, ok):
    from harness.mutants.catalogue import Edit

    variant = Mutant("l10_9:render", "tools.render", "a rendering variant", (), (Edit(*edit),), lambda m: None,
                     kind=TOOLS_REPLAY)
    report = replay_tools(doc, load(materialize(variant, tmp_path)))
    assert report.ok == ok and set(report.failures) <= {"render_messages_with_tools"}
    assert ok or report.failures["render_messages_with_tools"]


@pytest.mark.e2e
@pytest.mark.golden
def test_the_runner_kills_a_tools_mutant_behind_the_wall_by_its_declared_checks(tmp_path):
    """`constrain-harness mutants` runs l10_9:s12-s16 like the others: selected by id, the
    copy of oracles/tools replayed behind the wall (replay_child --tools). One run, the verb's
    (``run_all`` -> ``run_mutant``, the whole replay): its JSON report holds the runner's result."""
    import io
    import json

    from harness.cli import main
    from harness.mutants.catalogue import BY_ID
    from harness.mutants.runner import Outcome

    mutant = BY_ID["l10_9:s16"]
    out = io.StringIO()
    report = tmp_path / "report.json"
    assert main(["mutants", "--only", "l10_9:s16", "--no-self-check", "--json", str(report)], out, io.StringIO()) == 0
    assert "1/1 killed" in out.getvalue()
    doc = json.loads(report.read_text())
    assert doc["score"]["mutants"] == 1
    [result] = doc["mutants"]
    assert result["id"] == mutant.id and result["outcome"] == Outcome.KILLED.value, result
    assert set(result["killed_by"]) == set(mutant.killers), result
    assert set(result["tests"]) == set(CHECKS)  # every check of the tools replay ran
