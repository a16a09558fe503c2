"""Differential: the reference's canonical tables equal the derivative oracle's.

Two implementations that share no meaning-deciding code (Thompson NFA + subset
construction vs Brzozowski derivatives) must produce identical ``trans`` and
``accept`` arrays for every generated pattern: the canonical form is a function of
the language alone. For patterns whose language is empty, both refuse, and the
pattern tree's structural answer (``tree.is_empty()``) says so too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given

from oracles import derivatives
from oracles.automaton import regex_to_dfa
from oracles.automaton.errors import EmptyLanguage
from strategies.patterns import (ByteClass, Concat, Literal, Range, Repeat, Shorthand,
                                 pattern_trees, patterns)

pytestmark = pytest.mark.property


@given(patterns())
@example("(cat|car|dog)s?")
@example("(?:)*")
@example("a{0}")
@example("[^\\x00-\\x09\\x0b-\\xff]|.")
def test_reference_tables_equal_derivative_tables(pattern):
    dfa = regex_to_dfa(pattern)
    trans, accept = derivatives.canonical_dfa(pattern)
    assert np.array_equal(dfa.accept, accept), (pattern, dfa.accept, accept)
    assert np.array_equal(dfa.trans, trans), (pattern, np.argwhere(dfa.trans[: len(trans)] != trans[: len(dfa.trans)])[:5])
    dfa.check_canonical()


@given(pattern_trees(unmatchable_classes=True))
@example(Repeat(ByteClass((Shorthand("\\d"), Shorthand("\\D")), negated=True), 0, None))  # [^\d\D]* is {""}
@example(Concat((Literal.of(b"a"), ByteClass((Range(Literal(0, "\\x00"), Literal(255, "\\xff")),), True))))
def test_empty_languages_are_refused_by_both(tree):
    pattern = tree.render()
    empty = tree.is_empty()  # structural: no automaton involved
    assert derivatives.is_empty(pattern) == empty, pattern
    if empty:
        with pytest.raises(EmptyLanguage):
            regex_to_dfa(pattern)
        with pytest.raises(derivatives.LanguageEmpty):
            derivatives.canonical_dfa(pattern)
    else:
        dfa = regex_to_dfa(pattern)
        assert dfa.matches(tree.witness())
        assert np.array_equal(dfa.trans, derivatives.canonical_dfa(pattern)[0]), pattern
