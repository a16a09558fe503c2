"""The one report interface (``harness/report``): every verb's options come from the
registry, a new format is one module, the files written before keep their bytes, and a
format a verb gains is checked against the format's own rules (XML parsed with the
expected counts, jsonschema for Gradescope and Stryker, csv/html parsers).

Hand-built results only: no candidate runs here.
"""

from __future__ import annotations

import argparse
import csv
import html.parser
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from harness.cli import build_parser
from harness.commands.args import requested_reports, write_requested
from harness.grading.autograder import gradescope as gradescope_schema
from harness.mutants import report as mutant_report
from harness.mutants.runner import Outcome
from harness.report import registry
from harness.report.formats import csv_table, markdown
from harness.report.model import KINDS, Format, Report, Row
from harness.server.conform.run import ConformResult
from harness.server.conform.verdict import CaseResult, Failure
from tests.grading.test_check_reports import CRASHED, make_result
from tests.mutants.test_mutants import STRYKER_SCHEMA, _fake_results

# verb (as the parser spells it) -> the report kinds its adapter declares
VERB_KINDS = {("check",): {"tests", "graded", "class"}, ("conform",): {"tests"}, ("mutants",): {"mutants"},
              ("compare",): {"tests"},
              ("grade-tests",): {"mutants", "graded"}, ("golden", "replay"): {"tests"}}


def _options(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> set[str]:
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return {o for a in parser._actions for o in a.option_strings}


ALL_OPTIONS = {f.option for f in registry.FORMATS}


@pytest.mark.parametrize("path, kinds", VERB_KINDS.items(), ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_every_verb_offers_exactly_the_formats_of_its_kinds(path, kinds):
    offered = _options(build_parser(), path) & ALL_OPTIONS
    assert offered == {f.option for f in registry.formats_for(kinds)}
    assert "--json" in offered and "--md" in offered


def test_a_new_format_is_one_module_and_one_line(monkeypatch):
    """Register a format (here built inline, as its module would) and every verb whose
    kinds it applies to offers it, with no change to any verb."""
    tsv = Format("tsv", "--tsv", "write TSV to F", KINDS,
                 lambda report: "".join(f"{row.id}\t{row.status}\n" for row in report.rows))
    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, tsv))
    monkeypatch.setattr(registry, "BY_NAME", {**registry.BY_NAME, "tsv": tsv})
    parser = build_parser()
    assert all("--tsv" in _options(parser, path) for path in VERB_KINDS)
    args = parser.parse_args(["check", "--tsv", "/dev/null"])
    assert requested_reports(args) == {"tsv": Path("/dev/null")}


def test_a_format_refuses_a_report_it_does_not_apply_to():
    report = mutant_report.to_report(_fake_results())
    with pytest.raises(ValueError, match="gradescope format does not apply to a mutants report"):
        registry.BY_NAME["gradescope"].render(report)
    with pytest.raises(ValueError, match="status must be one of"):
        Row("x", "crashed")
    with pytest.raises(ValueError, match="kinds must be"):
        Report("v", "t", frozenset({"nonsense"}), (), "passed", 0, 0.0)


# --- byte for byte: the files verbs wrote before ------------------------------------------------


def _junit_as_before(suite: ET.Element) -> bytes:
    """How check and conform wrote JUnit before the registry (pytest's layout)."""
    tree = ET.ElementTree(ET.Element("testsuites"))
    tree.getroot().append(suite)
    ET.indent(tree)
    out = io.BytesIO()
    tree.write(out, encoding="utf-8", xml_declaration=True)
    return out.getvalue()


def test_check_writes_the_same_bytes_through_the_registry():
    from harness.grading import report as reports

    result = make_result(CRASHED)
    report = reports.to_report(result)
    render = {name: registry.BY_NAME[name].render(report) for name in ("json", "junit", "gradescope")}
    assert render["json"] == (json.dumps(reports.to_json(result), indent=1, sort_keys=True, default=str)
                              + "\n").encode()
    assert render["junit"] == _junit_as_before(reports.to_junit(result))
    assert render["gradescope"] == (json.dumps(reports.to_gradescope(result), indent=1) + "\n").encode()


def _conform_result() -> ConformResult:
    failure = Failure("a tool call's arguments parse as JSON", "POST /chat/completions", '{"a": <b>')
    cases = (CaseResult("tools.call", "passed", (), 1, 0.2), CaseResult("tools.stream", "failed", (failure,), 2, 0.5),
             CaseResult("tools.errors", "error", (failure,), 1, 0.1))
    return ConformResult("http://127.0.0.1:9/v1", "m", cases, 0.8)


def test_conform_writes_the_same_bytes_and_gains_html_csv_markdown():
    from harness.server.conform import report as conform_report

    result = _conform_result()
    report = conform_report.to_report(result)
    assert registry.BY_NAME["junit"].render(report) == _junit_as_before(conform_report.to_junit(result))
    assert registry.BY_NAME["json"].render(report) == (json.dumps(conform_report.to_json(result), indent=1)
                                                       + "\n").encode()
    lines = list(csv.reader(io.StringIO(registry.BY_NAME["csv"].render(report).decode())))
    assert lines[0] == list(csv_table.FIELDS) and [x[:2] for x in lines[1:]] == [
        ["tools.call", "passed"], ["tools.stream", "failed"], ["tools.errors", "error"]]


# --- formats a verb gains, checked against the format's rules ------------------------------------


def _junit_counts(data: bytes) -> dict:
    suite = ET.fromstring(data).find("testsuite")
    cases = suite.findall("testcase")
    return {"tests": int(suite.get("tests")), "failures": int(suite.get("failures")),
            "errors": int(suite.get("errors")), "skipped": int(suite.get("skipped")), "cases": len(cases),
            "failure_tags": sum(c.find("failure") is not None for c in cases),
            "error_tags": sum(c.find("error") is not None for c in cases)}


def test_mutants_gain_junit_with_a_failure_per_survivor():
    results = _fake_results()
    results[1].outcome, results[2].outcome = Outcome.EQUIVALENT, Outcome.ERROR
    counts = _junit_counts(registry.BY_NAME["junit"].render(mutant_report.to_report(results)))
    survived = sum(r.outcome is Outcome.SURVIVED for r in results)
    assert counts == {"tests": len(results), "failures": survived, "errors": 1, "skipped": 1,
                      "cases": len(results), "failure_tags": survived, "error_tags": 1}


def _graded(tmp_path):
    from harness.grading.gradetests.grade import Graded, GradeOptions
    from harness.grading.gradetests.scoring import Grade
    from harness.grading.gradetests.suite_run import RunResult

    tests = ["test_a", "test_b"]
    matrix = {"s01": {"test_a": "failed", "test_b": "passed"}, "s02": {"test_a": "passed", "test_b": "passed"},
              "s03": {"test_a": "not run", "test_b": "not run"}, "s05": {"test_a": "passed", "test_b": "passed"}}
    verdicts = {"s01": "completed", "s02": "completed", "s03": "skipped", "s05": "load error"}
    runs = {c: RunResult(c, "chaff", v, detail=f"detail of {c}", seconds=1.5) for c, v in verdicts.items()}
    grade = Grade(tests, tests, [], {}, matrix, {"s01": ["test_a"]}, verdicts, {}, runs)
    return Graded(grade, GradeOptions(suite=tmp_path), 1, "m", "bubblewrap", "bubblewrap", 9.0, ["reference"],
                  list(matrix))


def test_grade_tests_gains_junit_and_keeps_its_stryker_and_gradescope(tmp_path):
    from harness.grading.gradetests import report as reports

    report = reports.to_report(_graded(tmp_path), "pitfall")
    counts = _junit_counts(registry.BY_NAME["junit"].render(report))
    assert counts == {"tests": 4, "failures": 1, "errors": 1, "skipped": 1, "cases": 4, "failure_tags": 1,
                      "error_tags": 1}
    stryker = json.loads(registry.BY_NAME["stryker"].render(report))
    jsonschema.validate(stryker, STRYKER_SCHEMA)
    assert stryker == reports.to_stryker(_graded(tmp_path))
    gradescope = json.loads(registry.BY_NAME["gradescope"].render(report))
    assert gradescope == reports.to_gradescope(_graded(tmp_path), "pitfall")


def test_compare_gains_junit_with_a_failure_per_peer_with_an_unexplained_difference():
    from collections import Counter

    from harness.commands.compare import to_report
    from harness.peers.compare import PeerResult, dumps, report_json, report_markdown

    results = [PeerResult("llguidance", "1.0", 10, 8, counts=Counter({"whitespace": 2})),
               PeerResult("interegular", "0.3", 10, 7, counts=Counter({"unexplained": 1, "leftmost-first": 2}))]
    missing, meta = {"xgrammar": "not installed"}, {"cases": 10, "fixed": 4, "generated": 6, "seed": 0}
    report = to_report(results, missing, meta)
    assert _junit_counts(registry.BY_NAME["junit"].render(report)) == {
        "tests": 3, "failures": 1, "errors": 0, "skipped": 1, "cases": 3, "failure_tags": 1, "error_tags": 0}
    assert registry.BY_NAME["markdown"].render(report) == report_markdown(results, missing, meta).encode()
    assert registry.BY_NAME["json"].render(report) == dumps(report_json(results, missing, meta)).encode()


def _generic_report() -> Report:
    rows = (Row("test_one", "passed", seconds=0.1), Row("test_two", "failed", "failed", "a | b", "line 1\nline 2"),
            Row("=HYPERLINK(\"x\")", "error", "crashed", "<script>alert(1)</script>"),
            Row("test_four", "skipped", message="not applicable"))
    return Report("demo", "demo <report>", KINDS, rows, "failed", 1, 1.5)


def test_generic_gradescope_follows_gradescopes_schema():
    doc = json.loads(registry.BY_NAME["gradescope"].render(_generic_report()))
    gradescope_schema.validate(doc)
    assert doc["score"] == 2.0 and sum(t["max_score"] for t in doc["tests"]) == 4.0
    assert [t["status"] for t in doc["tests"]] == ["passed", "failed", "failed", "passed"]


def test_generic_stryker_follows_the_mutation_testing_schema():
    doc = json.loads(registry.BY_NAME["stryker"].render(_generic_report()))
    jsonschema.validate(doc, STRYKER_SCHEMA)
    statuses = [m["status"] for f in doc["files"].values() for m in f["mutants"]]
    assert statuses == ["Killed", "Survived", "RuntimeError", "Ignored"]


def test_generic_junit_json_csv_markdown_html_carry_every_row_safely():
    report = _generic_report()
    assert _junit_counts(registry.BY_NAME["junit"].render(report)) == {
        "tests": 4, "failures": 1, "errors": 1, "skipped": 1, "cases": 4, "failure_tags": 1, "error_tags": 1}
    doc = json.loads(registry.BY_NAME["json"].render(report))
    assert doc["counts"] == {"passed": 1, "failed": 1, "error": 1, "skipped": 1} and len(doc["rows"]) == 4
    cells = list(csv.reader(io.StringIO(registry.BY_NAME["csv"].render(report).decode())))
    assert len(cells) == 5 and cells[3][0].startswith("'=")  # never a spreadsheet formula
    table = [line for line in registry.BY_NAME["markdown"].render(report).decode().splitlines()
             if line.startswith("| ") and not line.startswith("| #")]
    assert len(table) == 4 and all(line.count(" | ") == 4 for line in table)  # '|' in a message is escaped
    assert table[1] == r"| 2 | test_two | FAIL | 0.00 | a \| b |" and markdown.MARK["error"] in table[2]
    page = registry.BY_NAME["html"].render(report).decode()
    assert "<script>" not in page and "&lt;script&gt;" in page
    parser = _Cells()
    parser.feed(page)
    assert parser.rows == 5  # the head and one per row


class _Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = 0

    def handle_starttag(self, tag, attrs):
        self.rows += tag == "tr"


def test_a_report_that_cannot_be_written_is_said_and_returns_false(tmp_path, monkeypatch):
    parser = argparse.ArgumentParser()
    registry.add_options(parser, {"tests"})
    args = parser.parse_args(["--json", str(tmp_path / "r.json"), "--md", str(tmp_path / "r.md")])

    def refuse(path, data):
        if path.suffix == ".md":
            raise OSError(28, "No space left on device")
        path.write_bytes(data)
    monkeypatch.setattr(registry, "write_file", refuse)
    err, told = io.StringIO(), io.StringIO()
    assert write_requested(args, _generic_report(), err, prefix="demo: ", announce=told) is False
    assert err.getvalue() == f"demo: cannot write {tmp_path / 'r.md'}: No space left on device\n"
    assert told.getvalue() == f"wrote {tmp_path / 'r.json'}\n" and (tmp_path / "r.json").exists()


def test_the_progress_bar_is_bounded_whatever_it_is_told():
    from harness.report.progress import bar

    assert bar(3, 12, 8) == "[##......]" and bar(12, 12, 8) == "[########]"
    assert bar(0, 0, 4) == "[....]" and bar(9, 3, 4, " ") == "[####]" and bar(-1, 3, 4) == "[....]"


def test_batch_keeps_its_class_files_and_gains_markdown():
    from harness.grading.batch import report as reports

    def student(name, verdict, failed=(), problem=""):
        return {"student": name, "verdict": verdict, "passed": 16 - len(failed), "total": 16,
                "failed_tests": list(failed), "statuses": {t: "failed" for t in failed}, "notes": [],
                "problem": problem, "seconds": 2.0}
    records = [student("alice", "passed"), student("bob", "failed", ["test_vocab_bytes"]),
               student("=carol", "no module", problem="no constrain.py")]
    doc = reports.to_json(records, Path("/class"), {}, [])
    report = reports.to_report(records, doc)
    assert registry.BY_NAME["csv"].render(report).decode() == reports.csv_text(records)
    assert registry.BY_NAME["json"].render(report) == (json.dumps(doc, indent=1) + "\n").encode()
    assert registry.BY_NAME["html"].render(report).decode() == reports.to_html(doc)
    rows = [line for line in registry.BY_NAME["markdown"].render(report).decode().splitlines()
            if line.startswith("| ") and not line.startswith("| #")]
    assert [r.split(" | ")[2] for r in rows] == ["PASS", "FAIL", "ERROR (no module)"]
    assert not registry.BY_NAME["junit"].applies(report.kinds)  # check --batch refuses --junit-xml
