"""``--junit-xml F``: JUnit XML as pytest writes it, for CI dashboards.

``<testsuites><testsuite name="constrain-harness-VERB" tests failures errors skipped
time>`` with a ``<testcase classname=GROUP name=ID time>`` per row: a failed row holds
``<failure message type>``, an error row ``<error message type>`` (type = the verb's
own outcome, e.g. ``crashed``), a skipped row ``<skipped message>``; the text is the
row's detail. check and conform keep their own layout (``Report.native``). Every string
goes through ``harness.report.escape.terminal`` (newlines kept in the text): a control
character is not allowed in XML 1.0, and an ANSI sequence would reach a CI log.

Example::

    >>> ET.fromstring(FORMAT.render(report)).find("testsuite").get("failures")
    '1'
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from harness.report.escape import terminal
from harness.report.model import Format, Report


def to_element(report: Report) -> ET.Element:
    counts = report.counts()
    suite = ET.Element("testsuite", name=f"constrain-harness-{report.verb}", tests=str(len(report.rows)),
                       failures=str(counts["failed"]), errors=str(counts["error"]),
                       skipped=str(counts["skipped"]), time=f"{report.seconds:.3f}")
    if report.summary.get("confinement"):  # where the candidate ran (UNCONFINED under --unconfined)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="confinement", value=str(report.summary["confinement"]))
    for row in report.rows:
        case = ET.SubElement(suite, "testcase", classname=terminal(row.group or report.verb), name=terminal(row.id),
                             time=f"{row.seconds:.3f}")
        if row.status in ("failed", "error"):
            tag = "failure" if row.status == "failed" else "error"
            ET.SubElement(case, tag, message=terminal(row.message),
                          type=terminal(row.outcome or row.status)).text = terminal(row.detail, keep_newlines=True)
        elif row.status == "skipped":
            ET.SubElement(case, "skipped", message=terminal(row.message))
    return suite


def document(suite: ET.Element) -> bytes:
    """``<testsuites>`` around ``suite``, indented, with the XML declaration (UTF-8)."""
    tree = ET.ElementTree(ET.Element("testsuites"))
    tree.getroot().append(suite)
    ET.indent(tree)
    return ET.tostring(tree.getroot(), encoding="utf-8", xml_declaration=True)


def render(report: Report) -> bytes:
    return document(to_element(report))


FORMAT = Format("junit", "--junit-xml", "write JUnit XML to F", frozenset({"tests", "mutants"}), render)
