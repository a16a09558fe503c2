"""The common model every verb's report is turned into: rows with a status, a verdict, timings.

A verb keeps its own result type (``CheckResult``, ``ConformResult``, mutant results,
``Graded``, batch records, golden replay reports); its report module has one adapter,
``to_report(result) -> Report``, and from there every format module of
``harness.report`` can render it. Where a verb already had a format whose shape is
pinned (check's JSON version 1, Stryker schema version 2, JUnit as written before, the
Gradescope results schema), the adapter hands the format its own renderer in
``Report.native`` and the bytes written stay what they were.

Guarantees:

- ``Row.status`` is one of ``STATUSES`` (passed, failed, error, skipped), the four words
  every format understands (JUnit: ok, ``<failure>``, ``<error>``, ``<skipped>``); the
  verb's own word (``crashed``, ``killed``, ``not run``) is kept in ``Row.outcome``;
- ``Report.kinds`` says which shapes of format apply (``KINDS``): ``tests`` (rows are
  tests or cases), ``graded`` (a score a course can upload), ``mutants`` (rows are
  mutants: Stryker), ``class`` (rows are students of a batch);
- a ``Report`` is plain data: rendering it never runs the candidate again.

Example::

    >>> report = Report("conform", "conform: http://x/v1", frozenset({"tests"}),
    ...                 (Row("tools.call", "passed", seconds=0.2),), "passed", 0, 0.2)
    >>> report.counts()
    {'passed': 1, 'failed': 0, 'error': 0, 'skipped': 0}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["STATUSES", "KINDS", "Row", "Report", "Format"]

STATUSES = ("passed", "failed", "error", "skipped")
KINDS = frozenset({"tests", "graded", "mutants", "class"})


@dataclass(frozen=True)
class Row:
    """One test, case, mutant or student. ``message`` is one line (why it did not
    pass), ``detail`` any number of lines (the counterexample); ``group`` is JUnit's
    classname (the verb's name when empty)."""

    id: str
    status: str
    outcome: str = ""
    message: str = ""
    detail: str = ""
    seconds: float = 0.0
    group: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Row {self.id!r}: status must be one of {STATUSES}, not {self.status!r}")
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"Row: id must be a non-empty string, not {self.id!r}")


@dataclass(frozen=True)
class Report:
    """What every verb produces (module docstring). ``native`` maps a format name to
    the verb's own renderer for it (returning the file's text or bytes); ``terminal``
    is the text the verb prints; ``summary`` is extra plain data for the generic JSON."""

    verb: str
    title: str
    kinds: frozenset[str]
    rows: tuple[Row, ...]
    verdict: str
    exit_code: int
    seconds: float
    terminal: str = ""
    native: Mapping[str, Callable[[], str | bytes]] = field(default_factory=dict)
    summary: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - KINDS
        if unknown or not self.kinds:
            raise ValueError(f"Report {self.verb}: kinds must be a non-empty subset of {sorted(KINDS)}, "
                             f"not {sorted(self.kinds)}")

    def counts(self) -> dict[str, int]:
        """How many rows have each status (every status present, in ``STATUSES`` order)."""
        counts = dict.fromkeys(STATUSES, 0)
        for row in self.rows:
            counts[row.status] += 1
        return counts


@dataclass(frozen=True)
class Format:
    """One report format: its name, its command-line option, the report kinds it applies
    to, and ``generic`` (render any such ``Report``). ``render`` prefers the verb's own
    renderer (``Report.native[name]``) and always returns the bytes to write."""

    name: str
    option: str
    help: str
    kinds: frozenset[str]
    generic: Callable[[Report], str | bytes]

    @property
    def dest(self) -> str:
        """The ``argparse`` attribute of the option (``--junit-xml`` -> ``junit_xml``)."""
        return self.option.removeprefix("--").replace("-", "_")

    def applies(self, kinds) -> bool:
        return bool(self.kinds & frozenset(kinds))

    def render(self, report: Report) -> bytes:
        if not self.applies(report.kinds):
            raise ValueError(f"the {self.name} format does not apply to a {report.verb} report "
                             f"(kinds {sorted(report.kinds)}; it needs one of {sorted(self.kinds)})")
        text = report.native[self.name]() if self.name in report.native else self.generic(report)
        return text.encode("utf-8") if isinstance(text, str) else text
