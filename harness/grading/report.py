"""The reports of ``constrain-harness check``: terminal table, JSON, JUnit XML, Gradescope.

``to_report(result)`` is the adapter to the common model (``harness.report``): with it
``check`` also writes ``--html``, ``--csv`` and ``--md`` (the generic renderers),
and the three formats below stay this module's, byte for byte.

All four are pure functions of a ``harness.grading.check.CheckResult``, so they are written
whatever happened to the candidate (a crash part way leaves ``crashed`` and ``not run``
verdicts, which every report carries).

JSON report (``--json F``), format ``constrain-harness-check`` version 1::

    {
      "format": "constrain-harness-check", "format_version": 1,
      "candidate": "path or module" | null (the reference),
      "options": {"ref_deps", "deep", "timeout" (CPU s per test), "load_seconds" (CPU s),
                  "memory", "only", "strict"},
      "seed": the run seed (``check --seed N`` replays the run; harness.suite.seeding),
      "policy": the run header's policy line (the limits applied),
      "verdict": "passed" | "failed" | "usage or contract error" | "crashed or timed out" | "tampered",
      "exit_code": 0 | 1 | 2 | 3 | 4,
      "load": {"status": "ok"|"error"|"usage", "reason", "problems": [missing contract names],
               "notes": [signatures the spec's call cannot use], "ref_deps": [names supplied by
               --ref-deps], "module", "file", "confinement", "mode"},
      "counts": {"passed": n, "failed": n, "error": n, "skipped": n, "crashed": n,
                 "timeout": n, "not run": n},
      "tests": [{"name", "kinds": [...], "checks": the spec's text, "status", "reason" (one line),
                 "details" (the counterexample), "duration" (s), "pitfalls",
                 "notes": ["contract decision not met: ...", ...] (default tier; change nothing)}],
      "isolation": the confinement the candidate ran under, in words,
      "tamper": [],                                (kept for shape: the candidate no longer shares a process)
      "integrity": ["golden/masks_golden.json changed ...; restored", ...],
      "children": [{"attempt", "returncode", "killed", "seconds", "output_tail"}],
      "duration": seconds
    }

JUnit XML (``--junit-xml F``): one ``<testsuite name="constrain-harness">``, its
``<properties>`` holding ``seed`` and ``policy``, with a
``<testcase classname="catalogue" name=...>`` per test; ``failed`` is ``<failure>``,
``error``/``crashed``/``timeout``/``not run`` are ``<error type=status>``, ``skipped`` is
``<skipped>``; message = the reason, text = the details.

Gradescope (``--gradescope F``): ``results.json`` per Gradescope's autograder spec:
``{"score", "execution_time", "output", "stdout_visibility": "hidden",
"tests": [{"name", "score", "max_score", "status": "passed"|"failed", "output",
"tags": kinds, "visibility": "visible"}, ...]}``, ``output`` starting with
``policy.SEED_KEPT`` and the policy line; each test is worth one point (the total is the
sum of the tests' ``max_score``: the results format has no top-level maximum; the document
validates against ``harness/grading/autograder/gradescope_results.schema.json``). The run
seed is the course staff's (a student who read it could replay the run and try uploads
until its draws miss a bug): it is only in a last, hidden test worth 0
(``policy.SEED_TEST``), and check's own printout, which names it, is Gradescope's hidden
stdout. A contract error or a tampering finding scores every test 0 and says why in ``output``.

Example::

    >>> print(render_table(result).splitlines()[-1])
    verdict: passed (exit 0)
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.grading.check import CheckResult
from harness.policy import SEED_KEPT, SEED_TEST
from harness.report.formats import junit_xml
from harness.report.model import Report, Row
from harness.sandbox.confine import UNCONFINED_HEADLINE
from harness.sandbox.text import escape
from harness.suite.catalogue import BY_NAME
from harness.suite.diagnosis import diagnose
from harness.suite.pitfalls import BY_NUMBER

FORMAT = "constrain-harness-check"
FORMAT_VERSION = 1
_STATUS = {"passed": "passed", "failed": "failed", "skipped": "skipped"}  # any other status is an error
_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP", "crashed": "CRASH",
         "timeout": "TIMEOUT", "not run": "NOT RUN"}


def _clip(text: str, width: int) -> str:
    text = escape(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 3] + "..."


# --------------------------------------------------------------------------- terminal


def render_table(result: CheckResult, width: int = 150) -> str:
    """The spec's test table with a verdict and one line why per test, then the
    counterexamples, then the totals and the verdict (the last two lines)."""
    opts = result.options
    lines = [f"constrain-harness check: {opts.impl or 'the reference (oracles.automaton)'}"
             + (" --ref-deps" if opts.ref_deps else "") + (" --deep" if opts.deep else "")
             + (" --strict" if opts.strict else ""),
             opts.policy_header(),
             *([result.wall_limit] if result.wall_limit else []),
             f"seed: {result.seed} (check --seed {result.seed} replays this run)",
             f"confinement: {result.isolation or 'none (the candidate never started)'}"]
    lines += _load_lines(result)
    name_w = max([len(t.name) for t in result.tests] + [4])
    kind_w = max([len(", ".join(t.kinds)) for t in result.tests] + [4])
    head = f"{'#':>2}  {'test':<{name_w}}  {'KIND':<{kind_w}}  {'verdict':<7}  why"
    lines += ["", head, "-" * min(width, len(head) + 40)]
    for i, test in enumerate(result.tests, 1):
        why = _clip(test.reason, max(20, width - name_w - 30)) if test.status != "passed" else ""
        kinds = ", ".join(test.kinds)
        lines.append(f"{i:>2}  {test.name:<{name_w}}  {kinds:<{kind_w}}  {_MARK[test.status]:<7}  {why}".rstrip())
    lines += _detail_lines(result)
    lines += _note_lines(result)
    lines += _integrity_lines(result)
    counts = result.counts()
    summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n or status in ("passed", "failed"))
    plural = "" if len(result.tests) == 1 else "s"
    lines += ["", f"{len(result.tests)} test{plural}: {summary} ({result.duration:.1f} s)",
              f"verdict: {result.verdict} (exit {result.exit_code})"]
    return "\n".join(lines)


def _load_lines(result: CheckResult) -> list[str]:
    load = result.load
    lines = []
    if load.get("ref_deps"):
        lines.append(f"--ref-deps supplied: {', '.join(load['ref_deps'])}")
    if load.get("problems"):
        lines.append("CONTRACT: names missing or unusable (the tests that need them fail, the others run):")
        lines += [f"  - {p}" for p in load.get("problems", [])]
    if load.get("notes"):
        lines.append("SIGNATURES the spec's calls cannot use (the tests making them will say):")
        lines += [f"  - {p}" for p in load.get("notes", [])]
    if load.get("status") in ("error", "usage"):
        lines.append(f"LOAD: {escape(load.get('reason', ''))}")
        if load.get("details"):
            details = escape(str(load["details"]).rstrip(), keep_newlines=True)
            lines += ["  " + line for line in details.splitlines()[-12:]]
    return lines


def _detail_lines(result: CheckResult) -> list[str]:
    """Each failure's counterexample and hint: the pitfall the diagnosis attributes it to
    (``harness.suite.diagnosis``, from every failure's evidence), else the spec's table's."""
    from harness.mutants.witness import reproducing

    found = diagnose([{"name": t.name, "status": t.status, "reason": t.reason, "details": t.details}
                      for t in result.tests], reproducing)
    owner = {name: entry for entry in found for name in entry["explains"]}
    lines = []
    for test in result.tests:
        if test.status in ("passed", "skipped", "not run"):
            continue
        lines += ["", f"--- {test.name}: {_MARK[test.status]}: {escape(test.reason)}"]
        details = escape(test.details.rstrip(), keep_newlines=True).splitlines()
        lines += details[-25:] if len(details) > 25 else details
        entry = BY_NAME.get(test.name)
        diagnosed = owner.get(test.name)
        if diagnosed:
            pitfall = BY_NUMBER[diagnosed["pitfall"]]
            lines.append(f"  hint: the spec's pitfall {pitfall.number}. {pitfall.title} ({diagnosed['strength']} "
                         f"evidence; symptom: {pitfall.symptom})")
        elif entry and entry.pitfalls and test.status == "failed":
            lines.append(f"  hint: the spec's pitfall {entry.pitfalls}")
    if found and found[0]["strength"] != "possible":
        top = found[0]
        lines += ["", f"diagnosis: {top['label']} ({top['strength']} evidence) explains "
                      f"{', '.join(top['explains'])}: fix it first, the others may follow"]
    return lines


def _note_lines(result: CheckResult) -> list[str]:
    lines = []
    for test in result.tests:
        lines += [f"note ({test.name}): {escape(note)}" for note in test.notes]
    return [""] + lines if lines else []


def _integrity_lines(result: CheckResult) -> list[str]:
    lines = []
    for finding in result.tamper:
        lines.append(f"TAMPER ({finding.get('test') or 'at import'}): " + "; ".join(finding.get("changes", [])[:5]))
    for line in result.integrity:
        lines.append(f"TAMPERED: harness file {escape(line)}")
    return [""] + lines if lines else []


# --------------------------------------------------------------------------- JSON


def to_json(result: CheckResult) -> dict:
    opts = result.options
    tests = []
    for test in result.tests:
        entry = BY_NAME.get(test.name)
        tests.append({"name": test.name, "kinds": list(test.kinds), "checks": entry.checks if entry else "",
                      "status": test.status, "reason": test.reason, "details": test.details,
                      "duration": test.duration, "pitfalls": entry.pitfalls if entry else "",
                      "notes": list(test.notes)})
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "candidate": opts.impl,
            "options": {"ref_deps": opts.ref_deps, "deep": opts.deep, "timeout": opts.timeout,
                        "load_seconds": opts.load_seconds, "memory": opts.memory, "only": list(opts.only),
                        "strict": opts.strict},
            "seed": result.seed, "policy": opts.policy_header(),
            "verdict": result.verdict, "exit_code": result.exit_code, "load": result.load,
            "counts": result.counts(), "tests": tests, "isolation": result.isolation, "tamper": result.tamper,
            "integrity": result.integrity, "children": result.children, "duration": result.duration}


def json_text(result: CheckResult) -> str:
    return json.dumps(to_json(result), indent=1, sort_keys=True, default=str) + "\n"


def write_json(result: CheckResult, path) -> None:
    Path(path).write_text(json_text(result), encoding="utf-8")


# --------------------------------------------------------------------------- JUnit XML


def to_junit(result: CheckResult) -> ET.Element:
    counts = result.counts()
    suite = ET.Element("testsuite", name="constrain-harness", tests=str(len(result.tests)),
                       failures=str(counts["failed"]),
                       errors=str(counts["error"] + counts["crashed"] + counts["timeout"] + counts["not run"]),
                       skipped=str(counts["skipped"]), time=f"{result.duration:.3f}")
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="seed", value=str(result.seed))
    ET.SubElement(properties, "property", name="policy", value=result.options.policy_header())
    for test in result.tests:
        case = ET.SubElement(suite, "testcase", classname="catalogue", name=test.name, time=f"{test.duration:.3f}")
        if test.status == "failed":
            ET.SubElement(case, "failure", message=test.reason, type="failed").text = test.details
        elif test.status in ("error", "crashed", "timeout", "not run"):
            ET.SubElement(case, "error", message=test.reason, type=test.status).text = test.details
        elif test.status == "skipped":
            ET.SubElement(case, "skipped", message=test.reason)
    if result.isolation:  # the confinement, UNCONFINED (--unconfined) included; <properties> comes first
        properties = ET.Element("properties")
        ET.SubElement(properties, "property", name="confinement", value=result.isolation)
        suite.insert(0, properties)
    if result.load.get("status") not in (None, "ok") or result.integrity or result.tamper:
        ET.SubElement(suite, "system-err").text = "\n".join(_load_lines(result) + _integrity_lines(result))
    return suite


def junit_bytes(result: CheckResult) -> bytes:
    return junit_xml.document(to_junit(result))


def write_junit(result: CheckResult, path) -> None:
    Path(path).write_bytes(junit_bytes(result))


# --------------------------------------------------------------------------- Gradescope


def to_gradescope(result: CheckResult) -> dict:
    zeroed = _zero_reason(result)
    tests = []
    for test in result.tests:
        passed = test.status in ("passed", "skipped") and not zeroed
        output = f"{_MARK[test.status]}: {test.reason}".rstrip(": ") + (f"\n{test.details}" if test.details else "")
        if zeroed:
            output = f"{output}\nscored 0: {zeroed}"
        tests.append({"name": test.name, "score": 1.0 if passed else 0.0, "max_score": 1.0,
                      "status": "passed" if passed else "failed", "output": output,
                      "tags": list(test.kinds), "visibility": "visible"})
    score = sum(t["score"] for t in tests)
    tests.append({"name": SEED_TEST, "score": 0.0, "max_score": 0.0, "status": "passed", "visibility": "hidden",
                  "output": f"seed: {result.seed} (check --seed {result.seed} replays this run)"})
    output = "\n".join([SEED_KEPT, result.options.policy_header()] + render_table(result).splitlines()[-2:])
    if result.isolation.startswith(UNCONFINED_HEADLINE):
        output = f"confinement: {result.isolation}\n{output}"
    if zeroed:
        output = f"{zeroed}\n{output}"
    return {"score": score, "execution_time": round(result.duration, 2),
            "output": output, "stdout_visibility": "hidden", "tests": tests}


def _zero_reason(result: CheckResult) -> str:
    if result.integrity:
        return "the candidate changed the harness's files: " + "; ".join(result.integrity[:3])
    if result.tamper:
        return "the candidate tampered with the harness's modules"
    return ""


def gradescope_text(result: CheckResult) -> str:
    return json.dumps(to_gradescope(result), indent=1) + "\n"


def write_gradescope(result: CheckResult, path) -> None:
    Path(path).write_text(gradescope_text(result), encoding="utf-8")


# --------------------------------------------------------------------------- the common model


def to_report(result: CheckResult) -> Report:
    """``result`` as ``harness.report``'s model: a row per catalogue test (``crashed``,
    ``timeout`` and ``not run`` are errors), this module's JSON, JUnit and Gradescope as
    the native renderers, the table as the terminal text."""
    rows = tuple(Row(test.name, _STATUS.get(test.status, "error"), test.status, test.reason, test.details,
                     test.duration, "catalogue") for test in result.tests)
    title = f"constrain-harness check: {result.options.impl or 'the reference'} (seed {result.seed})"
    summary = {"seed": result.seed, "policy": result.options.policy_header()}
    return Report("check", title, frozenset({"tests", "graded"}), rows, result.verdict, result.exit_code,
                  result.duration, terminal=render_table(result), summary=summary,
                  native={"json": lambda: json_text(result), "junit": lambda: junit_bytes(result),
                          "gradescope": lambda: gradescope_text(result)})
