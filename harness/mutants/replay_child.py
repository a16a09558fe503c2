"""Child process: replay constrain_golden.json (or, with ``--tools``, tools_golden.json)
against one implementation, print JSON.

    python -m harness.mutants.replay_child PACKAGE_DIR
    python -m harness.mutants.replay_child --tools PACKAGE_DIR     # a copy of oracles/tools
    python -m harness.mutants.replay_child --first-kill=CHECK,CHECK PACKAGE_DIR

The replay runs here; the implementation runs behind the wall (``harness.sandbox``), as
every candidate does. Prints ``{"checks": {check: {"assertions": n, "failures": n}},
"findings": [...]}`` on one line; the exit code is 0 when every check passed, 1
otherwise, 3 when the implementation could not be loaded or crashed, 2 for a bad argument.

``--first-kill=CHECKS`` (the mutant's expected killers, comma-separated; may be empty):
replay the file part by part (``steps``: the replay's own check functions, as
``replay_constrain`` / ``replay_tools`` call them) up to the first kill (``first_kill``):
the parts that report one of CHECKS first, up to the first failure of one of CHECKS; then,
when nothing failed, the others, up to the first failure of any check. ``"checks"`` then
holds the checks of the parts that ran to their end and the checks that failed, never a
check a stopped part left half done; ``"stopped"`` names the check that stopped it (null
when none did). A failure is a failure wherever the replay stops, so the verdict (killed
or not, by an expected check or not) is the whole replay's, for a fraction of its cost: an
expected killer fails on its first cases, and the seeded output walks
(``constrained_output_always_parses``, three quarters of the whole replay's CPU) run only
for the mutants they are expected to kill or that survive every other part.
``tests/mutants/test_mutants.py`` checks that the parts replay exactly what the whole replay does.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Step:
    """One part of a replay: the checks it reports and how to run it."""

    checks: tuple[str, ...]
    run: Callable   # run(report, impl, cache, doc, tokenizer)


def _constrain_steps() -> tuple[Step, ...]:
    """``golden.replay.replay_constrain``'s body, part by part, in its order."""
    from golden import replay as r

    def automata(doc):
        return doc["schemas"] + doc["patterns"]

    def masks(report, impl, cache, doc, _tokenizer):
        l87 = doc["l8_7_cases"]
        r.check_masks(report, impl, cache, automata(doc), doc["vocab"], "masks_match_python_l8_7")
        r.check_masks(report, impl, cache, l87["cases"], l87["vocab"], "masks_match_python_l8_7")
        r.check_masks(report, impl, cache, doc["no_eos"]["cases"], doc["no_eos"]["vocab"], "masks_match_python_l8_7")

    return (
        Step(("dfa_matches_python_l8_7",), lambda report, impl, cache, doc, _t: r.check_dfas(
            report, impl, cache, automata(doc) + doc["l8_7_cases"]["cases"], strict_regex=False)),
        Step(("masks_match_python_l8_7", "token_index_rules"), masks),
        Step(("subset_errors_are_refused",), lambda report, impl, _c, doc, _t: r.check_refusals(
            report, impl, doc["refused_patterns"], doc["refused_schemas"], "subset_errors_are_refused")),
        Step(("refused_extra",), lambda report, impl, _c, doc, _t: r.check_refusals(
            report, impl, doc["refused_extra"]["patterns"], doc["refused_extra"]["schemas"], "refused_extra")),
        Step(("dumps_matches_python",), lambda report, impl, _c, doc, _t: r.check_dumps(report, impl, doc)),
        Step(("constrained_sample_hand_example",), lambda report, impl, _c, doc, _t: r.check_sampling(
            report, impl, doc["constrained_sample_hand_example"])),
        Step(("constrained_output_always_parses",), lambda report, impl, cache, doc, _t: r.check_outputs(
            report, impl, doc["schemas"], doc["vocab"], cache)),
        Step(("vocab_bytes_marks_specials",), lambda report, impl, _c, doc, tokenizer: r.check_vocab_bytes(
            report, impl, doc["vocab_bytes"], tokenizer)),
    )


def _tools_steps() -> tuple[Step, ...]:
    """``golden.tools_replay.replay_tools``'s body, part by part, in its order."""
    from golden import tools_replay as t

    def step(checks, function):
        return Step(checks, lambda report, impl, _c, doc, _t: function(report, impl, doc))

    return (
        step(("parse_tool_request_hand_example",), t.check_requests),
        step(("grammar_by_tool_choice", "json_object_grammar"), t.check_grammars),
        step(("render_messages_with_tools",), t.check_conversations),
        step(("parser_hand_example", "parser_holds_back_only_real_markup", "parser_parallel_calls",
              "parser_is_split_invariant"), t.check_streams),
        step(("message_and_delta_json_shapes",), t.check_shapes),
        step(("forced_call_from_a_random_model_is_valid",), t.check_forced_walks),
    )


def steps(tools: bool) -> tuple[Step, ...]:
    """The parts of the constrain replay (the tools replay when ``tools``)."""
    return _tools_steps() if tools else _constrain_steps()


class _Stopped(BaseException):   # not an Exception: no ``except Exception`` of a check swallows it
    def __init__(self, check: str):
        super().__init__(check)
        self.check = check


def first_kill(doc: dict, impl, *, tools: bool, expected: tuple[str, ...], tokenizer=None):
    """Replay ``doc`` against ``impl`` part by part up to its first kill: (the report, the
    check that stopped it or None, the checks of the parts that ran to their end).

    First the parts that report an ``expected`` check, stopped by the first failure of an
    expected check (a part reporting several checks may fail another first: it is recorded
    and the part goes on); then, when nothing has failed yet, the other parts, stopped by
    the first failure of any check."""
    from golden import fileformat
    from golden.replay import ReplayReport, _Cache

    class StopAtFirstFailure(ReplayReport):
        stop_on: frozenset[str] | None = frozenset()   # the checks whose failure stops the replay (None: any)

        def fail(self, check: str, where: str, message: str, level: str = "fail") -> None:
            super().fail(check, where, message, level)
            if level == "fail" and (self.stop_on is None or check in self.stop_on):
                raise _Stopped(check)

    report = StopAtFirstFailure(fileformat.FILES["tools_golden" if tools else "constrain_golden"])
    cache = None if tools else _Cache(impl)
    parts = steps(tools)
    first = [step for step in parts if set(step.checks) & set(expected)]
    finished: list[str] = []
    for phase, stop_on in ((first, frozenset(expected)), ([s for s in parts if s not in first], None)):
        if not report.ok:   # killed in the expected parts, by another check of theirs
            break
        report.stop_on = stop_on
        for step in phase:
            try:
                step.run(report, impl, cache, doc, tokenizer)
            except _Stopped as stopped:
                return report, stopped.check, finished
            finished += step.checks
    return report, None, finished


_DOCUMENTS: dict[str, dict] = {}


def document(tools: bool) -> dict:
    """constrain_golden.json (tools_golden.json when ``tools``), read and validated once per
    process: a warm grader does it before it forks (``warm_up``), so each fork has it."""
    from golden import fileformat

    kind = "tools_golden" if tools else "constrain_golden"
    if kind not in _DOCUMENTS:
        _DOCUMENTS[kind] = fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES[kind], kind)
    return _DOCUMENTS[kind]


def warm_up() -> None:
    """What a warm grader does once for all its replays (``warm.serve``): read both files."""
    document(False)
    document(True)


def _known_checks(tools: bool) -> set[str]:
    return {check for step in steps(tools) for check in step.checks}


def main(argv: list[str]) -> int:
    from golden.replay import replay_constrain
    from golden.tools_replay import replay_tools
    from harness.sandbox import Candidate, CandidateGone, RemoteError
    from harness.suite.shapes import SpecTokenizer

    tools = "--tools" in argv
    wanted = [a.removeprefix("--first-kill=") for a in argv if a.startswith("--first-kill=")]
    expected = tuple(c for c in (wanted[-1] if wanted else "").split(",") if c)
    unknown = sorted(set(expected) - _known_checks(tools))
    paths = [a for a in argv if not a.startswith("--")]
    if unknown or len(paths) > 1:
        problem = f"unknown check(s) {', '.join(unknown)}" if unknown else f"one package, not {paths}"
        print(json.dumps({"error": f"replay_child: {problem}"}))
        return 2
    doc = document(tools)
    stopped, finished = None, None
    with Candidate(paths[0] if paths else None, contract="tools" if tools else "constrain") as candidate:
        try:
            if wanted:
                report, stopped, finished = first_kill(doc, candidate.module, tools=tools, expected=expected,
                                                       tokenizer=SpecTokenizer)
            else:
                report = replay_tools(doc, candidate.module) if tools else \
                    replay_constrain(doc, candidate.module, tokenizer=SpecTokenizer)  # a tokenizer the wall hands over
            if candidate.incident is not None:
                raise candidate.incident
        except (CandidateGone, RemoteError) as exc:
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
            return 3
    shown = report.assertions if finished is None else \
        {c: n for c, n in report.assertions.items() if c in finished or report.failures.get(c)}
    checks = {c: {"assertions": n, "failures": report.failures.get(c, 0)} for c, n in shown.items()}
    findings = [{"check": f.check, "where": f.where, "message": f.message}
                for f in report.findings if f.level == "fail"][:10]
    answer = {"checks": checks, "findings": findings}
    if wanted:
        answer["stopped"] = stopped
    print(json.dumps(answer))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
