"""The table of report formats, the options it gives each verb, and the writing of files.

``FORMATS`` is the one list of formats; ``add_options(parser, kinds)`` adds ``--json F``,
``--junit-xml F``, ``--gradescope F``, ``--stryker F``, ``--html F``, ``--csv F``,
``--md F`` for every format that applies to a report of those kinds (each checked
by ``harness.argtypes.output_file``: a bad path is a usage error before any work);
``write_reports(paths, report, stderr)`` writes every file asked for (a format's name -> its
path, which a verb reads from its command line with ``harness.commands.args.requested_reports``)
and says which it could not write. Adding a format: one module in ``harness.report.formats`` and its line
below; no verb changes.

Example::

    >>> parser = argparse.ArgumentParser(); add_options(parser, {"tests"})
    >>> [f.option for f in formats_for({"tests"})]
    ['--json', '--junit-xml', '--html', '--csv', '--md']
    >>> write_reports({"json": Path("r.json")}, report, sys.stderr)
    True
"""

from __future__ import annotations

from pathlib import Path

from harness.report.formats import csv_table, gradescope, html_page, json_doc, junit_xml, markdown, stryker
from harness.report.model import Format, Report

__all__ = ["FORMATS", "BY_NAME", "formats_for", "add_options", "write_reports", "write_file"]

FORMATS: tuple[Format, ...] = (
    json_doc.FORMAT,
    junit_xml.FORMAT,
    gradescope.FORMAT,
    stryker.FORMAT,
    html_page.FORMAT,
    csv_table.FORMAT,
    markdown.FORMAT,
)
BY_NAME = {f.name: f for f in FORMATS}


def formats_for(kinds) -> list[Format]:
    """The formats that apply to a report of ``kinds``, in ``FORMATS`` order."""
    return [f for f in FORMATS if f.applies(kinds)]


def add_options(parser, kinds, *, checked: bool = True) -> None:
    """One ``--OPTION F`` per format of ``formats_for(kinds)``; ``checked``: argparse
    refuses a path ``output_file`` refuses (else the verb checks them itself)."""
    from harness.argtypes import output_file

    for fmt in formats_for(kinds):
        parser.add_argument(fmt.option, metavar="F", dest=fmt.dest, type=output_file if checked else str,
                            default=None, help=fmt.help)


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (tests replace this to simulate a full disk)."""
    with open(path, "wb") as f:
        f.write(data)


def write_reports(paths: dict[str, Path], report: Report, stderr, *, prefix: str = "", announce=None) -> bool:
    """Write every report asked for: ``paths`` maps a format's name to its file (a verb reads them from
    its command line with ``harness.commands.args.requested_reports``); False when one could not be
    written (the reason is printed on ``stderr``, after ``prefix``). ``announce``, if given, is a
    stream told ``wrote PATH`` for each file written."""
    ok = True
    for name, path in paths.items():
        try:
            write_file(path, BY_NAME[name].render(report))
        except OSError as exc:
            print(f"{prefix}cannot write {path}: {exc.strerror or exc}", file=stderr)
            ok = False
            continue
        if announce is not None:
            print(f"wrote {path}", file=announce)
    return ok
