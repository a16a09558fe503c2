"""What a student sees of their Gradescope results, and when; what only the course staff sees.

Gradescope's ``visibility`` values (its autograder specification, "Controlling Test Case
Visibility"; gradescope/autograder_samples ``docs/specs.md``), for the whole results and
for each test:

- ``hidden``: never shown to students (Gradescope: for tests worth no points);
- ``after_due_date``: shown once the assignment's due date has passed;
- ``after_published``: shown once the grades are published (*Review Grades*);
- ``visible`` (the default): always shown.

A test's own value overrides the top-level one; instructors always see every test. While
a test worth points is not shown, Gradescope does not show the student the total score.

``Visibility(default, tests)``: the bundle's settings (``autograder build --visibility V
--test-visibility NAME=V``): ``default`` for the top level and every catalogue test,
``tests`` the exceptions by test name (a name outside the catalogue is a ValueError with
the nearest names).

``finish(results, grade, visibility, title)`` puts the values into a Gradescope results
document and appends the staff-only test ``STAFF_TEST`` (hidden, 0 points): the full run
header (the confinement, its rlimits, who the candidate ran as, the scratch paths) and
the tail of check's output, which the student-visible ``output`` no longer holds: it keeps
only the lines of ``student_header`` (the policy, the time budget) and, for the run seed,
``SEED_KEPT``: the seed mixes the course secret into a hash of the upload (issue 48), and a
student who read it could replay the run offline and try uploads until its random inputs
miss a bug; the staff test holds the seed (``check --seed N`` replays the run).

Example::

    >>> Visibility("after_due_date", {"test_hand_example": "visible"}).of("test_vocab_bytes")
    'after_due_date'
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.policy import SEED_KEPT  # what a student reads in place of the line naming the run seed
from harness.suite.catalogue import NAMES

if TYPE_CHECKING:   # a light module: the CLI reads VISIBILITIES when it builds its parser
    from harness.grading.autograder.grading import Grade

__all__ = ["VISIBILITIES", "STAFF_TEST", "SEED_KEPT", "Visibility", "student_header", "staff_header", "finish",
           "scrub_paths"]

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
STAFF_TEST = "course staff only: how this submission was graded"
STAFF_OUTPUT_LIMIT = 20_000
_STUDENT_LINES = ("policy:", "time budget:")   # the header lines a student may read
# the grader's scratch folder (harness.grading.autograder.grading), e.g. /tmp/constrain-harness-grade-k2j4/submission/
_SCRATCH = re.compile(r"(?:/[^\s'\"/]+)*/constrain-harness-grade-[^\s'\"/]+/(?:submission/)?")


@dataclass(frozen=True)
class Visibility:
    default: str = "visible"
    tests: dict = field(default_factory=dict)   # test name -> value, the exceptions to ``default``

    def __post_init__(self):
        if not isinstance(self.tests, dict):
            raise TypeError(f"test visibility must be a mapping of test name to value, not {type(self.tests).__name__}")
        for name, value in (("visibility", self.default), *self.tests.items()):
            if value not in VISIBILITIES:
                raise ValueError(f"{name}: visibility must be one of {', '.join(VISIBILITIES)}, not {value!r}")
        unknown = [name for name in self.tests if name not in NAMES]
        if unknown:
            near = difflib.get_close_matches(unknown[0], NAMES, n=2)
            raise ValueError(f"test visibility: no catalogue test {unknown[0]!r}"
                             + (f" (did you mean {', '.join(near)}?)" if near else f"; the tests: {', '.join(NAMES)}"))

    def of(self, test: str) -> str:
        return self.tests.get(test, self.default)

    def describe(self) -> str:
        later = {v: [t for t in NAMES if self.of(t) == v] for v in VISIBILITIES if v != "visible"}
        parts = [f"{len(names)} {value.replace('_', ' ')}" for value, names in later.items() if names]
        return "every test visible" if not parts else f"tests: {', '.join(parts)}, the others visible"


def student_header(header: str) -> str:
    """The lines of a run header a student reads: the policy, the time budget (each once),
    and ``SEED_KEPT`` where the header has a seed; never the spec itself, the confinement,
    its limits, accounts or paths."""
    kept: list[str] = []
    for line in header.splitlines():
        line = line.strip()
        if line.startswith("seed:"):
            line = SEED_KEPT
        elif not line.startswith(_STUDENT_LINES):
            continue
        if not any(k.split(":")[0] == line.split(":")[0] for k in kept):
            kept.append(line)
    return "\n".join(kept)


_FACT = re.compile(r"^  [a-z_]+:\s")        # a counterexample's fact, explain.render_facts: "  pattern:  'a'"
_ABSOLUTE = re.compile(r"(?:/[^/\s'\"():<>]+)+/(?=[^/\s'\"():<>]+)")   # a folder path before a file name
_ADDRESS = re.compile(r" (?:object )?at 0x[0-9a-fA-F]+")


def student_details(details: str) -> str:
    """What a student may read of a failure's details, whatever recorded them: the catalogue's
    counterexample (its facts) as it is; of anything else (a traceback: the catalogue's
    source, the grader's objects) only pytest's exception lines; in both, every folder of a
    path cut (``/x/harness/suite/tiers.py`` -> ``tiers.py``) and no object address.

    Example::

        >>> student_details("    def decision(key):\\n>       raise AssertionError(text)\\nE   AssertionError: no")
        'AssertionError: no'
    """
    lines = str(details or "").splitlines()
    if not (lines and _FACT.match(lines[0])):
        lines = [line[1:].strip() for line in lines if line.startswith("E ")]
    return _ADDRESS.sub("", _ABSOLUTE.sub("", "\n".join(lines)))


def scrub_paths(text: str) -> str:
    """``text`` with the grader's scratch folder cut from every path (a student reads
    ``python/tinyllm/infer/constrain.py``, not where the grader copied it)."""
    return _SCRATCH.sub("", text)


def staff_header(grade: Grade, title: str) -> str:
    """Everything the course staff may need: the title, the full header, check's output."""
    from harness.grading.autograder.grading import printable

    lines = [title, grade.header.rstrip(), "", f"verdict: {grade.verdict} (check exit {grade.exit_code})"]
    if grade.output:
        lines += ["", "check's output (head and tail):", grade.output.rstrip()]
    return printable("\n".join(x for x in lines if x is not None), STAFF_OUTPUT_LIMIT)


def finish(results: dict, grade: Grade, visibility: Visibility, title: str) -> dict:
    """``results`` with the top-level and per-test visibility set (the catalogue's tests
    by ``visibility``; tests merged from elsewhere keep theirs) and ``STAFF_TEST`` appended."""
    out = dict(results)
    out["visibility"] = visibility.default
    out["tests"] = [{**t, "visibility": visibility.of(t["name"])} if t.get("name") in NAMES else t
                    for t in results.get("tests", [])]
    out["tests"].append({"name": STAFF_TEST, "score": 0.0, "max_score": 0.0, "status": "passed",
                         "visibility": "hidden", "output": staff_header(grade, title)})
    return out
