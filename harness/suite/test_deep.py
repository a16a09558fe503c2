"""``--deep``: Hypothesis differential properties of the candidate against the oracles.

Collected only with ``--deep`` (see the plugin). Strategies come from ``strategies/``;
the settings are derandomized (the same examples every run) with no example database,
so a grader sees the same verdict twice; a failure is shrunk, and its reason names the
shrunk pattern, string, state or document.

- tables: ``regex_to_dfa(p)`` equals the derivative oracle's canonical DFA;
- matching: the DFA agrees with ``re.fullmatch`` on members, prefixes and one-byte edits;
- masks: ``TokenIndex.mask`` after a prefix equals the derivative oracle's mask;
- schemas: valid and one-mutation documents match iff json + jsonschema say so.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from harness.suite.explain import fail, first_difference, shortest_path

DEEP = settings(max_examples=150, derandomize=True, database=None, deadline=None, print_blob=False,
                suppress_health_check=list(HealthCheck))
pytestmark = [pytest.mark.property, pytest.mark.deep]


def _strategies():
    from strategies import patterns, schemas, strings, vocabularies

    return patterns, schemas, strings, vocabularies


patterns_mod, schemas_mod, strings_mod, vocab_mod = _strategies()


def _oracle_tables(pattern: str):
    from oracles import derivatives

    try:
        return derivatives.canonical_dfa(pattern)
    except derivatives.DerivativeLimitExceeded:
        assume(False)  # beyond the oracle's documented bound: not a verdict on the candidate


@DEEP
@given(patterns_mod.patterns(max_leaves=10))
def test_deep_tables_equal_the_derivative_oracle(impl, pattern):
    want_t, want_a = _oracle_tables(pattern)
    dfa = impl.regex_to_dfa(pattern)
    got_t, got_a = np.asarray(dfa.trans), np.asarray(dfa.accept)
    if want_t.shape != got_t.shape:
        fail("the number of states differs from the derivative oracle's canonical DFA", pattern=pattern,
             expected=int(want_t.shape[0]), got=int(got_t.shape[0]))
    for want, got, what in ((want_a, got_a, "accept"), (want_t, got_t, "trans")):
        where = first_difference(want, got)
        if where is not None:
            fail(f"{what} differs from the derivative oracle's canonical DFA", pattern=pattern, state=where[0],
                 path=shortest_path(want_t, where[0]), position=where, expected=want[where].item(),
                 got=got[where].item())


@DEEP
@given(st.data())
def test_deep_matching_equals_python_re(impl, data):
    pattern = data.draw(patterns_mod.patterns(max_leaves=10), label="pattern")
    dfa = impl.regex_to_dfa(pattern)
    for _ in range(5):
        text = data.draw(strings_mod.strings_for(pattern), label="string")
        want = re.fullmatch(pattern.encode("ascii"), text) is not None
        if bool(dfa.matches(text)) != want:
            fail("DFA.matches disagrees with Python's re.fullmatch", pattern=pattern, data=text, expected=want,
                 got=bool(dfa.matches(text)))


@DEEP
@given(st.data())
def test_deep_masks_equal_the_derivative_oracle(impl, data):
    from oracles import derivatives

    pattern = data.draw(patterns_mod.patterns(max_leaves=8), label="pattern")
    vocab, eos_id = data.draw(vocab_mod.vocabularies(max_size=32), label="vocabulary")
    text = data.draw(strings_mod.strings_for(pattern), label="member or edit")
    prefix = text[: data.draw(st.integers(0, len(text)), label="cut")]
    try:
        want = derivatives.mask(pattern, vocab, eos_id, prefix)
    except derivatives.DerivativeLimitExceeded:
        assume(False)
    dfa = impl.regex_to_dfa(pattern)
    state = dfa.step(0, prefix)
    if state == -1:
        if want.any():
            fail("the DFA dies on a prefix the derivative oracle finds viable", pattern=pattern, path=prefix)
        return
    got = np.asarray(impl.TokenIndex(dfa, vocab, eos_id=eos_id).mask(state))
    diff = np.flatnonzero(got != want)
    if len(diff):
        token = int(diff[0])
        fail("a mask differs from the derivative oracle's", pattern=pattern, path=prefix, state=state,
             token=(token, vocab[token]), eos_id=eos_id, expected=bool(want[token]), got=bool(got[token]))


@DEEP
@given(st.data())
def test_deep_schema_documents_get_the_oracles_verdict(impl, data):
    from oracles.stdlib import check_document

    schema = data.draw(schemas_mod.schemas(), label="schema")
    valid = data.draw(st.booleans(), label="valid")
    document = data.draw(schemas_mod.documents(schema, valid=valid), label="document")
    verdict = check_document(schema, document)
    dfa = impl.regex_to_dfa(impl.json_schema_to_regex(schema))
    got = bool(dfa.matches(document.encode("utf-8")))
    if got != verdict.ok:
        fail("a document's match differs from json + jsonschema", schema=schema, document=document,
             expected=verdict.ok, got=got, oracle=verdict.reason or "valid, compact, ordered")
