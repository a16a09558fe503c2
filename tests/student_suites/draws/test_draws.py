"""A suite whose outcome shows its random draws (``random``, numpy's global generator,
Hypothesis): graded twice with the same seed, it must get the same report; with another
seed, other draws. It also shows what its process starts with: the garbage collector, which
must be a new interpreter's (the shim freezes its own imports out of it, ``boot._collector_on``),
and Hypothesis's Unicode table, laid into its home by the grader (``unicode_table``)."""

import gc
import glob
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tinyllm.infer import constrain


def test_shows_its_process():
    table = glob.glob(".hypothesis/unicode_data/*/charmap.json.gz")
    assert False, f"collector {(gc.isenabled(), gc.get_threshold())!r}; unicode table laid: {bool(table)}"


def test_shows_its_draws():
    assert False, f"drew {random.random()!r} and {np.random.rand()!r}"


@settings(max_examples=20)
@given(st.text(alphabet="ab", max_size=6))
def test_a_literal_matches_itself(text):
    assert constrain.regex_to_dfa(text or "a").matches((text or "a").encode())


@settings(max_examples=5)
@given(st.randoms(use_true_random=False))
def test_shows_hypothesis_draws(rng):
    assert False, f"hypothesis drew {rng.random()!r}"
