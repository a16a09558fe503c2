"""The report a course reads (issue 52 item 5): kill rates per module and operator counting the
not covered and the unproven as not killed, survivors with their line and diff, equivalents with
their evidence, as Markdown and offline HTML (an inline SVG chart per module), and Stryker's
schema; everything escaped for its format."""

from __future__ import annotations

import re

import jsonschema
import pytest
from markdown_it import MarkdownIt

from harness.mutants import course, evidence, generation, report
from harness.mutants.runner import MutantResult, Outcome
from harness.report import escape
from tests.mutants.test_mutants import STRYKER_SCHEMA

HOSTILE = "<script>alert(1)</script> | `x` [a](https://e.com) &amp;"
OUTCOMES = [(Outcome.KILLED, "default"), (Outcome.KILLED, "deep"), (Outcome.SURVIVED, ""),
            (Outcome.UNPROVEN, ""), (Outcome.NOT_COVERED, ""), (Outcome.EQUIVALENT, "")]


def _results():
    mutants, _ = generation.pick(generation.enumerate_sites(modules=["parser", "sampling"]), 12, seed=5)
    lookup = {m.id: m for m in mutants}
    results = []
    for i, m in enumerate(mutants):
        outcome, tier = OUTCOMES[i % len(OUTCOMES)]
        killed = outcome is Outcome.KILLED
        proof = evidence.summary("compile", 4952) if outcome is Outcome.EQUIVALENT and i % 2 else None
        if outcome is Outcome.EQUIVALENT and proof is None:
            proof = {"kind": "hand review", "domain": HOSTILE, "size": None}
        results.append(MutantResult(m.id, outcome, (), ["test_x"] if killed else [],
                                    {"test_x": "failed" if killed else "passed"}, 1.0,
                                    HOSTILE if outcome in (Outcome.SURVIVED, Outcome.UNPROVEN) else "", tier, proof))
    return results, lookup


def test_the_rates_count_the_not_covered_and_the_unproven_as_not_killed():
    results, lookup = _results()
    total = report.kill_rates(results, lookup)["total"]["all"]
    assert (total["mutants"], total["equivalent"], total["unproven"], total["not covered"]) == (12, 2, 2, 2)
    assert total["deep_rate"] == round(4 / 10, 4) and total["default_rate"] == round(2 / 10, 4)
    text = course.to_markdown(results, lookup)
    assert "Killed by a tier: 40.0%; by the default tier: 20.0%." in text
    assert "2 unproven, 2 not covered, 2 equivalent with evidence" in text


def test_the_markdown_shows_each_survivor_with_its_line_and_diff_and_each_equivalent_with_its_evidence():
    results, lookup = _results()
    text = course.to_markdown(results, lookup)
    for r in results:
        m = lookup[r.id]
        if r.outcome in (Outcome.SURVIVED, Outcome.UNPROVEN):
            assert f"`{r.id}`" in text and f"line {m.site.start[0]}" in text
            assert f"  - {m.before}\n  + {m.after}\n" in text
        if r.outcome is Outcome.EQUIVALENT:
            kind = escape.markdown_cell(r.evidence["kind"])
            assert f"| {escape.markdown_cell(r.id)} | {m.site.start[0]} | {kind} |" in text
    assert "| compile | 4,952 items |" in text and evidence.domain("compile").split(" (")[0] in text
    assert "## Per reference module" in text and "## Per operator family" in text
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    assert "<script" not in rendered and "href=" not in rendered   # the hostile detail stays text


def test_the_html_is_offline_has_a_chart_per_module_and_escapes_everything():
    results, lookup = _results()
    page = course.to_html(results, lookup)
    modules = {lookup[r.id].site.module for r in results}
    assert page.count("<svg ") == len(modules) == 2
    assert "<script" not in page and "&lt;script&gt;" in page
    assert re.findall(r"(?:src|href)=", page) == []   # nothing fetched, nothing linked
    assert set(re.findall(r'="(https?://[^"]*)"', page)) == {"http://www.w3.org/2000/svg"}   # a namespace only
    bars = sum(page.count(f'fill="{colour}"') for _, _, colour in course.SEGMENTS)
    assert bars >= len({(lookup[r.id].site.module, lookup[r.id].site.family, report._bucket(r)) for r in results})


def test_the_stryker_report_follows_the_vendored_schema_with_evidence_and_unproven():
    results, lookup = _results()
    doc = report.to_stryker(results, lookup)
    jsonschema.Draft7Validator(STRYKER_SCHEMA).validate(doc)
    statuses = {m["id"]: m["status"] for f in doc["files"].values() for m in f["mutants"]}
    for r in results:
        expected = {Outcome.UNPROVEN: "Survived", Outcome.NOT_COVERED: "NoCoverage", Outcome.EQUIVALENT: "Ignored",
                    Outcome.SURVIVED: "Survived", Outcome.KILLED: "Killed"}[r.outcome]
        assert statuses[r.id] == expected


def test_an_empty_run_still_renders():
    assert course.to_markdown([], {}).startswith("# Mutation report")
    assert "<svg" not in course.to_html([], {})


@pytest.mark.e2e  # runs the mutants verb end to end (it starts processes)
def test_the_verb_writes_the_course_report_for_generated_mutants(monkeypatch, tmp_path):
    import io

    from harness.cli import main
    from harness.commands import mutants as verb

    results, lookup = _results()
    wanted = list(lookup)
    monkeypatch.setattr(verb, "_open_state", lambda *args: None)
    monkeypatch.setattr("harness.mutants.runner.run_all", lambda mutants, **kw: [r for r in results
                                                                               if r.id in {m.id for m in mutants}])
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    main(["mutants", "--generated", "--only", ",".join(wanted), "--no-self-check", "--every-test", "--md", str(md),
          "--html", str(page)], io.StringIO(), io.StringIO())
    assert md.read_text(encoding="utf-8") == course.to_markdown(results, lookup)
    assert page.read_text(encoding="utf-8") == course.to_html(results, lookup)


def test_an_equivalent_with_no_infection_renders_with_its_counts():
    """A "no infection" equivalent (``runner.infected_plan``) is no evidence domain of ``evidence``: the
    Markdown and HTML state it once and give each equivalent's own counts (the verb once crashed here)."""
    from harness.mutants.runner import NO_INFECTION

    results, lookup = _results()
    counts = "no infection: the mutated expression's value equals the reference's at every evaluation, in the 27"
    results[5].evidence = {"kind": NO_INFECTION, "domain": counts, "size": 27 + 309 + 5188}
    text, page = course.to_markdown(results, lookup), course.to_html(results, lookup)
    assert f"- **{NO_INFECTION}**: {escape.markdown(course.NO_INFECTION_DOMAIN, line_start=False)}" in text
    assert f"| {NO_INFECTION} | {escape.markdown_cell(counts)} |" in text
    assert escape.html(counts) in page and escape.html(course.NO_INFECTION_DOMAIN) in page
