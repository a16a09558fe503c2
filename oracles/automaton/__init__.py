"""The reference pipeline: regex and JSON-schema subset to canonical byte DFA to token masks.

Main access point: ``regex_to_dfa(pattern)``; then ``TokenIndex(dfa, vocab, eos_id)``
and ``Constraint(index)``. This package exports exactly the contract's names
(``harness/contract/constrain.pyi``), one module per stage:

    parser       pattern text -> tree of byte sets (``ast``)
    nfa          tree -> Thompson NFA
    determinize  NFA -> DFA over byte classes (subset construction)
    minimize     liveness, Moore minimization, breadth-first numbering
    dfa          the DFA data type, DEAD
    schema       JSON-schema subset -> pattern
    bytemap      the GPT-2 byte map;  vocab: vocab_bytes
    index        TokenIndex (byte trie masks);  constraint: Constraint
    sampling     SamplingParams, sample, apply_mask, constrained_sample
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "DEAD": "dfa",
    "DFA": "dfa",
    "regex_to_dfa": "compile",
    "json_schema_to_regex": "schema",
    "TokenIndex": "index",
    "Constraint": "constraint",
    "SamplingParams": "sampling",
    "sample": "sampling",
    "apply_mask": "sampling",
    "constrained_sample": "sampling",
    "vocab_bytes": "vocab",
    "bytes_to_unicode": "bytemap",
    "unicode_to_bytes": "bytemap",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    # Lazy: importing the package costs nothing until a name is used.
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
