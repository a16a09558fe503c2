"""Generated mutants of the tool surface against the tools golden replay (issue 52 item 6):
stable ids, a seeded sample, and (behind the wall) a mutant whose parser drops the text after a
broken closer killed by the replay's malformed-markup streams."""

from __future__ import annotations

import pytest

from harness.mutants import report, tools_generated
from harness.mutants.apply import TOOLS_REFERENCE_DIR
from harness.mutants.mutant import TOOLS_REPLAY
from harness.mutants.runner import Outcome

BROKEN_CLOSER = "            return text  # the call is whole; what follows it is text\n"


def test_tools_sites_are_prefixed_stable_and_sampled_by_seed():
    sites = tools_generated.sites()
    assert {s.module for s in sites} == set(tools_generated.TOOLS_MODULES)
    first = tools_generated.sample(4, seed=3)
    again = tools_generated.sample(4, seed=3)
    assert [m.id for m in first] == [m.id for m in again] and len({m.source for m in first}) == 4
    assert all(m.id == f"tools.{m.site.id}" and m.kind == TOOLS_REPLAY for m in first)
    assert [m.id for m in tools_generated.sample(4, seed=4)] != [m.id for m in first]


def test_a_tools_mutant_is_a_copy_of_oracles_tools(tmp_path):
    mutant = tools_generated.sample(1, seed=0)[0]
    package = tools_generated.materialize(mutant, tmp_path)
    assert (package / mutant.file).read_text(encoding="utf-8") == mutant.source
    untouched = [p.name for p in TOOLS_REFERENCE_DIR.glob("*.py") if p.name != mutant.file]
    assert all((package / n).read_bytes() == (TOOLS_REFERENCE_DIR / n).read_bytes() for n in untouched)
    assert mutant.source != (TOOLS_REFERENCE_DIR / mutant.file).read_text(encoding="utf-8")


@pytest.mark.e2e
def test_a_parser_dropping_the_text_after_a_broken_closer_is_killed_by_the_tools_replay(tmp_path):
    text = (TOOLS_REFERENCE_DIR / "parser.py").read_text(encoding="utf-8")
    assert text.count(BROKEN_CLOSER) == 1
    site = next(s for s in tools_generated.sites(("parser",)))
    mutant = tools_generated.ToolsMutant(site, text.replace(BROKEN_CLOSER, '            return ""\n'),
                                         "return text", 'return ""')
    result = tools_generated.run_tools_mutant(mutant, tmp_path)
    assert result.outcome is Outcome.KILLED, (result.detail, result.tests)
    assert result.killed_by == ["parser_holds_back_only_real_markup"] and result.tier == "replay"
    assert list(tmp_path.iterdir()) == []   # the copy is gone
    doc = report.to_stryker([result], {mutant.id: mutant})
    assert list(doc["files"]) == ["oracles/tools/parser.py"]
