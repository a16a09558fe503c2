"""From runs to a grade: validity on the wheats, flaky tests, the matrix, the score.

Rules (issue 13):

- the tests are those collected on the first run of the first wheat that loaded, in its
  order; a wheat that did not load says nothing about validity (a note says so);
- a test is **invalid** when, on any run of any wheat, it did not pass or skip (failed,
  error, timeout, crashed, not run): it is reported with the wheat, its message and the
  last calls it made to the implementation (the input), and excluded from scoring;
- where the spec's own text allows two readings (``readings.SPEC_READINGS``), wheats are grouped
  by the reading they take: a test that did not pass on some wheats is still **valid** when it
  passed on every wheat of one reading group and failed only on wheats of the other reading
  (``readings.assumption``); it is reported with the reading it assumes (``Grade.assumes``);
- a test is **flaky** when its outcome differs between the two runs of one wheat;
- every test runs on every chaff (the suite gets the same hello everywhere); invalid
  tests' cells are shown but never count; a test whose file failed to import on a chaff
  reads ``error`` there;
- a chaff is **caught** when at least one valid test failed on it (failed, error,
  timeout, crashed), a test valid under a reading counting only against chaffs that take
  that reading (``chaff_readings``: the catalogue's chaffs are the reference's code and take
  the contract's readings): elsewhere it fails by the reading, whatever the chaff's mistake,
  and would catch every chaff (issue 48); a chaff whose run did not happen (budget) is not caught, and the
  grade says so (``incomplete``); a chaff whose implementation did not load is **not
  graded** (``not_graded``: why), left out of the total, never "survived";
- the score is caught / graded chaffs, and 0 when no test is valid.

Example::

    >>> g = score(wheat_runs, chaff_runs)
    >>> g.caught, g.total, g.valid
    (3, 4, ['test_x.py::test_a'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.grading.gradetests.readings import assumption, defaults, takes
from harness.grading.gradetests.suite_run import RunResult

DID_NOT_LOAD = "implementation did not load"
FAILING = frozenset({"failed", "error", "timeout", "crashed"})
PASSING = frozenset({"passed", "skipped"})


@dataclass
class Invalid:
    test: str
    wheat: str
    outcome: str
    message: str
    input: str


@dataclass
class Grade:
    tests: list[str]
    valid: list[str]
    invalid: list[Invalid]
    flaky: dict[str, str]                  # test -> the wheat it flipped on
    matrix: dict[str, dict[str, str]]      # chaff -> test -> outcome
    caught: dict[str, list[str]]           # chaff -> the valid tests that failed on it
    chaff_verdicts: dict[str, str]
    wheat_runs: dict[str, list[RunResult]]
    chaff_runs: dict[str, RunResult]
    notes: list[str] = field(default_factory=list)
    assumes: dict[str, list[str]] = field(default_factory=dict)  # valid test -> the readings it assumes

    @property
    def not_graded(self) -> dict[str, str]:
        """Chaffs whose implementation did not load -> why (the harness's failure, not the suite's)."""
        return {c: r.detail for c, r in self.chaff_runs.items() if r.verdict == DID_NOT_LOAD}

    @property
    def total(self) -> int:
        return len(self.chaff_runs) - len(self.not_graded)

    @property
    def score(self) -> float:
        return len(self.caught) / self.total if self.total and self.valid else 0.0

    @property
    def surviving(self) -> list[str]:
        return [c for c in self.chaff_runs if c not in self.caught and c not in self.not_graded]

    @property
    def incomplete(self) -> bool:
        return any(v in ("not run", DID_NOT_LOAD) for v in self.chaff_verdicts.values())


def score(wheat_runs: dict[str, list[RunResult]], chaff_runs: dict[str, RunResult],
          readings: dict[str, dict[str, str]] | None = None,
          chaff_readings: dict[str, dict[str, str]] | None = None) -> Grade:
    """``readings``: each wheat's declared readings (``readings.declared_readings``); None: every
    wheat takes the same readings (a test must pass them all). ``chaff_readings``: each chaff's
    readings where they are not the contract's (the reference's, which every catalogue chaff
    takes)."""
    loaded = {w: [r for r in runs if r.verdict != DID_NOT_LOAD] for w, runs in wheat_runs.items()}
    first = next((runs[0] for runs in loaded.values() if runs), None)
    tests = list(first.collected) if first else []
    invalid, assumes = _invalid(tests, loaded, {w: (readings or {}).get(w, {}) for w, runs in loaded.items() if runs})
    bad = {i.test for i in invalid}
    valid = [t for t in tests if t not in bad]
    flaky = _flaky(tests, loaded)
    matrix = {c: {t: _cell(run, t) for t in tests} for c, run in chaff_runs.items()}
    taken = {c: (chaff_readings or {}).get(c, defaults()) for c in chaff_runs}
    caught = {c: [t for t in valid if row[t] in FAILING and takes(assumes.get(t, []), taken[c])]
              for c, row in matrix.items()}
    caught = {c: ts for c, ts in caught.items() if ts}
    notes = [f"wheat {w} did not load ({runs[0].detail}): it decides nothing" for w, runs in wheat_runs.items()
             if runs and not loaded[w]]
    notes += [f"{t} assumes a reading no chaff takes ({' or '.join(assumes[t])}): it is graded against none"
              for t in valid if chaff_runs and not any(takes(assumes.get(t, []), r) for r in taken.values())]
    if not tests:
        notes.append("no test was collected on the first wheat: the score is 0")
    elif not valid:
        notes.append("no test is valid (every test failed on some wheat): the score is 0")
    return Grade(tests, valid, invalid, flaky, matrix, caught, {c: r.verdict for c, r in chaff_runs.items()},
                 wheat_runs, chaff_runs, notes, assumes)


def _cell(run: RunResult, test: str) -> str:
    """The outcome of ``test`` in ``run``; ``error`` when its file failed to import there."""
    if test in run.outcomes:
        return run.outcomes[test]
    return "error" if test.split("::")[0] in run.errored_files else "not run"


def _invalid(tests: list[str], wheat_runs: dict[str, list[RunResult]],
             readings: dict[str, dict[str, str]]) -> tuple[list[Invalid], dict[str, list[str]]]:
    """The invalid tests (each with the first wheat it failed on) and the tests that failed only
    on wheats of another reading (-> the readings they assume)."""
    found: dict[str, Invalid] = {}
    failed_on: dict[str, set[str]] = {}
    for wheat, runs in wheat_runs.items():
        for run in runs:
            for test in tests:
                outcome = run.outcomes.get(test, "not run")
                if outcome not in PASSING:
                    failed_on.setdefault(test, set()).add(wheat)
                    if test not in found:
                        message = run.messages.get(test) or run.detail or f"{outcome} on this wheat ({run.verdict})"
                        found[test] = Invalid(test, wheat, outcome, message, run.inputs.get(test, ""))
    assumes = {}
    for test, wheats in failed_on.items():
        assumed = assumption(wheats, readings) if len(readings) > 1 else None
        if assumed:
            assumes[test] = assumed
            del found[test]
    return [found[t] for t in tests if t in found], {t: assumes[t] for t in tests if t in assumes}


def _flaky(tests: list[str], wheat_runs: dict[str, list[RunResult]]) -> dict[str, str]:
    flaky: dict[str, str] = {}
    for wheat, runs in wheat_runs.items():
        for a, b in zip(runs, runs[1:]):
            for test in tests:
                if test not in flaky and a.outcomes.get(test, "not run") != b.outcomes.get(test, "not run"):
                    flaky[test] = wheat
    return flaky
