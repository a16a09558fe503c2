"""The grade as the student and the course staff read it: terminal, JSON, Gradescope,
Stryker, HTML.

- ``progress_line(done, total, run)``: one line per finished run, with a bar;
- ``table(graded, hints)``: header (suite, module, confinement, limits, wheats, chaffs,
  the run seed), invalid
  tests (wheat, message, input), flaky tests, the matrix test x chaff (``X`` failed,
  ``.`` passed, ``s`` skipped, ``T`` timeout, ``C`` crashed, ``-`` not run; invalid tests
  marked), the score, each surviving chaff with its hint at the chosen level, and each
  chaff not graded (its implementation did not load) with why;
- ``to_json(graded, hints)``: all of it as data (``"version": 1``);
- ``to_gradescope(graded, hints, max_score)``: Gradescope's ``results.json``: the score out
  of ``max_score``, one entry per chaff group (``hints.GROUPS``), worth its share of the
  chaffs, plus an entry listing invalid and flaky tests (worth 0); the student reads no run
  seed in it (``policy.SEED_KEPT``): the seed is in a hidden entry worth 0
  (``policy.SEED_TEST``), and the stdout (the table, which names it) is hidden;
- ``to_stryker(graded)``: the mutation-testing-report-schema (schemaVersion "2"): each
  chaff a mutant located at its first edit in ``oracles/automaton``, Killed by the valid
  tests that failed on it, else Survived;
- ``to_html(graded, hints)``: one offline page (inline CSS, no script, no network);
- ``to_report(graded, hints, max_score)``: the adapter to ``harness.report``, whose
  generic renderers add JUnit XML, CSV and Markdown (a row per chaff).

Every report names the run seed (``--seed`` replays the run), the Gradescope file in a
hidden entry only. Every text that came from
the suite or an implementation (test ids, messages, inputs, output) was escaped when it
was received (``suite_run``), so none of it can draw on a terminal. For the same suite
and seed, ``to_json`` is the same byte for byte but for its timings (keys ``seconds`` and
``cpu_seconds``).
"""

from __future__ import annotations

import html
import json

from harness.grading.gradetests.grade import Graded
from harness.grading.gradetests.hints import GROUPS, group, hint
from harness.grading.gradetests.suite_run import RunResult
from harness.policy import SEED_KEPT, SEED_TEST
from harness.report.model import Report, Row
from harness.report.progress import bar
from harness.sandbox.text import escape

CELL = {"failed": "X", "error": "X", "timeout": "T", "crashed": "C", "passed": ".", "skipped": "s", "not run": "-"}
BAR = 24


def progress_line(done: int, total: int, run: RunResult) -> str:
    failing = sum(o in ("failed", "error", "timeout", "crashed") for o in run.outcomes.values())
    return (f"{bar(done, total, BAR)} {done:>3}/{total} {run.role} {run.implementation:<14} "
            f"{run.verdict}, {failing} failing of {len(run.outcomes)} ({run.seconds:.1f} s)")


def _percent(graded: Graded) -> str:
    g = graded.grade
    return f"{len(g.caught)}/{g.total} chaffs caught ({100 * g.score:.0f}%)"


def table(graded: Graded, hints: str) -> str:
    g, lines = graded.grade, []
    lines += [f"suite: {escape(str(graded.options.suite))}   module: {graded.options.module}",
              f"the suite ran in: {graded.confinement}",
              graded.options.policy_line(),
              f"wheats: {escape(', '.join(graded.wheats))} (two runs each)   chaffs: {len(g.chaff_runs)}   "
              f"seed: {graded.seed} (--seed {graded.seed} replays this run)   {graded.seconds:.0f} s, "
              f"{graded.cpu_seconds:.0f} CPU s", ""]
    if not graded.mode.startswith("bubblewrap"):  # unshare hides processes, not files; the fallback neither
        exposed = "files and processes" if graded.mode in ("fallback", "unconfined") else "files"
        lines.append(f"WARNING: no bubblewrap: the suite could read the implementations' {exposed}")
    lines.append(f"tests: {len(g.tests)} collected, {len(g.valid)} valid, {len(g.invalid)} invalid, "
                 f"{len(g.flaky)} flaky")
    for bad in g.invalid:
        lines.append(f"  INVALID {bad.test}: {bad.outcome} on wheat {bad.wheat}: {_one_line(bad.message)}")
        if bad.input:
            lines.append(f"          input: {bad.input}")
    for test, wheat in g.flaky.items():
        lines.append(f"  FLAKY   {test}: different outcomes in two runs on wheat {wheat}")
    for test, assumed in g.assumes.items():
        lines.append(f"  READING {test}: valid under the spec's reading {' or '.join(assumed)} "
                     f"(it fails on the wheats of the other reading)")
    lines += ["", *_matrix(graded), ""]
    lines.append(f"score: {_percent(graded)}" + ("   (INCOMPLETE: some chaffs did not run)" if g.incomplete else ""))
    lines += [f"note: {n}" for n in g.notes]
    if graded.tampered:
        lines.append(f"the harness's files changed during the grading (restored): {'; '.join(graded.tampered[:5])}")
    for chaff in g.surviving:
        verdict = g.chaff_verdicts[chaff]
        why = "" if verdict == "completed" else f" [{verdict}]"
        text = hint(chaff, hints)
        lines.append(f"  survived: {chaff}{why}" + (f": {text}" if text else ""))
    for chaff, why in g.not_graded.items():
        lines.append(f"  not graded: {chaff}: did not load ({_one_line(why)})")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def _matrix(graded: Graded) -> list[str]:
    g = graded.grade
    chaffs = list(g.matrix)
    if not g.tests:
        return ["(no test)"]
    width = max(len(t) for t in g.tests)
    head = [" " * (width + 3) + " ".join(f"{c[-3:]:>3}" for c in chaffs)]
    rows = []
    for test in g.tests:
        mark = "!" if test not in g.valid else " "
        cells = " ".join(f"{CELL.get(g.matrix[c][test], '?'):>3}" for c in chaffs)
        rows.append(f"{mark} {test:<{width}} {cells}")
    caught = " ".join(f"{'yes' if c in g.caught else 'no':>3}" for c in chaffs)
    return head + rows + [f"  {'caught':<{width}} {caught}", "(X failed, . passed, s skipped, T timeout, "
                                                              "C crashed, - not run; ! an invalid test)"]


def to_json(graded: Graded, hints: str) -> dict:
    g = graded.grade
    return {
        "version": 1, "suite": str(graded.options.suite), "module": graded.options.module,
        "confinement": graded.confinement, "mode": graded.mode, "seed": graded.seed,
        "policy": graded.options.policy_line(),
        "seconds": round(graded.seconds, 1), "cpu_seconds": round(graded.cpu_seconds, 1), "hints": hints,
        "wheats": graded.wheats, "not_graded": g.not_graded,
        "score": {"caught": len(g.caught), "total": g.total, "fraction": g.score, "incomplete": g.incomplete},
        "tests": g.tests, "valid": g.valid,
        "invalid": [vars(i) for i in g.invalid], "flaky": g.flaky, "notes": g.notes, "assumes": g.assumes,
        "chaffs": [{"id": c, "group": group(c), "verdict": g.chaff_verdicts[c], "caught": c in g.caught,
                    "caught_by": g.caught.get(c, []), "hint": "" if c in g.caught else hint(c, hints),
                    "tests": g.matrix[c], "seconds": round(g.chaff_runs[c].seconds, 2),
                    "cpu_seconds": round(g.chaff_runs[c].cpu_seconds, 2), "processes": g.chaff_runs[c].processes,
                    "detail": g.chaff_runs[c].detail} for c in g.matrix],
        "wheat_runs": {w: [{"verdict": r.verdict, "detail": r.detail, "outcomes": r.outcomes,
                            "seconds": round(r.seconds, 2), "cpu_seconds": round(r.cpu_seconds, 2),
                            "processes": r.processes, "output": r.output[-2000:]} for r in runs]
                       for w, runs in g.wheat_runs.items()},
        "tampered": graded.tampered,
    }


def to_gradescope(graded: Graded, hints: str, max_score: float = 100.0) -> dict:
    g = graded.grade
    entries = []
    for name, _text, ids in [*GROUPS, ("other", "chaffs outside the catalogue", ())]:
        members = [c for c in g.matrix if c in ids or (name == "other" and group(c) == "other")]
        if not members:
            continue
        graded_members = [c for c in members if c not in g.not_graded]
        caught = [c for c in graded_members if c in g.caught]
        worth = max_score * len(graded_members) / g.total if g.total else 0.0
        output = "\n".join(f"{c}: caught by {', '.join(g.caught[c])}" if c in g.caught else
                           f"{c}: not graded (did not load)" if c in g.not_graded else
                           f"{c}: survived" + (f" ({hint(c, hints)})" if hints != "none" else "") for c in members)
        entries.append({"name": name if hints != "none" else f"chaff group {len(entries) + 1}",
                        "score": round(worth * len(caught) / len(graded_members) if g.valid and graded_members
                                       else 0.0, 2),
                        "max_score": round(worth, 2), "output": output, "visibility": "visible"})
    validity = [f"{i.test}: invalid, {i.outcome} on wheat {i.wheat}: {_one_line(i.message)}" for i in g.invalid]
    validity += [f"{t}: flaky on wheat {w}" for t, w in g.flaky.items()]
    validity += [f"{t}: valid under the spec's reading {' or '.join(a)}" for t, a in g.assumes.items()]
    entries.append({"name": "validity of your tests on the correct implementations", "score": 0, "max_score": 0,
                    "output": "\n".join(validity) or f"all {len(g.tests)} tests are valid", "visibility": "visible"})
    entries.append({"name": SEED_TEST, "score": 0, "max_score": 0, "visibility": "hidden",
                    "output": f"seed: {graded.seed} (grade-tests --seed {graded.seed} replays this run)"})
    return {"score": round(max_score * g.score, 2),
            "output": f"{_percent(graded)}; {SEED_KEPT}" + "".join(f"; {n}" for n in g.notes),
            "stdout_visibility": "hidden", "tests": entries}


def to_stryker(graded: Graded) -> dict:
    from harness.mutants.apply import REFERENCE_DIR
    from harness.mutants.catalogue import BY_ID
    from harness.mutants.report import _location, _version

    g, files = graded.grade, {}
    for chaff in g.matrix:
        m = BY_ID.get(chaff)
        edit = m.edits[0] if m and m.edits else None
        name = edit.file if edit else "unknown.py"
        path = REFERENCE_DIR / name
        source = path.read_text(encoding="utf-8") if path.exists() else ""
        entry = files.setdefault(f"oracles/automaton/{name}", {"language": "python", "source": source, "mutants": []})
        verdict = g.chaff_verdicts[chaff]
        status = "Killed" if chaff in g.caught else "Survived" if verdict in ("completed", "timeout", "crashed") \
            else "Ignored" if verdict == "skipped" else "RuntimeError"
        entry["mutants"].append({
            "id": chaff, "mutatorName": f"{chaff} ({m.stage if m else '?'})",
            "description": m.pitfall if m else chaff, "replacement": edit.new if edit else "",
            "location": _location(source, edit) if edit else {"start": {"line": 1, "column": 1},
                                                                   "end": {"line": 1, "column": 1}},
            "status": status, "killedBy": g.caught.get(chaff, []), "coveredBy": g.valid,
            "duration": int(g.chaff_runs[chaff].seconds * 1000)})
    return {"$schema": "https://git.io/mutation-testing-schema", "schemaVersion": "2",
            "thresholds": {"high": 80, "low": 60}, "files": files,
            "testFiles": {str(graded.options.suite): {"tests": [{"id": t, "name": t} for t in g.tests]}},
            "framework": {"name": "constrain-harness grade-tests", "version": _version()},
            "config": {"seed": graded.seed}}


CSS = """body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:center}th.t{writing-mode:vertical-rl;transform:rotate(180deg)}
td.f{background:#c8e6c9}td.p{background:#f5f5f5}td.l{text-align:left}tr.invalid td.l{color:#b71c1c;
text-decoration:line-through}.survived{color:#b71c1c;font-weight:bold}"""


def to_html(graded: Graded, hints: str) -> str:
    g, e = graded.grade, html.escape
    head = "".join(f'<th class="t">{e(c)}</th>' for c in g.matrix)
    rows = []
    for test in g.tests:
        cells = "".join(f'<td class="{"f" if g.matrix[c][test] in ("failed", "error", "timeout", "crashed") else "p"}"'
                        f' title="{e(g.matrix[c][test])}">{e(CELL.get(g.matrix[c][test], "?"))}</td>' for c in g.matrix)
        rows.append(f'<tr class="{"valid" if test in g.valid else "invalid"}"><td class="l">{e(test)}</td>{cells}</tr>')
    caught = "".join(f'<td class="{"f" if c in g.caught else "p"}">{"yes" if c in g.caught else "no"}</td>'
                     for c in g.matrix)
    invalid = "".join(f"<li><code>{e(i.test)}</code>: {e(i.outcome)} on wheat {e(i.wheat)}: {e(_one_line(i.message))}"
                      f"{'<br>input: <code>' + e(i.input) + '</code>' if i.input else ''}</li>" for i in g.invalid)
    survived = "".join(f'<li><span class="survived">{e(c)}</span> {e(hint(c, hints))}</li>' for c in g.surviving)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>grade-tests: {e(str(graded.options.suite))}"
            f"</title><style>{CSS}</style></head><body><h1>{e(_percent(graded))}</h1>"
            f"<p>suite <code>{e(str(graded.options.suite))}</code>, module <code>{e(graded.options.module)}</code>; "
            f"wheats: {e(', '.join(graded.wheats))}; {len(g.valid)} valid tests of {len(g.tests)}; "
            f"seed {graded.seed}</p>"
            f"<p>{e(' '.join(g.notes))}</p><h2>Invalid tests</h2><ul>{invalid or '<li>none</li>'}</ul>"
            f"<h2>Matrix</h2><table><tr><th></th>{head}</tr>{''.join(rows)}<tr><td class='l'>caught</td>{caught}</tr>"
            f"</table><h2>Surviving chaffs</h2><ul>{survived or '<li>none</li>'}</ul></body></html>\n")


def to_report(graded: Graded, hints: str, max_score: float = 100.0) -> Report:
    """The grade as ``harness.report``'s model (kinds ``mutants``, ``graded``): a row per
    chaff, passed when a valid test caught it, skipped when it did not run, failed when it
    survived, an error when it could not be judged. JSON, Gradescope, Stryker and HTML
    above are the native renderers; JUnit, CSV and Markdown the generic ones."""
    g = graded.grade
    rows = tuple(_row(graded, chaff, hints) for chaff in g.matrix)
    complete = g.valid and not g.invalid and not g.surviving
    return Report("grade-tests", f"grade-tests {graded.options.suite}: {_percent(graded)} (seed {graded.seed})",
                  frozenset({"mutants", "graded"}), rows, "passed" if complete else "failed",
                  4 if graded.tampered else 0 if complete else 1, graded.seconds, terminal=table(graded, hints),
                  native={"json": lambda: dumps(to_json(graded, hints)),
                          "gradescope": lambda: dumps(to_gradescope(graded, hints, max_score)),
                          "stryker": lambda: dumps(to_stryker(graded)), "html": lambda: to_html(graded, hints)})


def _row(graded: Graded, chaff: str, hints: str) -> Row:
    g, verdict = graded.grade, graded.grade.chaff_verdicts[chaff]
    if chaff in g.caught:
        status, why = "passed", f"caught by {', '.join(g.caught[chaff])}"
    elif verdict == "skipped":
        status, why = "skipped", "not run"
    elif chaff in g.not_graded:
        status, why = "error", "not graded: did not load"
    else:
        status = "failed" if verdict in ("completed", "timeout", "crashed") else "error"
        why = "survived" + (f": {hint(chaff, hints)}" if hints != "none" and hint(chaff, hints) else "")
    return Row(chaff, status, verdict, why, g.chaff_runs[chaff].detail, g.chaff_runs[chaff].seconds,
               f"chaffs.{group(chaff)}")


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n"


def write_json(path: str, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=False, allow_nan=False)
        f.write("\n")
