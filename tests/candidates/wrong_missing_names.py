"""Wrong: lacks TokenIndex.next_state and constrained_sample, and regex_to_dfa takes an
extra required argument. Must fail: the contract check (exit 2), naming all three."""

from oracles.automaton import (  # noqa: F401  # noqa: F401
    DEAD,
    DFA,
    Constraint,
    SamplingParams,
    apply_mask,
    bytes_to_unicode,
    json_schema_to_regex,
    sample,
    unicode_to_bytes,
    vocab_bytes,
)
from oracles.automaton import TokenIndex as _ReferenceIndex
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


class TokenIndex:
    def __init__(self, dfa, vocab, eos_id=None):
        self._index = _ReferenceIndex(dfa, vocab, eos_id)

    def mask(self, state):
        return self._index.mask(state)


def regex_to_dfa(pattern, flags):
    return _reference_regex_to_dfa(pattern)
