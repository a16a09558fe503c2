"""The derivative oracle: regex meaning by Brzozowski derivatives, no automaton code shared.

Main access point: ``Oracle(pattern)`` (or the module functions ``matches``,
``viable``, ``is_empty``, ``mask``, ``canonical_dfa``, which cache one ``Oracle`` per
pattern). This is the second of the harness's three implementations of one meaning (the
reference pipeline ``oracles.automaton``, this oracle, and Python itself in
``oracles.stdlib``); it shares no meaning-deciding code with ``oracles.automaton`` and
never imports it.

Pipeline, one module per stage:

    errors     the error kinds, under ConstrainError: PatternSyntaxError, UnsupportedSyntax,
               EmptyLanguage, PatternTooLarge, LimitExceeded, InvalidArgument (the
               reference's names for the same kinds, none of its code)
    bounds     the MAX_* bounds and the derivative work budget of a public call
    terms      byte sets; hash-consed terms and their smart constructors
    frontend   pattern text --(Python's own parser, re._parser)--> sre tree
                            --(the subset only)--> Term
    derive     Term --derivative(t, byte)--> Term; nullable(t): is "" in L(t)?;
               derivative classes
    emptiness  is L(t) empty? (a search for a nullable term)
    witnesses  the shortlex-least member / member of the symmetric difference
    dfa        canonical_dfa: explore derivatives (states = terms) over derivative
               classes, then liveness, Moore minimization, breadth-first numbering
    api        Oracle and the module functions: matches (derive by every byte, then
               nullable), viable (derive by the prefix, then "not empty"), mask (per
               token, viable(prefix + token); EOS iff nullable(prefix)), witness,
               difference, canonical_dfa

Meaning: exactly Python's ``re.fullmatch(pattern.encode("ascii"), data)`` on bytes:
``\\d`` is [0-9], ``\\w`` [A-Za-z0-9_], ``\\s`` [ \\t\\n\\r\\f\\v], ``.`` any byte but
``\\n``, ``[^...]`` the complement over all 256 bytes.

Subset (refused with ``UnsupportedSyntax`` naming the construct and its offset):
anchors ``^ $ \\A \\Z \\b \\B``, backreferences, conditionals, lookarounds, atomic
groups, lazy and possessive quantifiers, named groups, inline flags, comments,
non-ASCII characters (repeat bounds over ``MAX_REPEAT`` are ``PatternTooLarge``). Accepted as Python reads
them: octal escapes (``\\0``, ``\\012``), ``{,n}``, a ``{`` that starts no repeat.
Malformed patterns (Python's ``re.error``) are ``PatternSyntaxError``.

Terms (Owens, Reppy and Turon, "Regular-expression derivatives re-examined", JFP
2009) are hash-consed: two terms are equal iff they are the same object. They are
only built through smart constructors that enforce a normal form (each rule with an
e.g. at its code): alternation is a frozenset (associative, commutative,
idempotent), with all byte-set members merged into one; concatenation is a flat
tuple; ∅ and ε are absorbed. Bounded repeats are counting terms ``r{lo,hi}`` (not
expanded), so a derivative of ``a{0,1000}`` is one small term.

Invariant (proved by induction over the constructors): a term denotes the empty
language iff it *is* ``NOTHING``, since byte sets are never empty and every other
constructor of non-empty languages is non-empty. ``is_empty`` nevertheless decides
emptiness by its definition (no nullable term is reachable by derivatives), and the
tests check the two agree.

Example::

    >>> o = Oracle("(cat|car|dog)s?")
    >>> o.matches(b"cats"), o.viable(b"ca"), o.viable(b"cx")
    (True, True, False)
    >>> trans, accept = o.canonical_dfa()
    >>> trans.shape, accept.nonzero()[0].tolist()
    ((7, 256), [5, 6])

Bounds (``bounds``): ``MAX_PATTERN_CHARS`` (pattern text, checked before Python's parser sees
it), ``MAX_REPEAT`` (repeat counts, checked by ``parse``), ``MAX_STATES`` (distinct
terms explored by one ``canonical_dfa`` or one emptiness search),
``MAX_DERIVATIVE_WORK`` (derivative steps of one public call: fresh derivatives,
each costing the number of alternatives it walks; nested counted repeats such as
``((a{0,30}){0,30}){0,30}`` grow terms of thousands of alternatives and are refused
within about a second) and ``MAX_MOORE_WORK`` (states x columns x rounds of
Moore minimization, quadratic on long chains: a literal of 6 000 bytes is refused,
and so is the array schema ``[item(,item){0,999}]`` of objects); past them
``LimitExceeded`` (``PatternTooLarge`` for the pattern's length and repeat counts).

Disagreements this oracle settled (each a regression test in
``tests/oracles/test_derivatives.py`` or ``tests/oracles/test_stdlib.py``): ``regex`` partial
matching answers "partial" on an empty rest (``a[^\\x00-\\xff]`` on ``b"a"``) and
reads ``[^\\d\\D]`` as every byte; the reference crashed with ``RecursionError``
on 300 nested groups (fixed there). It has not been the wrong side so far.

Known weak spots: terms are interned in a process-wide weak table and memoize their
derivatives, so memory grows with the number of live terms (the module functions'
caches keep at most ``MAX_CACHED_TERMS`` of them between calls: ``bounds``); deeply
nested patterns recurse (a ``RecursionError`` becomes ``LimitExceeded``).
"""

from __future__ import annotations

from .api import Oracle, canonical_dfa, clear_caches, difference, is_empty, mask, matches, viable, witness
from .bounds import (
    MAX_CACHED_DFA_CELLS,
    MAX_CACHED_TERMS,
    MAX_DERIVATIVE_WORK,
    MAX_MOORE_WORK,
    MAX_PATTERN_CHARS,
    MAX_REPEAT,
    MAX_STATES,
)
from .derive import classes, derivative, derive_bytes, nullable
from .dfa import DEAD, canonical_from_rows
from .emptiness import is_empty_term
from .errors import (
    ConstrainError,
    EmptyLanguage,
    InvalidArgument,
    LimitExceeded,
    PatternError,
    PatternSyntaxError,
    PatternTooLarge,
    UnsupportedSyntax,
)
from .frontend import parse
from .terms import ALL, EMPTY_STRING, NOTHING, Term, alt, alt_of, byteset, cat, members, opt, repeat, star
from .witnesses import difference_term, witness_term

__all__ = [
    "DEAD", "MAX_REPEAT", "MAX_STATES", "MAX_MOORE_WORK", "MAX_PATTERN_CHARS", "MAX_DERIVATIVE_WORK",
    "MAX_CACHED_TERMS", "MAX_CACHED_DFA_CELLS",
    "Term", "NOTHING", "EMPTY_STRING", "ALL", "members",
    "ConstrainError", "PatternError", "PatternSyntaxError", "UnsupportedSyntax", "EmptyLanguage", "LimitExceeded",
    "PatternTooLarge", "InvalidArgument",
    "byteset", "cat", "alt", "alt_of", "star", "opt", "repeat",
    "parse", "derivative", "derive_bytes", "nullable", "classes", "is_empty_term",
    "canonical_from_rows",
    "matches", "viable", "is_empty", "mask", "canonical_dfa", "Oracle", "clear_caches",
    "witness", "difference", "witness_term", "difference_term",
]
