"""``--deep``: Hypothesis differential properties of the candidate against the oracles.

Collected only with ``--deep`` (see the plugin). Strategies come from ``strategies/``;
the settings are derandomized (the same examples every run) with no example database,
so a grader sees the same verdict twice; a failure is shrunk, and its reason names the
shrunk pattern, string, state or document.

- tables: ``regex_to_dfa(p)`` equals the derivative oracle's canonical DFA;
- matching: the DFA agrees with ``re.fullmatch`` on members, prefixes and one-byte edits
  (``inputs.expected_match``: asked within a CPU budget, ``oracles.stdlib.within_cpu``: ``re`` backtracks
  exponentially on some generated patterns; past the budget the derivative oracle,
  which equals ``re`` wherever both answer, gives the expected answer instead);
- masks: ``TokenIndex.mask`` after a prefix equals the derivative oracle's mask;
- schemas: valid and one-mutation documents match iff json + jsonschema say so (and the
  spec's grammar: a raw DEL in a string no enum spells is out, ``free_string_holds_del``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from golden import readings
from golden.readings import RAW_DEL, closed, free_string_holds_del
from harness.suite.explain import compile_or_note, fail, first_difference, shortest_path
from harness.suite.inputs import expected_match
from harness.suite.tiers import decision

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
    except derivatives.LimitExceeded:
        assume(False)  # beyond the oracle's documented bound: not a verdict on the candidate


@DEEP
@given(patterns_mod.patterns(max_leaves=10))
def test_deep_tables_equal_the_derivative_oracle(impl, pattern):
    want_t, want_a = _oracle_tables(pattern)
    dfa = compile_pattern(impl, pattern)
    if dfa is None:
        return
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
    dfa = compile_pattern(impl, pattern)
    if dfa is None:
        return
    for _ in range(5):
        text = data.draw(strings_mod.strings_for(pattern), label="string")
        want, oracle = expected_match(pattern, text)
        if bool(dfa.matches(text)) != want:
            fail(f"DFA.matches disagrees with {oracle}", pattern=pattern, data=text, expected=want,
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
    except derivatives.LimitExceeded:
        assume(False)
    dfa = compile_pattern(impl, pattern)
    if dfa is None:
        return
    state = dfa.step(0, prefix)
    if state == -1:
        if want.any():
            fail("the DFA dies on a prefix the derivative oracle finds viable", pattern=pattern, path=prefix)
        return
    got = np.asarray(impl.TokenIndex(dfa, vocab, eos_id).mask(state))
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
    verdict = check_document(closed(schema), document)
    want, reason = verdict.ok, verdict.reason or "valid, compact, ordered"
    if want and not enum_texts_match(schema, json.loads(document)):
        want, reason = False, "an enum or const value written in another order or form than its compact JSON"
    if want and free_string_holds_del(schema, json.loads(document)):
        want, reason = False, RAW_DEL
    try:
        pattern = impl.json_schema_to_regex(schema)
    except ValueError as exc:
        decided = decided_constructs(schema)
        if not decided:
            fail("a schema of the subset was refused", schema=schema, error=(str(exc).splitlines() or [""])[0])
        for key in decided:  # the spec allows refusing these (annotations) or is silent (type + enum)
            decision(key, False, f"{schema} was refused: {(str(exc).splitlines() or [''])[0]}")
        return
    dfa = impl.regex_to_dfa(pattern)
    got = bool(dfa.matches(document.encode("utf-8")))
    if got == want:
        return
    if readings.readings_differ(schema) and got == ascii_reading_verdict(schema, document, verdict):
        # the spec's literal json.dumps call (ensure_ascii): the other reading, a note
        decision("enum_const_raw_utf8", False, f"{schema}: the document {document!r} is judged as the literal "
                                               f"json.dumps call (ensure_ascii) writes enum/const values")
        return
    fail("a document's match differs from json + jsonschema", schema=schema, document=document,
         expected=want, got=got, oracle=reason)


def ascii_reading_verdict(schema, document: str, verdict) -> bool:
    """Whether ``document`` is in the schema's language under the spec's literal reading of
    section 2.5 (``json.dumps`` with its default ``ensure_ascii``): valid and ordered, and
    written as that reading writes it (enum/const values and property names escaped to
    ASCII, every other string raw as the raw reading writes it)."""
    if not (verdict.parses and verdict.valid and verdict.ordered):
        return False
    value = json.loads(document)
    return document == _reading_dump(schema, value)


def _reading_dump(schema, value) -> str:
    """``value`` written as the ASCII reading of the spec writes it under ``schema``."""
    if isinstance(schema, dict) and "anyOf" in schema:
        import jsonschema

        branch = next((b for b in schema["anyOf"] if jsonschema.Draft202012Validator(closed(b)).is_valid(value)),
                      {})
        return _reading_dump(branch, value)
    if isinstance(schema, dict) and ("enum" in schema or "const" in schema):
        return readings.compact_readings(value)["ascii"]
    if isinstance(value, dict):
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        return "{" + ",".join(readings.compact_readings(k)["ascii"] + ":" + _reading_dump(props.get(k, {}), v)
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        items = schema.get("items", {}) if isinstance(schema, dict) else {}
        return "[" + ",".join(_reading_dump(items, v) for v in value) + "]"
    return _compact(value)


def compile_pattern(impl, pattern: str):
    """``regex_to_dfa(pattern)``; None (and a note on ``extra_regex_syntax``) when the
    candidate refuses a pattern that needs syntax the spec does not list; a refusal of
    anything else fails the test."""
    return compile_or_note(impl, pattern)


def enum_texts_match(schema, value) -> bool:
    """Whether every part of ``value`` under an ``enum``/``const`` is written as one of the
    values' compact JSON (the spec: "an alternation of the values' compact JSON"), which
    JSON Schema's equality does not ask (key order, ``1.0`` for ``1``). ``value`` comes
    from ``json.loads`` of the document, so its key order is the document's."""
    if not isinstance(schema, dict):
        return True
    if "anyOf" in schema:
        import jsonschema

        return any(jsonschema.Draft202012Validator(closed(b)).is_valid(value) and enum_texts_match(b, value)
                   for b in schema["anyOf"])
    if "enum" in schema or "const" in schema:
        values = schema["enum"] if "enum" in schema else [schema["const"]]
        return _compact(value) in {_compact(v) for v in values}
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return all(enum_texts_match(props[k], v) for k, v in value.items() if k in props)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return all(enum_texts_match(schema["items"], v) for v in value)
    return True


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


decided_constructs = readings.decided_schema_constructs
