"""A generated mutant's pass decided by replaying the reference's recorded pass (``harness.mutants.traffic``):
the comparison rule (every reply equal, byte for byte, decides the reference's verdict; a changed
byte, a missing reply, a crash, a load refused each fall back to the real pass), the budgets and
candidate processes the replay uses, the wall (only recorded requests enter the candidate), and the
same outcome, killers and settled tests both ways on real mutants. The seeded sample of whole runs
both ways: ``test_mutants_traffic_verdicts.py`` (slow)."""

from __future__ import annotations

import base64
import json

import pytest

from harness.mutants import generation, runner, traffic
from harness.mutants.apply import materialize_generated
from harness.sandbox import channel, client
from harness.sandbox.failures import CandidateCrashed
from tests.support.helpers import confined


def _b64(body: bytes) -> str:
    return base64.b64encode(body).decode("ascii")


def _load_reply(name: str, notes=()) -> bytes:
    return channel.pack(["ok", {"module": channel.Handle(1, "module", ("regex_to_dfa",)), "problems": [],
                                "notes": list(notes), "ref_deps": [], "name": name, "file": f"/x/{name}/__init__.py"},
                         None])


def _recording(pairs_first, pairs_second=()) -> dict:
    """A recording of two candidate processes (the split): the first serves ``test_hand_example``'s
    round trips ``pairs_first``, the second ``test_apply_mask``'s ``pairs_second``."""
    exchanges = [{"candidate": 0, "test": "<load>", "load": True, "request": "",
                  "reply": _b64(_load_reply("cand_ref_1a"))}]
    exchanges += [{"candidate": 0, "test": "test_hand_example", "load": False, "request": _b64(q), "reply": _b64(a)}
                  for q, a in pairs_first]
    candidates = 1
    if pairs_second:
        candidates = 2
        exchanges.append({"candidate": 1, "test": "<load>", "load": True, "request": "",
                          "reply": _b64(_load_reply("cand_ref_1a"))})
        exchanges += [{"candidate": 1, "test": "test_apply_mask", "load": False, "request": _b64(q),
                       "reply": _b64(a)} for q, a in pairs_second]
    order = [["test_hand_example", "test_hand_example"]] + ([["test_apply_mask", "test_apply_mask"]]
                                                           if pairs_second else [])
    return {"candidates": candidates, "exchanges": exchanges, "order": order, "replayable": True}


class FakeCandidate:
    """A candidate process that answers from a table (request -> reply) and keeps what it was sent."""

    def __init__(self, answers: dict, log: list, name: str = "mutant_x", crash_at: bytes | None = None,
                 notes=()):
        self.answers, self.log, self.crash_at = answers, log, crash_at
        self.last_reply = _load_reply(name, notes)
        self.alive = True
        self.budgets: list = []
        self.closed = False

    def exchange_body(self, body: bytes, what: str = "") -> bytes:
        self.log.append(body)
        if body == self.crash_at:
            self.alive = False
            raise CandidateCrashed(f"the candidate process died during {what}")
        self.last_reply = self.answers[body]
        return self.last_reply

    def limit_cpu(self, seconds):
        self.budgets.append(seconds)

    def close(self):
        self.closed = True


def _ok(value) -> bytes:
    return channel.pack(["ok", value, None])


PAIRS = [(b"q1", _ok("a1")), (b"q2", _ok("a2"))]
SECOND = [(b"q3", _ok("a3"))]


def _replay(recording, answers, **options):
    log, started = [], []

    def start(tests):
        candidate = FakeCandidate(answers, log, **options)
        started.append((tests, candidate))
        return candidate
    why = traffic.replay(recording, start, {"test_hand_example": 1.5, "test_apply_mask": 2.5}.__getitem__)
    return why, log, started


@pytest.mark.unit
def test_equal_replies_decide_and_a_changed_byte_a_missing_reply_or_a_crash_do_not():
    recording = _recording(PAIRS, SECOND)
    answers = dict(PAIRS + SECOND)
    why, log, started = _replay(recording, answers)
    assert why == ""
    assert log == [b"q1", b"q2", b"q3"]   # every recorded request, in order, and nothing else
    # the load's own name and file may differ (the mutant's folder); anything else in it may not
    assert _replay(recording, answers, name="mutant_other")[0] == ""
    assert "load's reply differs" in _replay(recording, answers, notes=["a note"])[0]
    changed = {**answers, b"q2": _ok("a2\x00")}   # one byte more
    assert "round trip 1: the reply differs" in _replay(recording, changed)[0]
    flipped = {**answers, b"q3": _ok("a4")}   # one byte changed, in the second candidate process
    assert len(_ok("a4")) == len(_ok("a3")) and sum(x != y for x, y in zip(_ok("a4"), _ok("a3"))) == 1
    assert _replay(recording, flipped)[0].startswith("candidate 1: test_apply_mask: round trip 0: the reply differs")
    why, log, _ = _replay(recording, answers, crash_at=b"q2")   # no reply: the process died
    assert "CandidateCrashed" in why and log == [b"q1", b"q2"]
    missing = {b"q1": _ok("a1")}   # the candidate gives no answer to q2 (a KeyError here: whatever stops it)
    assert "round trip 1" in _replay(recording, missing)[0]


@pytest.mark.unit
def test_the_candidates_own_module_name_and_folder_may_differ_and_nothing_else():
    """The harness names a candidate's module from its folder's path (``cand_FOLDER_DIGEST``), so a
    message naming the module (an AttributeError on it) names the reference's copy in the recording and
    the mutant's in the replay: those labels compare equal, any other change of the text does not."""
    message = "module '{}' has no attribute 'hypothesis_internal_is_this_a_mock_check'"

    def error(name, text=message):
        return channel.pack(["err", {"type": "AttributeError", "kinds": ["AttributeError"],
                                     "message": text.format(name), "where": "__init__.py:45 in __getattr__"}, None])
    recording = _recording([(b"q1", error("cand_ref_1a"))])
    assert _replay(recording, {b"q1": error("cand_mutant_x_2b")}, name="cand_mutant_x_2b")[0] == ""
    assert "differs" in _replay(recording, {b"q1": error("cand_mutant_x_2b", message + "!")},
                                name="cand_mutant_x_2b")[0]
    assert "differs" in _replay(recording, {b"q1": error("cand_other_3c")}, name="cand_mutant_x_2b")[0]


@pytest.mark.unit
def test_a_load_that_fails_or_a_recording_without_its_load_first_is_not_equal():
    recording = _recording(PAIRS)

    def refused(tests):
        raise client.RemoteError("importing the candidate failed")
    assert "the load failed" in traffic.replay(recording, refused, lambda name: 1.0)
    no_load = {**recording, "exchanges": recording["exchanges"][1:]}
    assert "not one load first" in _replay(no_load, dict(PAIRS))[0]


@pytest.mark.unit
def test_the_replay_sizes_and_budgets_its_candidates_as_the_pass_would():
    """The first candidate's ``RLIMIT_CPU`` for every test of the pass, the second's (at the split) for the
    second half's, as ``harness.suite.plugin`` sizes them; each test's budget set before its first round
    trip and cleared after its last (the ``impl`` fixture, ``logfinish``); every candidate closed."""
    why, _, started = _replay(_recording(PAIRS, SECOND), dict(PAIRS + SECOND))
    assert why == ""
    assert [tests for tests, _ in started] == [2, 1]
    assert [c.budgets for _, c in started] == [[1.5, None], [2.5, None]]
    assert all(c.closed for _, c in started)


@pytest.mark.unit
def test_no_recorded_reply_is_sent_to_the_candidate():
    """The wall: what enters the candidate's process is the recorded requests, never a recorded reply
    (the comparison is made in the replaying process)."""
    recording = _recording(PAIRS, SECOND)
    _, log, _ = _replay(recording, dict(PAIRS + SECOND))
    replies = {base64.b64decode(e["reply"]) for e in recording["exchanges"]}
    requests = [base64.b64decode(e["request"]) for e in recording["exchanges"] if not e["load"]]
    assert log == requests and not replies & set(log)


@pytest.mark.unit
def test_a_recording_is_replayable_only_whole_passed_and_within_its_bound(monkeypatch):
    """Not replayable (kept as such, with why): a test of the reference's pass that did not pass or did
    not report, a round trip outside any test, a third candidate process (a restart), frames over
    ``MAX_RECORDING_BYTES``."""
    tests = ("test_hand_example", "test_apply_mask")
    traffic_ok = {"outside": 0, "candidates": 2, "exchanges": _recording(PAIRS, SECOND)["exchanges"]}
    passed = dict.fromkeys(tests, "passed")
    assert traffic._not_replayable(passed, traffic_ok, tests, False) == ""
    assert "did not pass test_apply_mask" in traffic._not_replayable({**passed, "test_apply_mask": "failed"},
                                                                     traffic_ok, tests, False)
    assert "1 of 2 tests" in traffic._not_replayable({"test_hand_example": "passed"}, traffic_ok, tests, False)
    assert "outside a test" in traffic._not_replayable(passed, {**traffic_ok, "outside": 1}, tests, False)
    assert "3 candidate processes" in traffic._not_replayable(passed, {**traffic_ok, "candidates": 3}, tests, False)
    monkeypatch.setattr(traffic, "MAX_RECORDING_BYTES", 20)
    assert "over the 20-byte bound" in traffic._not_replayable(passed, traffic_ok, tests, False)


@pytest.mark.unit
def test_a_folder_of_recordings_at_its_bound_takes_no_new_one_and_keeps_replaying_its_own(monkeypatch, tmp_path):
    """Past ``MAX_FOLDER_BYTES`` no reference pass is run for a new selection (the pass runs as before,
    nothing written); a recording already kept is still read."""
    folder = tmp_path / "digest"
    folder.mkdir()
    kept = {"format": traffic.FORMAT, "format_version": traffic.FORMAT_VERSION, "replayable": True, "why": "",
            "records": {"test_hand_example": {"outcome": "passed", "notes": []}}}
    old = ("test_hand_example",)
    (folder / f"{traffic.selection_key(old, False, 30.0, None)}.json").write_text(json.dumps(kept))
    size = sum(f.stat().st_size for f in folder.iterdir())
    monkeypatch.setattr(traffic, "MAX_FOLDER_BYTES", size)
    monkeypatch.setattr(traffic, "_INDEX", {})

    def never(package, env):
        raise AssertionError("the reference's pass was run for a folder at its bound")

    new = traffic.recording_for(str(folder), ("test_apply_mask",), False, 30.0, None, never)
    assert not new.replayable and f"at its {size}-byte bound" in new.why
    assert sorted(f.name for f in folder.iterdir()) == [f"{traffic.selection_key(old, False, 30.0, None)}.json"]
    assert traffic.recording_for(str(folder), old, False, 30.0, None, never).replayable


@pytest.mark.unit
def test_a_pass_the_replay_cannot_decide_runs_for_real(monkeypatch, tmp_path):
    """``runner._replayed`` answers None (run the pass) when the recording is not replayable or the replay finds a
    difference, and the reference's records when it finds none; ``_catalogue_pass`` then runs the
    catalogue only in the first two cases."""
    recording = traffic.Recording(True, "", {"test_hand_example": {"outcome": "passed", "notes": ["n"]}},
                                  str(tmp_path / "r.json"))
    monkeypatch.setattr(traffic, "recording_for", lambda *args: recording)   # (its own test: the e2e one below)
    replies = iter([(0, json.dumps({"equal": False, "why": "differs"})), (0, json.dumps({"equal": True, "why": ""})),
                    (None, "")])
    monkeypatch.setattr(runner, "_run", lambda *args, **kwargs: next(replies))
    real = []

    def catalogue(package, tests, deep, timeout, **options):
        real.append(tests)
        options["records"].update({"test_hand_example": {"outcome": "failed", "notes": []}})
        return {"test_hand_example": "failed"}, None
    monkeypatch.setattr(runner, "run_catalogue_against", catalogue)
    tests = ("test_hand_example",)
    found = runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert found[0] == {"test_hand_example": "failed"} and real == [tests]   # a difference: the real pass
    found = runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert found[0] == {"test_hand_example": "passed"} and found[3]["test_hand_example"]["notes"] == ["n"]
    assert real == [tests]   # decided: no grader ran
    found = runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert found[0] == {"test_hand_example": "failed"} and len(real) == 2   # the replay stopped: the real pass
    monkeypatch.setattr(traffic, "recording_for",
                        lambda *args: traffic.Recording(False, "the reference did not pass it", {}, ""))
    runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert len(real) == 3


@pytest.mark.unit
def test_the_plan_carries_the_recordings_folder_beside_the_map_unless_switched_off(monkeypatch, tmp_path):
    from harness.mutants import coverage

    site = generation.only(generation.enumerate_sites(modules=["schema"]), ["schema.SwapArguments.3"])[0]
    mutant = generation.build(site)[0]
    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"schema.py": frozenset()}},
                                path=str(tmp_path / "map.json"))
    options = runner.GeneratedOptions(coverage=cmap)
    monkeypatch.delenv(traffic.OFF_VARIABLE, raising=False)
    assert runner.plan(options, mutant).replay == str(tmp_path / "map.json.traffic" / cmap.digest[:24])
    monkeypatch.setenv(traffic.OFF_VARIABLE, "1")
    assert runner.plan(options, mutant).replay is None
    monkeypatch.delenv(traffic.OFF_VARIABLE)
    assert runner.plan(runner.GeneratedOptions(coverage=coverage.CoverageMap("d", {})), mutant).replay is None


# --- on real candidates ---------------------------------------------------------------------------------

IDS = ["schema.SwapArguments.3", "parser.ReplaceReturnValue.7", "vocab.ReplaceFalseWithTrue.0"]
"""An equivalent (passes every test), a mutant the hand example kills, a survivor of the deep tier."""
DEFAULT = ("test_hand_example", "test_json_schema_documents", "test_vocab_bytes")
DEEP = ("test_vocab_bytes", "test_deep_vocab_bytes_reads_specials_holes_and_bytes")


def _mutants():
    sites = generation.enumerate_sites(modules=["schema", "parser", "vocab"])
    return {m.id: m for m in (generation.build(site)[0] for site in generation.only(sites, IDS))}


@confined
@pytest.mark.e2e
def test_the_same_passes_with_and_without_the_replay_and_only_requests_cross(monkeypatch, tmp_path):
    """Each mutant's default pass (three tests) and the survivor's deep pass, run for real and then with
    the replay: the same outcomes, problem and settled tests; the passing ones decided by the replay
    (its log), the killed one run for real. Every request the replay's candidates were sent is a recorded
    request, in order, and none is a recorded reply (the wall)."""
    log = tmp_path / "replay.jsonl"
    monkeypatch.setenv(traffic.LOG_VARIABLE, str(log))
    folder = str(tmp_path / "traffic")
    mutants = _mutants()
    sent: list[bytes] = []
    passes = [(m, DEFAULT, False) for m in IDS] + [("vocab.ReplaceFalseWithTrue.0", DEEP, True)]
    for mutant_id, tests, deep in passes:
        package = materialize_generated(mutants[mutant_id], tmp_path / ("real" if deep else "real0"))
        real = runner._catalogue_pass(package, tests, deep, runner.GENERATED_TIMEOUT, True)
        with monkeypatch.context() as patched:
            patched.setattr(client, "TRAFFIC", [lambda cand, request, reply, load: load or sent.append(request)])
            patched.setattr(runner, "_run", _in_this_process)   # the replay here, so its requests are seen
            replayed = runner._catalogue_pass(package, tests, deep, runner.GENERATED_TIMEOUT, True, None, folder)
        recording = traffic.recording_for(folder, tests, deep, runner.GENERATED_TIMEOUT, None, None)   # made above
        assert recording.replayable, recording.why
        assert (replayed[0], replayed[1], runner.settled(replayed[3])) == (real[0], real[1], runner.settled(real[3])), \
            mutant_id
        recorded = json.loads(open(recording.path, encoding="utf-8").read())
        requests = [base64.b64decode(e["request"]) for e in recorded["exchanges"] if not e["load"]]
        replies = {base64.b64decode(e["reply"]) for e in recorded["exchanges"]}
        assert sent == requests[:len(sent)] and not replies & set(sent), mutant_id
        sent.clear()
    decisions = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(d["package"], d["deep"], d["decided"]) for d in decisions] == \
        [("mutant_schema_SwapArguments_3", False, True), ("mutant_parser_ReplaceReturnValue_7", False, False),
         ("mutant_vocab_ReplaceFalseWithTrue_0", False, True), ("mutant_vocab_ReplaceFalseWithTrue_0", True, True)]
    assert "differs" in decisions[1]["why"]


_RUN = runner._run


def _in_this_process(cmd, timeout, candidate_cpu=0.0, env=None, zygote=False):
    """``runner._run`` of the replay, in this process (``traffic.main``): its output and exit code."""
    import contextlib
    import io

    if cmd[1:3] != ["-m", traffic.__name__]:   # the real pass after a difference: as ever
        return _RUN(cmd, timeout, candidate_cpu, env, zygote)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = traffic.main(cmd[3:])
    return code, out.getvalue()
