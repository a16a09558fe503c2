"""Issue 25, item 5: the reference's API edges answer with the contract's errors, and
logprobs stay exact for any finite logits.

Each case was a defect: an odd tokenizer (an added token whose content is an int, a
``convert_ids_to_tokens`` that returns too few entries, two tokens with one rank,
``numpy.int64`` special ids, an added token with no UTF-8), sampling (a history id
0.5 read as 0, ``2**70``, complex logits, ``temperature=10**400``), a ragged ``DFA``
table, malformed annotations (``description: 5``, ``examples: "x"``, ``default:
NaN``, a name twice in ``required``), and ``sample([1e16, 1e16], T=0)`` giving 0.0.
Each now raises a ``ConstrainError`` (a ValueError) or a TypeError naming what and
where, or is accepted as stated (``numpy.int64`` ids).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from facts.hand import HAND_EOS, HAND_PATTERN, HAND_VOCAB
from oracles.automaton import Constraint, TokenIndex, json_schema_to_regex, regex_to_dfa, vocab_bytes
from oracles.automaton.dfa import DFA
from oracles.automaton.errors import ConstrainError, InvalidArgument, SchemaMalformed
from oracles.automaton.sampling import SamplingParams, constrained_sample, sample

pytestmark = pytest.mark.boundary


# --- vocab_bytes on odd tokenizers ------------------------------------------------------------

class HFLike:
    """Duck-typed ``tokenizers.Tokenizer``: ``get_vocab`` and ``get_added_tokens_decoder``."""

    def __init__(self, table, added):
        self.table, self.added = table, added

    def get_vocab(self, with_added_tokens=True):
        return dict(self.table)

    def get_added_tokens_decoder(self):
        return dict(self.added)


class TransformersLike:
    """Duck-typed ``transformers`` tokenizer."""

    def __init__(self, tokens, specials, returned=None):
        self.tokens, self.all_special_ids, self.returned = tokens, specials, returned

    def __len__(self):
        return len(self.tokens)

    def convert_ids_to_tokens(self, ids):
        return self.returned if self.returned is not None else [self.tokens[i] for i in ids]


class RanksLike:
    def __init__(self, ranks, special):
        self._mergeable_ranks, self._special_tokens = ranks, special


def refused(call, error, *words):
    with pytest.raises(error) as info:
        call()
    if issubclass(error, ValueError):
        assert isinstance(info.value, ConstrainError), type(info.value)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_an_added_token_whose_content_is_not_text_is_named():
    tok = HFLike({"a": 0, "b": 1}, {1: SimpleNamespace(content=7, special=False)})
    refused(lambda: vocab_bytes(tok), InvalidArgument, "added token 1", "content 7")


def test_an_added_token_with_no_utf8_is_named():
    tok = HFLike({"a": 0, "b": 1}, {1: SimpleNamespace(content="x\ud800", special=False)})
    refused(lambda: vocab_bytes(tok), InvalidArgument, "added token 1", "UTF-8")


def test_added_tokens_as_literal_text_and_specials():
    tok = HFLike({"a": 0, "Ġb": 1, "<s>": 2}, {1: SimpleNamespace(content="Ġb", special=False),
                                               2: SimpleNamespace(content="<s>", special=True)})
    assert vocab_bytes(tok) == [b"a", "Ġb".encode(), None]  # an added token is literal text: no byte map


def test_convert_ids_to_tokens_returning_too_few_is_refused():
    tok = TransformersLike(["a", "b", "c"], [], returned=["a", "b"])
    refused(lambda: vocab_bytes(tok), InvalidArgument, "returned 2 tokens", "3 ids")


def test_two_tokens_with_one_rank_are_refused():
    refused(lambda: vocab_bytes(RanksLike({b"a": 0, b"b": 0, b"c": 1}, {})), InvalidArgument,
            "b'a'", "b'b'", "id 0")
    refused(lambda: vocab_bytes(HFLike({"a": 0, "b": 0}, {})), InvalidArgument, "'a'", "'b'", "id 0")


def test_numpy_integer_ids_are_accepted_as_ids():
    assert vocab_bytes(["a", "b", "c"], special_ids=np.array([2])) == [b"a", b"b", None]
    assert vocab_bytes(["a", "b"], special_ids=[np.int64(0)]) == [None, b"b"]
    assert vocab_bytes(TransformersLike(["a", "b"], [np.int64(1)])) == [b"a", None]
    assert vocab_bytes(RanksLike({b"a": np.int64(0), b"b": np.int32(1)}, {"<e>": np.int64(2)})) == [b"a", b"b", None]
    refused(lambda: vocab_bytes(["a"], special_ids=[True]), TypeError, "True")
    refused(lambda: vocab_bytes(["a"], special_ids=[0.0]), TypeError, "0.0")


# --- sampling ----------------------------------------------------------------------------------

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("history, error, words", [
    ([0.5], TypeError, ("0.5", "float")),           # was read as id 0
    ([1.0], TypeError, ("1.0", "float")),
    ([True], TypeError, ("True", "bool")),
    ([2 ** 70], InvalidArgument, ("out of range",)),  # was OverflowError
    ([-1], InvalidArgument, ("-1", "out of range")),
    (["a"], TypeError, ("'a'",)),
])
def test_history_ids_must_be_ints_in_range(history, error, words):
    for p in (SamplingParams(0), SamplingParams(1.0, repetition_penalty=1.3)):
        refused(lambda: sample([1.0, 2.0], p, history, RNG), error, *words)
        refused(lambda: sample([1.0, 2.0], p, [], RNG, prompt=history), error, *words)


def test_numpy_history_ids_are_ids():
    assert sample([1.0, 2.0], SamplingParams(0, repetition_penalty=4.0), [np.int64(1)], RNG)[0] == 0


@pytest.mark.parametrize("logits", [[1 + 2j, 0.0], np.array([1.0, 2.0], dtype=complex), ["1", "2"], [None, 1.0]])
def test_logits_must_be_real_numbers(logits):
    refused(lambda: sample(logits, SamplingParams(0), [], RNG), TypeError, "real numbers")


@pytest.mark.parametrize("name", ["temperature", "top_p", "repetition_penalty"])
def test_an_int_past_the_float_range_is_not_finite(name):
    refused(lambda: SamplingParams(**{name: 10 ** 400}), InvalidArgument, name, "finite")


def log_softmax(x, token):
    """The oracle: exact for small integer logits (math.fsum of exact exponentials)."""
    return x[token] - math.log(math.fsum(math.exp(v) for v in x if v != -math.inf))


def test_equal_huge_logits_give_log_one_half():
    for big in (1e16, 1e300, -1e300, 1.7976931348623157e308):
        assert sample([big, big], SamplingParams(0), [], RNG) == (0, pytest.approx(-math.log(2), abs=1e-15))
    index = TokenIndex(regex_to_dfa("a|b"), [b"a", b"b", None], 2)
    token, logprob = constrained_sample([1e16, 1e16, 1e16], Constraint(index), SamplingParams(0), [], RNG)
    assert token == 0 and logprob == pytest.approx(-math.log(2), abs=1e-15)


@given(st.lists(st.integers(-30, 30), min_size=1, max_size=12), st.sampled_from([0, 2 ** 40, 2 ** 52, -2 ** 52]),
       st.sampled_from([0.0, 1.0]), st.integers(0, 2 ** 32 - 1))
def test_logprobs_do_not_depend_on_a_shift_of_the_logits(small, shift, temperature, seed):
    """log_softmax is shift-invariant: logits shifted by an exactly representable 2**52
    give the logprob of the unshifted ones, as the exact oracle computes it."""
    x = [float(v) for v in small]
    shifted = [v + shift for v in x]
    assert shifted == [float(v + shift) for v in small]  # the shift is exact
    token, logprob = sample(shifted, SamplingParams(temperature), [], np.random.default_rng(seed))
    assert logprob == pytest.approx(log_softmax(x, token), abs=1e-9)


def test_the_hand_example_logprob_still_holds():
    index = TokenIndex(regex_to_dfa("ab?"), [b"a", b"b", b"c", None], 3)
    c = Constraint(index)
    assert constrained_sample([0.0, 1.0, 5.0, 2.0], c, SamplingParams(0), [], RNG) == (0, 0.0)
    token, logprob = constrained_sample([0.0, 1.0, 5.0, 2.0], c, SamplingParams(0), [0], RNG)
    assert token == 3 and logprob == pytest.approx(2 - math.log(math.e + math.e ** 2), abs=1e-15)
    assert regex_to_dfa(HAND_PATTERN) and len(HAND_VOCAB) > HAND_EOS  # the facts still load


# --- tables and schemas --------------------------------------------------------------------------

def test_a_ragged_table_is_the_contracts_error():
    refused(lambda: DFA([[0] * 256, [0] * 255], [True, False]), InvalidArgument, "trans", "rectangular")
    refused(lambda: DFA([[-1] * 256], [[True], True]), InvalidArgument, "accept", "rectangular")


@pytest.mark.parametrize("schema, pointer, words", [
    ({"type": "string", "description": 5}, "/description", ("description", "string")),
    ({"type": "string", "title": ["t"]}, "/title", ("title", "string")),
    ({"type": "string", "examples": "x"}, "/examples", ("examples", "array")),
    ({"type": "string", "default": math.nan}, "/default", ("NaN",)),
    ({"type": "string", "examples": [math.inf]}, "/examples", ("NaN and infinities",)),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a"]}, "/required/1",
     ("'a'", "twice")),
    ({"type": "array", "items": {"type": "null", "$comment": 3}}, "/items/$comment", ("$comment",)),
])
def test_malformed_annotations_are_malformed_schemas(schema, pointer, words):
    with pytest.raises(SchemaMalformed) as info:
        json_schema_to_regex(schema)
    assert info.value.pointer == pointer and all(w in str(info.value) for w in words), str(info.value)


def test_well_formed_annotations_change_nothing():
    plain = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    annotated = {**plain, "title": "t", "description": "d", "examples": [{"a": 1}], "default": {"a": 1},
                 "$comment": "c"}
    assert json_schema_to_regex(annotated) == json_schema_to_regex(plain)
