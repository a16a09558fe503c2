"""The wall's parts (harness/sandbox): the data-only channel, the candidate process and its
proxies, the escaping of candidate text, and the manifest of the harness's files.

Oracles: the values themselves (a round trip is the identity), numpy's own generator (a
generator used behind the wall advances exactly as one used in-process), the reference
called in-process, and the file system read back with lstat.
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
import time

import msgpack
import numpy as np
import pytest

import oracles.automaton as reference
from harness.sandbox import (
    Candidate,
    CandidateCrashed,
    CandidateGone,
    HarnessCannotSend,
    RemoteError,
    call_many,
    channel,
)
from harness.sandbox.files import Manifest
from harness.sandbox.text import escape
from harness.suite.shapes import SpecTokenizer
from tests.support.helpers import fresh_collector  # a new interpreter's garbage collector


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


# --------------------------------------------------------------------------- channel


@pytest.mark.parametrize("value", [
    None, True, 0, -1, 2 ** 64 - 1, -(2 ** 63), 2 ** 200, -(2 ** 90), 1.5, float("inf"), "é\x00", b"\xff\x00",
    [1, [2, (3, b"x")]], (), {1: "a", "b": (None,)}, {1, 2}, frozenset({"a"}),
    np.arange(6, dtype=np.int32).reshape(2, 3), np.zeros(0, dtype=np.bool_), np.float32(1.5), np.int64(-3),
    np.array([1.0, -np.inf], dtype=">f8"),
])
def test_a_round_trip_is_the_identity(pair, value):
    channel.send(pair[0], value)
    got = channel.receive(pair[1], deadline=time.monotonic() + 5)
    if isinstance(value, (np.ndarray, np.generic)):
        assert type(got) is type(value) and got.dtype == value.dtype and np.array_equal(got, value)
        assert not isinstance(got, np.ndarray) or got.flags.writeable
    else:
        assert got == value and type(got) is type(value)


# strs that are not UTF-8 (a lone surrogate: msgpack refuses to write one) and ints past 64 bits,
# alone and where the encoder takes its fast paths (a list or tuple of plain values, a batch's rows)
# or not (a dict's keys, a set, a description)
TEXTS_AND_INTS = [
    "\ud800", "\udfff", "a\udc80b\U0001f600\x00", "\ud83d\ude00", 2 ** 64, -(2 ** 63) - 1, 10 ** 5000,
    -(10 ** 5000), -(1 << 80_000), 1 << 80_000, 255 << 200, -(256 << 200),
    ["\ud800", "x", 1], ("\udfff", 2), [["\ud800", 1], ["b", 2]], [[10 ** 5000, 1], ["b", 2]],
    {"\ud800": ["\udc00", 10 ** 5000], ("\ud800", -(2 ** 100)): {1, "\ud801"}, 3: frozenset({"\udcff"})},
    channel.Described("x", {"k": ["\ud800"]}), [[[[{"a": ("\ud800", -(10 ** 4400))}]]]],
]


@pytest.mark.parametrize("value", TEXTS_AND_INTS, ids=range(len(TEXTS_AND_INTS)))
def test_a_str_that_is_no_utf8_and_an_int_of_any_size_cross_as_themselves(pair, value):
    channel.send(pair[0], value)
    got = channel.receive(pair[1], deadline=time.monotonic() + 5)
    assert got == value and type(got) is type(value)
    # the oracle above compares without printing: a bigger int's decimal text is past Python's limit
    inner = [value]
    while isinstance(inner[0], (list, tuple)) and inner[0]:
        inner = [inner[0][0]]
    assert type(inner[0]) is type(channel.decode(channel.pack(inner[0])))


def test_an_int_crosses_as_its_bytes_and_a_lone_surrogate_as_surrogatepass():
    # the wire format: no decimal text (no 4,300-digit limit), bit_length() // 8 + 1 bytes with the sign
    assert channel.pack(2 ** 64) == msgpack.packb(msgpack.ExtType(3, b"\x01" + b"\x00" * 8))
    assert channel.pack(-(2 ** 63) - 1) == msgpack.packb(msgpack.ExtType(3, b"\xff\x7f" + b"\xff" * 7))
    assert channel.pack("a\ud800") == msgpack.packb(msgpack.ExtType(9, b"a\xed\xa0\x80"))
    assert channel.pack(["\u00e9", "\ud800"]) == msgpack.packb(["\u00e9", msgpack.ExtType(9, b"\xed\xa0\x80")],
                                                                use_bin_type=True)


def test_a_handle_holding_a_lone_surrogate_crosses_with_its_snapshot_left_out():
    # a handle's payload carries no extension: its kind escaped, such a method read as an attribute,
    # a snapshot holding such a str not sent (the proxy reads live), the rest of the frame intact
    handle = channel.Handle(3, "K\ud800", ("m", "n\ud800"), [{"a": "\ud800", "b": 1}, ["z"], "T"])
    got, text = channel.decode(channel.pack([handle, "\ud800"]))
    assert (got.id, got.kind, got.methods, got.snapshot, text) == (3, "K\\ud800", ("m",), None, "\ud800")
    plain = channel.Handle(4, "K", ("m",), [{"a": "x"}, [], "T"])
    assert channel.decode(channel.pack([plain, "\ud800"]))[0].snapshot == [{"a": "x"}, [], "T"]


def test_the_encoder_asks_for_handles_as_one_pass_would_when_it_meets_a_lone_surrogate():
    # ``pack`` encodes again when msgpack refuses a str: the handles the first pass made are reused
    # (the candidate numbers them; the grader counts the generators it describes)
    asked = []

    def to_handle(obj):
        asked.append(obj)
        return channel.Handle(len(asked), "T")

    first, second = object(), object()
    got = channel.decode(channel.pack([first, ("\ud800", second), second], to_handle))
    assert asked == [first, second, second] and [h.id for h in (got[0], got[1][1], got[2])] == [1, 2, 3]
    assert got[1][0] == "\ud800"


def test_objects_never_cross_as_code(pair):
    with pytest.raises(TypeError, match="data only"):
        channel.send(pair[0], object())
    with pytest.raises(TypeError, match="data only"):
        channel.send(pair[0], np.array([object()], dtype=object))


@pytest.mark.parametrize("payload, words", [
    (msgpack.ExtType(1, msgpack.packb(["|O", [1], b"\x00" * 8])), "dtype '|O' is not allowed"),
    (msgpack.ExtType(1, msgpack.packb(["<i4", [3], b"\x00" * 8])), "does not have shape"),
    (msgpack.ExtType(42, b""), "unknown value type"),
    (msgpack.ExtType(3, b""), "malformed integer"),
    (msgpack.ExtType(3, b"\x00\x01"), "malformed integer"),   # 1 in two bytes: not its length
    (msgpack.ExtType(9, b"\xff"), "malformed text"),
])
def test_malformed_values_are_protocol_errors(pair, payload, words):
    body = msgpack.packb(payload)
    pair[0].sendall(struct.pack(">I", len(body)) + body)
    with pytest.raises(channel.ProtocolError, match=words):
        channel.receive(pair[1], deadline=time.monotonic() + 5)


def test_an_oversized_frame_is_refused_before_it_is_read(pair):
    pair[0].sendall(struct.pack(">I", channel.MAX_FRAME + 1))
    with pytest.raises(channel.ProtocolError, match="announced a frame"):
        channel.receive(pair[1], deadline=time.monotonic() + 5)


def test_a_silent_peer_misses_the_deadline_and_a_closed_one_is_said(pair):
    with pytest.raises(channel.ChannelTimeout):
        channel.receive(pair[1], deadline=time.monotonic() + 0.2)
    pair[0].close()
    with pytest.raises(channel.ChannelClosed):
        channel.receive(pair[1], deadline=time.monotonic() + 5)


# --------------------------------------------------------------------------- the candidate process


@pytest.fixture(scope="module")
def candidate():
    with Candidate(None) as cand:
        yield cand


@pytest.mark.e2e
def test_proxies_answer_as_the_reference_does_in_process(candidate):
    impl = candidate.module
    dfa, here = impl.regex_to_dfa("(cat|car|dog)s?"), reference.regex_to_dfa("(cat|car|dog)s?")
    assert dfa.n_states == here.n_states and impl.DEAD == reference.DEAD
    assert np.array_equal(dfa.trans, here.trans) and dfa.trans.dtype == np.int32
    assert [dfa.step(0, w) for w in (b"cat", b"x", b"")] == [here.step(0, w) for w in (b"cat", b"x", b"")]
    vocab = [b"c", b"a", b"t", b"ca", None, b""]
    index = impl.TokenIndex(dfa, vocab, 4)
    args = [(s, t) for s in range(dfa.n_states) for t in range(len(vocab))]
    want = [reference.TokenIndex(here, vocab, 4).next_state(*a) for a in args]
    assert call_many(index.next_state, args) == want == [index.next_state(*a) for a in args]


@pytest.mark.e2e
def test_the_candidates_exceptions_keep_their_builtin_class(candidate):
    impl = candidate.module
    with pytest.raises(ValueError) as info:
        impl.regex_to_dfa("(ab")
    assert isinstance(info.value, RemoteError) and info.value.remote_type
    with pytest.raises(TypeError):
        impl.regex_to_dfa(b"ab")
    with pytest.raises(AttributeError):
        impl.no_such_name  # noqa: B018 - the attribute read is what raises
    assert not hasattr(impl, "no_such_name")


@pytest.mark.e2e
def test_what_the_grader_cannot_send_is_its_own_error_never_the_candidates(candidate):
    # an object of no type the channel carries, a value past its depth bound: the grader's side
    # raises before anything is sent; no ``except ValueError``/``TypeError``/``Exception`` of a test
    # takes it for the candidate's answer, it is no verdict on the candidate, whose process goes on
    impl = candidate.module
    for schema, cause in (({"const": object()}, "TypeError"), ({"const": np.array([None], dtype=object)}, "TypeError"),
                          ({"const": _nested(channel.MAX_DEPTH + 1)}, "ProtocolError")):
        with pytest.raises(BaseException) as info:
            try:
                impl.json_schema_to_regex(schema)
            except Exception:  # noqa: BLE001 - what a test expecting the candidate's exception would catch
                pytest.fail("the grader's own failure to send was caught as an Exception")
        assert isinstance(info.value, HarnessCannotSend) and not isinstance(info.value, CandidateGone)
        assert str(info.value).startswith(f"harness error: the grader could not send call json_schema_to_regex: "
                                          f"{cause}")
        assert candidate.alive and candidate.incident is None
    assert impl.regex_to_dfa("ab").n_states == 3


def _nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.e2e
def test_a_lone_surrogate_and_a_huge_int_reach_the_candidate_and_come_back(tmp_path):
    # both directions through a real candidate process: what it is handed is what it answers
    module = tmp_path / "echo.py"
    module.write_text("def echo(value):\n    return value\n\ndef kinds(value):\n"
                      "    return [type(v).__name__ for v in value]\n", encoding="utf-8")
    with Candidate(str(module)) as cand:
        for value in TEXTS_AND_INTS:
            if isinstance(value, channel.Described):
                continue  # a description is rebuilt by kind on the other side, not data
            got = cand.module.echo(value)
            assert got == value and type(got) is type(value)
        assert cand.module.kinds(["\ud800", 10 ** 5000, -(2 ** 64)]) == ["str", "int", "int"]
        assert cand.module.echo({"const": "\ud800"}) == {"const": "\ud800"}


@pytest.mark.e2e
def test_exchange_is_one_raw_round_trip(candidate):
    """``Candidate.exchange``, the public API a relay uses: the reply as sent, handles as
    handles, an error as data (what ``request`` turns into proxies and exceptions)."""
    status, value, _ = candidate.exchange(["getattr", 1, "DEAD", [], {}])
    assert (status, value) == ("ok", reference.DEAD)
    status, handle, _ = candidate.exchange(["call", 1, "regex_to_dfa", ["ab"], {}])
    assert status == "ok" and isinstance(handle, channel.Handle) and "step" in handle.methods
    assert candidate.exchange(["getattr", handle.id, "n_states", [], {}])[:2] == ["ok", 3]
    status, error, _ = candidate.exchange(["call", 1, "regex_to_dfa", ["(ab"], {}])
    assert status == "err" and "ValueError" in error["kinds"]


@pytest.mark.e2e
def test_a_loaded_candidate_started_again_is_refused_at_once(candidate):
    """``start`` (and ``with``) on a candidate loaded already: a RuntimeError at once, and the
    process still serves. Before, the second start waited for a load reply that never came,
    until the wall backstop (15 minutes in one engineer's run)."""
    with pytest.raises(RuntimeError, match="started already"):
        candidate.start()
    with pytest.raises(RuntimeError, match="started already"):
        with candidate:
            pass
    assert candidate.alive and candidate.module.DEAD == reference.DEAD


def test_the_relay_and_the_shim_use_only_the_wall_s_public_and_shared_parts(tmp_path):
    """relay.py touches no private member of Candidate; the shim's proxies are the
    wall's own ``proxying`` classes, a module that (like ``channel``) imports nothing from
    harness, so grade-tests can copy it into the student's process."""
    import ast
    from pathlib import Path

    import harness.grading.gradetests.relay as relay
    import harness.sandbox.proxying as proxying
    from harness.grading.gradetests import shim
    from harness.sandbox import client

    private = {n for n in dir(Candidate) if n.startswith("_") and not n.endswith("__")} | {"_sock", "_lock", "_proc"}
    tree = ast.parse(Path(relay.__file__).read_text())
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert "exchange" in used and used & private == set()
    assert issubclass(shim.Proxy, proxying.ProxyBase) and issubclass(client.Proxy, proxying.ProxyBase)
    assert issubclass(shim.RemoteMethod, proxying.RemoteMethodBase) and shim.proxying.wrap is proxying.wrap
    for module in (proxying, channel):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in imported if m.startswith("harness")], module.__name__
    from harness.grading.gradetests.suite_run import _prepare

    suite = tmp_path / "suite_src"
    suite.mkdir()
    wall, _ = _prepare(tmp_path / "scratch", suite)  # the student's private copy of the shim
    for module in (proxying, channel):
        name = Path(module.__file__).name
        assert (wall / "_gradewall" / name).read_bytes() == Path(module.__file__).read_bytes()


@pytest.mark.e2e
def test_a_generator_behind_the_wall_advances_as_in_process(candidate):
    impl = candidate.module
    index = impl.TokenIndex(impl.regex_to_dfa("[ab]+"), [b"a", b"b", None], 2)
    here_index = reference.TokenIndex(reference.regex_to_dfa("[ab]+"), [b"a", b"b", None], 2)
    params = impl.SamplingParams(temperature=1.0)
    mine, theirs = np.random.default_rng(7), np.random.default_rng(7)
    logits = np.array([0.3, 0.1, 0.0])
    for _ in range(5):
        got = impl.constrained_sample(logits, impl.Constraint(index), params, [], mine)
        want = reference.constrained_sample(logits, reference.Constraint(here_index),
                                            reference.SamplingParams(temperature=1.0), [], theirs)
        assert got == want
    assert mine.random() == theirs.random()


@pytest.mark.e2e
def test_a_tokenizer_crosses_as_its_description(candidate):
    tok = SpecTokenizer(["a", "\u0120b", "<s>"], special_ids=[2])
    assert candidate.module.vocab_bytes(tok) == reference.vocab_bytes(tok)


@pytest.mark.e2e
def test_a_dead_candidate_is_said_once_and_never_reused(tmp_path):
    dying = tmp_path / "dying.py"
    dying.write_text("import os\nfrom oracles.automaton import *  # noqa: F401,F403\n"
                     "def regex_to_dfa(pattern):\n    os._exit(7)\n")
    with Candidate(str(dying)) as cand:
        with pytest.raises(CandidateCrashed, match="exit status 7"):
            cand.module.regex_to_dfa("a")
        assert isinstance(cand.incident, CandidateCrashed) and not cand.alive
        with pytest.raises(CandidateGone):
            cand.module.apply_mask([1.0], [True])


@pytest.mark.e2e
def test_the_candidate_runs_under_the_collectors_defaults(tmp_path):
    """The candidate process starts with the garbage collector off and freezes the harness's
    objects before the candidate's import (``server.main``): the candidate's own code, from
    its import on, meets the collector a new interpreter has, and its garbage is collected.
    Oracle: a new interpreter's ``gc.isenabled()`` and ``gc.get_threshold()``."""
    fresh = fresh_collector()
    probe = tmp_path / "collector.py"
    probe.write_text("import gc, weakref\nfrom oracles.automaton import *  # noqa: F401,F403\n"
                     "AT_IMPORT = (gc.isenabled(), gc.get_threshold())\n"
                     "def collector_at_import():\n    return repr(AT_IMPORT)\n"
                     "class Node:\n    pass\n"
                     "def a_cycle_is_collected():\n"
                     "    node = Node(); node.me = node; alive = weakref.ref(node); del node\n"
                     "    gc.collect()\n    return alive() is None\n")
    with Candidate(str(probe)) as cand:
        assert cand.module.collector_at_import() == fresh
        assert cand.module.a_cycle_is_collected() is True


# --------------------------------------------------------------------------- text and files


def test_escape_leaves_no_control_character():
    text = escape("ok\r\x1b[32mPASS\x1b[0m\x08\u202e\u200b\nnext")
    assert text == "ok\\r\\x1b[32mPASS\\x1b[0m\\x08\\u202e\\u200b\\nnext"
    assert escape("a\nb\tc", keep_newlines=True) == "a\nb    c"


def test_the_manifest_finds_every_change_and_restores_without_following_links(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n")
    (root / "sub" / "b.json").write_text("{}\n")
    (root / "link").symlink_to("a.py")
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    manifest = Manifest.take([root])
    assert manifest.verify() == []
    (root / "a.py").write_text("A = 2\n")
    (root / "sub" / "b.json").unlink()
    (root / "sub" / "b.json").symlink_to(outside)
    (root / "planted.py").write_text("x\n")
    (root / "link").unlink()
    (root / "link").symlink_to(outside)
    os.chmod(root / "sub", 0o777)
    changes = "\n".join(manifest.verify())
    for words in ("pkg/a.py: changed", "pkg/sub/b.json: a file replaced by a link", "pkg/planted.py: added",
                  "pkg/link: relinked", "pkg/sub: mode"):
        assert words in changes, changes
    manifest.restore()
    assert manifest.verify() == []
    assert outside.read_text() == "untouched\n"
    assert (root / "a.py").read_text() == "A = 1\n" and not (root / "planted.py").exists()
    assert os.readlink(root / "link") == "a.py" and not (root / "sub" / "b.json").is_symlink()


def test_verify_reads_again_only_what_moved_and_catches_a_restored_mtime(tmp_path, monkeypatch):
    from harness.sandbox import files

    root = tmp_path / "pkg"
    root.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text(f"{name} = 1\n")
    time.sleep(0.05)  # older than take by more than the (patched) racy window
    monkeypatch.setattr(files, "RACY_SECONDS", 0.01)
    manifest = Manifest.take([root])
    reads = []
    real_entry = files._entry
    monkeypatch.setattr(files, "_entry", lambda path: reads.append(path.name) or real_entry(path))
    assert manifest.verify() == [] and sorted(reads) == ["pkg"]  # the folder's mode: an lstat
    before = os.lstat(root / "a.py")
    (root / "a.py").write_text("a.py = 2\n")  # the same size, and its mtime put back
    os.utime(root / "a.py", ns=(before.st_atime_ns, before.st_mtime_ns))
    reads.clear()
    assert manifest.verify() == ["pkg/a.py: changed (sha256 " + hashlib.sha256(b"a.py = 2\n").hexdigest()[:12] + ")"]
    assert "a.py" in reads and "b.py" not in reads
    manifest.restore()
    assert (root / "a.py").read_text() == "a.py = 1\n"


def test_verify_reads_again_a_file_changed_close_to_take(tmp_path, monkeypatch):
    from harness.sandbox import files

    root = tmp_path / "pkg"
    root.mkdir()
    (root / "fresh.py").write_text("x = 1\n")  # within RACY_SECONDS of take: the same tick could hide a change
    manifest = Manifest.take([root])
    reads = []
    real_entry = files._entry
    monkeypatch.setattr(files, "_entry", lambda path: reads.append(path.name) or real_entry(path))
    assert manifest.verify() == [] and "fresh.py" in reads


@pytest.mark.e2e
def test_an_object_that_equals_everything_equals_nothing_here(tmp_path):
    liar = tmp_path / "liar.py"
    liar.write_text("from oracles.automaton import *  # noqa: F401,F403\n"
                    "class Liar:\n    def __eq__(self, other):\n        return True\n"
                    "    def __ne__(self, other):\n        return False\n"
                    "def regex_to_dfa(pattern):\n    return Liar()\n")
    with Candidate(str(liar)) as cand:
        got = cand.module.regex_to_dfa("a")
        assert got != 3 and not (got == 3) and got == got


def test_the_manifest_leaves_out_bytecode_another_process_writes_but_not_real_files(tmp_path):
    """Two runs sharing one checkout: another process writes ``__pycache__`` into the
    protected tree while a check runs. That is no tampering (and the new ``.pyc`` is
    deleted, so a forged one does not outlive the run); a change to a real file still is,
    as are a ``.pyc`` outside ``__pycache__`` and a ``__pycache__`` that is a link."""
    root = tmp_path / "pkg"
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n")
    (root / "sub" / "__pycache__" / "old.cpython-311.pyc").write_bytes(b"old cache")
    manifest = Manifest.take([root])
    (root / "__pycache__").mkdir()  # as `import pkg.a` from another process writes it
    (root / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\x00forged or not")
    (root / "sub" / "__pycache__" / "old.cpython-311.pyc").write_bytes(b"rewritten cache")
    assert manifest.verify() == []
    assert not (root / "__pycache__" / "a.cpython-311.pyc").exists()
    assert not (root / "sub" / "__pycache__" / "old.cpython-311.pyc").exists()

    (root / "a.py").write_text("A = 2\n")
    (root / "b.pyc").write_bytes(b"not in a cache folder")
    (root / "sub" / "__pycache__" / "planted.py").write_text("x\n")
    (root / "other").mkdir()
    (root / "other" / "__pycache__").symlink_to(tmp_path)
    changes = "\n".join(manifest.verify())
    for words in ("pkg/a.py: changed", "pkg/b.pyc: added (file)", "pkg/sub/__pycache__/planted.py: added (file)",
                  "pkg/other/__pycache__: added (link)"):
        assert words in changes, changes
    manifest.restore()
    assert manifest.verify() == [] and (root / "a.py").read_text() == "A = 1\n"
    assert (root / "sub" / "__pycache__" / "old.cpython-311.pyc").read_bytes() == b"old cache"


def test_the_manifest_keeps_an_old_pyc_by_its_signature_and_never_writes_one_back(tmp_path, monkeypatch):
    """A ``.pyc`` older than the racy window is recorded by its ``lstat`` signature alone (no
    content kept): unchanged, it stays; rewritten, ``verify`` deletes it and lists nothing;
    deleted, ``restore`` does not write it back (Python compiles its source again). Real files
    are still kept whole and restored."""
    import hashlib
    import time

    from harness.sandbox import files

    root = tmp_path / "pkg"
    (root / "__pycache__").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n")
    for name in ("kept", "rewritten", "deleted"):
        (root / "__pycache__" / f"{name}.cpython-311.pyc").write_bytes(b"cache " + name.encode())
    time.sleep(0.05)
    monkeypatch.setattr(files, "RACY_SECONDS", 0.0)  # everything written above is older than the window
    manifest = Manifest.take([root])
    cached = {p.name: e for p, e in manifest.entries.items() if p.suffix == ".pyc"}
    assert all(not e.content_kept and e.content == b"" and e.signature for e in cached.values())
    assert manifest.entries[root / "a.py"].content == b"A = 1\n"
    (root / "__pycache__" / "rewritten.cpython-311.pyc").write_bytes(b"\x00forged or not")
    (root / "__pycache__" / "deleted.cpython-311.pyc").unlink()
    (root / "a.py").write_text("A = 2\n")
    changed = hashlib.sha256(b"A = 2\n").hexdigest()[:12]
    assert manifest.verify() == [f"pkg/a.py: changed (sha256 {changed})"]
    assert not (root / "__pycache__" / "rewritten.cpython-311.pyc").exists()
    assert (root / "__pycache__" / "kept.cpython-311.pyc").read_bytes() == b"cache kept"
    manifest.restore()
    assert (root / "a.py").read_text() == "A = 1\n"
    assert sorted(p.name for p in (root / "__pycache__").iterdir()) == ["kept.cpython-311.pyc"]
    assert manifest.verify() == []


def test_the_grader_keeps_a_bounded_number_of_a_candidate_s_exception_classes():
    """A candidate raising a new class name on every call once added one class per call to the
    grader's cache: now at most ``MAX_EXCEPTION_CLASSES``; past it each exception still has its
    name and built-in base (``isinstance`` answers as before), and a kept kind stays one class."""
    import harness.sandbox.proxying as proxying

    class Root(Exception):
        pass

    cache: dict = {}
    made = [proxying.exception_class({"type": f"Made{i}", "kinds": ["ValueError", "Exception"], "message": str(i)},
                                     Root, "candidate", cache) for i in range(proxying.MAX_EXCEPTION_CLASSES + 500)]
    assert len(cache) == proxying.MAX_EXCEPTION_CLASSES
    assert all(isinstance(e, ValueError) and isinstance(e, Root) and type(e).__name__ == f"Made{i}"
               and str(e) == str(i) for i, e in enumerate(made))
    again = proxying.exception_class({"type": "Made3", "kinds": ["ValueError"], "message": "x"}, Root, "candidate",
                                     cache)
    assert type(again) is type(made[3]) and len(cache) == proxying.MAX_EXCEPTION_CLASSES
