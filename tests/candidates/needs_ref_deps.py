"""Correct but incomplete in the spec's allowed way ("Needs: L8.1 sampling, M05.2 the
GPT-2 byte map (unicode_to_bytes) (or --ref-deps)"): no sampling and no byte map of its
own (``SamplingParams``, ``sample``, ``bytes_to_unicode``, ``unicode_to_bytes``
missing). Its ``constrained_sample`` calls the global ``sample`` (L8.1's) and its
``vocab_bytes`` decodes token strings through the global ``unicode_to_bytes`` (M05.2's),
as a student's module that imports them from the earlier modules does.
Expected: those names listed as missing and the tests that need them
(test_vocab_bytes, the sampling tests) fail without ``--ref-deps``; all pass with it."""

import numpy as np

from oracles.automaton import DEAD, DFA, Constraint, TokenIndex, apply_mask, json_schema_to_regex, regex_to_dfa  # noqa: F401  # noqa: F401
from oracles.automaton import vocab_bytes as _reference_vocab_bytes


def vocab_bytes(tok, special_ids=None):
    """A token list's bytes: each string through M05.2's byte map when every character is
    a map character, else its UTF-8; specials (the tokenizer's and ``special_ids``) None.
    Other tokenizer kinds (tiktoken, ``tokenizers``) as the reference reads them."""
    if not hasattr(tok, "special_ids"):
        return _reference_vocab_bytes(tok, special_ids)
    table = unicode_to_bytes()  # noqa: F821 - M05.2's, supplied by --ref-deps
    specials = set(tok.special_ids) | set(special_ids or ())
    return [None if i in specials else _token_bytes(token, table) for i, token in enumerate(tok)]


def _token_bytes(token: str, table: dict) -> bytes:
    if all(ch in table for ch in token):
        return bytes(table[ch] for ch in token)
    return token.encode("utf-8")


def constrained_sample(logits, c, p, history, rng, prompt=()):
    if c.done:
        raise ValueError("the constraint is done: nothing may follow EOS")
    masked = apply_mask(logits, c.mask())
    token, logprob = sample(masked, p, history, rng, prompt)  # noqa: F821 - supplied by --ref-deps
    c.advance(token)
    return token, logprob


_ = np
