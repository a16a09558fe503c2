"""A generated mutant's pass decided by replaying the first pass of its selection that passed
(``harness.mutants.traffic``): what is kept (only a pass that passed whole, the first), the comparison rule
(every reply equal, byte for byte, decides the recorded verdict; a changed
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
    """Not replayable: a test of the pass that did not pass or did not report (never kept: ``NOT_PASSED``),
    a round trip outside any test, a third candidate process (a restart), frames over
    ``MAX_RECORDING_BYTES`` (kept as such, with why)."""
    tests = ("test_hand_example", "test_apply_mask")
    traffic_ok = {"outside": 0, "candidates": 2, "exchanges": _recording(PAIRS, SECOND)["exchanges"]}
    passed = dict.fromkeys(tests, "passed")
    assert traffic._not_replayable(passed, traffic_ok, tests, False) == ""
    failed = traffic._not_replayable({**passed, "test_apply_mask": "failed"}, traffic_ok, tests, False)
    assert failed.startswith(traffic.NOT_PASSED) and "test_apply_mask did not pass" in failed
    short = traffic._not_replayable({"test_hand_example": "passed"}, traffic_ok, tests, False)
    assert short.startswith(traffic.NOT_PASSED) and "1 of 2 tests" in short
    assert "outside a test" in traffic._not_replayable(passed, {**traffic_ok, "outside": 1}, tests, False)
    assert "3 candidate processes" in traffic._not_replayable(passed, {**traffic_ok, "candidates": 3}, tests, False)
    monkeypatch.setattr(traffic, "MAX_RECORDING_BYTES", 20)
    assert "over the 20-byte bound" in traffic._not_replayable(passed, traffic_ok, tests, False)


def _traffic_file(tmp_path, recording: dict):
    """What ``traffic_plugin`` writes after a pass that passed: ``recording``'s tests, exchanges, processes."""
    out = tmp_path / "traffic.json"
    out.write_text(json.dumps({"tests": recording["order"], "exchanges": recording["exchanges"], "outside": 0,
                               "candidates": recording["candidates"]}))
    return out


@pytest.mark.unit
def test_the_first_pass_that_passes_whole_is_kept_and_nothing_else(monkeypatch, tmp_path):
    """``keep``: a pass some test of which did not pass writes nothing (a later pass of the selection may
    still be kept); the first that passed whole is kept, with its records, and read back by ``kept``; a
    second is not written over it; one that passed but cannot be replayed is kept as such, with why."""
    monkeypatch.setattr(traffic, "_INDEX", {})
    folder, tests = str(tmp_path / "digest"), ("test_hand_example", "test_apply_mask")
    recording = _recording(PAIRS, SECOND)
    out = _traffic_file(tmp_path, recording)
    records = {t: {"outcome": "passed", "notes": [f"{t} note"]} for t in tests}
    assert traffic.kept(folder, tests, False, 30.0, None) is None
    assert traffic.keep(folder, tests, False, 30.0, None, {tests[0]: "passed", tests[1]: "failed"}, records, out) \
        is None
    assert traffic.kept(folder, tests, False, 30.0, None) is None and not (tmp_path / "digest").exists()
    first = traffic.keep(folder, tests, False, 30.0, None, dict.fromkeys(tests, "passed"), records, out)
    assert first.replayable and first.records == records
    monkeypatch.setattr(traffic, "_INDEX", {})   # read back from the file, as another process would
    again = traffic.kept(folder, tests, False, 30.0, None)
    assert again == first and json.loads(open(first.path).read())["exchanges"] == recording["exchanges"]
    other = {t: {"outcome": "passed", "notes": []} for t in tests}
    assert traffic.keep(folder, tests, False, 30.0, None, dict.fromkeys(tests, "passed"), other, out) is None
    assert traffic.kept(folder, tests, False, 30.0, None).records == records   # the first stays
    assert traffic.kept(folder, tests, True, 30.0, None) is None   # another selection: its own
    monkeypatch.setattr(traffic, "MAX_RECORDING_BYTES", 20)
    big = traffic.keep(folder, tests, True, 30.0, None, dict.fromkeys(tests, "passed"), records, out)
    assert not big.replayable and "over the 20-byte bound" in big.why
    assert not traffic.kept(folder, tests, True, 30.0, None).replayable


@pytest.mark.unit
def test_a_folder_of_recordings_at_its_bound_takes_no_new_one_and_keeps_replaying_its_own(monkeypatch, tmp_path):
    """Past ``MAX_FOLDER_BYTES`` no pass is kept for a new selection (nothing written); a recording already
    kept is still read."""
    folder = tmp_path / "digest"
    folder.mkdir()
    kept = {"format": traffic.FORMAT, "format_version": traffic.FORMAT_VERSION, "replayable": True, "why": "",
            "records": {"test_hand_example": {"outcome": "passed", "notes": []}}}
    old = ("test_hand_example",)
    (folder / f"{traffic.selection_key(old, False, 30.0, None)}.json").write_text(json.dumps(kept))
    size = sum(f.stat().st_size for f in folder.iterdir())
    monkeypatch.setattr(traffic, "MAX_FOLDER_BYTES", size)
    monkeypatch.setattr(traffic, "_INDEX", {})
    new = ("test_hand_example", "test_apply_mask")
    out = _traffic_file(tmp_path, _recording(PAIRS, SECOND))
    records = {t: {"outcome": "passed", "notes": []} for t in new}
    assert traffic.keep(str(folder), new, False, 30.0, None, dict.fromkeys(new, "passed"), records, out) is None
    assert sorted(f.name for f in folder.iterdir()) == [f"{traffic.selection_key(old, False, 30.0, None)}.json"]
    assert traffic.kept(str(folder), new, False, 30.0, None) is None
    assert traffic.kept(str(folder), old, False, 30.0, None).replayable


@pytest.mark.unit
def test_the_plugin_writes_only_after_a_pass_that_passed(monkeypatch, tmp_path):
    """``traffic_plugin`` keeps the frames as they crossed and writes them, encoded, only when the session
    ended with every test passed (exit 0); after any other end, nothing."""
    from harness.mutants import traffic_plugin

    out = tmp_path / "traffic.json"
    monkeypatch.setenv(traffic_plugin.OUT_VARIABLE, str(out))
    for status in (1, 2, 5):
        traffic_plugin.pytest_configure(None)
        client.TRAFFIC[0](object(), b"", _load_reply("cand_x"), True)
        traffic_plugin.pytest_sessionfinish(None, status)
        assert not out.exists() and client.TRAFFIC[0] is None
    traffic_plugin.pytest_configure(None)
    candidate = object()
    client.TRAFFIC[0](candidate, b"", _load_reply("cand_x"), True)
    traffic_plugin._STATE["test"] = "test_hand_example"
    client.TRAFFIC[0](candidate, b"q1", _ok("a1"), False)
    traffic_plugin._STATE["test"] = None
    traffic_plugin.pytest_sessionfinish(None, 0)
    written = json.loads(out.read_text())
    assert written["candidates"] == 1 and written["outside"] == 0
    assert [(e["test"], base64.b64decode(e["request"]), base64.b64decode(e["reply"])) for e in written["exchanges"]] \
        == [("<load>", b"", _load_reply("cand_x")), ("test_hand_example", b"q1", _ok("a1"))]


@pytest.mark.unit
def test_a_pass_the_replay_cannot_decide_runs_for_real(monkeypatch, tmp_path):
    """``runner._replayed`` answers None (run the pass) when the recording is not replayable or the replay finds a
    difference, and the recording's records when it finds none; ``_catalogue_pass`` then runs the
    catalogue only in the first two cases."""
    recording = traffic.Recording(True, "", {"test_hand_example": {"outcome": "passed", "notes": ["n"]}},
                                  str(tmp_path / "r.json"))
    monkeypatch.setattr(traffic, "kept", lambda *args: recording)
    replies = iter([(0, json.dumps({"equal": False, "why": "differs"})), (0, json.dumps({"equal": True, "why": ""})),
                    (None, "")])
    monkeypatch.setattr(runner, "_run", lambda *args, **kwargs: next(replies))
    real = []

    def catalogue(package, tests, deep, timeout, **options):
        real.append(options.get("plugins", ()))
        options["records"].update({"test_hand_example": {"outcome": "failed", "notes": []}})
        return {"test_hand_example": "failed"}, None
    monkeypatch.setattr(runner, "run_catalogue_against", catalogue)
    tests = ("test_hand_example",)
    found = runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert found[0] == {"test_hand_example": "failed"} and real == [()]   # a difference: the real pass, unrecorded
    found = runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert found[0] == {"test_hand_example": "passed"} and found[3]["test_hand_example"]["notes"] == ["n"]
    assert real == [()]   # decided: no grader ran
    found = runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert found[0] == {"test_hand_example": "failed"} and len(real) == 2   # the replay stopped: the real pass
    monkeypatch.setattr(traffic, "kept", lambda *args: traffic.Recording(False, "over the bound", {}, ""))
    runner._catalogue_pass(tmp_path / "mutant_x", tests, False, 30.0, True, None, str(tmp_path))
    assert real[2:] == [()]


@pytest.mark.unit
def test_a_pass_with_no_recording_records_and_is_kept_only_when_it_passed_whole(monkeypatch, tmp_path):
    """A selection with no recording: its pass runs for real with ``traffic_plugin`` (no replay, no pass of
    the reference), and ``traffic.keep`` is asked to keep it only when it passed and was not suspect;
    a suspect pass's second run records nothing. Without a folder nothing records."""
    monkeypatch.setattr(traffic, "kept", lambda *args: None)
    monkeypatch.setattr(runner, "_run", lambda *args, **kwargs: pytest.fail("a replay ran with no recording"))
    kept = []
    monkeypatch.setattr(traffic, "keep", lambda folder, tests, deep, timeout, budgets, found, records, out:
                        kept.append((folder, found, out.name.endswith(".traffic.json"))))
    runs = []
    outcomes = iter([("passed", None), ("failed", None), ("error", None), ("passed", None), ("passed", "timeout")])

    def catalogue(package, tests, deep, timeout, **options):
        outcome, problem = next(outcomes)
        runs.append((options.get("plugins", ()), set(options.get("env") or ())))
        options["records"].update({"test_hand_example": {"outcome": outcome, "notes": []}})
        return {"test_hand_example": outcome}, problem
    monkeypatch.setattr(runner, "run_catalogue_against", catalogue)
    tests, folder = ("test_hand_example",), str(tmp_path)
    recording = ((traffic.PLUGIN,), {traffic.OUT_VARIABLE})
    assert runner._catalogue_pass(tmp_path / "m", tests, False, 30.0, True, None, folder)[0] == \
        {"test_hand_example": "passed"}
    assert runs == [recording] and kept == [(folder, {"test_hand_example": "passed"}, True)]
    runner._catalogue_pass(tmp_path / "m", tests, False, 30.0, True, None, folder)   # killed: nothing kept
    assert runs[1:] == [recording] and len(kept) == 1
    runner._catalogue_pass(tmp_path / "m", tests, False, 30.0, True, None, folder)   # suspect, then run again
    assert runs[2:] == [recording, ((), set())] and len(kept) == 1
    runner._catalogue_pass(tmp_path / "m", tests, False, 30.0, True, None, folder)   # a timeout: nothing kept
    assert runs[4:] == [recording] and len(kept) == 1
    assert not list(tmp_path.glob("*.traffic.json"))   # the traffic files removed after each pass
    runs.clear()
    outcomes = iter([("passed", None)])
    runner._catalogue_pass(tmp_path / "m", tests, False, 30.0, True, None, None)
    assert runs == [((), set())] and len(kept) == 1


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
    the recordings' folder, in turn: the same outcomes, problem and settled tests each way. The first
    pass of each selection that passes (the equivalent's default, the survivor's deep) is kept, no pass
    of the reference is run; the killed one replays the equivalent's recording, finds a difference and
    runs for real; the survivor's default pass and its second deep pass are decided by replays (the log).
    Every request the replays' candidates were sent is a recorded request, in order, and none is a
    recorded reply (the wall)."""
    log = tmp_path / "replay.jsonl"
    monkeypatch.setenv(traffic.LOG_VARIABLE, str(log))
    folder = str(tmp_path / "traffic")
    mutants = _mutants()
    sent: list[bytes] = []
    survivor = "vocab.ReplaceFalseWithTrue.0"
    passes = [(m, DEFAULT, False) for m in IDS] + [(survivor, DEEP, True), (survivor, DEEP, True)]
    for mutant_id, tests, deep in passes:
        package = materialize_generated(mutants[mutant_id], tmp_path / ("real" if deep else "real0"))
        real = runner._catalogue_pass(package, tests, deep, runner.GENERATED_TIMEOUT, True)
        with monkeypatch.context() as patched:
            patched.setattr(client, "TRAFFIC", [lambda cand, request, reply, load: load or sent.append(request)])
            patched.setattr(runner, "_run", _in_this_process)   # the replay here, so its requests are seen
            replayed = runner._catalogue_pass(package, tests, deep, runner.GENERATED_TIMEOUT, True, None, folder)
        assert (replayed[0], replayed[1], runner.settled(replayed[3])) == (real[0], real[1], runner.settled(real[3])), \
            mutant_id
        recording = traffic.kept(folder, tests, deep, runner.GENERATED_TIMEOUT, None)
        assert recording is not None and recording.replayable, mutant_id
        recorded = json.loads(open(recording.path, encoding="utf-8").read())
        requests = [base64.b64decode(e["request"]) for e in recorded["exchanges"] if not e["load"]]
        replies = {base64.b64decode(e["reply"]) for e in recorded["exchanges"]}
        assert sent == requests[:len(sent)] and not replies & set(sent), mutant_id
        sent.clear()
    assert len(list((tmp_path / "traffic").iterdir())) == 2   # the default selection's and the deep one's
    decisions = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    vocab = "mutant_vocab_ReplaceFalseWithTrue_0"
    assert [(d["package"], d["deep"], d["decided"], d["why"].startswith("no recording yet")) for d in decisions] == \
        [("mutant_schema_SwapArguments_3", False, False, True),
         ("mutant_parser_ReplaceReturnValue_7", False, False, False), (vocab, False, True, False),
         (vocab, True, False, True), (vocab, True, True, False)]
    assert decisions[0]["why"].endswith("its traffic kept") and "differs" in decisions[1]["why"]


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
