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

Then exact checks on fixed inputs, where the drawn ones are too few or too small to reach
the code (each found by generated mutants that no test executed or none killed, and shown
to kill them by ``tests/suite/test_deep_exact.py``):

- long patterns: ``LONG_PATTERNS`` (65 to 141 states) equal the derivative oracle's
  canonical DFA, table for table;
- ``DFA.step`` refuses every state out of range, however far out (a contract decision);
- the sampling parameters choose exactly their tokens (an empty history penalizes nothing; every
  allowed token is drawn, the vocabulary's last id too);
- patterns Python's ``re`` refuses as malformed are refused, a ``{`` that starts no repeat is a
  literal, and 450 groups side by side compile (``MALFORMED_PATTERNS``, ``LITERAL_BRACE_PATTERNS``,
  ``MANY_GROUPS_PATTERN``: the parser's error paths and bounds);
- 500 ``(`` in classes or escaped open no group: such a pattern compiles as Python reads it
  (``PARENTHESES_IN_NO_GROUP_PATTERNS``: the parser's scan for too deep a nest);
- every Python is given the patterns Python's versions read differently (``NEWER_READING_PATTERNS``:
  possessive and atomic forms, a flag past the start, a conditional's group name, ``(?t)``), with
  this Python's ``re.compile`` as the oracle (decision ``newer_python_readings``: the code a
  reference keeps for another Python's reading runs, and a crash there departs);
- ``DFA(trans, accept)`` refuses tables that are no DFA's, and ``DFA.step`` wrong Python types
  (the contract's conventions, decision ``dfa_bad_input_refused``).
- the other contract names refuse bad arguments as the contract says (``SamplingParams`` out of
  range, every logit ``-inf``, ``TokenIndex``'s ``eos_id`` and vocabulary) and wrong Python types
  with TypeError (decision ``bad_arguments_refused``).
- a temperature so small that ``logits / T`` overflows draws the largest logit, the greedy limit
  (decision ``tiny_temperature_is_greedy``: three correct readings divide first and fail there);
- a subschema that is no object (``"items": 5``) is refused with ValueError (decision
  ``non_object_subschema_valueerror``).
- ``enum`` or ``const`` beside the ``type`` of its values reads as JSON Schema reads it (decision
  ``type_with_enum``); ``.``, ``[^a]`` and ``\\xHH`` reach the byte 0xFF as the derivative oracle does;
  ``SamplingParams`` has the contract's defaults;
- a schema the meta-schema refuses, one that is no JSON and one of any JSON value are refused with
  ValueError, keywords side by side are refused or read as JSON Schema reads them, an integer ``json``
  will not write is refused or compiled exactly, an argument that is no dict raises TypeError (decision
  ``malformed_schema_valueerror``: the schema compiler's error paths).
- ``vocab_bytes`` gives every id its bytes by section 2.3's rule on a ``tokenizers.Tokenizer`` holding
  added tokens that are not special, and on a tiktoken-style encoding with no special token (decisions
  ``vocab_bytes_tokenizers``, ``vocab_bytes_tiktoken``: the readers' paths for those tokens).
- a ``Constraint`` over a byte-level vocabulary, whose EOS is an id past the 256 single bytes, ends at
  EOS as the lifecycle test's does on the hand vocabulary (ids compared by value, not identity).
- the spec's survivors of the whole run outside ``vocab.py``: ``top_k`` on a row with no ``-inf``, equal
  largest logits at a temperature so small that ``logits / T`` overflows (decision
  ``tiny_temperature_ties_drawn``), a history of 0 beside a float and a 0-d array for a number; an
  array's ``minItems``/``maxItems`` (every document of a finite bound enumerated from the candidate's DFA,
  against ``jsonschema``) and the boolean schema ``true``; ``TokenIndex`` with an EOS whose bytes are a
  step, states and token ids far out of range, wrong types; ``DFA(trans, accept)`` of other integer
  types (decision ``dfa_tables_of_other_dtypes``); a reversed range beside other class items, a pattern
  of non-ASCII only, a list pattern, 300 nested groups (decision ``deep_nest_compiled_or_valueerror``).
- ``vocab_bytes`` gives a special at id 0 None (2.3), reads a tiktoken-style encoding through its public
  API with a special between ordinary tokens, a transformers tokenizer with a hole and specials past its
  length or a bytes entry, and an empty tokenizer (decisions ``vocab_bytes_tiktoken``,
  ``vocab_bytes_transformers``, ``vocab_bytes_bytes_tokens``, ``vocab_bytes_empty``), and refuses
  malformed tokenizers (a negative id, two tokens with one id, a lone surrogate, ...: decision
  ``vocab_bytes_malformed_refused``).

``harness.suite.catalogue.DEEP_NAMES`` lists every test here, in order.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from facts.constructs import READ_AS_NEWER_PYTHONS
from golden import readings
from golden.readings import RAW_DEL, closed, free_string_holds_del
from harness.sandbox.shapes import TiktokenLike
from harness.suite.explain import (
    DEAD,
    compile_or_note,
    expect_refusal,
    expect_valueerror,
    fail,
    first_difference,
    first_line,
    shortest_path,
)
from harness.suite.inputs import (
    BACKREFERENCE_PATTERNS,
    HAND_PATTERN,
    HUGE_INTEGER,
    LITERAL_BRACE_PATTERNS,
    LONG_PATTERNS,
    MALFORMED_PATTERNS,
    MANY_GROUPS_PATTERN,
    NEWER_READING_VARIANTS,
    PARENTHESES_IN_NO_GROUP_PATTERNS,
    SCHEMA_ARGUMENTS_REFUSED,
    SCHEMAS_COMBINED,
    SCHEMAS_OF_ANY_VALUE,
    SCHEMAS_THE_META_SCHEMA_REFUSES,
    SCHEMAS_WITH_NO_JSON,
    TYPED_ENUM_SCHEMAS,
    WRONG_STEP_ARGUMENTS,
    bad_dfa_tables,
    expected_bytes,
    expected_match,
    gpt2_byte_map,
    make_constraint,
)
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


def _tables_equal(pattern: str, dfa, want_t: np.ndarray, want_a: np.ndarray) -> None:
    """Fail at the first state where ``dfa``'s tables differ from the derivative oracle's canonical
    ``want_t``/``want_a`` for ``pattern`` (the state count first, then accept, then trans)."""
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
@given(patterns_mod.patterns(max_leaves=10))
def test_deep_tables_equal_the_derivative_oracle(impl, pattern):
    want_t, want_a = _oracle_tables(pattern)
    dfa = compile_pattern(impl, pattern)
    if dfa is None:
        return
    _tables_equal(pattern, dfa, want_t, want_a)


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


# Exact checks: fixed inputs, each checked against an oracle, where the properties above draw
# too few or too small inputs to reach the code (found by generated mutants: harness/mutants).

def test_deep_long_patterns_equal_the_derivative_oracle(impl):
    """Section 2.2: "trans and accept are a function of the language alone", also for a DFA
    with many states: each of ``LONG_PATTERNS`` gives the derivative oracle's canonical DFA
    (its own parse, minimization and numbering), table for table."""
    for pattern in LONG_PATTERNS:
        want_t, want_a = _oracle_long_tables(pattern)
        dfa = compile_or_note(impl, pattern)
        if dfa is None:
            continue
        _tables_equal(pattern, dfa, want_t, want_a)


def _oracle_long_tables(pattern: str):
    from oracles import derivatives

    return derivatives.canonical_dfa(pattern)  # each is far inside its bound: a LimitExceeded is a harness bug


STATES_OUT_OF_RANGE = (1, 2, 8, 1000, -2, -1000)
"""States ``DFA.step`` must refuse on a one-state DFA, beside the first one past the end and -2
that ``test_hand_example`` asks on its 7-state DFA: any distance past the end or below DEAD."""


def test_deep_step_refuses_every_state_out_of_range(impl):
    """The contract's decision ``step_out_of_range_valueerror`` (the spec does not say): a
    state that is neither DEAD nor in range(n_states) raises ValueError, however far out;
    DEAD and every state in range are read. Oracle: the hand example's table (section 3)
    and ``[ab]*``'s one state, which loops on a and b."""
    hand = impl.regex_to_dfa(HAND_PATTERN)
    for bad in (7, 8, 9, 70, 1000, 2**31 - 1, -2, -3, -1000):
        expect_valueerror("step_out_of_range_valueerror", lambda: hand.step(bad, b"a"),
                          f"DFA.step({bad}, b'a') on {HAND_PATTERN!r}'s 7-state DFA")
    one = impl.regex_to_dfa("[ab]*")
    for bad in STATES_OUT_OF_RANGE:
        expect_valueerror("step_out_of_range_valueerror", lambda: one.step(bad, b"a"),
                          f"DFA.step({bad}, b'a') on '[ab]*'s one-state DFA")
    for state, data, want in ((0, b"abba", 0), (0, b"", 0), (0, b"abc", DEAD)):
        got = one.step(state, data)
        if got != want:
            fail("DFA.step disagrees with '[ab]*'s one-state table", start=state, data=data, expected=want, got=got)


# (logits of the hand example's allowed ids 0 4 8 9 10 in state 0, history, penalty): seen logits
# in (0, 1], where dividing and multiplying by the penalty move them opposite ways; and an empty history
# (no prompt): no token is seen, so no logit is penalized, whatever the penalty
SMALL_PENALTY_CASES = (([0.9, 0.95, 0.2, 0.3, 0.1], [4], 2.0), ([0.5, 0.2, 0.45, 1.0, 0.1], [9], 4.0),
                       ([0.3, 0.05, 0.2, 0.25, 0.28], [10], 0.5), ([0.9, 0.8, 0.2, 0.3, 0.1], [], 2.0))
# (params, the kept ids) for the allowed logits 0.5 2.0 1.0 1.5 0.0 (softmax: 4 .43, 9 .26, 8 .16,
# 0 .10, 10 .06): top-p sets of 2, 3 and 4 tokens, and top-k; each set is computed by the test
FILTER_CASES = (dict(temperature=1.0, top_p=0.6), dict(temperature=1.0, top_p=0.8), dict(temperature=1.0, top_p=0.9),
                dict(temperature=1.0, top_k=2), dict(temperature=1.0, top_k=4))
FILTER_DRAWS = 400  # a kept token has p >= 0.06 renormalized: missing it in 400 seeded draws has p < 1e-9
LAST_ID_VOCAB, LAST_ID_LOGITS = [None, b"a", b"b"], [0.0, 0.0, 1.0]
"""``[ab]``'s state 0 over a vocabulary whose last id (``b``) is allowed (EOS, id 0, is not: 0 is not
accepting): the draws at temperature 1 come from ids 1 and 2 (softmax 0.27, 0.73), the last id too."""


def test_deep_sampling_params_choose_exactly_their_tokens(impl):
    """Section 2.4 on L8.1's sampler, with the contract's ``SamplingParams``: greedy takes the
    best allowed logit after the repetition penalty (a seen logit divided by it when
    positive, also below 1; an empty history and prompt penalize nothing); top_k keeps the k
    largest logits and top_p the smallest set of most likely tokens whose probability reaches
    top_p, so the draws come from exactly that set: none outside it, and each token of it drawn
    (``FILTER_DRAWS`` seeded draws); with no filter every allowed token is drawn, the vocabulary's
    last id too (``LAST_ID_VOCAB``).

    Oracle: the penalty, argmax, log-softmax and the kept sets computed here with numpy on
    the hand example's state 0 (``strength``'s helpers)."""
    from harness.suite import strength
    from harness.suite.inputs import HAND_EOS, HAND_VOCAB
    from harness.suite.seeding import seeded_rng

    allowed = strength._STATE0_ALLOWED
    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    for values, history, penalty in SMALL_PENALTY_CASES:
        logits = np.full(len(HAND_VOCAB), 9.0)  # disallowed tokens score higher than any allowed one
        logits[allowed] = values
        want = strength._penalized(logits, set(history), penalty)
        token_want = allowed[int(np.argmax(want[allowed]))]
        params = impl.SamplingParams(temperature=0.0, repetition_penalty=penalty)
        try:
            token, logprob = impl.constrained_sample(logits, make_constraint(impl, index), params, list(history),
                                                     seeded_rng(0))
        except Exception as exc:  # noqa: BLE001 - a valid call: any error fails, named
            fail("constrained_sample raised on a valid greedy call under a repetition penalty", logits=values,
                 history=history, penalty=penalty, error=f"{type(exc).__name__}: {first_line(exc)}")
        logprob_want = strength._log_softmax_at(want, allowed, token_want)
        if int(token) != token_want or not abs(float(logprob) - logprob_want) <= 1e-9:
            fail("greedy under a repetition penalty must take the best allowed penalized logit", logits=values,
                 history=history, penalty=penalty, expected=(token_want, round(logprob_want, 9)),
                 got=(int(token), float(logprob)))
    logits = np.full(len(HAND_VOCAB), 9.0)
    logits[allowed] = [0.5, 2.0, 1.0, 1.5, 0.0]
    for params in FILTER_CASES:
        keep = kept_by_filters(logits[allowed], params)
        drawn = {int(d[0]) for d in strength._draws(impl, logits, index, params, seeded_rng(52), FILTER_DRAWS)}
        if drawn != {allowed[i] for i in keep}:
            fail("the draws must come from exactly the tokens top_k / top_p keep", params=params,
                 expected=sorted(allowed[i] for i in keep), got=sorted(drawn))
    index = impl.TokenIndex(impl.regex_to_dfa("[ab]"), LAST_ID_VOCAB, 0)
    drawn = {int(d[0]) for d in strength._draws(impl, np.array(LAST_ID_LOGITS), index, dict(temperature=1.0),
                                                seeded_rng(53), FILTER_DRAWS)}
    if drawn != {1, 2}:
        fail("every allowed token has a positive probability and must be drawn, the vocabulary's last id too",
             pattern="[ab]", vocab=LAST_ID_VOCAB, logits=LAST_ID_LOGITS, expected=[1, 2], got=sorted(drawn))


def kept_by_filters(values: np.ndarray, params: dict) -> list[int]:
    """The positions of ``values`` (allowed logits, temperature 1) that top_k, then top_p keep:
    the k largest; then the smallest set of most likely ones whose softmax reaches top_p.
    E.g. [0.5, 2.0, 1.0, 1.5, 0.0] with top_p 0.6 keeps [1, 3] (0.43 + 0.26)."""
    order = [int(i) for i in np.argsort(-values, kind="stable")]
    order = order[:params.get("top_k") or len(order)]
    probs = np.exp(values[order] - values[order].max())
    cumulative = np.cumsum(probs / probs.sum())
    n_keep = int(np.searchsorted(cumulative, params.get("top_p", 1.0) - 1e-12)) + 1
    return sorted(order[:n_keep])


def test_deep_parser_edge_cases_read_as_python(impl):
    """Section 2.1: "the subset is Python's own", and Python's ``re.fullmatch`` is its oracle. A
    pattern ``re`` refuses as malformed (``MALFORMED_PATTERNS``: asked of ``re`` here) has no
    meaning: the contract refuses it with ValueError (decision ``unsupported_syntax_valueerror``).
    A ``{`` that starts no repeat (``LITERAL_BRACE_PATTERNS``) is a literal: the DFA matches
    exactly the strings ``re.fullmatch`` matches among each pattern's probes. A backreference
    ``\\8`` or ``\\9`` after eight or nine groups (``BACKREFERENCE_PATTERNS``: ``re`` reads each as
    one) is refused with ValueError: section 2.1 lists backreferences among the refused syntax,
    "no silent misreading" (decision ``unsupported_syntax_valueerror``). And 450 groups side
    by side (``MANY_GROUPS_PATTERN``) are one pattern of the subset, whatever a nesting bound."""
    for pattern in MALFORMED_PATTERNS:
        if not _python_refuses(pattern):
            raise RuntimeError(f"harness bug: Python's re accepts {pattern!r}")
        expect_valueerror("unsupported_syntax_valueerror", lambda: impl.regex_to_dfa(pattern),
                          "a pattern Python's re refuses as malformed must be refused", pattern=pattern)
    for pattern, text in BACKREFERENCE_PATTERNS:
        if not re.fullmatch(pattern, text) or re.fullmatch(pattern, text[:-1] + "8"):
            raise RuntimeError(f"harness bug: Python's re does not read {pattern!r} as a backreference")
        expect_valueerror("unsupported_syntax_valueerror", lambda: impl.regex_to_dfa(pattern),
                          "a backreference must be refused (the spec: no silent misreading)", pattern=pattern)
    for pattern in LITERAL_BRACE_PATTERNS:
        try:
            dfa = impl.regex_to_dfa(pattern)
        except Exception as exc:  # noqa: BLE001 - any refusal of a pattern Python reads is a failure
            fail("a brace that starts no repeat is a literal, as Python reads it; the pattern was refused",
                 pattern=pattern, error=f"{type(exc).__name__}: {first_line(exc)}")
        for text in _brace_probes(pattern):
            want, oracle = expected_match(pattern, text)
            if bool(dfa.matches(text)) != want:
                fail(f"DFA.matches disagrees with {oracle} on a brace that starts no repeat", pattern=pattern,
                     data=text, expected=want, got=bool(dfa.matches(text)))
    dfa = compile_or_note(impl, MANY_GROUPS_PATTERN)  # a pattern of the subset: a refusal fails
    for n in (449, 450, 451):
        text = b"a" * n
        want, oracle = expected_match(MANY_GROUPS_PATTERN, text)
        if bool(dfa.matches(text)) != want:
            fail(f"DFA.matches disagrees with {oracle} on 450 groups side by side", pattern="(a)" * 450,
                 data=text, expected=want, got=bool(dfa.matches(text)))


PARENTHESES_PROBES = (b"", *(bytes([b]) for b in range(256)), b"((", b"(]", b"a(")


def test_deep_parentheses_in_no_group_compile_as_python_reads_them(impl):
    """Section 2.1: "the subset is Python's own". A ``(`` in a class (``[(]``, after a class's first
    ``]`` or its ``^``, beside an escaped ``]``) or escaped (``\\(``) opens no group, so a pattern
    holding 500 of them (``PARENTHESES_IN_NO_GROUP_PATTERNS``: alternations of two DFA states) nests
    no group at all: it compiles, and its DFA matches exactly what ``re.fullmatch`` matches among the
    empty string, every single byte and three pairs (``PARENTHESES_PROBES``). A refusal fails: the
    pattern is the subset's, whatever a nesting bound."""
    for pattern in PARENTHESES_IN_NO_GROUP_PATTERNS:
        shown = f"{pattern[:24]}... ({len(pattern)} characters)"
        try:
            dfa = impl.regex_to_dfa(pattern)
        except Exception as exc:  # noqa: BLE001 - any refusal of a pattern Python reads is a failure
            fail("a ( in a class or escaped opens no group, as Python reads it; the pattern was refused",
                 pattern=shown, error=f"{type(exc).__name__}: {first_line(exc)}")
        for text in PARENTHESES_PROBES:
            want, oracle = expected_match(pattern, text)
            if bool(dfa.matches(text)) != want:
                fail(f"DFA.matches disagrees with {oracle} on a ( that opens no group", pattern=shown, data=text,
                     expected=want, got=bool(dfa.matches(text)))


NEWER_READING_PATTERNS = tuple(row.pattern for row in READ_AS_NEWER_PYTHONS) + NEWER_READING_VARIANTS


def test_deep_newer_python_readings_as_this_python(impl):
    """Section 2.1: "the subset is Python's own", Python's ``re`` on the running Python. Every
    Python gets the patterns Python's versions read differently (``NEWER_READING_PATTERNS``:
    ``facts.constructs.READ_AS_NEWER_PYTHONS`` and ``NEWER_READING_VARIANTS``: possessive and atomic
    forms, ``a*+?``, a global flag past the start, a conditional's group name, a ``t`` flag), not only
    the ones its own ``re`` reads, and ``re.compile`` on this Python is the oracle: a pattern it refuses
    raises ValueError; one it compiles is refused with ValueError (it is outside the subset: a
    possessive or atomic form, a flag, a conditional, non-ASCII) or, an ASCII pattern, matches exactly
    what ``re.fullmatch`` matches among its probes (``_reading_probes``). Another exception, no
    refusal of a pattern ``re`` refuses, or another meaning departs (decision
    ``newer_python_readings``, the deep tier only: the spec names neither class nor these forms)."""
    for pattern in NEWER_READING_PATTERNS:
        refused = _python_refuses(pattern)
        try:
            dfa = impl.regex_to_dfa(pattern)
        except ValueError:
            continue
        except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
            decision("newer_python_readings", False, f"{pattern!r} raised {type(exc).__name__}: {first_line(exc)} "
                     f"(this Python's re {'refuses' if refused else 'compiles'} it)")
            continue
        if refused or not pattern.isascii():
            decision("newer_python_readings", False, f"{pattern!r} was accepted; this Python's re "
                     f"{'refuses it' if refused else 'reads it, but the subset is ASCII'}")
            continue
        for text in _reading_probes(pattern):
            want, oracle = expected_match(pattern, text)
            if bool(dfa.matches(text)) != want:
                decision("newer_python_readings", False, f"{pattern!r} was accepted with another meaning: "
                         f"DFA.matches({text!r}) is {not want}, {oracle} says {want}")
                break


def _reading_probes(pattern: str) -> list[bytes]:
    """Every string of up to three bytes over the pattern's letters and a newline."""
    letters = sorted({ch.encode("ascii") for ch in pattern if ch.isalnum()} | {b"\n"})
    probes, layer = [b""], [b""]
    for _ in range(3):
        layer = [text + letter for text in layer for letter in letters]
        probes += layer
    return probes


def _python_refuses(pattern: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            re.compile(pattern.encode("ascii") if pattern.isascii() else pattern)
        except re.error:
            return True
    return False


def _brace_probes(pattern: str) -> list[bytes]:
    """The pattern's text read literally, each of its bytes dropped and doubled, and repeats of
    its first byte: members under Python's literal reading, non-members under a repeat's.
    E.g. ``a{2``: ``a{2``, ``{2``, ``aa{2``, ``aa``, ``aaa``, ..."""
    text = pattern.encode("ascii")
    probes = {text, b"", text[:1] * 2, text[:1] * 3, text + text[-1:]}
    for i in range(len(text)):
        probes.add(text[:i] + text[i + 1:])
        probes.add(text[:i] + text[i:i + 1] * 2 + text[i + 1:])
    return sorted(probes)


def test_deep_dfa_refuses_bad_tables_and_wrong_types(impl):
    """The contract's conventions ("bad input raises ValueError ...; a wrong Python type raises
    TypeError"), decision ``dfa_bad_input_refused``: ``DFA(trans, accept)`` refuses tables that
    are no DFA's (``bad_dfa_tables``: a target outside DEAD..n-1, a wrong shape, no state,
    ``accept`` not 1-D of 0/1, float tables) with ValueError or TypeError, and ``DFA.step``
    refuses a state or data of a wrong Python type (``WRONG_STEP_ARGUMENTS``) with TypeError.
    Oracle: the hand example's tables (section 3), each changed in the one place named."""
    good = impl.regex_to_dfa(HAND_PATTERN)
    trans, accept = np.asarray(good.trans), np.asarray(good.accept)
    for what, bad_trans, bad_accept in bad_dfa_tables(trans, accept):
        _expect_raises("dfa_bad_input_refused", lambda: impl.DFA(bad_trans, bad_accept),
                       f"DFA(trans, accept) given {what}", (ValueError, TypeError))
    for state, data in WRONG_STEP_ARGUMENTS:
        _expect_raises("dfa_bad_input_refused", lambda: good.step(state, data),
                       f"DFA.step({state!r}, {data!r}) on {HAND_PATTERN!r}'s DFA", (TypeError,))


def _expect_raises(key: str, call, reason: str, classes: tuple[type, ...]) -> None:
    """The contract decision ``key``: ``call()`` raises one of ``classes`` (else a note, or a
    failure under ``--strict``)."""
    try:
        call()
    except classes:
        return
    except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
        decision(key, False, f"{reason}: raised {type(exc).__name__}: {first_line(exc)}")
        return
    decision(key, False, f"{reason}: nothing was raised")


# (what, the call's arguments): SamplingParams values the contract refuses with ValueError ("temperature
# < 0, top_k < 0, top_p outside (0, 1], repetition_penalty <= 0"), each just past its bound and far
OUT_OF_RANGE_PARAMS = (dict(temperature=-1e-9), dict(temperature=-5.0), dict(top_k=-1), dict(top_k=-100),
                       dict(top_p=0.0), dict(top_p=-0.5), dict(top_p=1.0 + 1e-9), dict(top_p=2.0),
                       dict(repetition_penalty=0.0), dict(repetition_penalty=-1.0),
                       dict(temperature=10**400), dict(repetition_penalty=10**400))
# (the last two: an int past the float range, which no float field can hold: refused as "not finite")
# arguments of a wrong Python type (the contract's convention: TypeError)
WRONG_TYPE_PARAMS = (dict(top_k=1.5), dict(top_k="2"), dict(temperature="1"), dict(top_p=None))
NOT_TOKENIZERS = ("abc", b"ab", 5, None)
"""Values that are no tokenizer (a str is not a list of token strings: the contract reads a tokenizer)."""


def test_deep_bad_arguments_are_refused(impl):
    """The contract's conventions ("bad input raises ValueError ...; a wrong Python type raises
    TypeError") and its statements, decision ``bad_arguments_refused`` (the spec is silent but
    for L8.1's sampler): ``SamplingParams`` refuses each value ``OUT_OF_RANGE_PARAMS`` holds
    with ValueError (an int past the float range among them) and a field of a wrong type with
    TypeError; ``sample`` refuses logits that
    are all ``-inf`` with ValueError ("Raises ValueError when every logit is -inf"), and a ``p``
    that is no SamplingParams with TypeError; ``constrained_sample`` a ``c`` that is no
    Constraint; ``TokenIndex`` an ``eos_id`` out of range or a vocabulary entry that is neither
    bytes nor None with ValueError, a ``dfa`` that is no DFA, a vocabulary that is no sequence
    and an ``eos_id`` that is no int with TypeError; ``TokenIndex.mask`` a state that is no int;
    ``vocab_bytes`` a value that is no tokenizer (``NOT_TOKENIZERS``) with TypeError; a history
    id that is no int (a float, a bool, a str) and an ``rng`` that is no generator with TypeError
    (and, decision ``history_out_of_range_valueerror``, a history or prompt id past int64 with
    ValueError: it is outside range(V));
    ``sample`` logits holding a NaN or +inf, of two dimensions or empty with ValueError, complex
    logits with TypeError; ``apply_mask`` a mask of integers and logits of strings, and
    ``Constraint`` an argument that is no TokenIndex, with TypeError. Oracle: the hand example
    (section 3), each call changed in the one argument named."""
    from harness.suite.inputs import HAND_EOS, HAND_VOCAB
    from harness.suite.seeding import seeded_rng

    key = "bad_arguments_refused"
    for params in OUT_OF_RANGE_PARAMS:
        _expect_raises(key, lambda: impl.SamplingParams(**params), f"SamplingParams(**{params})", (ValueError,))
    for params in WRONG_TYPE_PARAMS:
        _expect_raises(key, lambda: impl.SamplingParams(**params), f"SamplingParams(**{params})", (TypeError,))
    good = impl.SamplingParams()
    dead = np.full(4, -np.inf)
    _expect_raises(key, lambda: impl.sample(dead, good, [], seeded_rng(0)), "sample(every logit -inf)",
                   (ValueError,))
    _expect_raises(key, lambda: impl.sample(np.zeros(4), "greedy", [], seeded_rng(0)),
                   "sample(logits, p='greedy')", (TypeError,))
    dfa = impl.regex_to_dfa(HAND_PATTERN)
    index = impl.TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS)
    logits = np.zeros(len(HAND_VOCAB))
    _expect_raises(key, lambda: impl.constrained_sample(logits, "a constraint", good, [], seeded_rng(0)),
                   "constrained_sample(logits, c='a constraint')", (TypeError,))
    penalty = impl.SamplingParams(repetition_penalty=1.5)
    for history in ([0.5], [True], [1, "2"]):
        _expect_raises(key, lambda: impl.constrained_sample(logits, make_constraint(impl, index), penalty, history,
                                                            seeded_rng(0)),
                       f"constrained_sample under a repetition penalty, history={history!r}", (TypeError,))
    for history, prompt in (([2**70], ()), ([0], (-(2**70),))):  # past int64: no array of ids holds them
        _expect_raises("history_out_of_range_valueerror",
                       lambda: impl.constrained_sample(logits, make_constraint(impl, index), penalty, history,
                                                       seeded_rng(0), prompt),
                       f"constrained_sample under a repetition penalty, history={history!r}, prompt={prompt!r}",
                       (ValueError,))
    _expect_raises(key, lambda: impl.sample(np.zeros(4), good, [], 5), "sample(logits, p, history, rng=5)",
                   (TypeError,))
    size = len(HAND_VOCAB)
    for eos in (size, size + 5, -1):
        _expect_raises(key, lambda: impl.TokenIndex(dfa, HAND_VOCAB, eos_id=eos), f"TokenIndex(eos_id={eos})",
                       (ValueError,))
    for entry in ("c", 7):
        _expect_raises(key, lambda: impl.TokenIndex(dfa, [b"a", entry, b"b"], eos_id=0),
                       f"TokenIndex(vocab holding {entry!r})", (ValueError,))
    for what, call in (("dfa='(cat|car|dog)s?'", lambda: impl.TokenIndex(HAND_PATTERN, HAND_VOCAB, eos_id=HAND_EOS)),
                       ("vocab=5", lambda: impl.TokenIndex(dfa, 5, eos_id=0)),
                       ("eos_id='9'", lambda: impl.TokenIndex(dfa, HAND_VOCAB, eos_id="9")),
                       ("mask('0')", lambda: index.mask("0"))):
        _expect_raises(key, call, f"TokenIndex: {what}", (TypeError,))
    for value in NOT_TOKENIZERS:
        _expect_raises(key, lambda: impl.vocab_bytes(value), f"vocab_bytes({value!r})", (TypeError,))
    _refuses_bad_logits_and_masks(impl, key, dfa)


# (what, logits): rows ``sample`` refuses with ValueError (no token can be drawn by L8.1's rule from
# them: a NaN or +inf has no softmax weight, a row is [V]) and with TypeError (no real numbers)
BAD_LOGITS_VALUEERROR = (("a NaN", [0.0, np.nan, 1.0]), ("+inf", [0.0, np.inf, 1.0]),
                         ("two dimensions", np.zeros((2, 3))), ("no logit", np.zeros(0)))
BAD_LOGITS_TYPEERROR = (("complex logits", np.array([0.0, 1.0 + 2.0j, 1.0])),)


def _refuses_bad_logits_and_masks(impl, key: str, dfa) -> None:
    """``sample`` refuses ``BAD_LOGITS_VALUEERROR`` with ValueError and ``BAD_LOGITS_TYPEERROR``
    with TypeError; ``apply_mask`` a mask that is not boolean (0/1 integers) and logits that
    are no numbers (strings) with TypeError; ``Constraint`` built on no ``TokenIndex`` (a str,
    the DFA itself) with TypeError."""
    from harness.suite.seeding import seeded_rng

    good = impl.SamplingParams()
    for classes, cases in (((ValueError,), BAD_LOGITS_VALUEERROR), ((TypeError,), BAD_LOGITS_TYPEERROR)):
        for what, logits in cases:
            _expect_raises(key, lambda: impl.sample(logits, good, [], seeded_rng(0)), f"sample(logits with {what})",
                           classes)
    _expect_raises(key, lambda: impl.apply_mask(np.zeros(3), np.array([1, 0, 1])),
                   "apply_mask(logits, a mask of 0/1 integers)", (TypeError,))
    # a list, not a numpy array of str: the wall carries no str array to the candidate (the grader's side
    # raised TypeError before the candidate saw it, so this case passed without running its code)
    _expect_raises(key, lambda: impl.apply_mask(["a", "b", "c"], np.array([True, False, True])),
                   "apply_mask(logits of strings, mask)", (TypeError,))
    for what, argument in (("a str", "an index"), ("the DFA", dfa)):
        _expect_raises(key, lambda: impl.Constraint(argument), f"Constraint({what}) for a TokenIndex", (TypeError,))


# (logits, temperature, extra SamplingParams fields): each with one largest logit at least 1 above the next,
# at a temperature so small that ``logits / T`` overflows, where softmax(x / T) puts all its mass on the
# largest logit (the next weight, exp(-gap / T), is below the smallest float); negative, positive and
# masked (-inf) rows, a subnormal temperature beside small logits, top-k and top-p on top
TINY_TEMPERATURE_CASES = (([-3e9, -1e9, -np.inf, -2e9], 1e-300, {}), ([1e9, 3e9, 2e9, 0.0], 1e-300, {}),
                          ([2.0, 1.0, 0.5], 5e-324, {}), ([0.5, 2.0, 1.0, 1.5, -np.inf, 0.0], 5e-324, {}),
                          ([-4e9, -np.inf, -1e9, -2e9], 1e-300, dict(top_k=2)),
                          ([1e9, -5e8, 3e9, 2e9], 1e-300, dict(top_p=0.5)))
TINY_TEMPERATURE_DRAWS = 3  # a non-largest logit has weight 0 at such a temperature: one wrong draw is a departure


def test_deep_tiny_temperature_draws_the_largest_logit(impl):
    """L8.1's sampler, decision ``tiny_temperature_is_greedy`` (the spec names temperature 0 greedy and
    says nothing of tiny ones): at a temperature > 0 so small that ``logits / T`` overflows
    (``TINY_TEMPERATURE_CASES``), softmax(x / T) is the greedy limit: every draw is the largest logit, and
    the logprob is the log-softmax of the logits before temperature at it. A NaN, an error or another
    token is a departure (a note in the default tier: a correct sampler may divide first and overflow).
    Oracle: numpy's argmax and the log-softmax on the gaps to the maximum, computed here."""
    from harness.suite.seeding import seeded_rng

    for values, temperature, extra in TINY_TEMPERATURE_CASES:
        logits = np.array(values)
        want = int(np.argmax(logits))
        finite = logits[np.isfinite(logits)]
        logprob_want = float(-np.log(np.exp(finite - logits[want]).sum()))
        params = impl.SamplingParams(temperature=temperature, **extra)
        for draw in range(TINY_TEMPERATURE_DRAWS):
            case = f"sample({values}, temperature={temperature}{''.join(f', {k}={v}' for k, v in extra.items())})"
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    token, logprob = impl.sample(logits.copy(), params, [], seeded_rng(draw))
            except Exception as exc:  # noqa: BLE001 - any error departs from the decision
                decision("tiny_temperature_is_greedy", False, f"{case} raised {type(exc).__name__}: {first_line(exc)}")
                return
            if int(token) != want or not abs(float(logprob) - logprob_want) <= 1e-9:
                decision("tiny_temperature_is_greedy", False,
                         f"{case} gave (token, logprob) {(int(token), float(logprob))}, "
                         f"expected the largest logit {(want, logprob_want)}")
                return


# (where, schema): subschemas that are no JSON object and no boolean, each refused by JSON Schema's
# 2020-12 meta-schema (asked of ``jsonschema`` by the test); ``items`` as a list is the older drafts' form
NON_OBJECT_SUBSCHEMAS = (("items", {"type": "array", "items": 5}), ("items", {"type": "array", "items": "x"}),
                         ("items", {"type": "array", "items": [{"type": "null"}]}),
                         ("a property", {"type": "object", "properties": {"a": "x"}, "required": ["a"]}),
                         ("a property", {"type": "object", "properties": {"a": []}}),
                         ("an anyOf branch", {"anyOf": [{"type": "null"}, None]}))


def test_deep_non_object_subschemas_are_refused(impl):
    """Section 2.5 ("anything else ... raises ValueError") and the contract's conventions, decision
    ``non_object_subschema_valueerror``: a subschema that is no object (``NON_OBJECT_SUBSCHEMAS``) is
    bad input, refused with ValueError (the top-level value is the call's argument: a wrong Python type
    there may be TypeError). Oracle: ``jsonschema``'s 2020-12 meta-schema refuses every one."""
    for where, schema in NON_OBJECT_SUBSCHEMAS:
        _meta_schema_refuses(schema)
        _expect_raises("non_object_subschema_valueerror", lambda: impl.json_schema_to_regex(schema),
                       f"json_schema_to_regex({schema!r}) ({where} is no schema)", (ValueError,))



def _meta_schema_refuses(schema) -> None:
    """The oracle's side of a refused schema: JSON Schema's 2020-12 meta-schema refuses ``schema``,
    else a RuntimeError (a harness bug: the input list is wrong, not the candidate)."""
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return
    raise RuntimeError(f"harness bug: jsonschema's meta-schema accepts {schema!r}")


def _not_json(value) -> bool:
    """Whether ``value`` has no JSON text: ``json`` refuses it, its text has no UTF-8, or reading
    the text back gives another value (a non-string key)."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
    except (TypeError, ValueError):
        return True
    return json.loads(text) != value


def test_deep_malformed_schemas_are_refused(impl):
    """Section 2.5 ("anything else ... raises ValueError") and the contract's conventions, decision
    ``malformed_schema_valueerror``: a schema JSON Schema's meta-schema refuses (``SCHEMAS_THE_META_SCHEMA_REFUSES``)
    or that is no JSON (``SCHEMAS_WITH_NO_JSON``: TypeError allowed too, a wrong Python type) and a schema of
    any JSON value (``SCHEMAS_OF_ANY_VALUE``: no regular language) are refused with ValueError; keywords the
    subset names only alone (``SCHEMAS_COMBINED``) are refused with ValueError or read with JSON Schema's
    meaning, never with one of them ignored; ``{"const": HUGE_INTEGER}`` (4,401 digits, which ``json`` will
    not write) is refused with ValueError or compiled exactly; an argument that is no dict
    (``SCHEMA_ARGUMENTS_REFUSED``) raises TypeError. Oracles: ``jsonschema`` (its meta-schema, and each
    probe's validity), ``json`` (what has no JSON text) and ``re.fullmatch`` on the returned regex."""

    key = "malformed_schema_valueerror"
    for value in SCHEMA_ARGUMENTS_REFUSED:
        _expect_raises(key, lambda: impl.json_schema_to_regex(value), f"json_schema_to_regex({value!r})", (TypeError,))
    for schema in SCHEMAS_THE_META_SCHEMA_REFUSES:
        _meta_schema_refuses(schema)
        _expect_raises(key, lambda: impl.json_schema_to_regex(schema), f"json_schema_to_regex({schema!r})",
                       (ValueError,))
    for schema in SCHEMAS_WITH_NO_JSON:
        if not _not_json(schema):
            raise RuntimeError(f"harness bug: {schema!r} has a JSON text")
        _expect_raises(key, lambda: impl.json_schema_to_regex(schema), f"json_schema_to_regex({schema!r}) (no JSON)",
                       (ValueError, TypeError))
    for schema in SCHEMAS_OF_ANY_VALUE:
        _expect_raises(key, lambda: impl.json_schema_to_regex(schema),
                       f"json_schema_to_regex({json.dumps(schema)}) (any JSON value: no regular language)",
                       (ValueError,))
    for schema, probes in SCHEMAS_COMBINED:
        _combined_schema_refused_or_exact(impl, key, schema, probes)
    _huge_integer_refused_or_exact(impl, key)


def _decimal(value: int) -> str:
    """The decimal digits of an integer of any size, without ``str(value)`` (which refuses past
    ``sys.get_int_max_str_digits``, a process-wide setting the grader does not change)."""
    chunks, rest = [], abs(value)
    while True:
        rest, low = divmod(rest, 10**1000)
        if not rest:
            chunks.append(str(low))
            break
        chunks.append(str(low).zfill(1000))
    return ("-" if value < 0 else "") + "".join(reversed(chunks))


def _huge_integer_refused_or_exact(impl, key: str) -> None:
    """``{"const": HUGE_INTEGER}``, a JSON number ``json`` will not write: refused with ValueError, or a
    regex that matches its digits and not its neighbour's (``jsonschema``'s verdict on each); any other
    exception departs."""
    import jsonschema

    schema = {"const": HUGE_INTEGER}
    where = f"json_schema_to_regex({{'const': <an integer of {len(_decimal(HUGE_INTEGER))} digits>}})"
    try:
        regex = impl.json_schema_to_regex(schema)
    except ValueError:
        return
    except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
        decision(key, False, f"{where} raised {type(exc).__name__}: {first_line(exc)}")
        return
    validator = jsonschema.Draft202012Validator(schema)
    for document in (HUGE_INTEGER, HUGE_INTEGER + 1):
        want = validator.is_valid(document)
        try:
            got = re.fullmatch(regex.encode("utf-8"), _decimal(document).encode("ascii")) is not None
        except (re.error, AttributeError) as exc:
            decision(key, False, f"{where} gave no usable regex: {type(exc).__name__}: {first_line(exc)}")
            return
        if got != want:
            verb = "matches" if got else "refuses"
            which = "the integer" if want else "the integer 1 past it"
            decision(key, False, f"{where}'s regex {verb} {which}, which jsonschema calls "
                                 f"{'valid' if want else 'invalid'}")
            return


def _combined_schema_refused_or_exact(impl, key: str, schema: dict, probes) -> None:
    import jsonschema

    try:
        regex = impl.json_schema_to_regex(schema)
    except ValueError:
        return
    except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
        decision(key, False, f"json_schema_to_regex({json.dumps(schema)}) raised {type(exc).__name__}: "
                             f"{first_line(exc)}")
        return
    validator = jsonschema.Draft202012Validator(schema)
    for document in probes:
        want = validator.is_valid(document)
        text = _compact(document).encode("utf-8")
        try:
            got = re.fullmatch(regex.encode("utf-8"), text) is not None
        except re.error as exc:
            decision(key, False, f"json_schema_to_regex({json.dumps(schema)}) gave {regex!r}, which Python's re "
                                 f"refuses: {exc}")
            return
        if got != want:
            verb, verdict = ("matches", "invalid") if got else ("refuses", "valid")
            decision(key, False, f"json_schema_to_regex({json.dumps(schema)})'s regex {verb} {text!r}, which "
                                 f"jsonschema calls {verdict} (a keyword ignored)")
            return


def test_deep_typed_enums_read_as_json_schema_reads_them(impl):
    """Decision ``type_with_enum``: ``enum`` or ``const`` beside a ``type`` every value has is accepted,
    with JSON Schema's meaning: its regex matches exactly the probes ``jsonschema`` calls valid
    (``TYPED_ENUM_SCHEMAS``: every JSON type but string and integer, which the 16 tests ask). Oracles:
    ``jsonschema`` and ``re.fullmatch`` on the returned regex."""
    import jsonschema

    for schema, probes in TYPED_ENUM_SCHEMAS:
        try:
            regex = impl.json_schema_to_regex(schema)
        except Exception as exc:  # noqa: BLE001 - a refusal, of whatever class, departs from the decision
            decision("type_with_enum", False, f"json_schema_to_regex({json.dumps(schema)}) raised "
                                              f"{type(exc).__name__}: {first_line(exc)}")
            continue
        validator = jsonschema.Draft202012Validator(schema)
        for document in probes:
            want = validator.is_valid(document)
            text = _compact(document).encode("utf-8")
            got = re.fullmatch(regex.encode("utf-8"), text) is not None
            if got != want:
                fail("json_schema_to_regex's regex disagrees with jsonschema", schema=json.dumps(schema),
                     document=text, expected=want, got=got)


HIGH_BYTE_PATTERNS = (".", "[^a]", "a.b", r"\xff", r"\x00\x7f\xff", r"[\x80-\xff]+", r"[^\x00-\xfe]", r"a.\xfe?\xff")
"""Patterns reaching the bytes 0x80-0xFF (``.`` and a negated class: every byte but a few; ``\\xHH``,
decision ``extra_regex_syntax``): the byte classes' last byte, 0xFF, is in each."""


def test_deep_high_bytes_equal_the_derivative_oracle(impl):
    """Section 2.1: ``.`` is any byte but ``\\n`` and ``[^...]`` the complement over all 256 bytes, so
    the byte 0xFF has a transition like any other: each of ``HIGH_BYTE_PATTERNS`` gives the derivative
    oracle's canonical DFA, table for table (a refusal of ``\\xHH`` is a note, ``extra_regex_syntax``)."""
    for pattern in HIGH_BYTE_PATTERNS:
        want_t, want_a = _oracle_long_tables(pattern)
        dfa = compile_or_note(impl, pattern)
        if dfa is None:
            continue
        _tables_equal(pattern, dfa, want_t, want_a)


SAMPLING_DEFAULTS = dict(temperature=1.0, top_k=0, top_p=1.0, repetition_penalty=1.0)
"""``SamplingParams``' defaults, as the contract's signature states them."""


def test_deep_sampling_params_defaults_are_the_contracts(impl):
    """The contract's ``SamplingParams(temperature=1.0, top_k=0, top_p=1.0, repetition_penalty=1.0)``:
    a field not given has its default (``SAMPLING_DEFAULTS``), a field given keeps its value."""
    params = impl.SamplingParams()
    for field, want in SAMPLING_DEFAULTS.items():
        if getattr(params, field) != want:
            fail("SamplingParams() departs from the contract's default", field=field, expected=want,
                 got=getattr(params, field))
    given = dict(temperature=0.5, top_k=3, top_p=0.25, repetition_penalty=1.5)
    params = impl.SamplingParams(**given)
    for field, want in given.items():
        if getattr(params, field) != want:
            fail("SamplingParams(...) does not keep a field given", field=field, expected=want,
                 got=getattr(params, field))


# --- vocab_bytes: every token of a tokenizer kind the contract reads (issue 52 item 3, part a) ---

ADDED_TOKENS = ("<tool_call>", "</tool_call>", "hello world", "\u65e5\u672c\u8a9e", " ")
"""Added tokens that are not special, each read alike by section 2.3's rule and as literal text: ASCII map
characters (the rule decodes them through the map: their ASCII bytes), and text holding a character outside
the map (a space, CJK: the rule says UTF-8). An added token of map characters only outside ASCII (``é``) is
left out: the rule reads it through the map, literal text as UTF-8, and the spec does not say which an
added token is."""
NO_SPECIAL_RANKS = {**{bytes([b]): b for b in range(256)}, b" the": 256, b"\xe4\xb8": 257, b"ab": 260}
"""A tiktoken-style encoding with no special token at all (ids 258 and 259: holes, no token has them)."""


def test_deep_vocab_bytes_reads_every_token_of_a_tokenizer(impl):
    """Section 2.3: every token string by the spec's rule (map characters only: through the map, else
    UTF-8), special tokens None, by id. On two tokenizers the default tier's do not cover: a trained
    byte-level ``tokenizers.Tokenizer`` holding added tokens that are not special (``ADDED_TOKENS``: each
    one's bytes, never None) and two special ones (decision ``vocab_bytes_tokenizers``), and a
    tiktoken-style encoding with no special token (``NO_SPECIAL_RANKS``: every id its bytes, a hole None;
    decision ``vocab_bytes_tiktoken``). Oracle: the spec's rule on ``id_to_token``, computed here
    (``inputs.expected_bytes``), and the encoding's own ranks."""
    inverse = {ch: b for b, ch in gpt2_byte_map().items()}
    tok = _tokenizer_with_added_tokens()
    if tok is not None:
        size = tok.get_vocab_size(with_added_tokens=True)
        specials = {i for i, added in tok.get_added_tokens_decoder().items() if added.special}
        strings = [tok.id_to_token(i) for i in range(size)]
        want = [None if i in specials else expected_bytes(strings[i], inverse) for i in range(size)]
        _vocab_bytes_equal(impl, "vocab_bytes_tokenizers", "a tokenizers.Tokenizer with added tokens that are "
                           "not special", tok, strings, want)
    by_id = {i: b for b, i in NO_SPECIAL_RANKS.items()}
    top = max(by_id) + 1
    _vocab_bytes_equal(impl, "vocab_bytes_tiktoken", "a tiktoken-style encoding with no special token",
                       TiktokenLike(NO_SPECIAL_RANKS, {}), list(range(top)), [by_id.get(i) for i in range(top)])


def _tokenizer_with_added_tokens():
    """A byte-level BPE trained in memory (seeded by its corpus: the same tokenizer every run), with
    ``ADDED_TOKENS`` added as not special and two special tokens; None without ``tokenizers``."""
    try:
        from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    except ImportError:
        return None  # optional (the dev extra), as in test_vocab_bytes: nothing to hand the candidate
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=290, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(["the cat sat on the mat", '{"city": "Oslo", "days": 3}'] * 10, trainer)
    tok.add_tokens([AddedToken(text, special=False, normalized=False) for text in ADDED_TOKENS])
    tok.add_special_tokens(["<|im_end|>"])
    return tok


def _vocab_bytes_equal(impl, key: str, what: str, tok, tokens: list, want: list) -> None:
    """The decision ``key``: ``impl.vocab_bytes(tok)`` is ``want``, id for id (else a note naming the
    first id that differs, or a failure under ``--strict``)."""
    try:
        got = [bytes(g) if isinstance(g, (bytes, bytearray)) else g for g in impl.vocab_bytes(tok)]
    except Exception as exc:  # noqa: BLE001 - any error departs from the decision
        decision(key, False, f"vocab_bytes({what}) raised {type(exc).__name__}: {first_line(exc)}")
        return
    if len(got) != len(want):
        decision(key, False, f"vocab_bytes({what}) has {len(got)} entries, expected {len(want)}")
        return
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            decision(key, False, f"vocab_bytes({what}) differs at token {i} ({tokens[i]!r}): expected {w!r}, "
                     f"got {g!r}")
            return


BYTE_LEVEL_TOKENS = [bytes([b]) for b in range(256)] + [b"ca", b"cat", b"dog", b"ts", None]
"""A byte-level vocabulary: the 256 single bytes, four words of the hand example and, last, EOS (None: a
special token), so EOS is an id past the single bytes (as GPT-2's 50256 or cl100k_base's 100257 are), not
one of the small ids the hand vocabulary gives it (13)."""


def test_deep_constraint_ends_at_an_eos_past_the_single_bytes(impl):
    """Section 2.3 (``m_s[eos] = (s in F)``) and ``test_constraint_lifecycle``'s rules ("EOS only when
    complete, nothing after EOS") on ``HAND_PATTERN`` with ``BYTE_LEVEL_TOKENS``, EOS its last id: EOS is
    refused from the start, allowed once ``cat`` is read, and after it ``done`` is True, no token is
    allowed (decision ``mask_after_eos_empty``) and every token, EOS too, is refused. Each id is computed
    where it is used, as a caller reading it from a tokenizer does: the candidate must compare ids by value.
    Oracle: the spec's hand DFA (section 3: ``cat`` reaches accepting state 5) and these rules."""
    dfa = impl.regex_to_dfa(HAND_PATTERN)
    index = impl.TokenIndex(dfa, list(BYTE_LEVEL_TOKENS), eos_id=len(BYTE_LEVEL_TOKENS) - 1)
    c = make_constraint(impl, index)
    expect_refusal(lambda: c.advance(len(BYTE_LEVEL_TOKENS) - 1), "EOS before the text is complete must be "
                   "refused", valueerror="advance_refusal_valueerror", eos=len(BYTE_LEVEL_TOKENS) - 1)
    c = make_constraint(impl, index)
    c.advance(BYTE_LEVEL_TOKENS.index(b"cat"))
    mask = np.asarray(c.mask())
    if not (bool(c.is_complete()) and bool(mask[len(BYTE_LEVEL_TOKENS) - 1])):
        fail("after 'cat' the text is complete and EOS is allowed (m_s[eos] = s in F)", pattern=HAND_PATTERN,
             eos=len(BYTE_LEVEL_TOKENS) - 1, complete=bool(c.is_complete()),
             eos_allowed=bool(mask[len(BYTE_LEVEL_TOKENS) - 1]))
    c.advance(len(BYTE_LEVEL_TOKENS) - 1)
    if not bool(c.done):
        fail("Constraint.done must be True after EOS", pattern=HAND_PATTERN, path=b"cat",
             eos=len(BYTE_LEVEL_TOKENS) - 1, got=bool(c.done))
    after = np.asarray(c.mask())
    decision("mask_after_eos_empty", after.dtype == np.bool_ and after.shape == (len(BYTE_LEVEL_TOKENS),)
             and not after.any(), f"mask() after EOS {len(BYTE_LEVEL_TOKENS) - 1} allows "
             f"{np.flatnonzero(after).tolist()[:8]}")
    for token in (len(BYTE_LEVEL_TOKENS) - 1, ord("s"), BYTE_LEVEL_TOKENS.index(b"ts")):
        expect_refusal(lambda token=token: c.advance(token), "nothing may follow EOS",
                       valueerror="advance_refusal_valueerror", token=token)


# --- issue 52 item 3, the spec's survivors outside vocab.py (branch kill10r) ---

# (logits, top_k): rows with no -inf, where top_k alone removes tokens (the catalogue's rows are masked,
# so a filter that counted the -inf entries instead of the finite ones kept every token there unseen)
TOP_K_FINITE_ROWS = (([3.0, 2.9, 2.8, 2.7, 2.6], 1), ([0.0, 1.0, 0.5, 0.9], 2))
TOP_K_DRAWS = 60  # the kept tokens of the second row have p 0.52 and 0.48: missing one in 60 draws has p < 1e-17
# (logits, the tied largest ids): a temperature so small that ``logits / T`` overflows, beside equal
# largest logits, which softmax(x / T) weighs equally at every T > 0 (greedy's lowest id is T = 0's rule only)
TIED_TINY_TEMPERATURE_ROWS = (([1e9, 1e9, 0.0], [0, 1]), ([-3e9, -1e9, -np.inf, -1e9], [1, 3]))
TIED_DRAWS = 40  # each tied id has p 1/2: missing one in 40 draws has p < 1e-11
TINY_T = 1e-300
ARRAYS_FOR_NUMBERS = (dict(temperature=np.array(0.5)), dict(top_p=np.array(0.5)))
"""0-d arrays where a field is a number: ``float()`` reads them, but they are arrays (TypeError)."""


def test_deep_sampling_filters_rows_without_inf_and_splits_tied_maxima(impl):
    """Section 2.4 on L8.1's sampler: ``top_k`` keeps the k largest logits of a row that holds no
    ``-inf`` (``TOP_K_FINITE_ROWS``): the draws come from exactly those k. Decision
    ``tiny_temperature_ties_drawn``: at a temperature so small that ``logits / T`` overflows, equal
    largest logits are each drawn (``TIED_TINY_TEMPERATURE_ROWS``: softmax(x / T) gives them equal
    probability at every T > 0), never only the lowest id. Decision ``bad_arguments_refused``: a history
    holding a valid id 0 beside a float is refused with TypeError (the float is no id; 0 is in range), and
    a ``SamplingParams`` field that is a 0-d array (``ARRAYS_FOR_NUMBERS``) too.
    Oracle: the kept sets and tied ids computed here from the rows (numpy's argsort), seeded draws."""
    from harness.sandbox import repeat_call
    from harness.suite.inputs import HAND_EOS, HAND_VOCAB
    from harness.suite.seeding import seeded_rng

    for values, k in TOP_K_FINITE_ROWS:
        logits = np.array(values)
        want = sorted(int(i) for i in np.argsort(-logits, kind="stable")[:k])
        params = impl.SamplingParams(temperature=1.0, top_k=k)
        drawn = {int(t) for t, _ in repeat_call(impl.sample, TOP_K_DRAWS, logits, params, [], seeded_rng(5201))}
        if sorted(drawn) != want:
            fail("top_k must keep exactly the k largest logits of a row with no -inf", logits=values, top_k=k,
                 expected=want, got=sorted(drawn))
    params = impl.SamplingParams(temperature=TINY_T)
    for values, tied in TIED_TINY_TEMPERATURE_ROWS:
        case = f"sample({values}, temperature={TINY_T})"
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                drawn = {int(t) for t, _ in repeat_call(impl.sample, TIED_DRAWS, np.array(values), params, [],
                                                        seeded_rng(5202))}
        except Exception as exc:  # noqa: BLE001 - any error departs from the decision
            decision("tiny_temperature_ties_drawn", False, f"{case} raised {type(exc).__name__}: {first_line(exc)}")
            continue
        decision("tiny_temperature_ties_drawn", sorted(drawn) == tied,
                 f"{case} drew {sorted(drawn)} in {TIED_DRAWS} draws, expected each of the tied largest {tied}")
    for params in ARRAYS_FOR_NUMBERS:
        _expect_raises("bad_arguments_refused", lambda: impl.SamplingParams(**params),
                       f"SamplingParams(**{params}) (a 0-d array is no number)", (TypeError,))
    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, eos_id=HAND_EOS)
    penalty = impl.SamplingParams(repetition_penalty=1.5)
    for history in ([0, 0.5], [0, 4, 2.0]):
        _expect_raises("bad_arguments_refused",
                       lambda: impl.constrained_sample(np.zeros(len(HAND_VOCAB)), make_constraint(impl, index),
                                                       penalty, history, seeded_rng(0)),
                       f"constrained_sample under a repetition penalty, history={history!r}", (TypeError,))


# (minItems, maxItems) of an array of booleans: finite languages (every document enumerable), maxItems 0
# and 1 among them, and minItems past 1 with no maxItems (checked on arrays of 0 to 6 items)
FINITE_ARRAY_BOUNDS = ((0, 0), (0, 1), (1, 1), (0, 2), (2, 2), (1, 3), (3, 4))
OPEN_ARRAY_MIN_ITEMS = (2, 3, 4)
ENUMERATED_DOCUMENTS = 200  # at most: (3, 4) has 24 documents; a language past this many is not the oracle's


def test_deep_schema_array_bounds_read_as_json_schema(impl):
    """Section 2.5's array (``\\[ item (, item){a-1,b-1} \\]``, all of it optional when a = 0) as JSON
    Schema reads minItems and maxItems: for each of ``FINITE_ARRAY_BOUNDS`` over boolean items the regex's
    language (every string the candidate's DFA of it accepts, enumerated) is exactly the compact arrays
    of booleans ``jsonschema`` calls valid, maxItems 0 (``[]`` only) and 1 among them; for each of
    ``OPEN_ARRAY_MIN_ITEMS`` an array of 0 to 6 items matches iff it has at least minItems. Decision
    ``malformed_schema_valueerror``: the boolean schema ``true`` (any JSON value: no regular language) is
    refused with ValueError. Oracles: ``jsonschema`` and ``json`` (compact arrays written here)."""
    import itertools

    import jsonschema

    for lo, hi in FINITE_ARRAY_BOUNDS:
        schema = {"type": "array", "items": {"type": "boolean"}, "minItems": lo, "maxItems": hi}
        validator = jsonschema.Draft202012Validator(schema)
        want = {_compact(list(items)).encode() for n in range(hi + 2)
                for items in itertools.product((True, False), repeat=n) if validator.is_valid(list(items))}
        dfa = impl.regex_to_dfa(impl.json_schema_to_regex(schema))
        got = _enumerated_language(np.asarray(dfa.trans), np.asarray(dfa.accept), ENUMERATED_DOCUMENTS)
        if got != want:
            fail("an array's bounds read otherwise than JSON Schema reads them", schema=schema,
                 missing=sorted(want - got)[:4], extra=sorted(got - want)[:4])
    for lo in OPEN_ARRAY_MIN_ITEMS:
        schema = {"type": "array", "items": {"type": "boolean"}, "minItems": lo}
        dfa = impl.regex_to_dfa(impl.json_schema_to_regex(schema))
        for n in range(7):
            document = _compact([True] * n)
            if bool(dfa.matches(document.encode())) != (n >= lo):
                fail("an array's minItems read otherwise than JSON Schema reads it", schema=schema,
                     document=document, expected=n >= lo, got=not n >= lo)
    _expect_raises("malformed_schema_valueerror", lambda: impl.json_schema_to_regex(True),
                   "json_schema_to_regex(True) (the boolean schema of any JSON value: no regular language)",
                   (ValueError,))


def _enumerated_language(trans: np.ndarray, accept: np.ndarray, limit: int) -> set[bytes]:
    """The strings the DFA (``trans`` [n, 256], ``accept`` [n], start 0, DEAD -1) accepts, found depth
    first, stopping once more than ``limit`` are found or a path is 4 x ``limit`` bytes long (so a
    language past ``limit`` strings comes back with ``limit + 1`` and never equals a smaller one)."""
    found: set[bytes] = set()
    stack = [(0, b"")]
    while stack and len(found) <= limit:
        state, text = stack.pop()
        if bool(accept[state]):
            found.add(text)
        if len(text) < 4 * limit:
            stack.extend((int(t), text + bytes([b])) for b, t in enumerate(trans[state]) if t >= 0)
    return found


EOS_WITH_BYTES_PATTERN, EOS_WITH_BYTES_VOCAB = "ab", [b"a", b"b", b"ab", b"</s>"]
"""A vocabulary whose EOS (id 1, then id 2) has bytes that are also a live step of the pattern: EOS is
still m_s[eos] = (s in F), never a step over its bytes."""
INDEX_STATES_OUT_OF_RANGE = (3, 4, 10, 1000, -2)  # "ab" has 3 states
INDEX_TOKENS_OUT_OF_RANGE = (4, 5, 13, 1000, -3)  # EOS_WITH_BYTES_VOCAB has 4 ids
WRONG_INDEX_STATES = (1.0, True, "1")
NOT_VOCABULARIES = ("ab", b"ab")
"""A str and bytes are sequences, but of characters and ints: no vocabulary (TypeError, not ValueError)."""


def test_deep_token_index_refuses_out_of_range_and_wrong_types(impl):
    """Section 2.3 (``m_s[eos] = (s in F)``) and the contract's decisions on ``TokenIndex``: with an EOS
    whose bytes are a live step (``EOS_WITH_BYTES_VOCAB``), ``mask(s)[eos]`` is s in F and, decision
    ``eos_next_state``, ``next_state(s, eos)`` is s when s accepts, else DEAD; decisions
    ``mask_out_of_range_valueerror`` and ``next_state_out_of_range_valueerror``: a state
    (``INDEX_STATES_OUT_OF_RANGE``) or token id (``INDEX_TOKENS_OUT_OF_RANGE``) out of range, however far
    out, raises ValueError; decision ``bad_arguments_refused``: a state that is no int
    (``WRONG_INDEX_STATES``, asked after the int states are cached) and a vocabulary that is a str or
    bytes raise TypeError. Oracle: the derivative oracle's canonical DFA of ``ab``."""
    want_t, want_a = _oracle_tables(EOS_WITH_BYTES_PATTERN)
    dfa = impl.regex_to_dfa(EOS_WITH_BYTES_PATTERN)
    for eos in (1, 2):
        index = impl.TokenIndex(dfa, EOS_WITH_BYTES_VOCAB, eos_id=eos)
        for state in range(want_t.shape[0]):
            accepting = bool(want_a[state])
            got = bool(np.asarray(index.mask(state))[eos])
            if got != accepting:
                fail("m_s[eos] must be s in F, whatever EOS's bytes", pattern=EOS_WITH_BYTES_PATTERN,
                     vocab=EOS_WITH_BYTES_VOCAB, eos=eos, state=state, expected=accepting, got=got)
            after = int(index.next_state(state, eos))
            decision("eos_next_state", after == (state if accepting else DEAD),
                     f"next_state({state}, eos={eos}) gave {after} on {EOS_WITH_BYTES_PATTERN!r} with "
                     f"vocab {EOS_WITH_BYTES_VOCAB} (EOS's bytes are a step), expected "
                     f"{state if accepting else DEAD}")
    index = impl.TokenIndex(dfa, EOS_WITH_BYTES_VOCAB, eos_id=3)
    for state in INDEX_STATES_OUT_OF_RANGE:
        expect_valueerror("mask_out_of_range_valueerror", lambda: index.mask(state),
                          f"TokenIndex.mask({state}) on {EOS_WITH_BYTES_PATTERN!r}'s 3 states")
        expect_valueerror("next_state_out_of_range_valueerror", lambda: index.next_state(state, 0),
                          f"TokenIndex.next_state({state}, 0) on {EOS_WITH_BYTES_PATTERN!r}'s 3 states")
    for token in INDEX_TOKENS_OUT_OF_RANGE:
        expect_valueerror("next_state_out_of_range_valueerror", lambda: index.next_state(0, token),
                          f"TokenIndex.next_state(0, {token}) over 4 ids")
    for state in range(want_t.shape[0]):
        index.mask(state)
    for state in WRONG_INDEX_STATES:
        _expect_raises("bad_arguments_refused", lambda: index.mask(state), f"TokenIndex.mask({state!r})", (TypeError,))
        _expect_raises("bad_arguments_refused", lambda: index.next_state(state, 0),
                       f"TokenIndex.next_state({state!r}, 0)", (TypeError,))
    for vocab in NOT_VOCABULARIES:
        _expect_raises("bad_arguments_refused", lambda: impl.TokenIndex(dfa, vocab, eos_id=0),
                       f"TokenIndex(dfa, vocab={vocab!r})", (TypeError,))


TABLE_PATTERNS = ("(cat|car|dog)s?", "[ab]*")
"""Patterns whose canonical tables ``DFA(trans, accept)`` is given: several states, and one state (where
an ``accept`` of two dimensions, (1, 1), has a first axis of the state count)."""
TABLE_PROBES = (b"", b"a", b"ab", b"abba", b"c", b"cat", b"cats", b"car", b"dog", b"dogs", b"ca", b"catss")


def test_deep_dfa_from_tables_of_other_integer_types(impl):
    """The contract's ``DFA`` (``trans`` int32 [S, 256], ``accept`` bool [S]), decision ``dfa_from_tables``:
    given the derivative oracle's canonical tables of ``TABLE_PATTERNS``, the DFA's ``accept`` is that bool
    array (dtype bool); decision ``dfa_tables_of_other_dtypes``: the same tables as other integer types
    (``trans`` int64, ``accept`` 0/1 integers, int64 and uint8) are that DFA too: trans int32 and accept
    bool, equal to the oracle's, and ``matches`` answers as ``re.fullmatch`` on ``TABLE_PROBES``; decision
    ``dfa_bad_input_refused``: every table of ``bad_dfa_tables`` one change away from the one-state DFA's
    is refused. Oracles: the derivative oracle's canonical DFA and Python's ``re``."""
    for pattern in TABLE_PATTERNS:
        want_t, want_a = _oracle_tables(pattern)
        want_t, want_a = want_t.astype(np.int32), want_a.astype(np.bool_)
        given = impl.DFA(want_t.copy(), want_a.copy())
        decision("dfa_from_tables", np.asarray(given.accept).dtype == np.bool_,
                 f"DFA(trans, accept) of {pattern!r}'s canonical tables has accept of dtype "
                 f"{np.asarray(given.accept).dtype}, not the bool [S] it was given")
        for trans, accept in ((want_t.astype(np.int64), want_a), (want_t, want_a.astype(np.int64)),
                              (want_t.astype(np.int64), want_a.astype(np.uint8))):
            what = f"DFA(trans as {trans.dtype}, accept as {accept.dtype}) of {pattern!r}'s canonical tables"
            try:
                dfa = impl.DFA(trans.copy(), accept.copy())
                got_t, got_a = np.asarray(dfa.trans), np.asarray(dfa.accept)
                same = (got_t.dtype == np.int32 and got_a.dtype == np.bool_ and np.array_equal(got_t, want_t)
                        and np.array_equal(got_a, want_a))
                wrong = [d for d in TABLE_PROBES if bool(dfa.matches(d)) != (re.fullmatch(pattern.encode(), d)
                                                                             is not None)]
            except Exception as exc:  # noqa: BLE001 - refusing valid tables (any class) is the departure
                decision("dfa_tables_of_other_dtypes", False, f"{what} raised {type(exc).__name__}: {first_line(exc)}")
                continue
            decision("dfa_tables_of_other_dtypes", same and not wrong,
                     f"{what}: " + (f"matches differs from re on {wrong[:3]}" if same else
                                    f"the arrays differ from the oracle's (trans {got_t.dtype}, accept {got_a.dtype})"))
    trans, accept = _oracle_tables(TABLE_PATTERNS[1])
    for what, bad_trans, bad_accept in bad_dfa_tables(trans.astype(np.int32), accept.astype(np.bool_)):
        _expect_raises("dfa_bad_input_refused", lambda: impl.DFA(bad_trans, bad_accept),
                       f"DFA(trans, accept) given {what} ({TABLE_PATTERNS[1]!r}'s one state)", (ValueError, TypeError))


REVERSED_RANGE_PATTERNS = ("[z-ab]", "a[c-a]|b")
"""A reversed range beside other class items or branches, which Python's ``re`` refuses as malformed: a
reader dropping the empty range would compile what is left."""
ONLY_NON_ASCII_PATTERNS = ("é", "éé")
"""Patterns of non-ASCII characters only (the spec's subset is bytes patterns: refused)."""
NESTED_GROUPS = 300
"""Groups nested inside one another around ``a`` (Python's ``re`` compiles the pattern): compiled with
Python's meaning or refused with ValueError (a size bound), never with another exception."""
PATTERNS_OF_WRONG_TYPE = (["a"], ("a",))


def test_deep_parser_refuses_reversed_ranges_non_ascii_and_deep_nests_cleanly(impl):
    """Section 2.1 ("the subset is Python's own"; non-ASCII refused) and the contract's decisions:
    ``unsupported_syntax_valueerror``: a reversed range Python's ``re`` refuses (``REVERSED_RANGE_PATTERNS``,
    asked of ``re`` here) and a pattern of non-ASCII characters only (``ONLY_NON_ASCII_PATTERNS``) raise
    ValueError; ``deep_nest_compiled_or_valueerror``: ``NESTED_GROUPS`` nested groups compile (matching
    exactly ``a``, as ``re.fullmatch`` says) or are refused with ValueError, never another exception (two
    correct readings recurse and fail there: a note in the default tier); ``bytes_pattern_typeerror``: a
    list or tuple pattern raises TypeError. Oracle: Python's ``re``."""
    for pattern in REVERSED_RANGE_PATTERNS:
        if not _python_refuses(pattern):
            raise RuntimeError(f"harness bug: Python's re accepts {pattern!r}")
        expect_valueerror("unsupported_syntax_valueerror", lambda: impl.regex_to_dfa(pattern),
                          "a pattern Python's re refuses as malformed must be refused", pattern=pattern)
    for pattern in ONLY_NON_ASCII_PATTERNS:
        expect_valueerror("unsupported_syntax_valueerror", lambda: impl.regex_to_dfa(pattern),
                          "a non-ASCII pattern must be refused (the subset is bytes patterns)", pattern=pattern)
    nest = "(" * NESTED_GROUPS + "a" + ")" * NESTED_GROUPS
    try:
        dfa = impl.regex_to_dfa(nest)
    except ValueError:
        dfa = None
    except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
        decision("deep_nest_compiled_or_valueerror", False, f"{NESTED_GROUPS} nested groups around 'a' raised "
                                                            f"{type(exc).__name__}: {first_line(exc)}")
        dfa = None
    for text in (b"", b"a", b"aa", b"(a)", b"b") if dfa is not None else ():
        want = re.fullmatch(nest.encode(), text) is not None
        if bool(dfa.matches(text)) != want:
            fail(f"DFA.matches disagrees with re on {NESTED_GROUPS} nested groups", pattern=nest[:12] + "...",
                 data=text, expected=want, got=bool(dfa.matches(text)))
    for pattern in PATTERNS_OF_WRONG_TYPE:
        _expect_raises("bytes_pattern_typeerror", lambda: impl.regex_to_dfa(pattern), f"regex_to_dfa({pattern!r})",
                       (TypeError,))

# --- vocab_bytes: specials, holes and bytes entries, and malformed tokenizers (kill10v: issue 52 item 3) ---

SPECIAL_FIRST = (["<s>", "\u0120hi", "a b", "cat", "</s>"], [0, 4])
"""A small tokenizer (five ids, a special first and last), as ``SpecTokenizer`` hands one: section 2.3's
"special tokens get None" for id 0, the id a BOS token has in many vocabularies."""
MIDDLE_SPECIAL_RANKS = {b"a": 0, b"b": 1, b" the": 3, b"\xe4\xb8": 5}
MIDDLE_SPECIALS = {"<|start|>": 2, "<|end|>": 6}
"""A tiktoken-style encoding with a special token between ordinary ones (id 2), a hole (4) and a special
last (6), read through tiktoken's public API only (``TiktokenPublic``: no private table)."""
TRANSFORMERS_ENTRIES = (["\u0120a", None, "b", "<s>"], [3, 4, 9])
"""A transformers tokenizer answering None for a hole (id 1, as fast tokenizers' ``convert_ids_to_tokens``
does) and listing special ids past ``len(tok)`` (4, 9) beside one inside (3)."""
BYTES_ENTRIES = ["\u0120a", b"\xe4\xb8", "c"]
"""A transformers tokenizer answering bytes for a token (id 1), as tiktoken-based ones (Qwen's) do."""


def test_deep_vocab_bytes_reads_specials_holes_and_bytes(impl):
    """Section 2.3 ("special tokens get None"): a special token at id 0 of a small tokenizer
    (``SPECIAL_FIRST``, handed as the default tier hands one) is None, the others the spec's rule's
    bytes. Decision ``vocab_bytes_tiktoken``: a tiktoken-style encoding read through its public API
    (``MIDDLE_SPECIAL_RANKS``: a special between ordinary tokens is None and the tokens after it are
    read). Decision ``vocab_bytes_transformers``: ``TRANSFORMERS_ENTRIES`` read over ``range(len(tok))``,
    a hole None, specials past ``len`` ignored; decision ``vocab_bytes_bytes_tokens``: a bytes entry
    (``BYTES_ENTRIES``) is its bytes; decision ``vocab_bytes_empty``: a tokenizer with no token gives
    ``[]``. Oracle: the spec's rule computed here (``inputs.expected_bytes``) and the encodings' own
    data."""
    from harness.sandbox.shapes import SpecTokenizer, TiktokenPublic, TokenizersLike, TransformersLike

    inverse = {ch: b for b, ch in gpt2_byte_map().items()}
    tokens, specials = SPECIAL_FIRST
    want = [None if i in specials else expected_bytes(t, inverse) for i, t in enumerate(tokens)]
    try:
        got = [bytes(g) if isinstance(g, (bytes, bytearray)) else g
               for g in impl.vocab_bytes(SpecTokenizer(tokens, special_ids=specials))]
    except Exception as exc:  # noqa: BLE001 - the spec's tokenizer must be read
        fail("vocab_bytes raised on a tokenizer with a special token at id 0", tokens=tokens, special_ids=specials,
             error=f"{type(exc).__name__}: {first_line(exc)}")
    if got != want:
        fail("vocab_bytes: special tokens get None, every other token its bytes by the spec's rule (2.3)",
             tokens=tokens, special_ids=specials, expected=want, got=got)
    by_id = {i: b for b, i in MIDDLE_SPECIAL_RANKS.items()}
    top = max([*by_id, *MIDDLE_SPECIALS.values()]) + 1
    _vocab_bytes_equal(impl, "vocab_bytes_tiktoken", "a tiktoken-style encoding with a special token in the "
                       "middle, read through its public API", TiktokenPublic(MIDDLE_SPECIAL_RANKS, MIDDLE_SPECIALS),
                       list(range(top)), [None if i in MIDDLE_SPECIALS.values() else by_id.get(i) for i in range(top)])
    entries, special_ids = TRANSFORMERS_ENTRIES
    want = [None if i in special_ids or e is None else e if isinstance(e, bytes) else expected_bytes(e, inverse)
            for i, e in enumerate(entries)]
    _vocab_bytes_equal(impl, "vocab_bytes_transformers", "a transformers tokenizer with a hole and special ids "
                       "past len", TransformersLike(entries, special_ids), entries, want)
    want = [e if isinstance(e, bytes) else expected_bytes(e, inverse) for e in BYTES_ENTRIES]
    _vocab_bytes_equal(impl, "vocab_bytes_bytes_tokens", "a transformers tokenizer answering bytes for a token",
                       TransformersLike(BYTES_ENTRIES), BYTES_ENTRIES, want)
    _vocab_bytes_equal(impl, "vocab_bytes_empty", "a tokenizers.Tokenizer with no token", TokenizersLike([]), [], [])


def _malformed_tokenizers() -> list:
    """(what, tokenizer): tokenizers of the kinds the contract reads, each malformed in the one way named."""
    from harness.sandbox.shapes import TiktokenPublic, TokenizersLike, TransformersLike

    return [
        ("a tiktoken-style encoding whose special token has id -1",
         TiktokenPublic(MIDDLE_SPECIAL_RANKS, {"<|s|>": -1})),
        ("a tokenizers.Tokenizer whose get_vocab gives id 0 to two tokens",
         TokenizersLike([("a", 0), ("b", 0), ("c", 1)])),
        ("a tokenizers.Tokenizer whose get_vocab holds a bytes token", TokenizersLike([(b"ab", 0), ("c", 1)])),
        ("a tokenizers.Tokenizer whose get_vocab gives a token the id '1'", TokenizersLike([("a", 0), ("b", "1")])),
        ("a tiktoken-style encoding whose decode_single_token_bytes answers a str for id 1",
         TiktokenPublic({b"a": 0, "b": 1}, {})),
        ("a tokenizers.Tokenizer whose added token has content None",
         TokenizersLike([("a", 0), ("x", 1)], [(1, None, False)])),
        ("a tokenizers.Tokenizer whose added token (not special) holds a lone surrogate",
         TokenizersLike([("a", 0), ("x", 1)], [(1, "\ud800", False)])),
        ("a transformers tokenizer whose token holds a lone surrogate", TransformersLike(["a", "b\ud800"])),
        ("a transformers tokenizer whose convert_ids_to_tokens answers 2 tokens for 3 ids",
         TransformersLike(["a", "b", "c"], answer=["a", "b"])),
        ("a transformers tokenizer whose convert_ids_to_tokens answers 4 tokens for 3 ids",
         TransformersLike(["a", "b", "c"], answer=["a", "b", "c", "d"])),
        ("a transformers tokenizer whose convert_ids_to_tokens answers a str",
         TransformersLike(["a", "b", "c"], answer="abc")),
        ("a transformers tokenizer whose token is an int", TransformersLike(["a", 5, "b"])),
    ]


def test_deep_vocab_bytes_refuses_malformed_tokenizers(impl):
    """Decision ``vocab_bytes_malformed_refused`` (the spec is silent): a tokenizer of a kind the
    contract reads, malformed (``_malformed_tokenizers``: a negative id, an id that is no int, two
    tokens with one id, a token that is no str, a lone surrogate, an added token whose content is
    None, an answer of ``convert_ids_to_tokens`` that is not one token an id, an answer of
    ``decode_single_token_bytes`` that is no bytes), is refused with ValueError or TypeError, never
    read into a vocabulary that shifts, drops or invents an id; added tokens whose ids are past
    ``get_vocab``'s are refused so, or ignored. Oracle: each tokenizer's data."""
    from harness.sandbox.shapes import TokenizersLike

    for what, tok in _malformed_tokenizers():
        _expect_raises("vocab_bytes_malformed_refused", lambda: impl.vocab_bytes(tok), f"vocab_bytes({what})",
                       (ValueError, TypeError))
    tok = TokenizersLike([("a", 0), ("b", 1)], [(2, "<x>", True), (3, "<y>", False)])
    try:
        got = impl.vocab_bytes(tok)
    except (ValueError, TypeError):
        return
    except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
        got = f"{type(exc).__name__}: {first_line(exc)}"
    decision("vocab_bytes_malformed_refused", got == [b"a", b"b"], "vocab_bytes(a tokenizers.Tokenizer whose added "
             f"tokens 2 and 3 are past its get_vocab's ids 0..1): expected [b'a', b'b'] or a refusal, got {got!r}")
