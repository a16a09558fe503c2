"""The evidence's digests are the same bytes since the compile domain's tables are hashed once per
distinct table (issue 52 item 4: the evidence domain's own cost, ``evidence._Table``).

Before, every item turned its DFA's tables into lists and the whole answer into JSON; the 4,942
tables of the compile domain are 924 distinct ones, so each distinct table's text is now made once.
The digest must not move: the coverage map stores the reference's digests and every mutant is
compared with them."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pytest

import oracles.automaton as reference
from harness.mutants import evidence


def _as_before(value) -> str:
    """The digest as it was computed before: the answer with each table as ``tolist()``, then JSON."""
    plain = [v.array.tolist() if isinstance(v, evidence._Table) else v for v in value] \
        if isinstance(value, list) else value
    return hashlib.sha256(json.dumps(plain, sort_keys=True, default=repr).encode()).hexdigest()[:24]


def _compile_answers(every: int, seed: int) -> list[tuple[str, object]]:
    chosen = []
    rng = random.Random(seed)
    for number, (label, thunk) in enumerate(evidence.items(reference, "compile")):
        if number % every == 0 or rng.random() < 1 / every:
            chosen.append((label, evidence._attempt(thunk)))
    return chosen


def test_a_seeded_sample_of_compile_items_keeps_its_digests():
    answers = _compile_answers(25, seed=52)
    assert len(answers) > 300 and any(isinstance(a, list) and len(a) == 3 for _, a in answers)   # masks too
    assert any(isinstance(a, list) and a[:1] == ["raised"] for _, a in answers)   # errors too
    for label, answer in answers:
        assert evidence._hash(answer) == _as_before(answer), label
    # the same table met again gives the same text from the cache, the same digest
    for label, answer in answers[:40]:
        assert evidence._hash(answer) == _as_before(answer), label


@pytest.mark.slow
def test_every_compile_item_keeps_its_digest():
    for label, answer in _compile_answers(1, seed=0):
        assert evidence._hash(answer) == _as_before(answer), label


def test_a_table_is_hashed_as_the_item_saw_it():
    trans = np.array([[1, 0], [1, 1]], np.int32)
    answer = [evidence._Table(trans), evidence._Table(np.array([False, True]))]
    before = _as_before(answer)
    trans[0, 0] = 7   # e.g. a mutant's TokenIndex writing into the DFA's own array after the tables were taken
    assert evidence._hash(answer) == before
    assert before == hashlib.sha256(b"[[[1, 0], [1, 1]], [false, true]]").hexdigest()[:24]


def test_tables_that_differ_hash_differently_and_odd_tables_still_hash_as_json():
    one = [evidence._Table(np.array([[1, 0]], np.int32)), evidence._Table(np.array([True]))]
    other = [evidence._Table(np.array([[1, 2]], np.int32)), evidence._Table(np.array([True]))]
    as_ints = [evidence._Table(np.array([[1, 0]], np.int32)), evidence._Table(np.array([1]))]
    assert len({evidence._hash(one), evidence._hash(other), evidence._hash(as_ints)}) == 3   # true is not 1
    odd = [evidence._Table(np.array([["a", None]], dtype=object)), evidence._Table([0.5, float("nan")])]
    assert evidence._hash(odd) == _as_before(odd)
