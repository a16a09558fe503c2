"""How often the feedback's first advice points at the true cause of a bug outside the catalogue.

Usage (from the repository root; grading takes some 6 minutes on 2 cores)::

    python tests/outside_bugs/measure.py WORK_FOLDER [REVISION ...]

Lays out a class with one submission per bug of this folder (``<bug>/constrain.py`` beside
``_outside.py``), grades it once with ``constrain-harness check --batch`` (unless
``WORK_FOLDER/class.json`` is there already: the records are kept), and reads each
student's feedback at hint level ``full``, written from those records by today's code and
by the code of each ``REVISION`` given (its feedback and diagnosis modules, from git).
Each bug's docstring records its true cause: the function it lives in and the spec's
pitfall it is an instance of (``Pitfall: none`` when it is none of the twelve).
Two shares are printed (and the per-bug table):

- *points at the cause*: the feedback's first advice (its diagnosis, else its first failure)
  names the bug's pitfall as the most likely one, or names the function the bug lives in
  (and says no known pitfall matches);
- *wrong likely*: the feedback calls some other pitfall "likely" or "strong".

``rows(records, markdown)`` is the reading (``tests/test_outside_bugs.py`` uses it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_CAUSE = re.compile(r"True cause: (?P<cause>.*?)\s*Function: (?P<function>[\w.]+)\.\s*Pitfall: (?P<pitfall>\w+)\.",
                    re.DOTALL)
_LISTED = re.compile(r"^\d+\. pitfall (\d+): .*?\((strong|likely|possible)\b", re.MULTILINE)


def bugs() -> dict[str, dict]:
    """name -> {"cause", "function", "pitfall" (int or None)} for every bug of this folder."""
    out = {}
    for path in sorted(HERE.glob("[a-z]*.py")):
        if path.stem == "measure":
            continue
        found = _CAUSE.search(path.read_text(encoding="utf-8"))
        if not found:
            raise ValueError(f"{path.name}: no 'True cause: ... Function: ... Pitfall: ...' in its docstring")
        pitfall = None if found["pitfall"] == "none" else int(found["pitfall"])
        out[path.stem] = {"cause": found["cause"], "function": found["function"], "pitfall": pitfall}
    return out


def lay_out_class(folder: Path) -> Path:
    """One submission folder per bug: its module as ``constrain.py`` and the builder beside it."""
    for name in bugs():
        (folder / name).mkdir(parents=True)
        shutil.copy2(HERE / f"{name}.py", folder / name / "constrain.py")
        shutil.copy2(HERE / "_outside.py", folder / name / "_outside.py")
    return folder


def first_advice(feedback: str) -> str:
    """The paragraph a student reads first: the diagnosis's first paragraph, else the first
    failed test's why."""
    if "## Diagnosis" in feedback:
        return feedback.split("## Diagnosis", 1)[1].strip().split("\n\n", 1)[0]
    why = re.search(r"^Why: (.*)$", feedback, re.MULTILINE)
    return why.group(1) if why else feedback


def judge(feedback: str, truth: dict) -> dict:
    advice = first_advice(feedback)
    top = re.search(r"\*\*pitfall (\d+):", advice)
    named = truth["pitfall"] is not None and top is not None and int(top.group(1)) == truth["pitfall"]
    function = truth["function"].split(".")[-1] in advice and (top is None or named)
    wrong = [int(n) for n, strength in _LISTED.findall(feedback)
             if strength in ("strong", "likely") and int(n) != truth["pitfall"]]
    return {"points": named or function, "wrong_likely": bool(wrong), "advice": " ".join(advice.split())[:160]}


def rows(records: list[dict], markdown) -> dict[str, dict]:
    """name -> judge(...) for every bug, reading ``markdown(record, "full")`` (the feedback
    file); a bug every test passes is reported apart (``"undetected"``)."""
    truths = bugs()
    out = {}
    for record in records:
        name = record["student"]
        text = markdown(record, "full")
        row = judge(text, truths[name])
        row["undetected"] = record.get("passed") == record.get("total")
        row["verdict"] = record.get("verdict")
        out[name] = row
    return out


def saved_records(work: Path) -> list[dict] | None:
    """The records of an earlier grading in ``work``: the batch's JSON report, else its state
    file (what an interrupted batch kept), else None."""
    if (work / "class.json").exists():
        return [r for r in json.loads((work / "class.json").read_text())["students"] if r.get("tests") is not None]
    if (work / "class.batch-state.json").exists():
        return list(json.loads((work / "class.batch-state.json").read_text())["records"].values())
    return None


def grade(work: Path) -> Path:
    """Grade the class of bugs (the harness's files must not change meanwhile: a change is
    tampering); the batch's JSON report, whose records the feedback is a pure function of."""
    class_folder = lay_out_class(work / "class")
    report = work / "class.json"
    subprocess.run([sys.executable, "-m", "harness.cli", "check", "--batch", str(class_folder), "--jobs", "2",
                    "--json", str(report), "--timeout", "20"], check=False)
    return report


def old_markdown(revision: str):
    """``feedback.markdown`` as it was at ``revision`` (its feedback and diagnosis modules
    taken from git, everything else today's): the "before" of a measurement."""
    import types

    def source(path: str) -> str:
        return subprocess.run(["git", "show", f"{revision}:{path}"], check=True, capture_output=True,
                              text=True, cwd=HERE.parents[1]).stdout

    diagnosis = types.ModuleType("harness.suite.diagnosis")
    exec(compile(source("harness/suite/diagnosis.py"), "old_diagnosis", "exec"), diagnosis.__dict__)
    saved = sys.modules.get("harness.suite.diagnosis")
    sys.modules["harness.suite.diagnosis"] = diagnosis
    try:
        feedback = types.ModuleType("old_feedback")
        exec(compile(source("harness/grading/batch/feedback.py"), "old_feedback", "exec"), feedback.__dict__)
    finally:
        sys.modules["harness.suite.diagnosis"] = saved
    return feedback.markdown


def report(table: dict[str, dict], title: str) -> None:
    counted = {n: r for n, r in table.items() if not r["undetected"]}
    print(f"== {title}")
    for name, row in sorted(table.items()):
        print(f"{name:30} {row['verdict']:10} points={row['points']!s:5} wrong_likely={row['wrong_likely']!s:5} "
              f"{'UNDETECTED ' if row['undetected'] else ''}{row['advice']}")
    points = sum(r["points"] for r in counted.values())
    wrong = sum(r["wrong_likely"] for r in counted.values())
    print(f"{len(counted)} bugs detected ({len(table) - len(counted)} undetected): first advice points at the "
          f"true cause {points}/{len(counted)}; a wrong pitfall called likely {wrong}/{len(counted)}")


def main(argv: list[str]) -> int:
    work = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="outside-bugs-"))
    records = saved_records(work)
    if records is None:
        grade(work)
        records = saved_records(work)
    from harness.grading.batch.feedback import markdown

    for revision in argv[1:]:
        report(rows(records, old_markdown(revision)), f"feedback as of {revision}")
    report(rows(records, markdown), "feedback now")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
