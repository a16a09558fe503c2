"""The grader's oracle memo (``harness.suite.oracle_memo``): a kept answer is the function's own for
exactly its inputs, handed out as a copy, with any generator left where the draws leave it; an input
that differs in anything the function reads is computed; the memo is filled only by ``fill``, from
inputs a recording fork wrote down as data (the calls its memo missed), and is off under its switch.
In process, seeded."""

from __future__ import annotations

import numpy as np
import pytest

from harness.sandbox.channel import decode, pack
from harness.suite import definitions, inputs, oracle_memo, session, strength
from harness.suite.inputs import HAND_EOS, HAND_VOCAB, RE_PATTERNS, hand_trans, pattern_alphabet, random_vocab_drawn
from oracles import automaton
from oracles.stdlib import check_document

pytestmark = pytest.mark.unit

SCHEMA = {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "string"}},
          "required": ["b"], "additionalProperties": False}


@pytest.fixture
def memo():
    """An empty memo before and after the test (the module's state is this process's)."""
    oracle_memo.forget()
    yield oracle_memo
    oracle_memo.forget()
    oracle_memo._RECORDING = None


def _tables(pattern: str):
    dfa = automaton.regex_to_dfa(pattern)
    return np.asarray(dfa.trans), np.asarray(dfa.accept)


def _recorded(calls) -> list:
    """What a recording fork writes and the warm grader reads: ``calls`` made under recording, as
    the channel's data, packed and decoded."""
    oracle_memo._RECORDING = []
    try:
        for name, args in calls:
            oracle_memo.answer(name, *args)
        return decode(pack(oracle_memo._RECORDING))
    finally:
        oracle_memo._RECORDING = None


def test_kept_answers_are_the_functions_own_and_inputs_that_differ_are_computed(memo):
    rng = np.random.default_rng(11)
    cases = []
    for pattern in RE_PATTERNS[:4]:
        trans, accept = _tables(pattern)
        vocab, eos_id = random_vocab_drawn(rng, pattern_alphabet(pattern)[:60], 40, True)
        cases.append((trans, accept, vocab, eos_id))
    kept = memo.fill(_recorded([("brute_force", case) for case in cases]))
    assert kept == len(cases) and memo.size()[0] == len(cases)
    for trans, accept, vocab, eos_id in cases:
        want = definitions.brute_force(trans, accept, vocab, eos_id)
        got = memo.answer("brute_force", trans, accept, vocab, eos_id)
        assert all(np.array_equal(w, g) and w.dtype == g.dtype for w, g in zip(want, got))
        got[0][:] = ~got[0]   # a test writing into what it got changes nothing kept
        again = memo.answer("brute_force", trans, accept, vocab, eos_id)
        assert np.array_equal(again[0], want[0])
        # one cell of the table, the accepting states, a token, EOS, the dtype: each its own answer
        other = trans.copy()
        other[0, other[0] >= 0] = -1
        eos_other = (eos_id + 1) % len(vocab)
        for changed in ((other, accept, vocab, eos_id), (trans, ~accept, vocab, eos_id),
                        (trans, accept, [b"zz", *vocab[1:]], eos_id), (trans, accept, vocab, eos_other),
                        (trans.astype(np.int64), accept, vocab, eos_id)):
            want_changed = definitions.brute_force(*changed)
            got_changed = memo.answer("brute_force", *changed)
            assert all(np.array_equal(w, g) for w, g in zip(want_changed, got_changed))
        assert not np.array_equal(definitions.brute_force(other, accept, vocab, eos_id)[0], want[0])


def test_a_kept_vocabulary_leaves_the_generator_where_its_draws_do(memo):
    alphabet = pattern_alphabet(RE_PATTERNS[0])[:60]
    start = np.random.default_rng(99)
    start.random(3)
    state = start.bit_generator.state
    memo.fill(_recorded([("random_vocab", (np.random.default_rng(99), alphabet, 30, True))]))
    assert memo.size()[0] == 1   # a fresh generator's state: three draws before ``start``'s
    a, b = _generator(state), _generator(state)
    assert inputs.random_vocab(a, alphabet, 30, True) == random_vocab_drawn(b, alphabet, 30, True)
    assert a.bit_generator.state == b.bit_generator.state
    memo.fill(_recorded([("random_vocab", (_generator(state), alphabet, 30, True))]))
    assert memo.size()[0] == 2
    drawn, kept = _generator(state), _generator(state)
    want = random_vocab_drawn(drawn, alphabet, 30, True)
    got = inputs.random_vocab(kept, alphabet, 30, True)
    assert got == want
    assert kept.bit_generator.state == drawn.bit_generator.state
    assert kept.random(5).tolist() == drawn.random(5).tolist()   # the draws after it, the same
    # the same generator one draw further, another alphabet, another count: computed, as drawn
    for rng_args in ((1, alphabet, 30, True), (0, alphabet[:5], 30, True), (0, alphabet, 31, True),
                     (0, alphabet, 30, False)):
        skip, *rest = rng_args
        a, b = _generator(state), _generator(state)
        a.random(skip)
        b.random(skip)
        assert inputs.random_vocab(a, *rest) == random_vocab_drawn(b, *rest)
        assert a.bit_generator.state == b.bit_generator.state


def _generator(state: dict) -> np.random.Generator:
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    return rng


def test_the_seeded_enum_is_kept_by_the_run_seed(memo):
    memo.fill(_recorded([("large_enum", (0,))]))
    assert memo.size()[0] == 1
    for seed in (0, 5):
        session.use(state := session.CatalogueState(seed=seed))
        try:
            want = strength._large_enum()
            got = memo.answer("large_enum", seed)
        finally:
            session.release(state)
        assert got == want and len(got) == 5000
        got.clear()   # a fresh list each time
        assert len(memo.answer("large_enum", seed)) == 5000
    assert memo.answer("large_enum", 0) != memo.answer("large_enum", 5)


def test_documents_and_language_pairs_are_kept_by_their_text(memo):
    documents = ['{"b":1,"a":"x"}', '{"a":"x","b":1}', '{"b":1.5}', b'{"b":2}', '{"b":1,"c":2}', "[1]"]
    pairs = [("ab|ac", "a(b|c)"), ("a*", "a*a*"), ("ab", "ab|b")]
    memo.fill(_recorded([("check_document", (SCHEMA, document)) for document in documents]
                        + [("same_language", pair) for pair in pairs]))
    assert memo.size()[0] == len(documents) + len(pairs)
    for document in documents + ['{"b":3}', '{"b":1,"a":"x"} ']:
        assert memo.answer("check_document", SCHEMA, document) == check_document(SCHEMA, document)
    reordered = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                 "required": ["b"], "additionalProperties": False}   # the order of properties is read
    assert memo.answer("check_document", reordered, '{"b":1,"a":"x"}') == check_document(reordered, '{"b":1,"a":"x"}')
    assert memo.answer("check_document", reordered, '{"b":1,"a":"x"}').ordered != \
        memo.answer("check_document", SCHEMA, '{"b":1,"a":"x"}').ordered
    for left, right in pairs + [("a|b", "b|a")]:
        assert memo.answer("same_language", left, right) == definitions.same_language_counterexample(left, right)
    assert memo.answer("same_language", "ab", "ab|b") == b"b"


def test_re_patterns_are_compiled_into_res_own_cache(memo):
    import re

    pattern = "(memo-test-" + "x" * 40 + ")+"
    memo.fill([["re", [pattern, 0]], ["re", [pattern.encode(), int(re.IGNORECASE)]], ["re", [3, 0]]])
    assert ["re", [pattern, 0]] in oracle_memo._re_patterns()
    assert ["re", [pattern.encode(), int(re.IGNORECASE)]] in oracle_memo._re_patterns()
    assert memo.size()[0] == 0   # re keeps them, not the memo


def test_nothing_else_fills_it_and_bad_records_are_skipped(memo):
    trans, accept = np.asarray(hand_trans()), np.asarray([False] * 5 + [True, True])
    memo.answer("brute_force", trans, accept, HAND_VOCAB, HAND_EOS)   # no memo: computed, nothing kept
    assert memo.size() == (0, 0)
    assert memo.fill([["brute_force", [1, 2]], ["no such oracle", []], "not a call", ["large_enum", ["0"]]]) == 0
    assert memo.size() == (0, 0)


def test_the_switch_and_what_a_fork_writes_down(memo, tmp_path, monkeypatch):
    """A default-tier run records (not a deep one, nor anything without a run); a recording fork
    writes down the inputs of the calls the memo misses, never of one it holds, and the patterns
    ``re`` compiled since it began; the warm grader's ``fill_from`` then holds them all."""
    import re

    from harness.policy import POLICY
    from harness.run import CatalogueRun
    from harness.run.launch import pytest_arguments

    monkeypatch.delenv(oracle_memo.OFF_VARIABLE, raising=False)
    assert memo.wanted({}) and not memo.wanted({oracle_memo.OFF_VARIABLE: "1"})
    monkeypatch.setenv(oracle_memo.OFF_VARIABLE, "1")
    assert not memo.wanted({})
    monkeypatch.delenv(oracle_memo.OFF_VARIABLE)
    run = CatalogueRun(impl="/tmp/mutant_x", deep=False, seed=7, only=frozenset({"test_hand_example"}),
                       results_file="/tmp/r.jsonl", policy=POLICY.with_(tier="default", test_cpu_seconds=10))
    assert memo.records([*pytest_arguments(run), "-x"])
    assert not memo.records(pytest_arguments(run.with_(deep=True)))
    assert not memo.records(["-q", "--run"])
    held, missed = _tables("(ab)*"), _tables("a|bb")
    memo.fill(_recorded([("brute_force", (*held, HAND_VOCAB, HAND_EOS))]))
    assert memo.size()[0] == 1
    pattern = "x(?:yz)+w#%d" % np.random.default_rng(7).integers(1 << 30)   # no other test compiled it
    memo.begin_recording()
    try:
        memo.answer("brute_force", *held, HAND_VOCAB, HAND_EOS)   # held: not written down
        memo.answer("brute_force", *missed, HAND_VOCAB, HAND_EOS)
        re.compile(pattern)
    finally:
        written = memo.end_recording(str(tmp_path / "record.msgpack"))
    assert oracle_memo._RECORDING is None
    calls = decode((tmp_path / "record.msgpack").read_bytes())
    assert written == len(calls) == 2, calls
    assert calls[0][0] == "brute_force" and np.array_equal(calls[0][1][0], missed[0])
    assert calls[1] == ["re", [pattern, 0]]
    assert memo.fill_from(str(tmp_path / "record.msgpack")) == 1 and memo.size()[0] == 2
    assert memo.fill_from(str(tmp_path / "none.msgpack")) == 0


def test_probe_strings_and_their_answers_are_kept_by_table_and_generator(memo):
    import re

    from golden.readings import by_length, first_disagreement_with_re, probe_strings
    from oracles.stdlib import partial_match

    pattern = RE_PATTERNS[1]
    trans, accept = _tables(pattern)
    start = np.random.default_rng(20240603)
    state = start.bit_generator.state
    extra = (b"", b"a", b"ab")
    memo.fill(_recorded([("re_probes", (pattern, trans, accept, _generator(state), 25)),
                         ("live_probes", (pattern, trans, accept, _generator(state), 8)),
                         ("re_disagreement", (pattern, trans, accept, extra))]))
    assert memo.size()[0] == 3
    other = trans.copy()
    other[0, np.flatnonzero(other[0] >= 0)[0]] = -1   # another table (an edge of the start dropped): its own
    assert not np.array_equal(other, trans)
    for table in (trans, other):
        drawn, kept = _generator(state), _generator(state)
        strings = by_length(probe_strings(table, accept, drawn, 25))
        oracle = re.compile(pattern.encode("ascii"))
        got = memo.answer("re_probes", pattern, table, accept, kept, 25)
        assert got == (strings, [oracle.fullmatch(data) is not None for data in strings])
        assert kept.bit_generator.state == drawn.bit_generator.state
        drawn, kept = _generator(state), _generator(state)
        strings = by_length(probe_strings(table, accept, drawn, 8))[:300]
        got = memo.answer("live_probes", pattern, table, accept, kept, 8)
        assert got == (strings, [partial_match(pattern, data) for data in strings])
        assert kept.bit_generator.state == drawn.bit_generator.state
        assert memo.answer("re_disagreement", pattern, table, accept, extra) == \
            first_disagreement_with_re(pattern, table, accept, extra=extra)
    assert memo.answer("re_probes", pattern, trans, accept, _generator(state), 24) != \
        memo.answer("re_probes", pattern, trans, accept, _generator(state), 25)
    wrong = ~accept   # a table that disagrees with re: the kept None is not handed to it
    assert memo.answer("re_disagreement", pattern, trans, wrong, extra) is not None
