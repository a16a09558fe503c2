"""Equivalence with evidence: a survivor is "equivalent" only on a stated, exhaustive domain.

A generated mutant that survives the default tier and agrees with the reference on the corpus
(``equivalence``) has passed a fixed list of inputs: a guess. It is called **equivalent** only
when it also agrees with the reference everywhere on a finite domain that is enumerated whole,
one domain per part of the reference (``kind_for(module)``):

- ``compile`` (``parser ast nfa determinize minimize bytemap compile dfa index``): for every
  pattern of the sweep's small-scope enumeration (``harness.differential.sweep.enumerate``,
  ``EVIDENCE_GRAMMAR`` up to size ``EVIDENCE_MAX_SIZE``: alphabet ``ab``; atoms ``a b [ab] [^a]
  [^b] [^ab]``; operators concatenation, ``| * + ?``; **4,766 patterns**) and for every pattern
  of the held corpus (``equivalence.patterns()``: the catalogue's, the unsupported ones, the
  escapes, 60 seeded random ones, the deep tier's long patterns, its malformed and literal-brace
  ones, its patterns of 500 ``(`` that open no group, its backreferences ``\\8``/``\\9`` after
  eight or nine groups; 250 more; then ``construct_patterns``, the catalogue's constructs and what
  Pythons read differently and the variants of them the deep tier adds: 5,102 in all), the
  canonical DFA tables (``trans``, ``accept``) or the error's class; and, on the enumeration's
  patterns up to size 4 (768) and the held corpus's, the mask of every state over
  ``evidence_vocabulary()`` (301 tokens); then ``DFA(trans, accept)`` on three DFAs' tables, good
  and changed into tables that are no DFA's,
  ``DFA.step`` given wrong Python types and states out of range (``_table_items``: 72), three
  repeat bounds of more digits than the cap (``REPEAT_BOUND_PATTERNS``) and ``TokenIndex.next_state``
  for every state and token on ``TABLE_PATTERNS``' DFAs (3), then ``TokenIndex.mask`` and
  ``next_state`` given states and token ids out of range or of a wrong type on the same DFAs
  (``_index_refusals``, 3), and ``TokenIndex`` built from bad arguments (``_index_bad_arguments``,
  1), and ``EDGE_PATTERNS`` at the parser's size bounds (6): 5,190 items in all;
- ``sampling``: ``apply_mask`` for every mask of 4 tokens on 3 logit rows, as float64 and float32
  (96: its answer, the answer's dtype and the input afterwards), ``SamplingParams``
  on every point of a grid of 4 temperatures x 5 top-k x 3 top-p x 3 penalties (180), and
  ``sample`` at each of them on the 3 rows x 3 histories, four seeded draws each (1,620 cases):
  tokens and logprobs to 1e-9 and the logits afterwards, or the error's class; then ``sample``
  under a penalty with each of ``MIXED_HISTORIES`` (ids that are no int beside ids out of range,
  in both orders: the checks of an id's type and range, 8) and ``HUGE_HISTORIES`` (ids past int64,
  3), then the deep tier's bad input (``BAD_SAMPLING_CALLS``: 7, ``HUGE_PARAMS``: 3): 1,917 items;
- ``constraint``: a ``Constraint`` over the hand example's index walked along every path of up
  to ``CONSTRAINT_DEPTH`` (3) token ids of the 15-token hand vocabulary (3,615 paths): after
  each step its state, ``is_complete``, ``done`` and mask, or the error's class (the walk ends);
  then ``Constraint`` given no TokenIndex (a str, a DFA: 2; 3,617 items).

- ``schema``: ``json_schema_to_regex`` on every schema of ``evidence_schemas()`` (the regex text,
  or the error's class): a stated grammar whole (``SCHEMA_LEAVES``: 5 types, 5 enums, 2 consts;
  an array of each leaf under each of ``ARRAY_BOUNDS``; an object of one property, required or
  not, and of two, under every ``required`` subset; ``anyOf`` of every pair of leaves: 828), each
  of ``NOT_SCHEMAS`` at the root, as an item, a property and a branch (24), the schemas at the
  reference's size bounds, each side of them (``bound_schemas``: 24), then the subset's refusals
  (``facts.constructs.SCHEMA_REFUSALS``), the corpus's schemas and ``ANNOTATED_SCHEMAS`` (4: the
  only ones with ``default`` or ``examples``), and the deep tier's fixed schemas
  (``deep_tier_schemas``: 38): **982** in all. The same text
  compiles to the same DFA, so equal texts are equal behaviour downstream.

- ``vocab``: ``vocab_bytes`` on every token list of up to 3 stated atoms (as lists, tuples and
  with ``special_ids``), a tokenizer's token strings, values that are no tokenizer, and each
  tokenizer kind's edge cases up to its size bound ``MAX_VOCAB_SIZE`` (``evidence_vocab``, whose
  docstring states it: 2,501 items).

- ``errors``: a mutant of ``PatternError``'s message is checked on the ``compile`` domain, one of
  ``SchemaError``'s on the ``schema`` domain (``ERRORS_KINDS``: the domain whose items raise it).

Everything else (``__init__``) has no evidence kind: a survivor equal on the corpus there
is **survived (unproven)**, never equivalent.

Errors are compared as ``equivalence`` compares them (ValueError / TypeError / other class;
messages are not). The evidence of a run is ``{"kind", "domain", "size"}``: recorded per mutant
and shown by every report.

Bound: the domain is fixed (the counts above; ``EVIDENCE_MAX_SIZE`` is refused past 6: size 6
is 31,340 patterns, size 7 212,747); the check runs in the fingerprint child under the runner's
CPU limit, so a mutant that loops or grows is a timeout: "unproven", never equivalent. The
reference's items are hashed once per process (``record``); a mutant's are computed in order
and compared up to the first that differs (``first_difference``). The reference's ``compile``
evidence costs ~4.2 CPU s (3.2 of it the tables; masks on every size-5 pattern too would add ~2.3),
``sampling`` ~0.9, ``constraint`` ~0.1, ``schema`` ~0.4 and ``vocab`` ~1.5 (measured on the reference,
2026-12-06).

**Chosen by coverage** (``Pick``, the corpus fingerprint's trick applied to the evidence): once
per reference version, beside the coverage map (``coverage.CoverageMap.evidence``),
``record_lines`` stores the reference's answer to every item of ``compile``, ``sampling`` and
``schema`` and the lines of the reference each item executes from a fresh start; a mutant then
computes only the items whose lines hold its mutated statement: an item that never executes it
runs the same code on the same inputs (each item gets its own copies of the inputs, so no item
sees another's changes) and gives the reference's answer by construction. Statements run when
the package is imported (module-level statements, default arguments, decorators, class bodies)
count as executed by every item, as do the lines the domain's set-up runs between items: such a
mutant computes its whole domain. ``constraint`` is always computed whole (``SELECTABLE``). The
report states the size honestly: "the 405 of 1,896 sampling-domain items that execute
sampling.py:110-110, equal; the other 1,491 do not execute it" (``Pick.note``); its evidence
record keeps ``size`` (the whole domain) and ``computed``. A pick of no item is no evidence: the
runner calls such a survivor unproven (``runner._decide_by_evidence``), never equivalent.

Example::

    >>> import oracles.automaton as ref
    >>> first_difference(ref, "constraint", record(ref, "constraint"))
    ([], 3617)
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import hashlib
import itertools
import json
import math
import resource
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from harness.differential.sweep.enumerate import Grammar, patterns_by_size

COMPILE_MODULES = frozenset({"parser", "ast", "nfa", "determinize", "minimize", "bytemap", "compile", "dfa", "index"})
EVIDENCE_GRAMMAR = Grammar(alphabet=b"ab", classes=True)
EVIDENCE_MAX_SIZE = 5
CONSTRAINT_DEPTH = 3
TEMPERATURES = (0.0, 0.5, 1.0, 1.7)
TOP_KS = (0, 1, 2, 3, 4)
TOP_PS = (0.3, 0.7, 1.0)
PENALTIES = (0.7, 1.0, 1.6)
LOGIT_ROWS = ((0.0, 0.0, 0.0, 0.0), (1.0, 2.5, -1.0, 2.5), (-np.inf, 3.0, 0.5, -np.inf))
HISTORIES = ((), (1,), (2, 2, 0))
MIXED_HISTORIES = ((-1, 0.5), (0.5, -1), (4, 0.5), (3, 0.5), (True,), (1, "2"), (2, 2.0), (5, 1))
"""Histories of ``sample`` (4 tokens) that reach its per-id checks: a float, bool or str id beside
an id out of range (-1, 4) or in range, an int past the end."""
HUGE_HISTORIES = ((2**70,), (0, -(2**70)), (1, 2**70))
"""Histories past int64 (no int64 array holds them: ``sample``'s per-id path), as the deep tier's
``test_deep_bad_arguments_are_refused`` sends."""
BAD_SAMPLING_CALLS = (("sample, logits holding NaN", "sample", (0.0, np.nan, 1.0, 2.0)),
                      ("sample, logits holding +inf", "sample", (0.0, np.inf, 1.0, 2.0)),
                      ("sample, logits of two dimensions", "sample", np.zeros((2, 4))),
                      ("sample, no logit", "sample", np.zeros(0)),
                      ("sample, complex logits", "sample", np.array([0.0, 1.0 + 2.0j, 1.0, 2.0])),
                      ("apply_mask, a mask of 0/1 integers", "mask", np.array([1, 0, 1, 1])),
                      ("apply_mask, logits of strings", "strings", np.array(["a", "b", "c", "d"])))
"""Bad input the deep tier's ``test_deep_bad_arguments_are_refused`` sends to ``sample`` and
``apply_mask`` (the answer: the error's class)."""
HUGE_PARAMS = ({"temperature": 10**400}, {"top_p": 10**400}, {"repetition_penalty": 10**400})
"""SamplingParams fields of an int past the float range (the deep tier refuses them)."""
KINDS = ("compile", "sampling", "constraint", "schema", "vocab")
SCHEMA_LEAVES = ({"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
                 {"enum": ["a"]}, {"enum": ["a", "b"]}, {"enum": [1, 2]}, {"enum": [None, True]}, {"enum": ["a", 1]},
                 {"const": "x"}, {"const": 0})
NOT_SCHEMAS = (5, "string", None, [], ["a"], 1.5)
"""Values that are no schema (a boolean schema is a refusal of facts.constructs), at the root and
as an item, a property and an anyOf branch."""
ARRAY_BOUNDS = ({}, {"minItems": 1}, {"maxItems": 2}, {"minItems": 1, "maxItems": 2}, {"minItems": 0, "maxItems": 0},
                {"minItems": 2, "maxItems": 1})


def kind_for(module: str, line: int | None = None) -> str | None:
    """The evidence kind for a mutant of reference module ``module`` at ``line``, or None (no
    exhaustive domain: such a survivor stays unproven). ``errors``' kind is the one of the domain
    whose items raise the error class holding the line (``ERRORS_KINDS``)."""
    if module in COMPILE_MODULES:
        return "compile"
    if module == "errors":
        return _errors_kind(line)
    return module if module in ("sampling", "constraint", "schema", "vocab") else None


ERRORS_KINDS = {"PatternError": "compile", "SchemaError": "schema"}
"""The classes of ``errors.py`` with code of their own (an ``__init__`` that writes the message), each
with the evidence domain whose items raise it: the compile domain's malformed, unsupported and
too-large patterns raise ``PatternError``s (with the pattern and an offset, or without the pattern,
as Python's own parser reports a refusal), the schema domain's refusals ``SchemaError``s. The other
classes have no statement (a docstring only), so no mutant."""


def _errors_kind(line: int | None) -> str | None:
    """``ERRORS_KINDS``' kind of the class of ``errors.py`` whose code holds ``line``, or None. Read
    from the classes' code objects (the lines of their methods), not by parsing the file: the
    runner asks this in its tasks, where nothing is parsed (issue 29 item 4)."""
    from oracles.automaton import errors

    if line is None:
        return None
    for name, kind in ERRORS_KINDS.items():
        for member in vars(getattr(errors, name)).values():
            code = getattr(member, "__code__", None)
            if code is None:
                continue
            last = max((number for *_, number in code.co_lines() if number is not None), default=code.co_firstlineno)
            if code.co_firstlineno <= line <= last:
                return kind
    return None


def evidence_patterns() -> list[str]:
    """The enumeration's patterns, then the held corpus's and the deep tier's long ones (each
    once: a mutant of Hopcroft's path in ``minimize`` differs on long DFAs only, which no
    pattern of the enumeration builds)."""
    if not 1 <= EVIDENCE_MAX_SIZE <= 6:
        raise ValueError(f"EVIDENCE_MAX_SIZE must be 1..6 (size 7 is 212,747 patterns), not {EVIDENCE_MAX_SIZE}")
    from harness.mutants.equivalence import patterns

    enumerated = [p for level in _enumerated(EVIDENCE_GRAMMAR, EVIDENCE_MAX_SIZE) for p in level]
    from harness.suite.inputs import (
        BACKREFERENCE_PATTERNS,
        LITERAL_BRACE_PATTERNS,
        LONG_PATTERNS,
        MALFORMED_PATTERNS,
        MANY_GROUPS_PATTERN,
        PARENTHESES_IN_NO_GROUP_PATTERNS,
    )

    held = list(LONG_PATTERNS) + list(MALFORMED_PATTERNS) + list(LITERAL_BRACE_PATTERNS) + [MANY_GROUPS_PATTERN]
    held += [pattern for pattern, _ in BACKREFERENCE_PATTERNS]  # \8 after eight groups: the parser's refusal
    held += PARENTHESES_IN_NO_GROUP_PATTERNS  # more than 400 '(' in classes or escaped: the nest scan's paths
    return list(dict.fromkeys(enumerated + patterns() + held + construct_patterns()))


@functools.lru_cache(maxsize=4)
def _enumerated(grammar: Grammar, max_size: int) -> tuple[tuple[str, ...], ...]:
    """``patterns_by_size(grammar, max_size)``'s levels, sizes 1..max_size in order, made once per
    process (a function of its arguments alone; ~15 ms, asked twice by every compile-domain walk)."""
    return tuple(tuple(level) for level in patterns_by_size(grammar, max_size).values())


def construct_patterns() -> list[str]:
    """The constructs the catalogue refuses or reads as Python does (``test_unsupported_syntax_raises``:
    ``EXTRA_SYNTAX``, ``PYTHON_ONLY_SYNTAX``; every row of ``facts.constructs.REGEX_REFUSALS``) and
    the patterns Pythons read differently (``READ_AS_NEWER_PYTHONS``: a possessive ``a*+``, an
    atomic group, ``a*+?``, ``a+?+``, a conditional's bad group name, ``(?t)``, and the variants
    ``test_deep_newer_python_readings_as_this_python`` adds, ``NEWER_READING_VARIANTS``). Only a Python that
    does not know a construct runs the parser's code for it (``_as_python_311_reads`` on 3.10):
    without these, a mutant there was called equivalent on the 43 items that execute it, none of
    them a construct that code exists for. With them it must agree on those too (an error as the
    contract sees it: ValueError or TypeError, ``equivalence._contract_class``)."""
    from facts.constructs import READ_AS_NEWER_PYTHONS, REGEX_REFUSALS
    from harness.suite.inputs import EXTRA_SYNTAX, NEWER_READING_VARIANTS, PYTHON_ONLY_SYNTAX

    found = list(EXTRA_SYNTAX) + list(PYTHON_ONLY_SYNTAX) + [row.pattern for row in REGEX_REFUSALS]
    newer = [row.pattern for row in READ_AS_NEWER_PYTHONS] + list(NEWER_READING_VARIANTS)
    return found + [pattern for pattern in newer if pattern not in found]


def evidence_vocabulary() -> tuple[list[bytes | None], int]:
    """(vocab, eos_id): the byte level of a real vocabulary and a part of its merges: the 256
    single bytes (every byte-level BPE vocabulary, cl100k_base's included, holds each), the 30
    ordinary cl100k_base tokens recorded in ``golden.cases.CL100K_ORDINARY``, every two- and
    three-byte string over the enumeration's alphabet (merges its patterns can use), the empty
    token, a special (None) and EOS (the last id)."""
    from golden.cases import CL100K_ORDINARY

    vocab: list[bytes | None] = [bytes([b]) for b in range(256)]
    vocab += [bytes.fromhex(hexed) for _, hexed in CL100K_ORDINARY]
    vocab += [bytes(t) for n in (2, 3) for t in itertools.product(EVIDENCE_GRAMMAR.alphabet, repeat=n)]
    vocab += [b"", None, None]
    return vocab, len(vocab) - 1


def domain(kind: str) -> str:
    """One line naming the domain of ``kind`` (what the reports print beside its size)."""
    if kind == "compile":
        vocab, _ = evidence_vocabulary()
        return (f"canonical DFA tables and every state's mask over a {len(vocab)}-token vocabulary (256 bytes, "
                f"30 cl100k_base tokens, ab-strings of 2-3 bytes), on sweep's enumeration (alphabet ab, "
                f"classes, concat | * + ?, size <= {EVIDENCE_MAX_SIZE}) and the held corpus's patterns")
    if kind == "sampling":
        return ("apply_mask on every mask of 4 tokens x 3 logit rows x 2 dtypes; SamplingParams on a 4x5x3x3 "
                "grid; sample at each grid point on 3 rows x 3 histories, 4 seeded draws each")
    if kind == "constraint":
        return f"every path of up to {CONSTRAINT_DEPTH} token ids over the hand vocabulary, each step observed"
    if kind == "schema":
        return ("json_schema_to_regex's text or error class on every schema of a stated grammar (12 leaves; arrays "
                "of a leaf under 6 bound sets; objects of 1-2 properties under every required subset; anyOf of 2 "
                "leaves), the subset's refusals and the corpus's schemas")
    if kind == "vocab":
        return ("vocab_bytes's answer or error class on every list of up to 3 of 10 token atoms (and tuples, "
                "special_ids), a tokenizer's strings, values that are no tokenizer, and each tokenizer kind's "
                "edge cases up to MAX_VOCAB_SIZE and one past it")
    raise ValueError(f"evidence kind must be one of {', '.join(KINDS)}, not {kind!r}")


def _attempt(thunk: Callable[[], Any]) -> Any:
    from harness.mutants.equivalence import _attempt as attempt

    return attempt(thunk)


def _compile_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    vocab, eos_id = evidence_vocabulary()

    def facts(pattern: str, with_masks: bool) -> Any:
        dfa = m.regex_to_dfa(pattern)
        tables = [_Table(dfa.trans), _Table(dfa.accept)]
        if not with_masks:
            return tables
        index = m.TokenIndex(dfa, list(vocab), eos_id)   # a fresh list: an item never sees another's changes
        return tables + [[np.flatnonzero(np.asarray(index.mask(s))).tolist() for s in range(dfa.n_states)]]

    tables_only = set(_enumerated(EVIDENCE_GRAMMAR, EVIDENCE_MAX_SIZE)[EVIDENCE_MAX_SIZE - 1])
    for pattern in evidence_patterns():
        with_masks = pattern not in tables_only
        yield f"pattern {pattern!r}", lambda pattern=pattern, with_masks=with_masks: facts(pattern, with_masks)
    for pattern in REPEAT_BOUND_PATTERNS:
        yield f"pattern {pattern[:40]!r}", lambda pattern=pattern: facts(pattern, False)
    for name, pattern in EDGE_PATTERNS.items():
        yield f"pattern at a bound: {name}", lambda pattern=pattern: facts(pattern, False)
    for pattern in TABLE_PATTERNS:
        yield f"TokenIndex.next_state on {pattern!r}", lambda pattern=pattern: _next_states(m, pattern, vocab, eos_id)
    yield from _table_items(m)
    for pattern in TABLE_PATTERNS:
        yield f"TokenIndex refusals on {pattern!r}", lambda pattern=pattern: _index_refusals(m, pattern, vocab, eos_id)
    yield "TokenIndex given bad arguments", lambda: _index_bad_arguments(m, vocab)


def compile_domain_patterns() -> list[str]:
    """Every pattern ``_compile_items`` hands ``regex_to_dfa``, each once, in order (the stage memo
    records these: ``stage_memo.fill``); kept beside ``_compile_items``, whose loops it follows."""
    found = evidence_patterns() + list(REPEAT_BOUND_PATTERNS) + list(EDGE_PATTERNS.values()) + list(TABLE_PATTERNS)
    return list(dict.fromkeys(found))


def _next_states(m, pattern: str, vocab: list, eos_id: int) -> list[list[int]]:
    """``next_state(s, t)`` of a fresh ``TokenIndex`` for every state and token, states in order: the
    masks above never ask it (nor its per-state target rows and their cache)."""
    dfa = m.regex_to_dfa(pattern)
    index = m.TokenIndex(dfa, list(vocab), eos_id)
    return [[int(index.next_state(s, t)) for t in range(len(vocab))] for s in range(dfa.n_states)]


INDEX_STATES_REFUSED = ("n_states", -1, 1000, 1.5, "0")
"""States ``_index_refusals`` asks ``TokenIndex.mask`` and ``next_state`` from: the first past the end
(``n_states``, read on the DFA), -1 (DEAD: no state of the index), one far out, a float and a str."""
INDEX_TOKENS_REFUSED = ("vocab_size", -1, 10**6, 1.5, True)
"""Token ids ``_index_refusals`` asks ``next_state`` for from state 0: the first past the vocabulary, -1,
one far out, a float and a bool."""


def _index_refusals(m, pattern: str, vocab: list, eos_id: int) -> list:
    """The answer (the error's class, or the mask's allowed ids and the state) of ``TokenIndex.mask`` and
    ``next_state`` from each of ``INDEX_STATES_REFUSED`` and of ``next_state(0, t)`` for each of
    ``INDEX_TOKENS_REFUSED``, on a fresh index. No other item asks them outside their range: a mutant of
    the range checks' messages was "unproven" (no item executes the line), one of their bounds undecided."""
    dfa = m.regex_to_dfa(pattern)
    index = m.TokenIndex(dfa, list(vocab), eos_id)
    states = [dfa.n_states if s == "n_states" else s for s in INDEX_STATES_REFUSED]
    tokens = [len(vocab) if t == "vocab_size" else t for t in INDEX_TOKENS_REFUSED]
    calls = [lambda s=s: np.flatnonzero(np.asarray(index.mask(s))).tolist() for s in states]
    calls += [lambda s=s: int(index.next_state(s, 0)) for s in states]
    calls += [lambda t=t: int(index.next_state(0, t)) for t in tokens]
    return [_attempt(call) for call in calls]


def _index_bad_arguments(m, vocab: list) -> list:
    """The answer (the error's class, or the vocabulary size) of ``TokenIndex`` built on ``TABLE_PATTERNS``'
    first DFA with an EOS id out of range or of a wrong type, a vocabulary holding an entry that is neither
    bytes nor None (after a None, at its start, at its end), and a vocabulary or DFA of a wrong type. No other
    item builds an index from bad arguments: a mutant of those refusals' messages (the bound, which entry
    is named) was "unproven"."""
    dfa = m.regex_to_dfa(TABLE_PATTERNS[0])
    size = len(vocab)
    eos_ids = (size, size + 5, -1, 10**6, 1.5, "9", True)
    vocabs = ([None, b"a", "c", b"b"], ["c", b"a"], [b"a", None, 7], [b"a", bytearray(b"b")], 5, "abc", b"ab")
    calls = [lambda e=e: m.TokenIndex(dfa, list(vocab), e).vocab_size for e in eos_ids]
    calls += [lambda v=v: m.TokenIndex(dfa, v if not isinstance(v, list) else list(v), None).vocab_size for v in vocabs]
    calls += [lambda: m.TokenIndex(TABLE_PATTERNS[0], list(vocab), None).vocab_size]
    return [_attempt(call) for call in calls]


REPEAT_BOUND_PATTERNS = ("a{10000}", "a{2,99999}", "a{" + "0" * 300 + "2}")
"""Repeat bounds written with more digits than the cap (``MAX_REPEAT``, 1000): two past it (refused,
the error's class) and one of 301 digits that is 2 (``a{2}``'s tables). No pattern of the
enumeration or the corpus reaches the parser's path for a bound of more digits than the cap."""


TABLE_PATTERNS = ("(cat|car|dog)s?", "[ab]*", "a")
"""The DFAs whose tables ``_table_items`` hands back to ``DFA(trans, accept)``: 7, 1 and 2 states."""
STEPS_OUT_OF_RANGE = ("n_states", -2, 1000)
"""States ``_table_items`` asks ``DFA.step`` from on each of ``TABLE_PATTERNS``' DFAs: the first past the
end (``n_states``, read on the DFA), the first below DEAD and one far out."""


def _table_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    """``DFA(trans, accept)`` on each of ``TABLE_PATTERNS``'s tables as they are, with ``accept``
    as 0/1 integers, and changed into each of ``bad_dfa_tables``' (the answer: the tables and a
    ``step`` from each state, or the error's class); then ``step`` given each of
    ``WRONG_STEP_ARGUMENTS``, and from each of ``STEPS_OUT_OF_RANGE``'s states (the error's class).
    The patterns' items never build a DFA from a caller's tables nor step from a bad state:
    without these, a mutant of the constructor's checks, or of the range check's message, passed
    as "equivalent" unexamined (on no item at all)."""
    from harness.suite.inputs import WRONG_STEP_ARGUMENTS, bad_dfa_tables

    def tables(pattern: str, case: int) -> tuple[Any, Any]:
        dfa = m.regex_to_dfa(pattern)
        trans, accept = np.array(dfa.trans), np.array(dfa.accept)
        cases = [(trans, accept), (trans, accept.astype(np.int64))]
        return (cases + [(t, a) for _, t, a in bad_dfa_tables(trans, accept)])[case]

    def built(pattern: str, case: int) -> Any:
        dfa = m.DFA(*tables(pattern, case))
        walks = [dfa.step(s, bytes(range(97, 123))) for s in range(dfa.n_states)]
        return [np.asarray(dfa.trans).tolist(), np.asarray(dfa.accept).tolist(), walks]

    one_state = (np.zeros((1, 256), np.int32), np.ones(1, np.bool_))
    names = ["as built", "accept as 0/1 integers"] + [what for what, _, _ in bad_dfa_tables(*one_state)]
    for pattern in TABLE_PATTERNS:
        for case, what in enumerate(names):
            yield f"DFA(tables of {pattern!r}, {what})", lambda pattern=pattern, case=case: built(pattern, case)
        for state, data in WRONG_STEP_ARGUMENTS:
            yield (f"DFA.step({state!r}, {data!r}) on {pattern!r}",
                   lambda pattern=pattern, state=state, data=data:
                   m.regex_to_dfa(pattern).step(state, copy.deepcopy(data)))
        for state in STEPS_OUT_OF_RANGE:
            yield (f"DFA.step({state}, b'a') on {pattern!r}",
                   lambda pattern=pattern, state=state: _step_from(m.regex_to_dfa(pattern), state))


def _step_from(dfa, state) -> Any:
    return dfa.step(dfa.n_states if state == "n_states" else state, b"a")


def _sampling_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    for bits in range(16):
        mask = [bool(bits >> i & 1) for i in range(4)]
        for r, row in enumerate(LOGIT_ROWS):
            for dtype in ("float64", "float32"):
                yield (f"apply_mask {mask} row {r} {dtype}",
                       lambda row=row, mask=mask, dtype=dtype: _masked(m, np.array(row, dtype), list(mask)))
    grid = itertools.product(TEMPERATURES, TOP_KS, TOP_PS, PENALTIES)
    for case, (t, k, p, rp) in enumerate(grid):
        params = {"temperature": t, "top_k": k, "top_p": p, "repetition_penalty": rp}
        yield f"SamplingParams {params}", lambda params=params: repr(m.SamplingParams(**params))
        for r, row in enumerate(LOGIT_ROWS):
            for h, history in enumerate(HISTORIES):
                yield (f"sample {params} row {r} history {h}",
                       lambda params=params, row=row, history=history, seed=case:
                       _draws(m, params, row, history, seed))
    penalty = {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "repetition_penalty": 1.6}
    for history in MIXED_HISTORIES + HUGE_HISTORIES:
        yield (f"sample under a penalty, history {list(history)!r}",
               lambda history=history: _draws(m, penalty, LOGIT_ROWS[1], history, 0))
    yield from _bad_sampling_items(m)


def _bad_sampling_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    for what, call, value in BAD_SAMPLING_CALLS:
        yield what, lambda call=call, value=value: _bad_sampling_call(m, call, value)
    for params in HUGE_PARAMS:
        yield f"SamplingParams {list(params)[0]}=10**400", lambda params=params: repr(m.SamplingParams(**params))


def _bad_sampling_call(m, call: str, value) -> Any:
    if call == "sample":
        return m.sample(value, m.SamplingParams(), [], np.random.default_rng(0))
    if call == "mask":
        return _masked(m, np.zeros(4), value)
    return _masked(m, value, [True, False, True, True])


def _masked(m, logits: np.ndarray, mask) -> Any:
    """apply_mask's answer, its dtype, and its input afterwards (never modified)."""
    out = np.asarray(m.apply_mask(logits, mask))
    return [out.tolist(), str(out.dtype), logits.tolist()]


def _draws(m, params: dict, row, history, seed: int) -> Any:
    """Four seeded draws (token, logprob to 1e-9), and the logits afterwards (never modified)."""
    rng, p, logits = np.random.default_rng(seed), m.SamplingParams(**params), np.array(row)
    draws = [(int(t), round(float(lp), 9)) for t, lp in (m.sample(logits, p, list(history), rng) for _ in range(4))]
    return [draws, logits.tolist()]


def _constraint_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = m.TokenIndex(m.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    for depth in range(1, CONSTRAINT_DEPTH + 1):
        for path in itertools.product(range(len(HAND_VOCAB)), repeat=depth):
            yield f"path {list(path)}", lambda path=path: _walk(m, index, path)
    for what, argument in (("a str", "an index"), ("a DFA", m.regex_to_dfa(HAND_PATTERN))):
        yield f"Constraint({what})", lambda argument=argument: m.Constraint(argument).state


def _walk(m, index, path) -> Any:
    c, seen = m.Constraint(index), []
    for token in path:
        step = _attempt(lambda token=token: [c.advance(token), int(c.state), bool(c.is_complete()), bool(c.done),
                                             np.flatnonzero(np.asarray(c.mask())).tolist()][1:])
        seen.append(step)
        if step and step[0] == "raised":
            break
    return seen


def evidence_schemas() -> list:
    """The schema domain, in a fixed order: the grammar's schemas (828), ``NOT_SCHEMAS`` in four
    places (24), ``bound_schemas()`` (24), then the refusals of ``facts.constructs`` and the
    corpus's schemas (``equivalence.schemas()``), then ``ANNOTATED_SCHEMAS`` and ``deep_tier_schemas()``, each
    once: 982."""
    from facts.constructs import SCHEMA_REFUSALS
    from harness.mutants.equivalence import schemas

    leaves = [dict(leaf) for leaf in SCHEMA_LEAVES]
    found = list(leaves)
    found += [{"type": "array", "items": leaf, **bounds} for leaf in leaves for bounds in ARRAY_BOUNDS]
    for leaf in leaves:
        found += [{"type": "object", "properties": {"a": leaf}, **required} for required in ({}, {"required": ["a"]})]
    for first, second in itertools.product(leaves, repeat=2):
        found += [{"type": "object", "properties": {"a": first, "b": second}, "required": required}
                  for required in ([], ["a"], ["b"], ["a", "b"])]
    found += [{"anyOf": [first, second]} for first, second in itertools.product(leaves, repeat=2)]
    found += [bad for schema in NOT_SCHEMAS for bad in (schema, {"type": "array", "items": schema},
                                                      {"type": "object", "properties": {"a": schema}},
                                                      {"anyOf": [{"type": "null"}, schema]})]
    found += bound_schemas() + [r.schema for r in SCHEMA_REFUSALS] + list(schemas()) + list(ANNOTATED_SCHEMAS)
    found += deep_tier_schemas()
    unique: dict[str, Any] = {}
    for schema in found:
        unique.setdefault(json.dumps(schema, sort_keys=False, default=repr), schema)
    return list(unique.values())


def deep_tier_schemas() -> list:
    """The deep tier's fixed schemas (``harness.suite.inputs``): malformed, with no JSON text, of any
    value, keywords side by side, typed enums, arguments that are no dict. Without them a mutant of a
    schema error path only the deep tier reaches was "equal" on a domain none of whose items reached it."""
    from harness.suite import inputs

    return [*inputs.SCHEMAS_THE_META_SCHEMA_REFUSES, *inputs.SCHEMAS_WITH_NO_JSON, *inputs.SCHEMAS_OF_ANY_VALUE,
            *(schema for schema, _ in inputs.SCHEMAS_COMBINED), *(schema for schema, _ in inputs.TYPED_ENUM_SCHEMAS),
            *inputs.SCHEMA_ARGUMENTS_REFUSED]


ANNOTATED_SCHEMAS = ({"type": "string", "default": "x"}, {"type": "integer", "examples": [1, {"a": [2]}]},
                     {"type": "number", "default": float("nan")}, {"type": "string", "examples": [{1: "x"}]})
"""Schemas whose ``default`` / ``examples`` the reference checks as JSON values (``schema.py``'s
``_check_json_value``): two plain, two that are no JSON (NaN, an int key). No other schema of the
domain holds either annotation."""


def bound_schemas() -> list:
    """Schemas at the reference's size bounds, each side of it (``schema.py``: ``MAX_DEPTH`` 32,
    ``MAX_VALUE_DEPTH`` 64, ``MAX_REGEX_LENGTH`` 200,000, ...): objects nested 31 to 35 deep, ``const``
    values nested 62 to 66 deep as objects and as arrays, an enum of 5,128 strings of 34
    characters whose regex is 199,999 to 200,001 characters (39 per value, 3 more, one value 4 to
    6 longer), enums of 10,000 and 10,001 values (``MAX_ENUM_VALUES``), ``minItems``/``maxItems``
    1,000 and 1,001 (``MAX_ITEMS_BOUND``). Without them a mutant of a bound's check or count
    passed the grammar's small schemas unexamined (``bounds.EDGES`` names each group)."""
    return [schema for group in bound_schema_groups().values() for schema in group]


def bound_schema_groups() -> dict[str, list]:
    """``bound_schemas()`` by the edge they hold (the names of ``bounds.EDGES``), in its order."""
    groups: dict[str, list] = {"depth": [], "value depth": [], "regex length": [], "enum values": [],
                               "items bound": []}
    for levels in range(31, 36):
        schema: dict = {"type": "string"}
        for _ in range(levels):
            schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
        groups["depth"].append(schema)
    for levels in range(62, 67):
        as_object: Any = 0
        as_array: Any = 0
        for _ in range(levels):
            as_object, as_array = {"a": as_object}, [as_array]
        groups["value depth"] += [{"const": as_object}, {"const": as_array}]
    for longer in (4, 5, 6):
        values = [f"v{i:033d}" for i in range(5_128)]
        values[0] += "x" * longer
        groups["regex length"].append({"enum": values})
    groups["enum values"] += [{"enum": [f"e{i:04d}" for i in range(count)]} for count in (10_000, 10_001)]
    groups["items bound"] += [{"type": "array", "items": {"type": "null"}, key: bound}
                              for key in ("minItems", "maxItems") for bound in (1_000, 1_001)]
    return groups


EDGE_PATTERNS = {"nesting 400": "(" * 400 + "a" + ")" * 400 + "(b)", "nesting 401": "(" * 401 + "a" + ")" * 401,
                 "a{1000}": "a{1000}", "a{1001}": "a{1001}",
                 "length 200000": "[" + "a" * 199_998 + "]", "length 200001": "[" + "a" * 199_999 + "]"}
"""The compile domain's items at the parser's size bounds and one past (``bounds.EDGES``): groups nested
``MAX_NESTING`` (400, then one group more: 401 ``(`` in all, past the scan's count shortcut) and 401
deep, a repeat bound of ``MAX_REPEAT`` (1000) and 1001, a class of
``MAX_PATTERN_LENGTH`` (200,000) characters and 200,001; tables only (0.28 CPU s together on the
reference, 2026-12-07). No other item reaches a bound: ``parser.ReplaceComparisonOperator_Gt_GtE.8``
(``> MAX_NESTING`` made ``>=``) was "equivalent with evidence" on a domain none of whose items nests
400 deep."""


EDGES = {("compile", "MAX_NESTING"): ("nesting 400", "nesting 401"),
         ("compile", "MAX_REPEAT"): ("a{1000}", "a{1001}", "a{10000}"),   # and the digit count's: 4, 5
         ("compile", "MAX_PATTERN_LENGTH"): ("length 200000", "length 200001"),
         ("schema", "MAX_DEPTH"): ("depth",),
         ("schema", "MAX_VALUE_DEPTH"): ("value depth",),
         ("schema", "MAX_REGEX_LENGTH"): ("regex length",),
         ("schema", "MAX_PATTERN_LENGTH"): ("regex length",),   # MAX_REGEX_LENGTH = MAX_PATTERN_LENGTH
         ("schema", "MAX_ENUM_VALUES"): ("enum values",),
         ("schema", "MAX_ITEMS_BOUND"): ("items bound",),
         ("vocab", "MAX_VOCAB_SIZE"): ("vocab size",)}
"""(evidence kind, bound) -> the names of its edge items (``edge_indices``; ``harness.mutants.bounds``
reads them). A bound of a kind not listed has no edge in that domain."""


@functools.lru_cache(maxsize=None)
def edge_indices(kind: str, bound: str) -> tuple[int, ...]:
    """The indices in the ``kind`` domain of the items at ``bound``'s edge (``bounds.EDGES``), or ()."""
    names = EDGES.get((kind, bound), ())
    if kind == "compile":
        repeats = len(evidence_patterns())   # REPEAT_BOUND_PATTERNS, then EDGE_PATTERNS
        first = repeats + len(REPEAT_BOUND_PATTERNS)
        return (tuple(repeats + i for i, pattern in enumerate(REPEAT_BOUND_PATTERNS) if pattern in names)
                + tuple(first + i for i, name in enumerate(EDGE_PATTERNS) if name in names))
    if kind == "schema":
        wanted = {json.dumps(s, default=repr) for name in names for s in bound_schema_groups()[name]}
        return tuple(i for i, s in enumerate(evidence_schemas()) if json.dumps(s, default=repr) in wanted)
    if kind == "vocab" and names:
        import oracles.automaton as reference

        return tuple(i for i, (label, _) in enumerate(items(reference, "vocab")) if "the bound" in label)
    return ()


def _schema_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    for schema in evidence_schemas():
        yield (f"schema {json.dumps(schema, default=repr)[:80]}",
               lambda schema=schema: m.json_schema_to_regex(copy.deepcopy(schema)))   # leaves are shared


def _vocab_items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    from harness.mutants import evidence_vocab

    return evidence_vocab.items(m)


ITEMS = {"compile": _compile_items, "sampling": _sampling_items, "constraint": _constraint_items,
         "schema": _schema_items, "vocab": _vocab_items}


def items(m, kind: str) -> Iterator[tuple[str, Callable[[], Any]]]:
    """The domain of ``kind`` as (label, thunk) in a fixed order, computed on module ``m``."""
    if kind not in ITEMS:
        raise ValueError(f"evidence kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return ITEMS[kind](m)


def _hash(value: Any) -> str:
    """The digest of an answer: sha256 of its JSON text (``json.dumps``, keys sorted, ``repr`` for what
    JSON has no form for), 24 hex digits. A list holding ``_Table``s is hashed as if each were its
    ``tolist()``: the same text, each distinct table's text made once (``_Table.text``)."""
    return hashlib.sha256(_text(value).encode()).hexdigest()[:24]


def _text(value: Any) -> str:
    if isinstance(value, list) and any(isinstance(v, _Table) for v in value):
        # json.dumps of a list is "[" + its items' texts joined by ", " + "]" (the default separators)
        return "[" + ", ".join(v.text() if isinstance(v, _Table) else _text(v) for v in value) + "]"
    return json.dumps(value, sort_keys=True, default=repr)


class _Table:
    """A DFA table (``trans`` or ``accept``) as the mutant returned it, hashed as
    ``np.asarray(table).tolist()`` is (``_hash``). The compile domain's 4,942 tables are 924
    distinct ones (11.7 MB of JSON, 4.2 MB distinct), so a numeric table's text is made once per
    distinct (dtype, shape, bytes) in a process (``_TABLE_TEXTS``, emptied by ``record`` and
    ``first_difference``); any other table's text is made every time."""

    __slots__ = ("array",)

    def __init__(self, table: Any):
        # a copy, in the item (``_attempt``): what the item saw then, whatever the rest of it (the
        # TokenIndex) does to the DFA's arrays after, as ``tolist()`` there took it
        self.array = np.array(table, copy=True)

    def text(self) -> str:
        array = self.array
        if array.dtype.kind not in "biuf":   # objects (pointers), strings: no key from the bytes
            return json.dumps(array.tolist(), sort_keys=True, default=repr)
        key = (array.dtype.str, array.shape, array.tobytes())
        found = _TABLE_TEXTS.get(key)
        if found is None:
            found = _TABLE_TEXTS[key] = json.dumps(array.tolist(), sort_keys=True, default=repr)
        return found


_TABLE_TEXTS: dict[tuple, str] = {}


def record(m, kind: str) -> list[str]:
    """The hashes of the reference's answers over the domain of ``kind``, in order."""
    _TABLE_TEXTS.clear()
    try:
        return [_hash(_attempt(thunk)) for _, thunk in items(m, kind)]
    finally:
        _TABLE_TEXTS.clear()


def first_difference(m, kind: str, reference: Sequence[str | None],
                     budgets: Sequence[float | None] | None = None) -> tuple[list[str], int]:
    """([the label of the first item where ``m`` differs from ``reference``] or [], the number
    of items computed). An item whose expected hash is None is not computed (``Pick``: it never
    executes the mutated statement). A domain longer or shorter than ``reference`` is a difference.
    ``budgets`` (``Pick.budgets``, one per item or None): each computed item runs under its own CPU
    budget (``within_budget``: the process's ``RLIMIT_CPU`` lowered for the item, so an item that spins
    ends the process by SIGXCPU, as the process's own limit would, a few CPU s in)."""
    _TABLE_TEXTS.clear()
    try:
        return _first_difference(m, kind, reference, budgets)
    finally:
        _TABLE_TEXTS.clear()


def _first_difference(m, kind: str, reference: Sequence[str | None],
                      budgets: Sequence[float | None] | None) -> tuple[list[str], int]:
    computed = 0
    if budgets is not None and len(budgets) != len(reference):
        raise ValueError(f"evidence budgets: {len(budgets)} for {len(reference)} items of the {kind} domain")
    for i, ((label, thunk), expected) in enumerate(itertools.zip_longest(items(m, kind), reference,
                                                                         fillvalue=(None, None))):
        if label is None or thunk is None:
            return [f"the domain has another size than the reference's {len(reference)} items"], computed
        if expected is None:
            continue
        computed += 1
        with within_budget(None if budgets is None else budgets[i]):
            found = _hash(_attempt(thunk))
        if found != expected:
            return [label], computed
    return [], computed


@contextlib.contextmanager
def within_budget(seconds: float | None) -> Iterator[None]:
    """Run the block with at most ``seconds`` more CPU s of this process: its soft ``RLIMIT_CPU``
    lowered to the CPU it has used plus ``seconds`` (rounded up to a whole second, the limit's unit),
    then put back. Past it the kernel sends SIGXCPU, which ends the process as its own limit does
    (the runner's "timeout"). Never above the limit the process has (``seconds`` None, or a budget
    that would reach it: the block runs under that limit, as before)."""
    if seconds is None:
        yield
        return
    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 < seconds < math.inf):
        raise ValueError(f"an evidence item's CPU budget must be a positive number of seconds, not {seconds!r}")
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    limit = math.ceil(time.process_time() + seconds)
    if soft != resource.RLIM_INFINITY and limit >= soft:
        yield
        return
    resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def read_against(path: Path) -> tuple[list[str | None], list[float | None] | None]:
    """The ``--against`` file of an evidence child: (the reference's hash of each item, None for an
    item not computed; each item's CPU budget or None). The file holds the list of hashes (no
    budgets: every item under the child's own limit) or ``{"hashes": [...], "budgets": [...]}``
    (``runner._evidence_differences``)."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(doc, list):
        return doc, None
    if not (isinstance(doc, dict) and isinstance(doc.get("hashes"), list)
            and (doc.get("budgets") is None or isinstance(doc["budgets"], list))):
        raise ValueError(f"{path}: an evidence child's reference must be a list of hashes or "
                         f"{{'hashes': [...], 'budgets': [...]}}")
    return doc["hashes"], doc.get("budgets")


def summary(kind: str, size: int, computed: int | None = None) -> dict:
    """The evidence a report records: ``{"kind", "domain", "size"}`` (``size``: the domain's items,
    every one equal), with ``computed`` when only the items executing the mutated statement were
    computed (``Pick``; the others equal by construction)."""
    found = {"kind": kind, "domain": domain(kind), "size": size}
    return found if computed is None else {**found, "computed": computed}


# --- the evidence chosen by coverage ----------------------------------------------------------

SELECTABLE = ("compile", "sampling", "schema")
"""The kinds whose items are chosen by coverage (``Pick``). ``constraint``'s are not: its items
share one ``TokenIndex`` whose per-state caches an item fills for the next ones, so an item's
lines depend on the items before it (and the whole domain costs ~0.1 CPU s)."""


@dataclasses.dataclass(frozen=True)
class Pick:
    """The part of the evidence domain ``kind`` a mutant can change: the ``chosen`` item indices
    (ascending) whose recorded lines hold the mutated ``statement``, out of ``size``; ``hashes``
    are the reference's for every item (shared by every pick of a map, never copied).

    Soundness (``record_lines``): each item was recorded from a fresh start (the package's
    ``functools`` caches cleared, its inputs its own copies), so an item that never executes the
    statement runs the same code on the same inputs in the mutant and gives the reference's
    answer by construction. Lines run when the package and its modules are imported
    (module-level statements, default arguments, decorators, class bodies), or by the domain's
    own set-up between items, count as executed by every item."""

    kind: str
    size: int
    chosen: tuple[int, ...]
    hashes: Sequence[str]
    statement: str   # "file:first-last", for the report
    cpu: Sequence[float] | None = None
    """The reference's CPU s on each item (``record_lines``; shared like ``hashes``, only the chosen
    items' read), from which each chosen item gets its CPU budget (``budgets``); None: a record made
    before the figures, or the budgets switched off (``runner.plan``): the child's own limit."""

    def budgets(self, cap: float) -> list[float | None] | None:
        """Each item's CPU budget in the evidence child (``harness.mutants.budgets.item_budget``, at
        most ``cap``: the child's limit today) for the chosen items, None for the others; None
        without figures (``cpu``)."""
        if self.cpu is None:
            return None
        from harness.mutants.budgets import item_budget

        found: list[float | None] = [None] * self.size
        for i in self.chosen:
            found[i] = item_budget(self.cpu[i], cap)
        return found

    def reference(self) -> list[str | None]:
        """The reference's hash of each chosen item, None for the others (``first_difference``)."""
        found: list[str | None] = [None] * self.size
        for i in self.chosen:
            found[i] = self.hashes[i]
        return found

    def to_json(self) -> dict:
        found = {"kind": self.kind, "size": self.size, "statement": self.statement,
                 "chosen": {str(i): self.hashes[i] for i in self.chosen}}
        if self.cpu is not None:
            found["cpu"] = {str(i): self.cpu[i] for i in self.chosen}
        return found

    @classmethod
    def from_json(cls, doc: dict | None) -> Pick | None:
        if doc is None:
            return None
        size = int(doc["size"])
        chosen = {int(i): h for i, h in doc["chosen"].items()}
        hashes = [chosen.get(i, "") for i in range(size)]
        cpu = None
        if doc.get("cpu") is not None:
            given = {int(i): float(s) for i, s in doc["cpu"].items()}
            cpu = [given.get(i, 0.0) for i in range(size)]
        return cls(doc["kind"], size, tuple(sorted(chosen)), hashes, doc["statement"], cpu)

    def note(self) -> str:
        """The evidence's size as the report states it."""
        rest = self.size - len(self.chosen)
        return (f"the {len(self.chosen):,} of {self.size:,} {self.kind}-domain items that execute {self.statement}, "
                f"equal; the other {rest:,} do not execute it")


def pick(recorded: dict, kind: str, file: str, span: frozenset[int] | None) -> Pick | None:
    """The ``Pick`` of a statement (lines ``span`` of ``file``) in ``recorded`` (``record_lines``'s
    answer); None (the whole domain) when ``kind`` is not recorded, the statement is in
    ``__init__.py`` (it runs before coverage starts) or outside any statement, or it runs for
    every item (at import, or in the domain's set-up)."""
    found = recorded.get(kind)
    if found is None or span is None or file == "__init__.py":
        return None
    if span & set(found["every"].get(file, ())):
        return None
    hits = {n for n, files in enumerate(found["sets"]) if span & set(files.get(file, ()))}
    chosen = tuple(i for i, n in enumerate(found["items"]) if n in hits)
    return Pick(kind, len(found["items"]), chosen, found["hashes"], f"{file}:{min(span)}-{max(span)}",
                _cpu_figures(found.get("cpu"), len(found["items"])))


def _cpu_figures(value, size: int) -> list[float] | None:
    """A record's per-item CPU figures when well formed (one number of seconds, 0 or more, per
    item), else None (a record made before them, or not ours: the child's own limit)."""
    if not isinstance(value, list) or len(value) != size:
        return None
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < math.inf for x in value):
        return None
    return value


def record_lines(package_dir: Path, kinds: Sequence[str] = SELECTABLE) -> dict:
    """The reference's evidence, and the lines of it each item executes, for each of ``kinds``
    (of ``SELECTABLE``): ``{kind: {"hashes": [...], "every": {file: [line, ...]}, "sets": [{file:
    [line, ...]}, ...], "items": [set index, ...], "cpu": [CPU s, ...]}}``. ``every`` holds the lines
    run when the package and every module of it are imported (before any item) and by the domain's
    set-up between items; ``sets`` the distinct line sets of the items, ``items`` each item's;
    ``cpu`` the CPU s each item took here (``harness.mutants.budgets.item_budgets``: a mutant's
    item gets a budget from it). Each item is computed with the package's ``functools`` caches
    cleared first (its lines are those of a fresh start), as ``equivalence.record`` does for the
    corpus."""
    from harness.mutants.equivalence import covered_package

    if not set(kinds) <= set(SELECTABLE):
        raise ValueError(f"evidence kinds chosen by coverage are {', '.join(SELECTABLE)}, not {list(kinds)}")
    hashes: dict[str, list[str]] = {}
    cpu: dict[str, list[float]] = {}
    with covered_package(package_dir) as (cov, module):
        for kind in kinds:
            hashes[kind], cpu[kind] = _record_kind(cov, module, kind)
    recorded = _line_sets(cov.get_data(), hashes)
    for kind, seconds in cpu.items():
        recorded[kind]["cpu"] = seconds
    return recorded


def _record_kind(cov, module, kind: str) -> tuple[list[str], list[float]]:
    """The reference's hash of each item of ``kind`` and the CPU s it took (computing and hashing it,
    under coverage's tracer, from a fresh start: at or above what the item costs a mutant's child)."""
    from harness.mutants.equivalence import _clear_caches

    found, seconds, domain_items = [], [], items(module, kind)
    while True:
        cov.switch_context("")   # the domain's own set-up: counted to every item
        try:
            _, thunk = next(domain_items)
        except StopIteration:
            return found, seconds
        _clear_caches(module)
        cov.switch_context(f"{kind}/{len(found)}")
        before = time.process_time()
        found.append(_hash(_attempt(thunk)))
        seconds.append(round(time.process_time() - before, 4))


def _line_sets(data, hashes: dict[str, list[str]]) -> dict:
    every: dict[str, list[int]] = {}
    per_item: dict[str, dict[int, dict[str, list[int]]]] = {kind: {} for kind in hashes}
    for path in data.measured_files():
        name = Path(path).name
        for line, contexts in sorted(data.contexts_by_lineno(path).items()):
            for context in contexts:
                if not context:
                    every.setdefault(name, []).append(line)
                    continue
                kind, index = context.split("/")
                per_item[kind].setdefault(int(index), {}).setdefault(name, []).append(line)
    recorded = {}
    for kind, kind_hashes in hashes.items():
        sets: dict[str, int] = {}
        numbers = [sets.setdefault(json.dumps(per_item[kind].get(i, {}), sort_keys=True), len(sets))
                   for i in range(len(kind_hashes))]
        recorded[kind] = {"hashes": kind_hashes, "every": every, "sets": [json.loads(k) for k in sets],
                          "items": numbers}
    return recorded


def main(argv: list[str]) -> int:
    """``PACKAGE KIND`` prints the hashes of its answers over the domain of KIND (``{"hashes":
    [...]}``: the reference's ``record``); ``PACKAGE KIND --against FILE`` the first item on which
    it differs from FILE's hashes (``{"differs": [...], "computed": n}``; a null hash: an item not
    computed); ``PACKAGE --record`` the reference's ``record_lines``. The process's memory is
    bounded first, as the fingerprint child's (``equivalence.FINGERPRINT_MEMORY_MB``)."""
    from harness.mutants.apply import load
    from harness.mutants.equivalence import _bound_memory

    _bound_memory()
    if argv[1:2] == ["--record"]:
        print(json.dumps(record_lines(Path(argv[0]))))
        return 0
    module, kind = load(Path(argv[0])), argv[1]
    if argv[2:3] == ["--against"]:
        reference, budgets = read_against(Path(argv[3]))
        differs, computed = first_difference(module, kind, reference, budgets)
        print(json.dumps({"differs": differs, "computed": computed}))
    else:
        print(json.dumps({"hashes": record(module, kind)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
