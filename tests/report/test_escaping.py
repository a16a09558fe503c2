"""Every output escaped for its format (issue 50 item 5): hostile text through every writer.

The attacks of the issue, as a student (a name, an exception message, a roster cell) or a
server under test (a model name, an answer) would write them: raw HTML (``<img onerror>``,
``<script>``), Markdown links (``[regrade form](https://...)``), bare URLs, formula
prefixes with their fullwidth forms, invisible leading characters, ANSI and OSC 52
sequences, C1 controls. Each goes through the class Markdown, CSV, HTML and terminal
reports, the gradebooks, the generic report formats (grade-tests' Markdown is the generic
one) and conform's table and reports. The Markdown is judged by a CommonMark renderer
(markdown-it-py, HTML enabled), not by our own escaper: no element of the attacker's
appears in the HTML, and the text a reader sees is the attacker's text, character for
character. conform against a server that redirects to another origin: the redirect is not
followed (the other origin is never asked) and is a finding.
"""

from __future__ import annotations

import csv
import html
import io
import re
import unicodedata
from pathlib import Path

import pytest

from harness.grading.batch import report
from harness.grading.batch.course import Course
from harness.grading.batch.gradebook import canvas_csv, plain_csv
from harness.grading.batch.roster import Person, Roster
from harness.report import escape
from harness.report.formats import csv_table, html_page, markdown
from harness.report.model import Report, Row

HTML_ATTACKS = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<a href='https://evil.example'>x</a>",
                "<!-- hidden -->", "<details open>x</details>"]
LINK_ATTACKS = ["[regrade form](https://evil.example/form)", "![pixel](https://evil.example/p.png)",
                "<https://evil.example/auto>", "see https://evil.example/bare", "www.evil.example",
                "mail ta@evil.example", "[ref]: https://evil.example", "[x][ref]"]
MARKUP_ATTACKS = ["`code` **bold** _it_", "| a | b |", "# heading", "> quote", "- item", "1. item", "a\\*b",
                  "&lt;script&gt;"]
TERMINAL_ATTACKS = ["\x1b[32mPASS\x1b[0m", "ok\rFAIL", "back\x08\x08", "bell\x07", "\x1b]52;c;ZXZpbA==\x07",
                    "\x9b31mC1", "\u202eevil\u202c", "nul\x00", "del\x7f", "\x1bP+q\x1b\\"]
FORMULA_ATTACKS = ['=HYPERLINK("https://evil.example","x")', "+1+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1",
                   "\uff1d1+1", "\uff0b1", "\uff0d1", "\uff20SUM(1)", "\ufe66 1", "\u22121",
                   "\u200b=1+1", "\ufeff=1", "\u202a=1", "\u2066=1", " =1", "\u00a0=1"]
ALL = HTML_ATTACKS + LINK_ATTACKS + MARKUP_ATTACKS + TERMINAL_ATTACKS + FORMULA_ATTACKS


def render_markdown(text: str) -> str:
    """CommonMark (with raw HTML allowed, and tables) as a renderer would show it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


def visible_text(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def no_attacker_markup(rendered: str, allowed: frozenset[str] = frozenset()) -> None:
    tags = {m.lower() for m in re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", rendered)}
    assert not (tags & {"img", "script", "a", "iframe"}) - allowed, rendered
    assert "<!--" not in rendered, rendered


def outside_fences(markdown_text: str) -> str:
    """The Markdown outside fenced code blocks (inside one, nothing is a link)."""
    out, fence = [], None
    for line in markdown_text.splitlines():
        opening = re.match(r"^(`{3,})", line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.startswith(fence):
            fence = None
        elif fence is None:
            out.append(line)
    return "\n".join(out)


def no_autolink(markdown_text: str) -> None:
    """GitHub's autolinker finds ``scheme://``, ``www.`` and ``x@y`` in a text run; each is split."""
    markdown_text = outside_fences(markdown_text)
    assert not re.search(r"https?://", markdown_text), markdown_text
    assert not re.search(r"(?<!\\)www\.", markdown_text), markdown_text
    assert not re.search(r"(?<!\\)@", markdown_text), markdown_text


def no_control(text: str, keep: str = "\n") -> None:
    bad = [c for c in text if c not in keep and unicodedata.category(c) in escape.INVISIBLE_CATEGORIES]
    assert not bad, (bad, text)


# --------------------------------------------------------------------------- the escaping functions


@pytest.mark.parametrize("text", ALL)
def test_markdown_escaping_renders_the_text_and_no_markup(text):
    line = escape.markdown(text)
    rendered = render_markdown(line)
    no_attacker_markup(rendered)
    no_autolink(line)
    assert rendered.count("<p>") <= 1 and not re.search(r"<(h\d|blockquote|ul|ol|code|em|strong|table)", rendered)
    assert visible_text(rendered).strip() == escape.terminal(" ".join(text.split()))


@pytest.mark.parametrize("text", ALL)
def test_a_markdown_table_cell_stays_one_cell(text):
    table = "| a | b |\n|---|---|\n| " + escape.markdown_cell(text) + " | end |\n"
    rendered = render_markdown(table)
    assert rendered.count("<td>") == 2 and "<td>end</td>" in rendered, rendered
    no_attacker_markup(rendered)


@pytest.mark.parametrize("text", ALL + ["````\n<script>x</script>\n```"])
def test_a_fenced_block_holds_everything_as_text(text):
    rendered = render_markdown("\n".join(escape.markdown_block(text)) + "\n")
    assert rendered.startswith("<pre><code>") and rendered.count("<pre>") == 1, rendered
    no_attacker_markup(rendered)


@pytest.mark.parametrize("code", list(range(0x00, 0x20)) + [0x7F] + list(range(0x80, 0xA0))
                         + [0x200B, 0x200E, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF, 0x2028, 0x2029])
def test_terminal_escaping_shows_every_control_and_format_character(code):
    shown = escape.terminal(f"a{chr(code)}b")
    no_control(shown, keep="")
    assert shown.startswith("a\\") and shown.endswith("b")
    assert escape.terminal(shown) == shown   # nothing left to escape


@pytest.mark.parametrize("text", FORMULA_ATTACKS)
def test_a_spreadsheet_cell_never_starts_a_formula_or_with_an_invisible_character(text):
    cell = escape.spreadsheet(text)
    assert cell.startswith("'"), cell
    no_control(cell)
    out = io.StringIO(newline="")
    csv.writer(out).writerow([cell])
    assert next(csv.reader(io.StringIO(out.getvalue(), newline=""))) == [cell]   # CSV quoting round-trips


@pytest.mark.parametrize("text", ["Ada Lovelace", "Zoë Ðorđević", "李雷", "12.5", "", "a-b", "x=1"])
def test_ordinary_cells_are_kept_as_they_are(text):
    assert escape.spreadsheet(text) == text


def test_html_escaping_leaves_no_markup_and_no_control():
    for text in ALL:
        out = escape.html(text)
        assert "<" not in out and ">" not in out and '"' not in out and "'" not in out
        no_control(out)


# --------------------------------------------------------------------------- the writers


def hostile_record(i: int, text: str) -> dict:
    """A batch record (``harness.grading.batch.records``' shape) whose every student-controlled
    string is ``text``: what a submission's exception message, output and roster name can be."""
    return {"student": escape.terminal(f"s{i} {text}").replace("\n", "\\n"), "verdict": "failed", "passed": 15,
            "total": 16, "failed_tests": ["test_hand_example"],
            "statuses": {"test_hand_example": "failed"},
            "tests": [{"name": "test_hand_example", "status": "failed", "reason": f"raised ValueError: {text}",
                       "details": f"E   ValueError: {text}", "pitfalls": ""}],
            "load": {"status": "ok", "reason": "", "problems": [], "notes": []},
            "notes": [f"printed: {text}"], "decisions": [], "decision_count": 0, "problem": "",
            "module": "constrain.py", "seconds": 1.0, "cpu_seconds": 1.0, "fingerprint": "x", "record_version": 2,
            "name": text, "sid": text, "email": text, "late": f"late by 1 d {text}", "similar": f"identical to {text}"}


@pytest.fixture(scope="module")
def class_doc():
    records = [hostile_record(i, text) for i, text in enumerate(ALL)]
    doc = report.to_json(records, Path("/tmp/class"), {}, [], "full")
    return records, doc


def test_the_class_markdown_report_holds_no_markup_of_a_student(class_doc):
    _records, doc = class_doc
    text = report.to_markdown(doc)
    rendered = render_markdown(text)
    no_attacker_markup(rendered)
    no_autolink(text)
    no_control(text)


def test_the_class_html_report_holds_no_markup_of_a_student(class_doc):
    _records, doc = class_doc
    page = report.to_html(doc)
    for attack in HTML_ATTACKS:
        assert attack not in page
    no_attacker_markup(page)
    no_control(page)


def test_the_class_csv_has_no_formula_and_no_control(class_doc):
    records, _doc = class_doc
    for row in csv.reader(io.StringIO(report.csv_text(records, "full"), newline="")):
        for cell in row:
            assert not cell[:1] or not (cell[0] in escape.FORMULA_STARTS or cell[0].isspace()
                                        or unicodedata.category(cell[0]) in escape.INVISIBLE_CATEGORIES), cell
            no_control(cell)


def test_the_class_terminal_table_holds_no_control_character(class_doc):
    records, _doc = class_doc
    table = report.summary_table(records, "full")
    no_control(table)


def test_every_feedback_file_holds_no_markup_of_a_student(class_doc, tmp_path):
    from harness.grading.batch import feedback

    records, _doc = class_doc
    for hints in ("none", "pitfall", "full"):
        for path in feedback.write_all(records, tmp_path / hints, hints):
            text = path.read_text(encoding="utf-8")
            no_attacker_markup(render_markdown(text), allowed=frozenset({"details", "summary"}))
            no_autolink(text)
            no_control(text)


def roster_course(names: list[str]) -> Course:
    people = tuple(Person(name=n, sid=n, email=n, section=n, canvas_id=str(i), login=n) for i, n in enumerate(names))
    return Course(roster=Roster(people))


@pytest.mark.parametrize("render", ["plain", "canvas"])
def test_the_gradebooks_have_no_formula_and_no_invisible_leading_character(render):
    course = roster_course(ALL)   # nobody submitted: every roster row is written with its cells
    rows = course.gradebook_rows([])
    text = plain_csv(rows, 16) if render == "plain" else canvas_csv(rows, "L8.7", "", 16)
    cells = [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]
    assert len(cells) > len(ALL)
    for cell in cells:
        assert not cell[:1] or not (cell[0] in escape.FORMULA_STARTS or cell[0].isspace()
                                    or unicodedata.category(cell[0]) in escape.INVISIBLE_CATEGORIES), repr(cell)
        no_control(cell)
    for attack in FORMULA_ATTACKS:   # each attack is there, defused, not lost
        assert any(cell == escape.spreadsheet(attack) for cell in cells), attack


def generic_report() -> Report:
    """A report as grade-tests and every generic verb hands the formats (a row per chaff)."""
    rows = tuple(Row(f"chaff_{i}: {text}", "failed", "survived", f"your suite passed it: {text}", f"detail {text}", 0.1)
                 for i, text in enumerate(ALL))
    return Report("grade-tests", "grade-tests <script>x</script>", frozenset({"tests", "graded", "mutants"}), rows,
                  "failed", 1, 1.0)


def test_the_generic_markdown_report_grade_tests_writes_holds_no_markup():
    text = markdown.FORMAT.render(generic_report()).decode()
    rendered = render_markdown(text)
    no_attacker_markup(rendered)
    no_autolink(text)
    no_control(text)
    assert rendered.count("<tr>") == len(ALL) + 1   # one row each: no cell broke out


def test_the_generic_html_and_csv_reports_hold_no_markup_and_no_formula():
    page = html_page.FORMAT.render(generic_report()).decode()
    no_attacker_markup(page)
    no_control(page)
    for row in csv.reader(io.StringIO(csv_table.FORMAT.render(generic_report()).decode(), newline="")):
        for cell in row:
            assert not cell[:1] or cell[0] not in escape.FORMULA_STARTS, cell
            no_control(cell)


def test_the_generic_junit_report_is_valid_xml_without_control_characters():
    import xml.etree.ElementTree as ET

    from harness.report.formats import junit_xml

    data = junit_xml.FORMAT.render(generic_report())
    root = ET.fromstring(data)   # a control character would make it invalid XML 1.0
    texts = [v for el in root.iter() for v in [el.text or "", *el.attrib.values()]]
    assert all(not [c for c in t if c != "\n" and unicodedata.category(c) in escape.INVISIBLE_CATEGORIES]
               for t in texts)
    assert len(root.findall(".//testcase")) == len(ALL)
