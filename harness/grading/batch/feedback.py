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
- ``write_all(records, folder, hints)``: one ``<student>.md`` per student, named after the
  student (the roster's or the metadata's name and SID when the batch knows them, else the
  submission's folder name; made safe for a file name, ``file_name``), returns the paths
  written. A file states the score after every deduction when the record has one (the
  course's ``points``, ``raw_score``, ``late``, ``score``).

Example::

    >>> load_words({"verdict": "syntax error", "problem": "SyntaxError in constrain.py line 12: '(' was never closed"})
    "syntax error at constrain.py:12: '(' was never closed"
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.grading.autograder.glossary import plain
from harness.grading.autograder.visibility import student_details
from harness.mutants.witness import reproducing
from harness.policy import HINT_LEVELS, POLICY
from harness.report import escape
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
    found = diagnose(record.get("tests", []), reproducing) if found is None else found
    owner = {name: entry["pitfall"] for entry in found for name in entry["explains"]
             if entry["strength"] in ("strong", "likely")}   # a possible pitfall is no test's hint
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
    return _short_paths(student_details(str(test.get("details") or "")))


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
    found = diagnose(record.get("tests", []), reproducing) if loaded else []
    return {"student": record["student"], "verdict": record["verdict"], "passed": record["passed"],
            "total": record["total"], "load": load_words(record), "diagnosis": found,
            "unexplained": unexplained(record.get("tests", []), found) if loaded else [],
            "failures": failures(record, hints, found) if loaded else [],
            "first_failure": first_failure(record.get("tests", [])) if loaded else "",
            "notes": _notes(record),
            "decisions": record.get("decisions", []), "decision_count": record.get("decision_count", 0)}


def _notes(record: dict) -> list[str]:
    """The notes that matter beyond ``load_words``: not the problem (the first note when
    there is one, ``records``) and not check's raw load line (``load_words`` says it)."""
    notes = list(record.get("notes", []))[1 if record.get("problem") else 0:]
    return [n for n in notes if not n.startswith("load: ")]


# --------------------------------------------------------------------------- the first failure

FUNCTION_OF_TEST = {   # the spec's function each catalogue test calls first (section 4)
    "test_hand_example": "regex_to_dfa", "test_hand_example_masks": "TokenIndex.mask",
    "test_matches_python_re": "regex_to_dfa", "test_every_state_is_live": "regex_to_dfa",
    "test_canonical_form": "regex_to_dfa", "test_unsupported_syntax_raises": "regex_to_dfa",
    "test_masks_match_brute_force": "TokenIndex.mask", "test_masks_match_the_golden_file": "TokenIndex.mask",
    "test_reachable_states_never_have_an_empty_mask": "TokenIndex.mask", "test_constraint_lifecycle": "Constraint",
    "test_apply_mask": "apply_mask", "test_greedy_takes_the_best_allowed_token": "constrained_sample",
    "test_constrained_generation_parses": "constrained_sample", "test_json_schema_documents": "json_schema_to_regex",
    "test_json_schema_rejects_keywords_outside_the_subset": "json_schema_to_regex", "test_vocab_bytes": "vocab_bytes",
}
# the pipeline's order (section 4): a mistake in a stage shows in every stage after it, so the
# first failure shown is of the earliest stage that failed (then the catalogue's order)
_STAGES = ("regex_to_dfa", "json_schema_to_regex", "vocab_bytes", "TokenIndex.mask", "Constraint", "apply_mask",
           "constrained_sample")
# "... (call regex_to_dfa on '(cat|car|dog)s?')", "... (reads regex_to_dfa on '...' (a batched loop))"
_STOPPED_IN = re.compile(r"\((?:call|reads|repeat) (?P<function>[\w.]+)(?: on (?P<input>.*?))?"
                         r"(?: \(a batched loop\))?\)\s*$")
_INPUT_FACTS = ("schema", "document", "path", "state", "token", "request", "logits")


def first_failure(tests: list[dict]) -> str:
    """The first test that ran and did not pass, of the earliest stage of the pipeline that
    failed (``_STAGES``), as a student reads it: the function and the input, and expected
    against got; a timeout or crash names the call it happened in, e.g.
    "`regex_to_dfa` did not finish on '(cat|car|dog)s?' (test_hand_example)" or
    "`regex_to_dfa('\\s+7').matches(b'\\x0b7')`: expected True, got False (test_matches_python_re:
    ...)". Empty when every test that ran passed."""
    failed = [t for t in tests if t.get("status") in ("failed", "error", "crashed", "timeout")]
    if not failed:
        return ""
    test = min(failed, key=lambda t: _STAGES.index(FUNCTION_OF_TEST.get(t["name"], "constrained_sample")))
    name, details = test["name"], str(test.get("details") or "")
    reason = " ".join(str(test.get("reason") or "").split())
    function = FUNCTION_OF_TEST.get(name, "your code")
    if test.get("status") in ("timeout", "crashed"):
        stopped = _STOPPED_IN.search(reason)
        if stopped:
            function = stopped["function"]
        where = f" on `{stopped['input']}`" if stopped and stopped["input"] else ""
        return f"`{function}` {_how_it_stopped(test['status'], reason)}{where} ({name})"
    if raised(test):
        return f"`{function}` raised {_short_paths(reason)} ({name})"
    facts = {key: _fact(details, key) for key in ("pattern", "data", "expected", "got", *_INPUT_FACTS)}
    if facts["pattern"] and facts["data"]:
        call = f"`regex_to_dfa({facts['pattern']}).matches({facts['data']})`"
    else:
        shown = [f"{key} {facts[key]}" for key in ("pattern", *_INPUT_FACTS) if facts[key]][:3]
        call = f"`{function}`" + (f" on {', '.join(shown)}" if shown else "")
    answers = f": expected {facts['expected']}, got {facts['got']}" if facts["expected"] and facts["got"] else ""
    return f"{call}{answers} ({name}: {_short_paths(reason)})"


def _stopped(words: str) -> bool:
    """Return True if and only if ``first_failure``'s words are of a call that never answered."""
    return "` did not finish" in words or "` ended the process" in words


def _how_it_stopped(status: str, reason: str) -> str:
    """"did not finish within 60 CPU s", "did not finish (it slept or waited)", or how the
    process ended, from a timeout's or crash's reason."""
    if status == "crashed":
        # e.g. "died of SIGXCPU, killed at its own CPU-time limit (RLIMIT_CPU)": one inner parenthesis kept
        ended = re.search(r"died of \w+, [^()]*(?:\([^()]*\))?|exit status \d+|out of memory|segmentation fault",
                          reason)
        return f"ended the process ({ended.group().strip()})" if ended else "ended the process"
    cpu = re.search(r"more than ([\d.]+) CPU s", reason)
    if cpu:
        return f"did not finish within {cpu.group(1)} CPU s"
    return "did not finish (it slept or waited, using no CPU)" if "wall" in reason else "did not finish"


def _fact(details: str, key: str) -> str | None:
    match = re.search(rf"^\s+{re.escape(key)}:\s+(.*)$", details, re.MULTILINE)
    return " ".join(match.group(1).split())[:200] if match else None


# --------------------------------------------------------------------------- the student's file


def markdown(record: dict, hints: str = POLICY.hints, *, full_details: bool = False) -> str:
    """The student's feedback file; ``full_details`` (the TA's class Markdown) shows the why
    and the counterexample of every failure whatever the level (the hints stay at it)."""
    view = student_view(record, hints)
    lines = [f"# Feedback: {_md(record.get('name') or view['student'])}", "",
             f"**{view['verdict']}**: {view['passed']}/{view['total']} tests passed.", ""] + _score_lines(record)
    if view["load"]:
        lines += [f"**Why:** {_md(view['load'])}", ""]
    if (view["diagnosis"] or view["first_failure"]) and (hints != "none" or full_details):
        lines += _diagnosis_lines(view, hints)
    if view["failures"]:
        lines += ["## Tests that did not pass", ""]
        for item in view["failures"]:
            lines += _failure_lines(item, hints, full_details)
    if view["notes"]:
        lines += ["## Notes", ""] + [f"- {_md(n)}" for n in view["notes"]] + [""]
    if view["decision_count"]:
        lines += _decision_lines(view)
    return plain("\n".join(lines).rstrip() + "\n")   # no jargon of the harness (glossary)


def _score_lines(record: dict) -> list[str]:
    """The score after every deduction, e.g. ``**Score: 14.4 / 16** (16 for the tests, then
    late by 8 h 1 min (1 day started, -10%))``; nothing when the record has no score."""
    if record.get("score") is None or not record.get("points"):
        return []
    number = lambda x: f"{x:.2f}".rstrip("0").rstrip(".")   # noqa: E731 - a local format
    deductions = [str(record["late"])] if record.get("deduction") else []
    why = (f" ({number(record['raw_score'])} for the tests, then {'; '.join(_md(d) for d in deductions)})"
           if deductions else " (after every deduction: none applied)")
    return [f"**Score: {number(record['score'])} / {number(record['points'])}**{why}", ""]


def _diagnosis_lines(view: dict, hints: str) -> list[str]:
    """The first advice: the pitfall named likely on separating evidence (``diagnosis``),
    else the first failure itself, said to match no known pitfall; then the ranked list."""
    top = view["diagnosis"][0] if view["diagnosis"] else None
    if top is not None and top["strength"] in ("strong", "likely"):
        shared = len(top["explains"])
        lines = ["## Diagnosis", "",
                 f"Most likely: **{_md(top['label'])}** ({top['strength']} evidence"
                 + (f"; it explains {shared} of your {len(view['failures'])} failing tests" if shared > 1 else "")
                 + "). Fix this first: the other failures may follow from it.", ""]
    elif _stopped(view["first_failure"]):
        lines = ["## Diagnosis", "",
                 f"A call did not answer, so no pitfall can be told from it: {_md_code(view['first_failure'])}. "
                 f"Start there.", ""]
    else:
        lines = ["## Diagnosis", "",
                 f"Your failures match no known pitfall of the spec (none of its twelve mistakes gives your "
                 f"answers). Start with the first one: {_md_code(view['first_failure'])}", ""]
        if view["diagnosis"]:
            lines += ["Pitfalls that fit some symptoms, without evidence that tells them apart:", ""]
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
    return (["<details><summary>" + f"{view['decision_count']} contract decisions not met (not graded: the spec "
             "allows your reading)</summary>", ""] + [f"- {_md(d)}" for d in shown]
            + ([f"- ... and {more} more"] if more > 0 else []) + ["", "</details>", ""])


_fenced = escape.markdown_block   # ``text`` in a code fence longer than any run of backticks inside it
_md = escape.markdown             # one line of Markdown: no HTML, link, code or emphasis markup from a student


def _md_code(text: str) -> str:
    """``text`` as Markdown: its backticked spans kept as code spans (a backtick inside them
    dropped), the rest escaped (``_md``)."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:   # an unpaired backtick: no code span at all
        return _md(text)
    return "".join(_md_spaced(part) if i % 2 == 0 else _code(part) for i, part in enumerate(parts))


def _md_spaced(text: str) -> str:
    """``_md(text)`` keeping one leading and one trailing space (text between code spans)."""
    inner = _md(text)
    return (" " if text[:1].isspace() else "") + inner + (" " if text[-1:].isspace() and inner else "")


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
        name = file_name(" ".join(x for x in (record.get("name"), record.get("sid")) if x) or record["student"])
        stem, n = name[:-3], 2
        while name in used:   # two names that differ only in unsafe characters
            name, n = f"{stem}-{n}.md", n + 1
        used.add(name)
        path = folder / name
        path.write_text(markdown(record, hints), encoding="utf-8")
        written.append(path)
    return written
