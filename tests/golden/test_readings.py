"""``golden.readings.pick``: the same draw as ``numpy.random.Generator.choice`` of a 1-D
sequence, and the same generator state after it, for every kind of sequence the catalogue
and the golden files draw from (``probe_strings``, ``harness.suite.inputs``): so the
catalogue's inputs and the golden files are those ``choice`` gave."""

from __future__ import annotations

import numpy as np
import pytest

from golden.readings import by_length, pick, probe_strings
from harness.suite.inputs import PATTERN_ATOMS, random_pattern, random_vocab

SEQUENCES = [
    np.frombuffer(b"a", dtype=np.uint8),
    np.frombuffer(b"abcdefgh\x00\n\xff", dtype=np.uint8),
    np.frombuffer(bytes(range(256)), dtype=np.uint8),
    np.flatnonzero(np.arange(300) % 7 == 0),
    [0, 10, 95, 127, 128, 255, 42],
    list(PATTERN_ATOMS),
]


@pytest.mark.parametrize("items", SEQUENCES, ids=lambda s: f"{type(s).__name__}-{len(s)}")
def test_pick_draws_what_choice_draws(items):
    for seed in range(200):
        by_choice, by_pick = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(30):  # interleaved with other draws, as the catalogue's loops make them
            assert pick(by_pick, items) == by_choice.choice(items)
            assert by_pick.random() == by_choice.random()
        assert by_pick.bit_generator.state == by_choice.bit_generator.state


def _with_choice(monkeypatch):
    """``pick`` put back to ``Generator.choice`` itself: the inputs as they were drawn before."""
    import golden.readings

    monkeypatch.setattr(golden.readings, "pick", lambda rng, items: rng.choice(items))


def test_catalogue_inputs_are_those_choice_gave(monkeypatch):
    def inputs():
        rng = np.random.default_rng(11)
        patterns = [random_pattern(rng) for _ in range(40)]
        vocabs = [random_vocab(rng, b"abc(|)*", n_multi=60, all_bytes=bool(i % 2)) for i in range(4)]
        trans = np.full((3, 256), -1, dtype=np.int32)
        trans[0, b"ab"[0]], trans[1, b"c"[0]], trans[2, b"a"[0]] = 1, 2, 2
        probes = sorted(probe_strings(trans, np.array([False, False, True]), rng))
        return patterns, vocabs, probes

    now = inputs()
    _with_choice(monkeypatch)
    assert inputs() == now


def test_by_length_orders_as_the_length_then_bytes_key():
    rng = np.random.default_rng(5)
    for _ in range(200):
        strings = [bytes(rng.integers(0, 4, size=int(rng.integers(0, 5))).astype(np.uint8))
                   for _ in range(int(rng.integers(0, 40)))]   # duplicates and the empty string among them
        assert by_length(strings) == sorted(strings, key=lambda s: (len(s), s))
        assert by_length(set(strings)) == sorted(set(strings), key=lambda s: (len(s), s))
