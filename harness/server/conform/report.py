"""The reports of ``constrain-harness conform``: a terminal table, JSON and JUnit XML.

``to_report(result)`` is the adapter to ``harness.report``; the JSON and JUnit below are
its native renderers, and ``--html``, ``--csv``, ``--md`` come from there.

Table: one line per case (``PASS``/``FAIL``/``ERROR``, requests, seconds), then every
failure as rule, request and response excerpt, then the totals and the verdict::

    #  case             verdict  requests  seconds
    1  tools.call       PASS            1     0.21
    ...
    verdict: passed (exit 0)

JSON (``--json F``), format ``constrain-harness-conform`` version 1::

    {"format": "constrain-harness-conform", "format_version": 1, "base_url", "model",
     "verdict": "passed" | "failed" | "error", "exit_code": 0 | 1 | 3, "seconds",
     "cases": [{"name", "status", "requests", "seconds",
                "failures": [{"rule", "request", "excerpt"}]}]}

JUnit XML (``--junit-xml F``): ``<testsuite name="constrain-harness-conform">`` with a
``<testcase classname="conform" name=CASE>`` per case; ``failed`` is ``<failure>``,
``error`` is ``<error>``, message = the first failure's rule, text = every failure.

Everything the server chose (its model name, the excerpts of its answers, a redirect's
target) goes through ``harness.report.escape.terminal`` in the table and the failure lines
(so in JUnit's text too): an ANSI sequence, an OSC 52 clipboard write or a carriage return
from the server is shown, never obeyed; ``--md``, ``--html`` and ``--csv`` escape for their
own format.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.report.escape import terminal
from harness.report.formats import junit_xml
from harness.report.model import Report, Row
from harness.server.conform.run import ConformResult

FORMAT = "constrain-harness-conform"
FORMAT_VERSION = 1
_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}


def failure_lines(case) -> list[str]:
    lines = []
    for f in case.failures:
        lines += [f"  rule:     {terminal(f.rule)}", f"  request:  {terminal(f.request)}",
                  f"  response: {terminal(f.excerpt)}", ""]
    return lines


def render_table(result: ConformResult) -> str:
    width = max([len(c.name) for c in result.cases] + [4])
    lines = [terminal(f"constrain-harness conform: {result.base_url} (model {result.model or '?'})"), "",
             f"#  {'case':<{width}}  verdict  requests  seconds"]
    for i, case in enumerate(result.cases, 1):
        lines.append(f"{i}  {case.name:<{width}}  {_MARK[case.status]:<7}  {case.requests:>8}  {case.seconds:>7.2f}")
    shown: dict[tuple, str] = {}  # failures already printed -> the case that printed them
    for case in result.cases:
        if case.failures:
            lines += ["", f"--- {terminal(case.name)}: {_MARK[case.status]} ({len(case.failures)} failure(s))"]
            if case.failures in shown:  # e.g. every case stopped by one unreachable server
                lines.append(f"  the same as {terminal(shown[case.failures])}")
                continue
            shown[case.failures] = case.name
            lines += failure_lines(case)[:-1]
    counts = {s: sum(c.status == s for c in result.cases) for s in ("passed", "failed", "error")}
    lines += ["", f"{len(result.cases)} case(s): " + ", ".join(f"{n} {s}" for s, n in counts.items())
              + f" ({result.seconds:.1f} s)", f"verdict: {result.verdict} (exit {result.exit_code})"]
    return "\n".join(lines)


def to_json(result: ConformResult) -> dict:
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "base_url": result.base_url,
            "model": result.model, "verdict": result.verdict, "exit_code": result.exit_code,
            "seconds": round(result.seconds, 3), "cases": [c.to_json() for c in result.cases]}


def json_text(result: ConformResult) -> str:
    return json.dumps(to_json(result), indent=1) + "\n"


def write_json(result: ConformResult, path) -> None:
    Path(path).write_text(json_text(result), encoding="utf-8")


def to_junit(result: ConformResult) -> ET.Element:
    suite = ET.Element("testsuite", name=FORMAT, tests=str(len(result.cases)),
                       failures=str(sum(c.status == "failed" for c in result.cases)),
                       errors=str(sum(c.status == "error" for c in result.cases)), time=f"{result.seconds:.3f}")
    for case in result.cases:
        element = ET.SubElement(suite, "testcase", classname="conform", name=case.name, time=f"{case.seconds:.3f}")
        if case.status != "passed":
            tag = "failure" if case.status == "failed" else "error"
            ET.SubElement(element, tag, message=terminal(case.failures[0].rule), type=case.status).text = \
                "\n".join(failure_lines(case))
    return suite


def junit_bytes(result: ConformResult) -> bytes:
    return junit_xml.document(to_junit(result))


def write_junit(result: ConformResult, path) -> None:
    Path(path).write_bytes(junit_bytes(result))


def to_report(result: ConformResult) -> Report:
    """``result`` as ``harness.report``'s model (kind ``tests``): a row per case, the
    JSON and JUnit above as the native renderers (``--html``, ``--csv``, ``--md``
    are the generic ones)."""
    rows = tuple(Row(case.name, case.status, case.status, terminal(case.failures[0].rule) if case.failures else "",
                     "\n".join(failure_lines(case)), case.seconds, "conform") for case in result.cases)
    return Report("conform", terminal(f"constrain-harness conform: {result.base_url} (model {result.model or '?'})"),
                  frozenset({"tests"}), rows, result.verdict, result.exit_code, result.seconds,
                  terminal=render_table(result),
                  native={"json": lambda: json_text(result), "junit": lambda: junit_bytes(result)})
