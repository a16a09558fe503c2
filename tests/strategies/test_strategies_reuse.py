"""``strategies.reuse``: one strategy object per set of arguments, and the same draws as fresh ones.

The deep tier's properties build their strategies inside the test (``data.draw(patterns(...))``,
``data.draw(strings_for(pattern))``, ``data.draw(schemas())``); reusing the objects saves
Hypothesis's validation of each new one. What must not change is what they draw: here the
deep properties themselves run against the reference behind a recorder, once with the objects
reused and once fresh, and every call the candidate receives (its arguments, in order) is the
same. The default run uses fewer examples than the deep tier's 150; ``-m slow`` runs all 150.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import oracles.automaton as reference
from harness.suite import test_deep
from strategies import patterns, reuse, schemas, strings, vocabularies

BODY_DRAWING = tuple(name for name, test in vars(test_deep).items()
                     if name.startswith("test_") and hasattr(test, "hypothesis")
                     and "data" in inspect.signature(test.hypothesis.inner_test).parameters)
"""The deep properties that build strategies in their body (``@given(st.data())``): every one the
deep tier has, so a new one is checked too."""


class Recorder:
    """``target`` (the reference module, or an object it returned) with every call logged:
    (name, repr of the arguments). Objects of the reference's classes that a call returns are
    recorded too (a DFA's ``matches`` and ``step``, a TokenIndex's ``mask``)."""

    def __init__(self, target, log: list, name: str):
        self._target, self._log, self._name = target, log, name

    def __getattr__(self, attr):
        value = getattr(self._target, attr)
        if not callable(value) or isinstance(value, np.ndarray):
            return value
        name = f"{self._name}.{attr}"

        def call(*args, **kwargs):
            args = tuple(a._target if isinstance(a, Recorder) else a for a in args)
            self._log.append((name, repr(args), repr(sorted(kwargs.items()))))
            result = value(*args, **kwargs)
            if type(result).__module__.startswith("oracles.automaton"):
                return Recorder(result, self._log, type(result).__name__)
            return result

        return call


def _calls(test_name: str, examples: int, reused: bool) -> list:
    """The calls the deep property ``test_name`` makes on the reference in ``examples`` examples,
    its strategies reused or fresh."""
    inner = getattr(test_deep, test_name).hypothesis.inner_test
    log: list = []

    def body(impl, data):   # a fresh function each time: settings mark the function they decorate
        inner(impl, data)

    run = given(st.data())(settings(test_deep.DEEP, max_examples=examples)(body))
    before = reuse.REUSE[0]
    reuse.REUSE[0] = reused
    try:
        run(impl=Recorder(reference, log, "impl"))
    finally:
        reuse.REUSE[0] = before
    return log


def test_the_body_drawing_deep_properties_are_found():
    assert {"test_deep_matching_equals_python_re", "test_deep_masks_equal_the_derivative_oracle",
            "test_deep_schema_documents_get_the_oracles_verdict"} <= set(BODY_DRAWING)


def _same_calls(examples: int) -> None:
    for name in BODY_DRAWING:
        fresh, again = _calls(name, examples, reused=False), _calls(name, examples, reused=True)
        assert len(fresh) > examples, f"{name}: too few calls recorded ({len(fresh)})"
        assert fresh == again, f"{name}: the candidate's calls differ once the strategies are reused"


def test_reused_strategies_give_the_deep_properties_the_same_inputs():
    _same_calls(examples=12)


@pytest.mark.slow
def test_reused_strategies_give_the_deep_properties_the_same_inputs_at_150_examples():
    _same_calls(examples=150)


def test_the_same_arguments_give_the_same_object_and_other_ones_another():
    assert patterns.patterns(max_leaves=10) is patterns.patterns(max_leaves=10)
    assert patterns.patterns(max_leaves=10) is not patterns.patterns(max_leaves=9)
    assert strings.strings_for("a|b") is strings.strings_for("a|b")
    assert strings.strings_for("a|b") is not strings.strings_for("a|c")
    assert vocabularies.vocabularies(max_size=32) is vocabularies.vocabularies(max_size=32)
    assert schemas.schemas() is schemas.schemas()
    reuse.REUSE[0] = False
    try:
        assert patterns.patterns(max_leaves=10) is not patterns.patterns(max_leaves=10)
    finally:
        reuse.REUSE[0] = True


def test_bad_arguments_are_refused_after_a_good_one_was_cached():
    patterns.patterns(max_leaves=1)
    with pytest.raises(InvalidArgument, match="max_leaves"):
        patterns.patterns(max_leaves=1.0)   # equal to 1 and hashed alike: cached per type, refused
    with pytest.raises(InvalidArgument, match="max_leaves"):
        patterns.patterns(max_leaves=[1])   # unhashable: built fresh, refused as before
