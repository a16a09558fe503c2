"""Inputs in, answers out (issue 48, item 1): whatever runs in the candidate's process is the
candidate, the channel's server code included; it gets the inputs of the contract's calls
and nothing else, never an expected answer.

Two ways to hold the rule to account:

- an attack: ``tests/candidates/echoes_expected_answers.py`` is a wrong module (every token
  longer than 3 bytes refused) whose import rewrites its own process's server to echo any
  expected answer a request carries (brute-force masks and next states, a golden path's
  allowed ids and completeness, expected match flags) and to let a walk's masks allow the
  path it was given. Against the grader that sent answers with the inputs it passed 16 of
  16. It must get exactly the verdict of its honest twin
  (``tests/candidates/wrong_refuses_long_tokens.py``) in ``check`` (default and strict
  tiers), ``check --batch``, the Gradescope runner and ``golden replay --impl``; the twin's
  verdict is the spec's: its masks differ from the brute-force definition and from the
  golden file, and nothing else (``TWINS_VERDICT``). The twin's whole catalogue run of the
  frames below (the grader in this process, the twin in its confined candidate process) shows
  that it is; ``check`` and the Gradescope runner hold the echo to that verdict without grading
  the twin again (they grade a submission with the same catalogue run; ``check`` graded the twin
  too until 2026-12-07, a second catalogue run of it). The batch grades each submission with
  the Gradescope runner's function (``grading.grade_submission``, in its check job): the
  runner's test is the batch's verdict too (until 2026-12-07 a batch of the echo alone was
  graded as well, some 5 CPU s). Golden replay compares
  the echo's replay behind the wall with the twin's failures, the verb's comparisons run on the
  twin imported in this process (its replay behind the wall gave the same lines).
- the frames: every frame the grader sends to the candidate in a whole catalogue run (the
  16 tests in this process against the reference) is recorded as it goes on the wire. The
  batched loops' requests have their documented shapes (inputs only); no frame holds a
  brute-force mask of the brute-force test, a golden path's allowed ids or a list of
  expected flags; and the batched requests are the same for the wrong twin, up to where
  the grader stops at its first failure: what the grader sends does not depend on what it
  expects.

``check --deep`` is not run here (its Hypothesis properties make calls one at a time; it
costs some 50 s on a quiet machine).
"""

from __future__ import annotations

import inspect
import io
import json
import os
import shutil

import numpy as np
import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.check import CheckOptions, run_check
from harness.sandbox import Candidate, channel
from harness.sandbox.channel import Described, Handle
from harness.suite.catalogue import NAMES
from tests.support.helpers import CANDIDATES, confined, left_over

pytestmark = pytest.mark.e2e

TWIN, ECHO = "wrong_refuses_long_tokens.py", "echoes_expected_answers.py"
RUN_SEED = 48  # the twins under one seed (a check derives it from the submission otherwise)
MASK_TESTS = {"test_masks_match_brute_force", "test_masks_match_the_golden_file"}
TWINS_VERDICT = {name: "failed" if name in MASK_TESTS else "passed" for name in NAMES}
"""The honest twin's verdict by the spec: its masks differ, nothing else."""


def checked(candidate: str, **options) -> tuple[dict, int]:
    """``check`` of a candidate under one run seed: ({test: status}, exit code); nothing of
    it left running."""
    result = run_check(CheckOptions(impl=str(CANDIDATES / candidate), seed=RUN_SEED, **options))
    assert left_over(result.marker) == [], f"processes of {candidate} are still running"
    return {t.name: t.status for t in result.tests}, int(result.exit_code)


# --------------------------------------------------------------------------- the echo, in every grader


@confined
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_a_server_that_echoes_its_requests_gets_its_honest_twins_verdict_in_check(harness_unchanged, strict):
    # the twin's verdict (TWINS_VERDICT) is the spec's: test_the_honest_twin_fails_the_mask_tests_and_nothing_else
    echo, echo_exit = checked(ECHO, strict=strict)
    assert echo == TWINS_VERDICT and echo_exit == ExitCode.FAILED, echo


@confined
def test_a_server_that_echoes_its_requests_gets_its_honest_twins_score_from_the_gradescope_runner(
        harness_unchanged, tmp_path):
    from harness.grading.autograder import runner
    from harness.grading.autograder.config import AutograderConfig

    def scored(candidate: str) -> dict:
        root = tmp_path / candidate.removesuffix(".py")
        (root / "submission").mkdir(parents=True)
        shutil.copy2(CANDIDATES / candidate, root / "submission" / "constrain.py")
        runner.run(root, "gradescope", AutograderConfig(points=16.0, timeout=30.0, grade_student_tests=False),
                   log=io.StringIO())
        results = json.loads((root / "results" / "results.json").read_text())
        return {"score": results["score"], "tests": {t["name"]: t["score"] for t in results["tests"]}}

    echoing = scored(ECHO)
    lost = {name for name, score in echoing["tests"].items() if score == 0.0 and name in NAMES}
    assert echoing["score"] == 14.0 and lost == MASK_TESTS, echoing
    assert {name for name in echoing["tests"] if name in NAMES} == set(NAMES), echoing


def _failure_lines(text: str, candidate: str) -> list[str]:
    """A replay's check and total lines (each says how many failed) and its findings, the
    candidate's file name made ``<candidate>``."""
    return [line.replace(candidate, "<candidate>") for line in text.splitlines() if "FAIL" in line or "fail" in line]


def replayed_here(candidate: str, kind: str) -> tuple[int, list[str]]:
    """``golden replay``'s comparisons of the golden file ``kind`` (``session.compare``, the
    verb's own, with the tokenizer the wall hands over) against ``candidate`` imported in this
    process: (the verb's exit code for it, its failure lines as the verb prints them). For the
    honest twin, a staff wrapper of the reference: its verdict, without the ~6 CPU s (constrain)
    of some 12,000 calls over the channel that its replay behind the wall costs; the same lines as
    that replay (2026-12-07: masks 16, constrain 30, equal)."""
    from golden import fileformat
    from harness.golden_replay import session
    from harness.sandbox.candidate import load_candidate
    from harness.sandbox.text import escape

    [(kind, doc)] = session.read_docs((kind,), fileformat.GOLDEN_DIR, io.StringIO())
    report = session.compare(kind, doc, load_candidate(str(CANDIDATES / candidate)))
    code = ExitCode.OK if report.ok else ExitCode.FAILED
    return code, _failure_lines("\n".join(escape(line) for line in report.lines()), candidate)


@confined
@pytest.mark.parametrize("golden_file", ["masks", "constrain"])
def test_a_server_that_echoes_its_requests_gets_its_honest_twins_verdict_from_golden_replay(harness_unchanged,
                                                                                          golden_file):
    """The echo behind the wall (``golden replay --impl``) gets the lines and exit code of its honest
    twin's replay, computed with the twin in this process (``replayed_here``): the echo's server is
    what the wall holds to account, the twin's replay is the oracle."""
    def replayed(candidate: str) -> tuple[int, list[str]]:
        out, err = io.StringIO(), io.StringIO()
        os.environ["CONSTRAIN_HARNESS_MARKER"] = marker = f"knowledge-replay-{golden_file}"
        try:
            code = main(["golden", "replay", "--impl", str(CANDIDATES / candidate), "--file", golden_file,
                         "--timeout", "60"], out, err)
        finally:
            del os.environ["CONSTRAIN_HARNESS_MARKER"]
        assert left_over(marker) == [], f"processes of {candidate} are still running after the replay"
        assert "golden replay: confinement: " in out.getvalue(), out.getvalue() + err.getvalue()
        return code, _failure_lines(out.getvalue(), candidate)

    honest, echoing = replayed_here(TWIN, f"{golden_file}_golden"), replayed(ECHO)
    assert honest[0] == ExitCode.FAILED and honest[1], honest
    assert echoing == honest


# --------------------------------------------------------------------------- a generation's self-report

LIAR, LIARS_TWIN = "lies_about_generation_inputs.py", "wrong_raw_control_bytes.py"
GENERATION = ("test_constrained_generation_parses",)


@confined
def test_a_server_that_lies_about_its_generation_inputs_gets_its_honest_twins_verdict(harness_unchanged):
    """The twin's raw control bytes reach a finished generation (json.loads refuses it); the
    liar's server hands its batched draws logits without them and reports the digest of the
    grader's: taken on that report the liar passed (measured before the catalogue checked
    each draw against its own logits). Now its draws made ahead are not the answers to the
    grader's logits, the generation is made one call at a time, and it fails as its twin."""
    twin, twin_exit = checked(LIARS_TWIN, only=GENERATION)
    liar, liar_exit = checked(LIAR, only=GENERATION)
    assert twin == {GENERATION[0]: "failed"} and twin_exit == ExitCode.FAILED, twin
    assert liar == twin and liar_exit == twin_exit


# --------------------------------------------------------------------------- every frame sent to the candidate

BATCHED = ("walk", "sweep", "matches", "explore", "generate", "reads")  # the plans of harness.suite.batched


def _plain_ints(value) -> bool:
    return isinstance(value, list) and all(type(v) is int for v in value)


def _kind(op: str, name) -> str | None:
    """The batched loop a request is (a plan's kind is its name), or None."""
    return name if op == "plan" and name in BATCHED else None


def _steps(check):
    """A plan's arguments ``[steps]`` whose every step ``[op, target, name, reading, size,
    *args]`` passes ``check(op, target, name, args)`` and names a known reading
    (``harness.sandbox.plans.READINGS``)."""
    from harness.sandbox.plans import READINGS

    return lambda a: len(a) == 1 and isinstance(a[0], list) and all(
        isinstance(step, list) and len(step) >= 5 and (step[3] is None or step[3] in READINGS)
        and (step[4] is None or type(step[4]) is int) and check(*step[:3], step[5:]) for step in a[0])


REQUEST_SHAPES = {  # a batched loop's arguments: the inputs of the calls it makes, nothing else
    "walk": _steps(lambda op, target, name, args: type(target) is int and target > 0 and (
        (op, name, args) in (("call", "mask", []), ("call", "is_complete", []), ("getattr", "state", []))
        or (op, name) == ("call", "advance") and len(args) == 1 and type(args[0]) is int)),
    "sweep": _steps(lambda op, target, name, args: type(target) is int and target > 0 and _plain_ints(args) and (
        (op, name) == ("call", "mask") and len(args) == 1 or (op, name) == ("many_range", "next_state")
        and len(args) == 2)),
    "matches": _steps(lambda op, target, name, args: op == "call" and type(target) is int and target > 0
                      and len(args) == 1 and isinstance(args[0], bytes)),
    "reads": _steps(lambda op, target, name, args: (op == "call" and type(target) is int and target > 0
                                                   and len(args) == 1 and isinstance(args[0], str))
                    or (op == "getattr" and target == -1 and args == [])),
    "explore": lambda a: _loop(a, {"body", "bound", "start", "queue"}) and a[0][0][5]["start"] == [0]
    and a[0][0][5]["queue"] == 1 and _body(a, [
        lambda op, name, reading, args: (op, name) == ("call", "mask") and reading[0] == "true_ids"
        and _plain_ints([reading[1]]) and (reading[2] is None or type(reading[2]) is int) and args == [_ref("item")],
        lambda op, name, reading, args: (op, name) == ("many_each", "next_state") and reading == ["as_long_as", 0, -1]
        and args == [0, _ref("item")]]),
    "generate": lambda a: _loop(a, {"body", "bound", "keep", "until", "draw"}) and _draw(a[0][0][5]["draw"])
    and _plain_ints(a[0][0][5]["until"]) and _body(a, [
        lambda op, name, reading, args: (op, name, reading, args) == ("call", "mask", ["array"], []),
        lambda op, name, reading, args: op == "call" and reading[0] == "pick" and len(args) == 5
        and [args[0], args[3], args[4]] == [_ref("logits"), _ref("kept"), _ref("rng")]
        and isinstance(args[1], Handle) and isinstance(args[2], Handle)]),
}


def _ref(what: str) -> Described:
    return Described("ref", [what])


def _loop(a, keys: set) -> bool:
    """A plan of one loop step whose spec has ``keys``, a bound and handles as its body's targets."""
    return len(a) == 1 and isinstance(a[0], list) and len(a[0]) == 1 and a[0][0][:5] == ["loop", 0, None, None, None] \
        and isinstance(a[0][0][5], dict) and set(a[0][0][5]) == keys and type(a[0][0][5]["bound"]) is int \
        and all(type(step[1]) is int and step[1] > 0 and step[4] is None for step in a[0][0][5]["body"])


def _body(a, checks: list) -> bool:
    """The loop's body steps, each passing its check ``(op, name, reading, args)``."""
    body = a[0][0][5]["body"]
    return len(body) == len(checks) and all(check(step[0], step[2], step[3], step[5:])
                                            for check, step in zip(checks, body))


def _draw(draw) -> bool:
    """``[Described("rng", state), size, scale, bias]``: the grader's generator state and the draw's shape only."""
    return isinstance(draw, list) and len(draw) == 4 and isinstance(draw[0], Described) and draw[0].kind == "rng" \
        and type(draw[1]) is int and type(draw[2]) is float and isinstance(draw[3], np.ndarray) \
        and draw[3].dtype == np.float64 and draw[3].shape == (draw[1],)


def catalogue_frames(spec: str | None, monkeypatch) -> tuple[dict[str, list], dict[str, str]]:
    """Every frame the grader sends while the 16 catalogue tests run in this process against
    ``spec`` (one candidate process), decoded from the bytes that go on the wire, by test; and
    each test's outcome (``failed``: an ``AssertionError``, ``error``: another exception).
    A test's failure ends that test, as in a check."""
    from harness.suite import golden_masks, seeding, test_dfa, test_masks, test_sampling, test_schema, test_vocab, tiers
    from harness.suite.catalogue import NAMES

    frames: dict[str, list] = {}
    outcomes: dict[str, str] = {}
    current: list = []
    send_body = channel.send_body

    def recording(sock, body: bytes):  # the grader's every frame goes on the wire here (``channel.pack``'s body)
        current.append(channel.decode(body))
        return send_body(sock, body)

    functions = {name: getattr(module, name) for module in (test_dfa, test_masks, test_sampling, test_schema,
                                                            test_vocab) for name in NAMES if hasattr(module, name)}
    golden = golden_masks.read_golden(None)
    seeding.set_run_seed(0)
    with Candidate(spec) as candidate:
        monkeypatch.setattr(channel, "send_body", recording)
        for name in NAMES:
            current = frames[name] = []
            arguments = {"impl": candidate.module}
            if "golden" in inspect.signature(functions[name]).parameters:
                arguments["golden"] = golden
            candidate.limit_cpu(60.0)
            try:
                functions[name](**arguments)
                outcomes[name] = "passed"
            except AssertionError:  # a failed test (the twin's): the grader sends nothing more for it
                outcomes[name] = "failed"
            except Exception:  # noqa: BLE001 - as a check reports it
                outcomes[name] = "error"
            candidate.limit_cpu(None)
            tiers.drain_notes()
        monkeypatch.setattr(channel, "send_body", send_body)
    return frames, outcomes


def values_in(value):
    """Every value nested in a decoded frame (lists, tuples, dicts, a description's data)."""
    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, Described):
            stack.append(item.data)


def canonical(value):
    """A decoded frame as comparable data: arrays as (dtype, shape, bytes), a handle as its
    kind (its number is the candidate process's count of objects so far), descriptions as
    (kind, data)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, Handle):
        return ("handle", value.kind)
    if isinstance(value, Described):
        return ("described", value.kind, canonical(value.data))
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    return value


def expected_answers() -> tuple[list[np.ndarray], set[tuple]]:
    """What the catalogue compares the candidate's answers with, computed here: the
    brute-force masks and next states of ``test_masks_match_brute_force`` (from the
    reference's tables) and the golden file's allowed ids (sets of more than two)."""
    import oracles.automaton as reference
    from harness.suite import golden_masks
    from harness.suite.test_masks import brute_force, brute_force_cases

    rows = []
    for pattern, vocab, eos_id in brute_force_cases(reference):
        dfa = reference.regex_to_dfa(pattern)
        masks, ends = brute_force(np.asarray(dfa.trans), np.asarray(dfa.accept), vocab, eos_id)
        rows += [*masks, *ends]
    doc = golden_masks.read_golden(None)["doc"]
    allowed = {tuple(sorted(a)) for case in doc["cases"] for path in case["paths"] for a in path["allowed"]
               if len(a) > 2}  # (two ids are as many as a next_state call's arguments)
    return rows, allowed


@pytest.fixture(scope="module")
def catalogue_of_both(tmp_path_factory):
    """The reference's and the twin's whole catalogue runs: (frames, outcomes) of each."""
    monkeypatch = pytest.MonkeyPatch()
    try:
        return catalogue_frames(None, monkeypatch), catalogue_frames(str(CANDIDATES / TWIN), monkeypatch)
    finally:
        monkeypatch.undo()


@pytest.fixture(scope="module")
def frames_of_both(catalogue_of_both):
    (right, _), (wrong, _) = catalogue_of_both
    return right, wrong


@confined
def test_the_honest_twin_fails_the_mask_tests_and_nothing_else(catalogue_of_both):
    """The verdict every grader above must give the echo: the twin's by the spec (it departs from
    no decision, so the strict tier grades it alike); the reference's run in the same way passes all."""
    (_, reference), (_, twin) = catalogue_of_both
    assert twin == TWINS_VERDICT, twin
    assert reference == {name: "passed" for name in NAMES}, reference


def test_every_batched_request_holds_the_inputs_of_its_calls_only(frames_of_both):
    right, _ = frames_of_both
    seen = set()
    for test, frames in right.items():
        for op, _, name, args, kwargs in frames:
            kind = _kind(op, name)
            if kind is not None:
                seen.add(kind)
                assert kwargs == {} and REQUEST_SHAPES[kind](args), \
                    f"{test}: a {kind} request of another shape: {args!r:.300}"
    assert seen == set(BATCHED), f"the catalogue no longer makes every batched loop: {sorted(seen)}"


def test_no_frame_sent_to_the_candidate_holds_an_expected_answer(frames_of_both):
    right, _ = frames_of_both
    rows, allowed = expected_answers()
    by_shape: dict = {}
    for row in rows:
        by_shape.setdefault((row.dtype.str, row.shape), set()).add(row.tobytes())
    for test, frames in right.items():
        for frame in frames:
            masks_are_inputs = frame[2] == "apply_mask"  # its mask is the call's input (a list or array of flags)
            for value in values_in(frame[1:]):
                if isinstance(value, np.ndarray):
                    assert masks_are_inputs or value.ndim < 2 or value.dtype != np.bool_, \
                        f"{test}: a table of masks was sent: {frame[:3]}"
                    assert value.tobytes() not in by_shape.get((value.dtype.str, value.shape), ()), \
                        f"{test}: a brute-force mask or row of next states was sent: {frame[:3]}"
                elif isinstance(value, list) and len(value) > 1:
                    assert masks_are_inputs or not all(isinstance(v, bool) for v in value), \
                        f"{test}: a list of flags was sent: {frame[:3]}"
                    if _plain_ints(value):
                        assert tuple(value) not in allowed, \
                            f"{test}: a golden path's allowed ids were sent: {frame[:3]}"


def test_what_the_grader_sends_does_not_depend_on_what_it_expects(frames_of_both):
    right, wrong = frames_of_both

    def batched(frames: list) -> list:  # handle numbers aside (each process numbers the objects it returns)
        return [canonical([op, name, _unnumbered(op, args), kwargs]) for op, _, name, args, kwargs in frames
                if _kind(op, name) is not None]

    stopped = set()
    for test in right:
        ours, theirs = batched(right[test]), batched(wrong[test])
        assert theirs == ours[:len(theirs)], f"{test}: the grader's batched requests differ for a wrong candidate"
        if len(theirs) < len(ours):
            stopped.add(test)
    assert stopped <= MASK_TESTS  # only where the twin fails does the grader send less
    assert any(batched(right[test]) for test in MASK_TESTS)


def _unnumbered(op: str, args):
    """A plan's steps with each handle number (a target, in a loop's body too) as ``"handle"``."""
    if op != "plan":
        return args

    def step_of(step):
        if step[0] == "loop":
            return [*step[:5], {**step[5], "body": [step_of(inner) for inner in step[5]["body"]]}]
        return [step[0], "handle" if step[1] > 0 else step[1], *step[2:]]
    return [[step_of(step) for step in args[0]]]


# --------------------------------------------------------------------------- the golden files, on disk


@confined
def test_a_candidate_reads_every_golden_file_as_empty(tmp_path, harness_unchanged):
    """The rule holds for the file system too: the golden files' expected masks, tables and
    tool events are bound empty into the candidate's sandbox (its process needs none of them)."""
    from harness.paths import PACKAGE_ROOT

    golden = sorted((PACKAGE_ROOT / "golden").glob("*.json"))
    assert golden and all(path.stat().st_size > 0 for path in golden)
    probe = tmp_path / "reads_golden.py"
    probe.write_text("import pathlib\n\n"
                     "def sizes(paths):\n"
                     "    return [len(pathlib.Path(p).read_bytes()) if pathlib.Path(p).exists() else -1\n"
                     "            for p in paths]\n")
    probe.chmod(0o644)
    tmp_path.chmod(0o755)
    with Candidate(str(probe)) as cand:
        sizes = list(cand.module.sizes([str(path) for path in golden]))
        marker = cand.marker
    assert sizes == [0] * len(golden)
    assert left_over(marker) == []
