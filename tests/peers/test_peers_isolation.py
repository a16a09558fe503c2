"""Every peer in a child process with limits: a crash, a hang or a limit is a finding
with the peer's name, version and input, and the run goes on (``harness.peers.isolation``).

The attacks come from a stand-in peer (``tests/peer_fakes/hostile_peer.py``) that reads a
NULL pointer, aborts, hoards memory, spins, sleeps or raises on chosen inputs; each test
asserts the verdict, that the harness's files are unchanged and that the child is gone.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from harness.peers import PEERS, isolation
from harness.peers.base import PeerRefused, Source
from harness.peers.cases import Case
from harness.peers.compare import compare
from harness.peers.isolation import IsolatedPeer, Limits, PeerFailed

HARNESS_DIGEST_BYTECODE = False
FAKES = str(Path(__file__).parents[1] / "peer_fakes")
QUICK = Limits(cpu_seconds=2, memory_bytes=1 << 30, wall_seconds=8.0)


@pytest.fixture
def hostile(monkeypatch, harness_unchanged):
    monkeypatch.setitem(PEERS, "hostile", ("hostile_peer", "Hostile"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [FAKES])
    peer = IsolatedPeer("hostile", QUICK)
    yield peer
    peer.close()


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# the hoard zero-fills 64 MiB at a time: its own memory limit is small and its CPU limit far
# away, so the memory limit ends it however slow page faults are on a loaded machine
HOARD = Limits(cpu_seconds=60, memory_bytes=256 << 20, wall_seconds=120.0)


@pytest.mark.e2e  # the hostile peer runs in a child process
@pytest.mark.parametrize("pattern, kind, detail, limits", [
    ("segv(a)", "crash", "SIGSEGV", QUICK),
    ("abort(a)", "crash", "SIGABRT", QUICK),
    ("hog(a)", "memory limit", "MemoryError", HOARD),
    ("raise(a)", "raised", "RuntimeError: the engine's own bug", QUICK),
])
def test_a_compile_that_kills_the_peer_is_a_finding_and_the_next_question_is_answered(hostile, pattern, kind,
                                                                                        detail, limits):
    hostile.limits = limits
    hostile.close()  # the next question starts a child with these limits
    hostile.compile_regex("a")
    pid = hostile.pid
    with pytest.raises(PeerFailed) as caught:
        hostile.compile_regex(pattern)
    failure = caught.value
    assert (failure.peer, failure.version, failure.kind, failure.op) == ("hostile", "6.6.6", kind, "compile")
    assert failure.source == Source.regex(pattern) and detail in failure.detail
    assert _gone(pid), "the crashed child was left running"
    assert hostile.compile_regex("a|b").accepts(b"b")  # a fresh child answers
    assert hostile.pid != pid


@pytest.mark.e2e  # the hostile peer runs in a child process
# the spin is ended by its CPU limit however loaded the machine (a wall backstop far away);
# the sleep uses no CPU: the wall backstop ends it
@pytest.mark.parametrize("doc, kind, limits", [
    (b"spin", "cpu limit", Limits(cpu_seconds=1, memory_bytes=1 << 30, wall_seconds=300.0)),
    (b"sleep", "hang", Limits(cpu_seconds=60, memory_bytes=1 << 30, wall_seconds=3.0)),
    (b"boom", "crash", QUICK)])
def test_a_document_that_hangs_or_crashes_the_peer_is_a_finding(hostile, doc, kind, limits):
    hostile.limits = limits
    hostile.close()  # the next question starts a child with these limits
    compiled = hostile.compile_regex("[a-z]+")
    pid = hostile.pid
    with pytest.raises(PeerFailed) as caught:
        compiled.accepts(doc)
    assert caught.value.kind == kind and caught.value.data == doc and caught.value.op == "accepts"
    assert _gone(pid)
    assert compiled.accepts(b"abc") and not compiled.accepts(b"ab1")  # compiled again in a new child


@pytest.mark.e2e  # the hostile peer runs in a child process
def test_a_refusal_stays_a_refusal(hostile):
    with pytest.raises(PeerRefused):
        hostile.compile_regex("(")
    assert hostile.compile_regex("a").accepts(b"a")


@pytest.mark.e2e  # the hostile peer runs in a child process
def test_compare_reports_each_failure_with_the_peer_its_version_and_input_and_goes_on(hostile):
    hostile.limits = Limits(cpu_seconds=1, memory_bytes=1 << 30, wall_seconds=300.0)
    hostile.close()
    cases = [Case(Source.regex("segv|a"), doc=b"a"), Case(Source.regex("segv|a"), doc=b"b"),
             Case(Source.regex("[a-z]+"), doc=b"spin"), Case(Source.regex("[a-z]+"), doc=b"abc"),
             Case(Source.regex("x|y"), doc=b"y")]
    [result] = compare([hostile], cases)
    kinds = [(f.kind, f.source.text, f.witness) for f in result.findings]
    # the crashing pattern is compiled once and reported once; its second case is skipped
    assert kinds == [("crash", "segv|a", None), ("cpu limit", "[a-z]+", b"spin")]
    assert all(f.peer == "hostile" and f.version == "6.6.6" for f in result.findings)
    assert result.checks == 2 and result.agreements == 2  # the cases after the failures were answered
    assert result.skipped["peer failed on this input before"] == 1


def test_limits_are_checked():
    with pytest.raises(ValueError, match="limits must be positive"):
        Limits(cpu_seconds=0)


def test_the_wire_format_carries_every_byte_and_no_code():
    value = {"doc": bytes(range(256)), "list": [b"", b"\x00\xff", 1, None, True], "nested": {"x": (1, 2)}}
    assert isolation.decode(isolation.encode(value)) == {**value, "nested": {"x": [1, 2]}}
    mask = [True, False, True] * 7
    assert list(isolation._hex_to_mask(isolation._mask_to_hex(mask), len(mask))) == mask
