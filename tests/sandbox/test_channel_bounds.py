"""The channel is safe to decode (issue 22, item 3): depth, value count and decoded size are
bounded on receive, iteratively, and a ``many`` reply has exactly one answer per call.

Oracles: the bounds as ``harness/sandbox/channel.py`` states them (a value at depth 64
crosses, one at 65 does not, whichever side builds the frame); ``tracemalloc`` (the
decoder's own allocations: the estimate ``scan`` returns is an upper bound of what the
frame really takes, and a refused frame costs nothing); a child process with a 1 MiB
thread stack and an address-space limit (a crash or a recursion proportional to the input
would kill it: it must print a verdict); the count of calls against the count of answers.
End to end, the hostile candidates ``tests/candidates/channel_*.py`` against ``check``,
``golden replay`` and ``grade-tests``: the verdict, the harness's files unchanged, nothing
of the attacker left running.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import msgpack
import numpy as np
import pytest

from harness.sandbox import Candidate, CandidateProtocolError, call_many, channel
from tests.support.helpers import CANDIDATES, ROOT, left_over

TUPLE = 4  # channel._TUPLE: the wire format is part of what is tested


# --------------------------------------------------------------------------- frames as a hostile peer writes them


def nested_tuples(levels: int) -> bytes:
    value = msgpack.ExtType(TUPLE, msgpack.packb([]))
    for _ in range(levels):
        value = msgpack.ExtType(TUPLE, msgpack.packb([value]))
    return msgpack.packb(value)


def nested_lists(levels: int, innermost: bytes = b"\x90") -> bytes:
    return b"\x91" * levels + innermost


def nested_maps(levels: int) -> bytes:
    return b"\x81\x00" * levels + b"\x80"  # {0: {0: ... {}}}


def empty_arrays(count: int) -> bytes:
    return b"\xdd" + struct.pack(">I", count) + b"\x90" * count


def depth_of(value) -> int:
    """The containers around the deepest value (the oracle for MAX_DEPTH; recursive, for
    the small values built here)."""
    if isinstance(value, dict):
        children = [*value, *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    else:
        return 0
    return 1 + max(map(depth_of, children)) if children else 0


def refused(body: bytes, words: str) -> None:
    with pytest.raises(channel.ProtocolError, match=words):
        channel.decode(body)


ISOLATED = """
import resource, sys, threading, tracemalloc
limit = int(sys.argv[2]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from harness.sandbox import channel
body = open(sys.argv[1], "rb").read()
result = {}
def run():
    tracemalloc.start()
    try:
        value = channel.decode(body)
        result["verdict"] = "decoded " + type(value).__name__
    except channel.ProtocolError as exc:
        result["verdict"] = "ProtocolError: " + str(exc)
    result["peak"] = tracemalloc.get_traced_memory()[1]
threading.stack_size(1 << 20)
thread = threading.Thread(target=run)
thread.start()
thread.join()
print(result["verdict"])
print(result["peak"])
"""


def decode_isolated(tmp_path: Path, body: bytes, memory_mb: int = 1024) -> tuple[str, int]:
    """Decode ``body`` in a child process, in a thread of 1 MiB of stack, under an address
    space limit: (its verdict line, the decoder's peak in bytes). Fails the test if the
    child died (a SIGSEGV of a recursion, a MemoryError)."""
    path = tmp_path / "frame.bin"
    path.write_bytes(body)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", ISOLATED, str(path), str(memory_mb)], capture_output=True,
                          text=True, timeout=300, env=env, cwd=str(ROOT))
    assert done.returncode == 0, f"the decoder's process died ({done.returncode}): {done.stderr[-2000:]}"
    verdict, peak = done.stdout.splitlines()[-2:]
    return verdict, int(peak)


# --------------------------------------------------------------------------- depth


@pytest.mark.e2e
@pytest.mark.parametrize("levels", [300, 10_000])
def test_deeply_nested_tuples_are_refused_without_recursion(tmp_path, levels):
    body = nested_tuples(levels)
    assert len(body) < 6 * levels  # a few bytes a level: 300 levels is under 2 KB
    verdict, peak = decode_isolated(tmp_path, body)
    assert verdict == f"ProtocolError: a value nested deeper than {channel.MAX_DEPTH}"
    assert peak < 1 << 20


@pytest.mark.e2e
@pytest.mark.parametrize("build", [nested_lists, nested_maps], ids=["lists", "maps"])
@pytest.mark.parametrize("levels", [300, 10_000])
def test_deeply_nested_lists_and_maps_are_refused(tmp_path, build, levels):
    verdict, peak = decode_isolated(tmp_path, build(levels))
    assert verdict == f"ProtocolError: a value nested deeper than {channel.MAX_DEPTH}"
    assert peak < 1 << 20


@pytest.mark.parametrize("build", [nested_tuples, nested_lists, nested_maps], ids=["tuples", "lists", "maps"])
def test_depth_64_crosses_and_65_does_not_whoever_builds_the_frame(build):
    # The innermost value (an empty container) sits at the depth given: 64 crosses, 65 not.
    value = channel.decode(build(channel.MAX_DEPTH))
    assert depth_of(value) == channel.MAX_DEPTH
    refused(build(channel.MAX_DEPTH + 1), "nested deeper than 64")
    # the sender keeps the same bound
    inner: object = []
    for _ in range(channel.MAX_DEPTH):
        inner = [inner]
    a, b = socket.socketpair()
    with a, b:
        channel.send(a, inner)
        assert depth_of(channel.receive(b, time.monotonic() + 5)) == channel.MAX_DEPTH
        with pytest.raises(channel.ProtocolError, match="nested deeper than 64"):
            channel.send(a, [inner])


@pytest.mark.e2e
def test_legitimately_deep_tuples_decode_alike_with_and_without_recursion(tmp_path, monkeypatch):
    value = ("leaf", np.arange(3, dtype=np.int16), {(1, 2): frozenset({(3,)})})
    for _ in range(channel.MAX_DEPTH - 4):  # the 3 in it sits at depth 4
        value = (value, {"n": 1})
    body = msgpack.packb(channel.encode(value), use_bin_type=True)
    got = channel.decode(body)  # deeper than FAST_EXT_NESTING: decoded level by level
    monkeypatch.setattr(channel, "FAST_EXT_NESTING", channel.MAX_DEPTH + 1)
    monkeypatch.setattr(channel, "_HOOKS", tuple(map(channel._hook_at, range(channel.MAX_DEPTH + 2))))
    assert repr(channel.decode(body)) == repr(got)  # the recursive path builds the same value
    monkeypatch.undo()
    assert depth_of(got) == channel.MAX_DEPTH and repr(got).count("int16") == 1
    verdict, _ = decode_isolated(tmp_path, body)  # in 1 MiB of stack
    assert verdict == "decoded tuple"


# --------------------------------------------------------------------------- counts and sizes


@pytest.mark.e2e
def test_a_wide_array_of_empty_arrays_is_refused_from_its_header(tmp_path):
    count = channel.MAX_ELEMENTS  # with the array itself, one value too many
    body = b"\x93\xa2ok" + empty_arrays(count) + b"\xc0"
    verdict, peak = decode_isolated(tmp_path, body, memory_mb=1024)
    assert verdict == f"ProtocolError: more than {channel.MAX_ELEMENTS} values in one frame"
    assert peak < 1 << 20  # nothing was built


@pytest.mark.e2e
def test_a_32_mb_frame_of_empty_arrays_costs_the_receiver_nothing(tmp_path):
    # The attack of issue 22: 32 MB on the wire took the grader to 4.8 GB. The child's address space
    # is capped at 1 GB: decoding it would die of MemoryError; refusing it from its header does not.
    body = b"\x93\xa2ok" + empty_arrays(32 << 20) + b"\xc0"
    verdict, peak = decode_isolated(tmp_path, body, memory_mb=1024)
    assert verdict.startswith("ProtocolError: more than") and peak < 1 << 20


@pytest.mark.parametrize("header, words", [
    (b"\xdd\xff\xff\xff\xff", "values in one frame|exceeds max_array_len"),  # array32 of 4 G values
    (b"\xdf\xff\xff\xff\xff", "values in one frame|exceeds max_map_len"),    # map32 of 4 G pairs
    (b"\xdb\xff\xff\xff\xff", "truncated|malformed"),                   # str32 of 4 GB
    (b"\xc6\xff\xff\xff\xff", "truncated|malformed"),                   # bin32 of 4 GB
    (b"\xc9\xff\xff\xff\xff\x04", "truncated|malformed"),               # ext32 of 4 GB
    (b"\xdc\xff\xff" + b"\x00" * 10, "truncated|malformed"),            # array16 of 65535, 10 there
])
def test_huge_declared_lengths_are_refused_before_anything_is_built(header, words, monkeypatch):
    for small_frame in (channel.SMALL_FRAME, 0):  # the small-frame path and the scan alike
        monkeypatch.setattr(channel, "SMALL_FRAME", small_frame)
        tracemalloc.start()
        try:
            refused(header, words)
            assert tracemalloc.get_traced_memory()[1] < 1 << 20
        finally:
            tracemalloc.stop()


def test_a_frame_whose_decoded_size_would_pass_the_bound_is_refused(monkeypatch):
    body = b"\x92" + empty_arrays(100_000) + b"\xdb" + struct.pack(">I", 100_000) + "\U0001f600".encode() * 25_000
    estimate = channel.scan(body)
    assert estimate >= channel.ELEMENT_BYTES * 100_000 + 4 * 100_000
    monkeypatch.setattr(channel, "SMALL_FRAME", 0)
    monkeypatch.setattr(channel, "MAX_DECODED_BYTES", estimate - 1)
    refused(body, f"would take {estimate} bytes decoded")
    monkeypatch.setattr(channel, "MAX_DECODED_BYTES", estimate)
    assert len(channel.decode(body)[0]) == 100_000


# VALUES_OF_ONE_KIND values of one kind: each decoded value's peak over the estimate is the same at 10,000 as at 50,000
# (within 0.01, measured 2026-12-06), but for the dict of dicts (0.77 against 0.88: a dict's table is
# fuller just below a resize), which keeps 50,000; 10,000 costs a fifth of the CPU under tracemalloc
VALUES_OF_ONE_KIND = 10_000


def same(got, want) -> bool:
    """``got`` is ``want`` as their reprs say (a tuple stays a tuple, an int an int), but an
    array is compared by its dtype, shape and items (its repr formats every item: 0.2 CPU s
    for the 100 arrays each time)."""
    if isinstance(want, np.ndarray):
        return type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape \
            and np.array_equal(got, want)
    if isinstance(want, (list, tuple)) and any(isinstance(w, np.ndarray) for w in want):
        return type(got) is type(want) and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return repr(got) == repr(want)


@pytest.mark.parametrize("name, value", [
    ("empty lists", [[] for _ in range(VALUES_OF_ONE_KIND)]),
    ("empty dicts", [{} for _ in range(VALUES_OF_ONE_KIND)]),
    ("dict of dicts", {i: {} for i in range(50_000)}),
    ("wide characters", ["\U0001f600" for _ in range(VALUES_OF_ONE_KIND)]),
    ("wide text", ["a" * 1000 + "\U0001f600" for _ in range(200)]),
    ("big integers", [2 ** 63 + i for i in range(VALUES_OF_ONE_KIND)]),
    ("integers past 64 bits", [2 ** 64 + i for i in range(VALUES_OF_ONE_KIND)]),
    ("huge integers", [-(7 << 400_000) + i for i in range(20)]),
    ("lone surrogates", ["\ud800" for _ in range(VALUES_OF_ONE_KIND)]),
    ("wide text with lone surrogates", ["a" * 1000 + "\U0001f600\ud800" for _ in range(200)]),
    ("floats", [i + 0.5 for i in range(VALUES_OF_ONE_KIND)]),
    ("tuples", [(i,) for i in range(VALUES_OF_ONE_KIND)]),
    ("bytes in nested tuples", ((((((((b"\xff" * 200_000,),),),),),),),)),
    ("arrays", [np.arange(1000, dtype=np.int64) for _ in range(100)]),
    ("many calls", ["many", 5, "next_state", [[0, t] for t in range(VALUES_OF_ONE_KIND)], {}]),
])
def test_the_estimate_is_an_upper_bound_of_the_decoded_size(name, value, monkeypatch):
    body = channel.pack(value, checked=False)
    estimate = channel.scan(body)
    for small_frame in (channel.SMALL_FRAME, 0):
        monkeypatch.setattr(channel, "SMALL_FRAME", small_frame)
        tracemalloc.start()
        try:
            got = channel.decode(body)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert got == value if name == "huge integers" else same(got, value)  # no repr past 4,300 digits
        assert peak <= estimate, f"{name}: decoding took {peak} bytes, estimated {estimate}"
        # a frame under SMALL_FRAME is decoded without the scan: what it takes is bounded by its length
        assert len(body) > channel.SMALL_FRAME or peak <= (channel.ELEMENT_BYTES + 20) * len(body)


def test_the_biggest_legitimate_frames_fit_with_room():
    # Measured (catalogue, golden replay, grade-tests): at most 133 KB, 8.8 K values, depth 7.
    # Far bigger ones must still cross: a batch of next_state over a 100 K-token vocabulary,
    # its answers, and masks over it as raw bytes.
    vocab = 100_000
    frames = [["many", 7, "next_state", [[3, t] for t in range(vocab)], {}],
              ["ok", list(range(vocab)), None],
              ["ok", [np.ones(vocab, dtype=np.bool_) for _ in range(256)], None]]
    for frame in frames:
        body = msgpack.packb(channel.encode(frame), use_bin_type=True)
        assert channel.scan(body) < channel.MAX_DECODED_BYTES // 4
        got = channel.decode(body)
        assert len(got) == len(frame) and repr(got[:2])[:100] == repr(frame[:2])[:100]


def test_a_huge_int_and_a_long_text_that_is_no_utf8_count_against_the_bounds(monkeypatch):
    # their payloads are counted on both sides: an int as binary, a text as text (4 bytes a byte)
    monkeypatch.setattr(channel, "SMALL_FRAME", 0)
    huge, text = 1 << 8_000_000, "\ud800" * 300_000  # 1 MB of bytes; 900 KB of UTF-8 (surrogatepass)
    bound = channel.MAX_DECODED_BYTES
    for value, payload, per_byte in ((huge, 1_000_001, 1 + 2), (text, 900_000, 4 + 2)):
        monkeypatch.setattr(channel, "MAX_DECODED_BYTES", bound)
        body = channel.pack(value, checked=False)
        estimate = channel.scan(body)
        assert estimate == channel.ELEMENT_BYTES + per_byte * payload + len(body)
        monkeypatch.setattr(channel, "MAX_DECODED_BYTES", estimate - 1)
        refused(body, "would take")
        with pytest.raises(channel.ProtocolError, match="would take"):
            channel.pack(value)
        monkeypatch.setattr(channel, "MAX_DECODED_BYTES", estimate)
        assert channel.decode(body) == value and channel.pack(value) == body


def test_the_sender_keeps_the_receivers_bounds(monkeypatch):
    monkeypatch.setattr(channel, "SMALL_FRAME", 0)
    monkeypatch.setattr(channel, "MAX_ELEMENTS", 1000)
    a, b = socket.socketpair()
    with a, b:
        with pytest.raises(channel.ProtocolError, match="more than 1000 values in one frame"):
            channel.send(a, [[] for _ in range(1000)])
        channel.send(a, [[] for _ in range(999)])  # with the list itself, 1000 values
        assert len(channel.receive(b, time.monotonic() + 5)) == 999


# --------------------------------------------------------------------------- malformed frames


def test_every_truncation_of_a_frame_is_a_protocol_error(monkeypatch):
    body = msgpack.packb(channel.encode(["ok", {"t": (1, "é", b"\x00" * 300), "a": np.arange(5)}, [2 ** 70]]),
                         use_bin_type=True)
    for small_frame in (channel.SMALL_FRAME, 0):
        monkeypatch.setattr(channel, "SMALL_FRAME", small_frame)
        for cut in range(len(body)):
            with pytest.raises(channel.ProtocolError):
                channel.decode(body[:cut])
        refused(body + b"\x00", "extra|after")


def test_a_frame_cut_short_on_the_wire_is_said_closed():
    a, b = socket.socketpair()
    with b:
        a.sendall(struct.pack(">I", 1000) + b"\x93" * 10)
        a.close()
        with pytest.raises(channel.ChannelClosed):
            channel.receive(b, time.monotonic() + 5)


@pytest.mark.parametrize("body, words", [
    (msgpack.packb(msgpack.Timestamp(1)), "unknown value type -1"),             # msgpack would build a Timestamp
    (b"\x92\x01\xd7\xff" + b"\x00" * 8, "unknown value type -1"),            # [1, timestamp]
    (b"\x92\x01\xd4\xfb\x00", "unknown value type -5"),
    (msgpack.packb(msgpack.ExtType(TUPLE, msgpack.packb("abc"))), "malformed"),  # a tuple's payload is a list
    (msgpack.packb(msgpack.ExtType(2, msgpack.packb([1, "K", [msgpack.ExtType(TUPLE, b"\x90")]]))),
     "extension value inside"),                                                 # a handle holding a value
    (msgpack.packb(msgpack.ExtType(1, msgpack.packb(["<i4", [2]]))), "malformed array"),
    (msgpack.packb(msgpack.ExtType(7, msgpack.packb(["rng"]))), "malformed"),   # a description without data
    (b"\xc1", "0xc1|FormatError|malformed"),
    (msgpack.packb(msgpack.ExtType(5, msgpack.packb([[1]]))), "unhashable"),    # a set holding a list
    (msgpack.packb([1, msgpack.ExtType(3, b"")]), "malformed integer"),          # an int of no bytes
    (msgpack.packb({"k": msgpack.ExtType(3, b"\xff\xff")}), "malformed integer"),  # -1 in two bytes
    (msgpack.packb([msgpack.ExtType(9, b"a\xed\xa0")]), "malformed text"),      # a surrogate cut short
    (msgpack.packb((msgpack.ExtType(9, b"\xc0\x80"),)), "malformed text"),        # an overlong NUL
    (msgpack.packb(msgpack.ExtType(2, msgpack.packb([1, "K", [msgpack.ExtType(9, b"\xed\xa0\x80")]]))),
     "extension value inside"),                                                 # a handle holding a text
])
def test_malformed_values_are_protocol_errors_on_both_paths(body, words, monkeypatch):
    for small_frame in (channel.SMALL_FRAME, 0):
        monkeypatch.setattr(channel, "SMALL_FRAME", small_frame)
        refused(body, words)


def test_a_handles_kind_arrives_printable():
    body = msgpack.packb(msgpack.ExtType(2, msgpack.packb([3, "DFA\x1b[32mPASS\r", ["step"]])))
    handle = channel.decode(body)
    assert handle.kind == "DFA\\x1b[32mPASS\\r" and handle.methods == ("step",)


@pytest.mark.e2e
def test_a_candidates_text_arrives_bounded_and_its_shown_parts_escaped(tmp_path):
    from harness.sandbox.text import escape

    loud = tmp_path / "loud.py"
    loud.write_text("from oracles.automaton import *  # noqa: F401,F403\n"
                    "class Sly:\n    def __repr__(self):\n        return '\\r\\x1b[32mPASS' * 100\n"
                    "Sly.__qualname__ = 'Sly\\x1b[2K'\n"
                    "def regex_to_dfa(pattern):\n"
                    "    if pattern == 'sly':\n        return Sly()\n"
                    "    raise ValueError('\\x1b[32mPASS\\r' * 2000)\n")
    with Candidate(str(loud)) as cand:
        with pytest.raises(ValueError) as caught:
            cand.module.regex_to_dfa("a")
        assert len(str(caught.value)) <= 4000  # the message as raised (escaped where it is shown)
        assert "\x1b" not in escape(str(caught.value)) and "\x1b" not in caught.value.where
        sly = cand.module.regex_to_dfa("sly")
        assert sly._handle.kind == "Sly\\x1b[2K"
        assert not any(ch in repr(sly) for ch in "\x1b\r") and len(repr(sly)) <= 300


# --------------------------------------------------------------------------- many: one answer per call


def _batch_rewriter(tmp_path: Path, change: str) -> str:
    """A candidate rewriting its own server so that ``many`` replies are ``change``d."""
    path = tmp_path / f"batches_{abs(hash(change))}.py"
    path.write_text("import sys\nfrom oracles.automaton import *  # noqa: F401,F403\n"
                    "_server = sys.modules['harness.sandbox.server']\n_handle = _server.Server.handle\n"
                    "def _rewritten(self, request):\n    answer = _handle(self, request)\n"
                    f"    return ({change}) if request[0] == 'many' else answer\n"
                    "_server.Server.handle = _rewritten\n")
    return str(path)


@pytest.mark.e2e
@pytest.mark.parametrize("change, words", [
    ("answer[:-1]", "3 answers to 4 calls"),
    ("answer + [0]", "5 answers to 4 calls"),
    ("{'a': 1}", "a dict to 4 calls"),
])
def test_a_many_reply_with_another_count_of_answers_is_a_protocol_violation(tmp_path, change, words):
    with Candidate(_batch_rewriter(tmp_path, change)) as cand:
        dfa = cand.module.regex_to_dfa("ab|c")
        assert dfa.step(0, b"a") == 1  # one call at a time is untouched
        with pytest.raises(CandidateProtocolError, match=f"protocol violation during many step: {words}"):
            call_many(dfa.step, [(0, b"a"), (0, b"c"), (0, b"x"), (1, b"b")])
        assert not cand.alive and isinstance(cand.incident, CandidateProtocolError)


@pytest.mark.e2e
def test_an_honest_many_reply_pairs_every_call(tmp_path):
    with Candidate(None) as cand:
        dfa = cand.module.regex_to_dfa("ab|c")
        calls = [(0, b"a"), (0, b"c"), (0, b"x"), (1, b"b")]
        assert call_many(dfa.step, calls) == [dfa.step(*c) for c in calls]
        assert call_many(dfa.step, []) == []
        with pytest.raises(TypeError):
            cand.request("many", dfa._handle.id, "step", [5], {})  # a call's arguments must be a list


# ---------------------------------------------------------- end to end: check, golden replay, grade-tests


HARNESS_DIGEST_BYTECODE = False  # as before: the digest leaves __pycache__ out (conftest.py)


CHECK = """
import json, resource, sys
from harness.grading.check import CheckOptions, run_check
result = run_check(CheckOptions(impl=sys.argv[1], only=tuple(sys.argv[2].split(",")), timeout=60))
print(json.dumps({"exit": int(result.exit_code), "marker": result.marker,
                  "tests": {t.name: [t.status, t.reason] for t in result.tests},
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024}))
"""


def check_in_child(candidate: str, only: tuple[str, ...]) -> dict:
    """``check`` in a process of its own (a grader that died would be its exit status, not
    this test run's), with the peak resident size of its children (the grader child)."""
    done = subprocess.run([sys.executable, "-c", CHECK, str(CANDIDATES / candidate), ",".join(only)],
                          capture_output=True, text=True, timeout=600, cwd=str(ROOT),
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, f"check died ({done.returncode}): {done.stderr[-3000:]}"
    result = json.loads(done.stdout.splitlines()[-1])
    assert left_over(result["marker"]) == [], f"processes of {candidate} are still running"
    return result


@pytest.mark.e2e
@pytest.mark.parametrize("candidate, words", [
    ("channel_nested_tuples.py", "a value nested deeper than 64"),
    ("channel_empty_arrays.py", f"more than {channel.MAX_ELEMENTS} values in one frame"),
])
def test_a_hostile_reply_is_that_tests_protocol_verdict_in_check(harness_unchanged, candidate, words):
    result = check_in_child(candidate, ("test_hand_example", "test_apply_mask"))
    status, reason = result["tests"]["test_hand_example"]
    assert status == "crashed" and reason.startswith("protocol violation") and words in reason, reason
    assert result["tests"]["test_apply_mask"][0] == "passed", result["tests"]
    assert result["exit"] == 3
    assert result["peak_mb"] < 1024, f"a process of the run grew to {result['peak_mb']} MB"


@pytest.mark.e2e
def test_a_short_many_reply_is_a_protocol_verdict_in_check(harness_unchanged):
    result = check_in_child("channel_short_many.py", ("test_reachable_states_never_have_an_empty_mask",
                                                      "test_hand_example"))
    status, reason = result["tests"]["test_reachable_states_never_have_an_empty_mask"]
    assert status == "crashed" and "protocol violation during many next_state" in reason, reason
    assert "answers to" in reason
    assert result["tests"]["test_hand_example"][0] == "passed" and result["exit"] == 3


@pytest.mark.e2e
@pytest.mark.parametrize("candidate", ["channel_nested_tuples.py", "channel_empty_arrays.py"])
def test_golden_replay_gets_a_verdict_not_a_crash(harness_unchanged, candidate):
    marker = f"channel-replay-{os.getpid()}"
    code = "import sys; from harness.cli import main; sys.exit(main(sys.argv[1:], sys.stdout, sys.stderr))"
    done = subprocess.run([sys.executable, "-c", code, "golden", "replay", "--impl", str(CANDIDATES / candidate),
                           "--file", "masks", "--timeout", "60"], capture_output=True, text=True, timeout=600,
                          cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT),
                                              "CONSTRAIN_HARNESS_MARKER": marker})
    assert done.returncode == 3, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert "protocol violation" in done.stderr, done.stderr[-2000:]
    assert left_over(marker) == []


SUITE = '''
import os, socket, stat, struct, time
from tinyllm.infer import constrain

BODY = {body}


def test_sends_a_hostile_request():
    assert constrain.regex_to_dfa("ab").n_states == 3  # the channel works
    for name in os.listdir("/proc/self/fd"):
        try:
            if stat.S_ISSOCK(os.fstat(int(name)).st_mode):
                socket.socket(fileno=os.dup(int(name))).sendall(struct.pack(">I", len(BODY)) + BODY)
        except OSError:
            pass
    constrain.regex_to_dfa("cd")  # waits for the grader's answer (it ends the run instead)


def test_an_honest_test():
    assert constrain.regex_to_dfa("ab").n_states == 3
'''


RUN_SUITE = """
import json, sys
from pathlib import Path
from harness.grading.gradetests.implementations import wheat
from harness.grading.gradetests.suite_run import run_suite
result = run_suite(Path(sys.argv[1]), wheat("reference"), marker=sys.argv[2])
print(json.dumps({"verdict": result.verdict, "detail": result.detail, "outcomes": result.outcomes}))
"""


@pytest.mark.e2e
@pytest.mark.parametrize("body", [
    # ["call", 1, "regex_to_dfa", [300 nested tuples], {}]: 1.5 KB
    'b"\\x95\\xa4call\\x01\\xacregex_to_dfa\\x91" + bytes.fromhex("%s") + b"\\x80"' % nested_tuples(300).hex(),
    # 8 M empty lists: 8 MB on the wire, some 600 MB decoded
    'b"\\xdd" + struct.pack(">I", 8 << 20) + b"\\x90" * (8 << 20)',
], ids=["nested tuples", "empty arrays"])
def test_a_suites_hostile_request_fails_its_test_and_leaves_the_grader_standing(harness_unchanged, tmp_path, body):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_hostile.py").write_text(SUITE.replace("{body}", body))
    marker = f"channel-suite-{os.getpid()}"
    done = subprocess.run([sys.executable, "-c", RUN_SUITE, str(suite), marker], capture_output=True, text=True,
                          timeout=600, cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, f"the grader died ({done.returncode}): {done.stderr[-3000:]}"
    result = json.loads(done.stdout.splitlines()[-1])
    hostile = next(t for t in result["outcomes"] if t.endswith("test_sends_a_hostile_request"))
    assert result["outcomes"][hostile] == "crashed", result
    assert result["verdict"] == "flood" and "broke the channel's rules" in result["detail"], result
    assert left_over(marker) == []


def test_a_frame_s_bytes_are_msgpack_s_whatever_the_one_packer_met_before_and_in_any_thread():
    """``channel._packb`` (one ``Packer`` a thread) writes what ``msgpack.packb`` writes, after a
    value it could not write (a lone surrogate, an object) as before, and from threads at once."""
    import threading

    value = ["ok", b"z", [(4, -0.5), (np.int64(3), np.float64(1.5))], {"x": np.arange(3, dtype=np.int32)}, None]
    wanted = msgpack.packb(channel.encode(value), use_bin_type=True)
    for bad in (["\ud800"], [object()]):
        with pytest.raises((UnicodeEncodeError, TypeError)):
            channel._packb(bad)
        assert channel.pack(value) == wanted
    assert channel.decode(channel.pack(["a\ud800b"]))[0] == "a\ud800b"   # the retry with every str checked
    found: list = []
    threads = [threading.Thread(target=lambda: found.extend(channel.pack(value) for _ in range(300)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 1200 and set(found) == {wanted}
