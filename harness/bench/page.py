"""The dated performance page (``docs/performance.md``), written from a bench run.

``constrain-harness bench NAMES --page docs/performance.md`` adds one section to the page, newest
first: the date and time (UTC), the benchmarks run, the machine, its load before and after, and
the run's closing table as Markdown (median, runs, ratio against the peer measured in the same
run, target). Earlier sections stay below it, so the page is a dated record that only bench
output writes; nothing else on it is a figure.

Example::

    >>> page = section("2026-12-06 07:00 UTC", ["check"], "machine: x86_64", "0.5", "0.7",
    ...                [("check (reference)", "16 catalogue tests", "2.39 s", 3, "", "<= 2.5 s")])
    >>> print(page.splitlines()[0])
    ## 2026-12-06 07:00 UTC: bench check
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["HEAD", "section", "add_section"]

HEAD = """# Performance

Each section below is one run of `constrain-harness bench NAMES --page docs/performance.md`,
newest first: medians over the runs counted, and each ratio against the peer measured in the same
run (a ratio holds when the machine's speed drifts; an absolute time holds only at the load
given). Run on a quiet machine to compare with an earlier section.
"""
_MARK = "\n## "


def section(when: str, names: list[str], machine: str, load_before: str, load_after: str,
            rows: list[tuple]) -> str:
    """One dated section: ``rows`` are (benchmark, subject, median, runs, ratio, target)."""
    lines = [f"## {when}: bench {' '.join(names)}", "",
             f"{machine}; load average {load_before} before, {load_after} after.", "",
             "| benchmark | subject | median | runs | ratio | target |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def add_section(path: Path, text: str) -> None:
    """Put ``text`` first among the page's sections (the page is made with ``HEAD`` if absent)."""
    old = path.read_text(encoding="utf-8") if path.exists() else HEAD
    at = old.find(_MARK)
    head, rest = (old, "") if at < 0 else (old[:at + 1], old[at + 1:])
    path.write_text(head.rstrip("\n") + "\n\n" + text + ("\n" + rest if rest else ""), encoding="utf-8")


def _cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")
