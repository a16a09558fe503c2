"""Differential: what is a member? The reference DFA, the derivative oracle and ``re``.

Strings come from both sides: ``strings_for`` (Hypothesis's own ``from_regex``, its
prefixes and one-byte edits, short strings over the pattern's bytes: nothing from
our automata), and ``members`` (walks of each implementation's own table, which
``re.fullmatch`` must accept). Strings stay short because ``re`` backtracks: nested
repeats, or one repeat of an ambiguous body, can take it exponential time in the input
length. So ``re`` is asked within a CPU budget (``oracles.stdlib.within_cpu``): past it,
``re`` has no opinion on that example (a Hypothesis event says so) and the two automaton
implementations are still held to each other.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from oracles import derivatives
from oracles.automaton import regex_to_dfa
from oracles.stdlib import fullmatch
from strategies.patterns import patterns
from strategies.strings import members, strings_for
from tests.support.helpers import python_says

pytestmark = pytest.mark.property


@st.composite
def patterns_and_strings(draw):
    pattern = draw(patterns())
    return pattern, draw(strings_for(pattern))


@given(patterns_and_strings())
@example(("(cat|car|dog)s?", b"cats"))
@example(("[^a]", b"\x80"))
@example((".", b"\n"))
@example(("\\s", b"\x0b"))
@example(("\\w", b"\xe9"))
@example(("(?:(?:.|){3,}){0,}(?:a|.)(?:\\xfb.|a|\\t{1})", b"b" * 13 + b"\n"))  # re: hours (see the docstring)
def test_reference_matches_equal_derivatives_and_re(case):
    pattern, data = case
    derived = derivatives.matches(pattern, data)
    assert regex_to_dfa(pattern).matches(data) == derived, (pattern, data)
    python_says(fullmatch, pattern, data, derived)


@given(st.data())
def test_walks_of_either_table_are_members_for_re(data):
    pattern = data.draw(patterns())
    reference = data.draw(members(regex_to_dfa(pattern), max_size=8), label="reference walk")
    assert derivatives.matches(pattern, reference), (pattern, reference)
    python_says(fullmatch, pattern, reference, True)
    derived = data.draw(members(derivatives.canonical_dfa(pattern), max_size=8), label="derivative walk")
    assert regex_to_dfa(pattern).matches(derived), (pattern, derived)
    python_says(fullmatch, pattern, derived, True)
