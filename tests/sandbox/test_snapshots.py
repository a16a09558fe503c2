"""A handle's snapshot (``harness.sandbox.server._snapshot``, the tools contract): the grader's
proxy answers a plain attribute from the values sent with the handle, without a round trip,
only while nothing else was asked of the candidate's process since, and only where a read
runs none of the candidate's code; every answer is what a read in that process would give.

Checked against the same objects read in this process (the oracle) and by counting round
trips (``Candidate.epoch``). The constrain contract (what grade-tests relays to a student's
suite) sends no snapshot."""

from __future__ import annotations

import textwrap

import pytest

from harness.sandbox import Candidate, channel

OBJECTS = textwrap.dedent('''
    from oracles.tools import *  # noqa: F401,F403 - the tools contract's names


    class Plain:
        label = "a class constant"

        def __init__(self):
            self.text, self.count, self.none, self.blob, self.ratio = "t", 3, None, b"b", 0.5
            self.items, self._private, self.long = [1, 2], "p", "x" * 5000

        def bump(self):
            self.count += 1
            return self.count


    class WithProperty:
        reads = 0

        def __init__(self):
            self.value = 1

        @property
        def computed(self):
            type(self).reads += 1
            return type(self).reads


    class Dynamic:
        def __init__(self):
            self.value = 1

        def __getattr__(self, name):
            return "made up " + name


    class Slotted:
        __slots__ = ("a", "b")

        def __init__(self):
            self.a = 1


    def make(kind):
        return {"plain": Plain, "property": WithProperty, "dynamic": Dynamic, "slotted": Slotted}[kind]()
''')


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    """The candidate module behind the wall, and the same module imported here (the oracle)."""
    import importlib.util

    folder = tmp_path_factory.mktemp("snapshots")
    path = folder / "objects.py"
    path.write_text(OBJECTS)
    spec = importlib.util.spec_from_file_location("snapshot_objects_here", path)
    here = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(here)
    with Candidate(str(path), contract="tools") as candidate:
        yield candidate, here


def _reads(candidate, read):
    """``read()`` and how many round trips it made."""
    before = candidate.epoch
    value = read()
    return value, candidate.epoch - before


@pytest.mark.e2e  # a candidate process behind the wall
def test_plain_attributes_come_with_the_handle_and_equal_a_read_there(objects):
    candidate, here = objects
    proxy, local = candidate.module.make("plain"), here.make("plain")
    for name in ("text", "count", "none", "blob", "ratio"):
        value, trips = _reads(candidate, lambda: getattr(proxy, name))
        assert (value, type(value), trips) == (getattr(local, name), type(getattr(local, name)), 0), name


@pytest.mark.e2e  # a candidate process behind the wall
def test_what_a_snapshot_cannot_answer_is_asked_for(objects):
    candidate, here = objects
    local = here.make("plain")
    for name in ("items", "_private", "long", "label"):  # a list, a private name, a long str, a class attribute
        proxy = candidate.module.make("plain")
        value, trips = _reads(candidate, lambda: getattr(proxy, name))
        assert value == getattr(local, name) and trips == 1, name


@pytest.mark.e2e  # a candidate process behind the wall
def test_a_snapshot_is_not_used_after_the_candidate_ran_again(objects):
    candidate, here = objects
    proxy, local = candidate.module.make("plain"), here.make("plain")
    assert proxy.bump() == local.bump() == 4
    value, trips = _reads(candidate, lambda: proxy.count)  # 3 in the snapshot: read again, 4
    assert (value, trips) == (local.count, 1) == (4, 1)
    other = candidate.module.make("plain")
    candidate.module.make("plain")  # any round trip: the candidate's code ran
    assert _reads(candidate, lambda: other.text) == ("t", 1)


@pytest.mark.e2e  # a candidate process behind the wall
def test_an_absent_attribute_raises_what_a_read_there_raises(objects):
    candidate, here = objects
    fresh = candidate.module.make("plain")
    with pytest.raises(AttributeError) as snapshot:
        before = candidate.epoch
        fresh.no_such_attribute  # noqa: B018 - the read is what raises
    assert candidate.epoch == before  # answered without a round trip
    stale = candidate.module.make("plain")
    candidate.module.make("plain")
    with pytest.raises(AttributeError) as live:
        stale.no_such_attribute  # noqa: B018
    with pytest.raises(AttributeError) as local:
        here.make("plain").no_such_attribute  # noqa: B018
    assert type(snapshot.value) is type(live.value)
    assert str(snapshot.value) == str(live.value) == str(local.value)
    assert not hasattr(candidate.module.make("plain"), "no_such_attribute")


@pytest.mark.e2e  # a candidate process behind the wall
def test_code_that_runs_on_a_read_runs_on_every_read(objects):
    candidate, _ = objects
    with_property = candidate.module.make("property")
    assert _reads(candidate, lambda: with_property.value) == (1, 0)
    assert _reads(candidate, lambda: with_property.computed) == (1, 1)
    assert _reads(candidate, lambda: with_property.computed) == (2, 1)
    dynamic = candidate.module.make("dynamic")  # __getattr__: no snapshot at all
    assert _reads(candidate, lambda: dynamic.value) == (1, 1)
    assert _reads(candidate, lambda: dynamic.anything) == ("made up anything", 1)


@pytest.mark.e2e  # a candidate process behind the wall
def test_slots_are_read_from_the_snapshot_and_an_unset_one_is_asked_for(objects):
    candidate, here = objects
    slotted = candidate.module.make("slotted")
    assert _reads(candidate, lambda: slotted.a) == (1, 0)
    with pytest.raises(AttributeError):
        here.make("slotted").b  # noqa: B018
    before = candidate.epoch
    with pytest.raises(AttributeError):
        slotted.b  # noqa: B018
    assert candidate.epoch == before + 1


@pytest.mark.e2e
def test_the_constrain_contract_sends_no_snapshot():
    """What grade-tests relays to a student's suite: handles without their values (its gate
    serves the contract's public names only, read one at a time)."""
    with Candidate(None) as candidate:
        status, handle, _ = candidate.exchange(["call", 1, "regex_to_dfa", ["ab"], {}])
        assert status == "ok" and isinstance(handle, channel.Handle) and handle.snapshot is None


@pytest.mark.parametrize("snapshot", [
    [{"a": [1]}, [], "T"],        # a value that is no scalar
    [{1: 2}, [], "T"],            # a name that is no str
    [{}, [1], "T"],               # a live name that is no str
    [{}, [], 3],                  # a type name that is no str
    [{}, []],                     # too short
    "values",
])
def test_a_malformed_snapshot_is_a_protocol_error(snapshot):
    frame = channel.encode(channel.Handle(1, "T", ("m",), snapshot))
    with pytest.raises(channel.ProtocolError, match="malformed handle snapshot"):
        channel.decode(channel.msgpack.packb(frame, use_bin_type=True))


def test_a_snapshot_crosses_the_channel_as_it_was_sent():
    snapshot = [{"text": "t", "n": 3, "none": None, "blob": b"b", "x": 0.5, "flag": True}, ["label"], "Plain"]
    handle = channel.Handle(7, "Plain", ("bump",), snapshot)
    back = channel.decode(channel.msgpack.packb(channel.encode(handle), use_bin_type=True))
    assert back == handle and back.snapshot == snapshot
    assert channel.decode(channel.msgpack.packb(channel.encode(channel.Handle(7, "P")), use_bin_type=True)).snapshot \
        is None


def test_what_a_snapshot_holds_in_process():
    """``server._snapshot``'s rules on objects here (the unit behind the tests above)."""
    import sys as _sys

    from harness.sandbox.server import MAX_SNAPSHOT_CHARS, MAX_SNAPSHOT_FIELDS, _methods, _snapshot

    namespace: dict = {}
    exec(OBJECTS.replace("from oracles.tools import *  # noqa: F401,F403 - the tools contract's names", ""),
         namespace)
    plain = namespace["make"]("plain")
    values, live, type_name = _snapshot(plain, _methods(plain))
    assert values == {"text": "t", "count": 3, "none": None, "blob": b"b", "ratio": 0.5} and type_name == "Plain"
    assert set(live) == {"items", "long", "label"} and "bump" not in live   # a method is neither
    assert len(plain.long) > MAX_SNAPSHOT_CHARS
    with_property = namespace["make"]("property")
    assert _snapshot(with_property, _methods(with_property))[:2] == [{"value": 1}, ["computed", "reads"]]
    assert _snapshot(namespace["make"]("dynamic"), ()) is None           # __getattr__: every read asks
    slotted = namespace["make"]("slotted")
    assert _snapshot(slotted, _methods(slotted))[0] == {"a": 1}            # b unset: read live
    crowded = type("Crowded", (), {})()
    for i in range(MAX_SNAPSHOT_FIELDS + 1):
        setattr(crowded, f"f{i}", i)
    assert _snapshot(crowded, ()) is None
    assert _snapshot(_sys, _methods(_sys)) is None and _snapshot(type(plain), ()) is None
