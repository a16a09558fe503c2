"""What one student reads: their failures with why, hint and counterexample, the
diagnosis, why nothing ran when nothing did, and the ungraded notes apart.

All pure functions of a batch record (``harness.grading.batch.records``) and a hint level
(``harness.policy.HINT_LEVELS``):

- ``load_words(record)``: a submission that did not load (or was refused) in plain words:
  "syntax error at constrain.py:12: ...", "the import did not finish in 60 CPU s: ...",
  "no function `regex_to_dfa`", "the process ended while your module was being
  imported ...", "importing your module raised ModuleNotFoundError: ... at constrain.py:3";
  "" when it loaded and every contract name is there;
- ``failures(record, hints)``: one entry per test that did not pass, ``{"name", "status",
  "why", "hint", "counterexample", "pitfall"}``: the one-line why, the hint at ``hints``
  (the diagnosed pitfall that explains the test, else what the test checks) and the
  counterexample; the TA's reports show all three, whatever the level;
- ``student_view(record, hints)``: the whole of it as data (``diagnosis`` ranked,
  ``unexplained``, ``failures``, ``decisions``: the contract decisions not met, which
  change no score, counted and kept apart);
- ``markdown(record, hints)``: the per-student file of ``check --batch --feedback DIR``,
  showing what the hint level lets a student see: ``none`` the verdict of each test (and
  why nothing ran, if nothing did), ``pitfall`` also the why of each failed test and the
  diagnosis, ``full`` also the counterexamples and where to look. Nothing of the grader's
  machinery (the sandbox, its limits, paths of the grading machine) is in it;
- ``write_all(records, folder, hints)``: one ``<student>.md`` per student (the name made
  safe for a file name, ``file_name``), returns the paths written.

Example::

    >>> load_words({"verdict": "syntax error", "problem": "SyntaxError in constrain.py line 12: '(' was never closed"})
    "syntax error at constrain.py:12: '(' was never closed"
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.policy import HINT_LEVELS, POLICY
from harness.sandbox.resources import COULD_NOT_START
from harness.suite.catalogue import BY_NAME
from harness.suite.diagnosis import diagnose, raised, unexplained
from harness.suite.pitfalls import BY_NUMBER, hint

__all__ = ["load_words", "failures", "student_view", "markdown", "write_all", "file_name", "ran", "NO_VERDICT"]

_SYNTAX = re.compile(r"SyntaxError in (?P<file>.+?) line (?P<line>\d+): (?P<msg>.*)", re.DOTALL)
_IMPORT = re.compile(r"importing the candidate failed: (?P<cls>[\w.]+): (?P<msg>.*?)(?: \(at (?P<at>[^()]*)\))?$")
_SLOW = ("no answer within the deadline", "CPU-time limit", "wall-clock backstop", "CPU s")
_ENDED = ("died during", "exited with status", "died of", "process ended")


def load_words(record: dict) -> str:
    problem, verdict = str(record.get("problem") or ""), record.get("verdict", "")
    syntax = _SYNTAX.match(problem)
    if syntax:
        return f"syntax error at {syntax['file']}:{syntax['line']}: {syntax['msg'].strip()}"
    if problem:
        return problem
    load = record.get("load") or {}
    words = []
    if load.get("status") in ("error", "usage"):
        words.append(_load_failure(str(load.get("reason") or "")))
    words += [_missing(p) for p in load.get("problems") or []]
    words += [f"`{n.split(': ', 1)[0]}` {n.split(': ', 1)[-1]}" for n in load.get("notes") or []]   # signatures
    if not words and verdict in ("crashed", "timed out") and set(record.get("statuses", {}).values()) == {"not run"}:
        words.append("your module did not load: no test ran")
    return "; ".join(w for w in words if w)


def _load_failure(reason: str) -> str:
    if reason.startswith(COULD_NOT_START):  # the machine's refusal: its words are for the staff (the TA report)
        return (f"{COULD_NOT_START}: the grading machine had no process or memory to spare, twice; this is not "
                f"your fault, the course staff will grade it again")
    reason = reason.removeprefix("the candidate crashed while loading: ")
    if "loading" in reason or "load" in reason:
        if any(word in reason for word in _SLOW):
            return (f"the import did not finish in {POLICY.load_cpu_seconds:g} CPU s: code at the top level of your "
                    f"module runs when it is imported (a loop, a long computation, a wait?)")
    if any(word in reason for word in _ENDED):
        return ("the process ended while your module was being imported (os._exit, sys.exit or a crash at the "
                "top level?)")
    imported = _IMPORT.match(reason)
    if imported:
        where = f" at {_short_place(imported['at'])}" if imported["at"] else ""
        return f"importing your module raised {imported['cls']}: {imported['msg']}{where}"
    return reason


def _short_place(place: str) -> str:
    """``/tmp/.../submission/constrain.py:3`` -> ``constrain.py:3`` (no path of the grading machine)."""
    return _short_paths(place.strip())


def _missing(problem: str) -> str:
    name, _, what = problem.partition(": ")
    if what.startswith("missing (a class)"):
        return f"no class `{name}`"
    if what.startswith("missing (a module-level constant)"):
        return f"no constant `{name}`"
    if what.startswith("missing"):
        return f"no method `{name}`" if "." in name else f"no function `{name}`"
    return f"`{name}`: {what}"


# --------------------------------------------------------------------------- the failures


def failures(record: dict, hints: str = POLICY.hints, found: list[dict] | None = None) -> list[dict]:
    _check_level(hints)
    found = diagnose(record.get("tests", [])) if found is None else found
    owner = {name: entry["pitfall"] for entry in found for name in entry["explains"]}
    out = []
    for test in record.get("tests", []):
        number = owner.get(test["name"])
        out.append({"name": test["name"], "status": test.get("status", ""), "why": _short_paths(test.get("reason", "")),
                    "hint": _test_hint(test["name"], number, hints), "counterexample": _counterexample(test),
                    "pitfall": number})
    return out


def _counterexample(test: dict) -> str:
    """The catalogue's facts as they are; for an exception the student's code raised, only
    pytest's ``E`` lines (the exception and its message), not the catalogue's source."""
    details = str(test.get("details") or "")
    if raised(test):
        details = "\n".join(line for line in details.splitlines() if line.startswith("E ")) or details[-400:]
    return _short_paths(details)


_GRADING_PATH = re.compile(r"(?:/[^/\s'\"():]+)+/(?=[^/\s'\"():]+\.py\b)")


def _short_paths(text: str) -> str:
    """File paths cut to their file name (``/tmp/constrain-harness-grade-x/submission/constrain.py``
    -> ``constrain.py``): no path of the grading machine reaches a report."""
    return _GRADING_PATH.sub("", text)


def _test_hint(name: str, number: int | None, hints: str) -> str:
    if hints == "none":
        return ""
    if number is not None:
        return hint(BY_NUMBER[number], hints)
    entry = BY_NAME.get(name)
    return f"what {name} checks (section 4): {entry.checks}" if entry else ""


def _check_level(hints: str) -> None:
    if hints not in HINT_LEVELS:
        raise ValueError(f"--hints must be one of {', '.join(HINT_LEVELS)}, not {hints!r}")


NO_VERDICT = ("not run", "not reported")   # statuses of a test that produced no verdict


def ran(record: dict) -> bool:
    """Return True if and only if the submission loaded and some test ran to a verdict."""
    return not record.get("problem") and any(s not in NO_VERDICT for s in record.get("statuses", {}).values())


def student_view(record: dict, hints: str = POLICY.hints) -> dict:
    """Everything one student reads, as data; a submission that ran nothing lists no
    failures (``load`` says why)."""
    _check_level(hints)
    loaded = ran(record)
    found = diagnose(record.get("tests", [])) if loaded else []
    return {"student": record["student"], "verdict": record["verdict"], "passed": record["passed"],
            "total": record["total"], "load": load_words(record), "diagnosis": found,
            "unexplained": unexplained(record.get("tests", []), found) if loaded else [],
            "failures": failures(record, hints, found) if loaded else [],
            "notes": _notes(record),
            "decisions": record.get("decisions", []), "decision_count": record.get("decision_count", 0)}


def _notes(record: dict) -> list[str]:
    """The notes that matter beyond ``load_words``: not the problem (the first note when
    there is one, ``records``) and not check's raw load line (``load_words`` says it)."""
    notes = list(record.get("notes", []))[1 if record.get("problem") else 0:]
    return [n for n in notes if not n.startswith("load: ")]


# --------------------------------------------------------------------------- the student's file


def markdown(record: dict, hints: str = POLICY.hints, *, full_details: bool = False) -> str:
    """The student's feedback file; ``full_details`` (the TA's class Markdown) shows the why
    and the counterexample of every failure whatever the level (the hints stay at it)."""
    view = student_view(record, hints)
    lines = [f"# Feedback: {_md(view['student'])}", "",
             f"**{view['verdict']}**: {view['passed']}/{view['total']} tests passed.", ""]
    if view["load"]:
        lines += [f"**Why:** {_md(view['load'])}", ""]
    if view["diagnosis"] and (hints != "none" or full_details):
        lines += _diagnosis_lines(view, hints)
    if view["failures"]:
        lines += ["## Tests that did not pass", ""]
        for item in view["failures"]:
            lines += _failure_lines(item, hints, full_details)
    if view["notes"]:
        lines += ["## Notes", ""] + [f"- {_md(n)}" for n in view["notes"]] + [""]
    if view["decision_count"]:
        lines += _decision_lines(view)
    return "\n".join(lines).rstrip() + "\n"


def _diagnosis_lines(view: dict, hints: str) -> list[str]:
    top = view["diagnosis"][0]
    shared = len(top["explains"])
    lines = ["## Diagnosis", "",
             f"Most likely: **{_md(top['label'])}** ({top['strength']} evidence"
             + (f"; it explains {shared} of your {len(view['failures'])} failing tests" if shared > 1 else "")
             + "). Fix this first: the other failures may follow from it.", ""]
    for rank, entry in enumerate(view["diagnosis"], 1):
        pitfall = BY_NUMBER[entry["pitfall"]]
        lines.append(f"{rank}. {_md(entry['label'])} ({entry['strength']}; explains "
                     f"{', '.join(_code(n) for n in entry['explains']) or 'no test alone'})")
        lines.append(f"   - symptom: {_md(pitfall.symptom_text)}")
        if hints == "full":
            lines.append(f"   - look at: {_md(pitfall.look_at)}")
        lines += [f"   - evidence: {_md(e)}" for e in entry["evidence"][:3]]
    return lines + [""]


def _failure_lines(item: dict, hints: str, full_details: bool) -> list[str]:
    lines = [f"### {_code(item['name'])}: {item['status'].upper()}", ""]
    if hints == "none" and not full_details:
        return lines
    if item["why"]:
        lines += [f"Why: {_md(item['why'])}", ""]
    if item["hint"]:
        lines += [f"Hint: {_md(item['hint'])}", ""]
    if (hints == "full" or full_details) and item["counterexample"]:
        lines += ["Counterexample:", "", *_fenced(item["counterexample"]), ""]
    return lines


def _decision_lines(view: dict) -> list[str]:
    shown = view["decisions"]
    more = view["decision_count"] - len(shown)
    return (["<details><summary>" + f"{view['decision_count']} contract decisions not met (not graded: the seed "
             "allows your reading)</summary>", ""] + [f"- {_md(d)}" for d in shown]
            + ([f"- ... and {more} more"] if more > 0 else []) + ["", "</details>", ""])


def _fenced(text: str) -> list[str]:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text.rstrip(), fence]


def _md(text: object) -> str:
    """One line of Markdown text: no HTML, link, code or emphasis markup from a student's strings."""
    text = " ".join(str(text).split())
    return re.sub(r"([\\`*\[\]<>|])", r"\\\1", text)


def _code(name: object) -> str:
    """A test's name as a code span (a backtick in it dropped)."""
    return f"`{' '.join(str(name).replace('`', '').split())}`"


def file_name(student: str) -> str:
    """A safe file name for a student's feedback: letters, digits, ``.-_``; anything else ``_``."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", student).lstrip(".") or "student"
    return safe[:120] + ".md"


def write_all(records: list[dict], folder: Path, hints: str = POLICY.hints) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written, used = [], set()
    for record in records:
        name = file_name(record["student"])
        stem, n = name[:-3], 2
        while name in used:   # two names that differ only in unsafe characters
            name, n = f"{stem}-{n}.md", n + 1
        used.add(name)
        path = folder / name
        path.write_text(markdown(record, hints), encoding="utf-8")
        written.append(path)
    return written
