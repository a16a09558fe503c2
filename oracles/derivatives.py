"""The derivative oracle: regex meaning by Brzozowski derivatives, no automaton code shared.

Main access point: ``Oracle(pattern)`` (or the module functions ``matches``,
``viable``, ``is_empty``, ``mask``, ``canonical_dfa``, which cache one ``Oracle`` per
pattern). This is the second of the harness's three implementations of one meaning
(see ``DESIGN.md``); it shares no meaning-deciding code with ``oracles.automaton`` and
never imports it.

Pipeline, one paragraph per stage below:

    pattern text --(Python's own parser, re._parser)--> sre tree
                 --(_convert, the subset only)--------> Term (smart constructors)
    Term --derivative(t, byte)--> Term ...   nullable(t): is "" in L(t)?
    matches: derive by every byte, then nullable
    viable:  derive by the prefix, then "not empty" (a search for a nullable term)
    witness / difference: shortlex-least member / member of the symmetric difference
    mask:    per token, viable(prefix + token); EOS iff nullable(prefix)
    canonical_dfa: explore derivatives (states = terms) over derivative classes,
                   then liveness, Moore minimization, breadth-first numbering

Meaning: exactly Python's ``re.fullmatch(pattern.encode("ascii"), data)`` on bytes:
``\\d`` is [0-9], ``\\w`` [A-Za-z0-9_], ``\\s`` [ \\t\\n\\r\\f\\v], ``.`` any byte but
``\\n``, ``[^...]`` the complement over all 256 bytes.

Subset (refused with a ``ValueError`` naming the construct and its offset):
anchors ``^ $ \\A \\Z \\b \\B``, backreferences, conditionals, lookarounds, atomic
groups, lazy and possessive quantifiers, named groups, inline flags, comments,
non-ASCII characters, repeat bounds over ``MAX_REPEAT``. Accepted as Python reads
them: octal escapes (``\\0``, ``\\012``), ``{,n}``, a ``{`` that starts no repeat.
Malformed patterns (Python's ``re.error``) are ``PatternMalformed``.

Terms (Owens, Reppy and Turon, "Regular-expression derivatives re-examined", JFP
2009) are hash-consed: two terms are equal iff they are the same object. They are
only built through smart constructors that enforce a normal form (each rule with an
e.g. at its code): alternation is a frozenset (associative, commutative,
idempotent), with all byte-set members merged into one; concatenation is a flat
tuple; ∅ and ε are absorbed. Bounded repeats are counting terms ``r{lo,hi}`` (not
expanded), so a derivative of ``a{0,1000}`` is one small term.

Invariant (proved by induction over the constructors): a term denotes the empty
language iff it *is* ``EMPTY``, since byte sets are never empty and every other
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

Bounds: ``MAX_PATTERN_CHARS`` (pattern text, checked before Python's parser sees
it), ``MAX_REPEAT`` (repeat counts, checked by ``parse``), ``MAX_STATES`` (distinct
terms explored by one ``canonical_dfa`` or one emptiness search),
``MAX_DERIVATIVE_WORK`` (derivative steps of one public call: fresh derivatives,
each costing the number of alternatives it walks; nested counted repeats such as
``((a{0,30}){0,30}){0,30}`` grow terms of thousands of alternatives and are refused
within about a second) and ``MAX_MOORE_WORK`` (states x columns x rounds of
Moore minimization, quadratic on long chains: a literal of 6 000 bytes is refused,
and so is the array schema ``[item(,item){0,999}]`` of objects); past them
``DerivativeLimitExceeded``.

Disagreements this oracle settled (each a regression test in
``tests/test_derivatives.py`` or ``tests/test_stdlib.py``): ``regex`` partial
matching answers "partial" on an empty rest (``a[^\\x00-\\xff]`` on ``b"a"``) and
reads ``[^\\d\\D]`` as every byte; the reference crashed with ``RecursionError``
on 300 nested groups (fixed there). It has not been the wrong side so far.

Known weak spots: terms are interned in a process-wide weak table and memoize their
derivatives, so memory grows with the number of live terms; deeply nested patterns
recurse (a ``RecursionError`` becomes ``DerivativeLimitExceeded``).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
import warnings
import weakref
from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np

try:  # Python >= 3.11
    from re import _constants as _sre
    from re import _parser as _sre_parse
except ImportError:  # Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = [
    "DEAD", "MAX_REPEAT", "MAX_STATES", "MAX_MOORE_WORK", "MAX_PATTERN_CHARS", "MAX_DERIVATIVE_WORK", "Term", "EMPTY", "EPS",
    "PatternMalformed", "PatternUnsupported", "LanguageEmpty", "DerivativeLimitExceeded",
    "byteset", "cat", "alt", "alt_of", "star", "opt", "repeat",
    "parse", "derivative", "derive_bytes", "nullable", "classes", "is_empty_term",
    "canonical_from_rows",
    "matches", "viable", "is_empty", "mask", "canonical_dfa", "Oracle", "clear_caches",
    "witness", "difference", "witness_term", "difference_term",
]

DEAD = -1            # the absence of a state in a transition table
MAX_REPEAT = 1000    # largest repeat bound accepted in {m,n}: e.g. a{1001} is refused
MAX_STATES = 20_000  # most distinct terms explored by one DFA build or emptiness search
MAX_MOORE_WORK = 20_000_000  # most (states x columns x rounds) of one Moore minimization (a few s)
MAX_PATTERN_CHARS = 200_000  # longest pattern text parsed: a 1 MB literal is refused before parsing
MAX_DERIVATIVE_WORK = 400_000  # derivative steps of one public call (about a second), plus 64 per input byte

# ---------------------------------------------------------------------------------
# Errors: one ValueError per problem kind, each carrying the pattern and an offset.
# ---------------------------------------------------------------------------------


class PatternError(ValueError):
    """A problem located in a pattern; ``str`` names it, the offset, and a caret."""

    def __init__(self, message: str, pattern: str | None = None, pos: int | None = None):
        self.msg, self.pattern, self.pos = message, pattern, pos
        text = message if pos is None else f"{message} at offset {pos}"
        if pattern is not None and pos is not None and len(pattern) <= 200:
            text += f"\n  {pattern}\n  {' ' * pos}^"
        super().__init__(text)


class PatternMalformed(PatternError):
    """Not a regex at all (Python's ``re`` refuses it), e.g. ``(ab`` or ``a{3,2}``."""


class PatternUnsupported(PatternError):
    """A valid Python regex outside the subset, e.g. ``^a`` or ``a*?``."""


class LanguageEmpty(PatternError):
    """The pattern matches nothing (e.g. ``[^\\x00-\\xff]``): it has no canonical DFA."""


class DerivativeLimitExceeded(ValueError):
    """Work grew past ``MAX_STATES`` terms (or past the recursion limit)."""


# ---------------------------------------------------------------------------------
# Byte sets: Python ints used as 256-bit sets (bit b set iff byte b is a member).
# ---------------------------------------------------------------------------------

ALL = (1 << 256) - 1


def _span(lo: int, hi: int) -> int:
    """The bytes lo..hi inclusive, e.g. _span(0x30, 0x39) is the digits."""
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


def _of(text: bytes) -> int:
    bits = 0
    for b in text:
        bits |= 1 << b
    return bits


DIGIT = _span(0x30, 0x39)
WORD = DIGIT | _span(0x41, 0x5A) | _span(0x61, 0x7A) | _of(b"_")
SPACE = _of(b" \t\n\r\f\v")
NEWLINE = 1 << 10

_CATEGORIES = {  # Python's bytes-pattern meanings (no LOCALE, no UNICODE)
    "CATEGORY_DIGIT": DIGIT, "CATEGORY_NOT_DIGIT": ALL ^ DIGIT,
    "CATEGORY_WORD": WORD, "CATEGORY_NOT_WORD": ALL ^ WORD,
    "CATEGORY_SPACE": SPACE, "CATEGORY_NOT_SPACE": ALL ^ SPACE,
}


@functools.lru_cache(maxsize=4096)
def _members(bits: int) -> tuple[int, ...]:
    """The bytes of a set, ascending, e.g. _members(0b101) == (0, 2)."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return tuple(out)


def _lowest(bits: int) -> int:
    return (bits & -bits).bit_length() - 1


# ---------------------------------------------------------------------------------
# Terms and their smart constructors.
# ---------------------------------------------------------------------------------

K_EMPTY, K_EPS, K_SET, K_CAT, K_ALT, K_STAR, K_REPEAT = range(7)


class Term:
    """A hash-consed regex term; build it only through the constructors below.

    ``kind`` is one of the K_* codes; ``args`` is, by kind: EMPTY/EPS ``None``, SET
    the byte set (a non-zero int), CAT a pair (head, rest) of non-ε, non-∅ terms
    with a non-CAT head (a right-nested chain: abc is (a, (b, c))), ALT a
    frozenset of >= 2 non-ALT terms holding at most one SET, STAR the body (never
    STAR, ε or ∅), REPEAT ``(body, lo, hi)`` with ``hi`` None for unbounded.
    ``nullable`` is True iff ε is in the language. Equality is identity.
    """

    __slots__ = ("kind", "args", "nullable", "_deriv", "_classes", "_empty", "__weakref__")

    def __init__(self, kind: int, args, nullable: bool):
        self.kind, self.args, self.nullable = kind, args, nullable
        self._deriv: dict[int, Term] = {}
        self._classes: tuple[int, ...] | None = None
        self._empty: bool | None = None

    def __repr__(self) -> str:
        return f"Term({_show(self)!r})"

    def __reduce__(self):  # terms are interned; pickling would break identity
        raise TypeError("Term objects are interned and cannot be pickled")


_TABLE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _intern(kind: int, args, nullable: bool) -> Term:
    key = (kind, args)
    term = _TABLE.get(key)
    if term is None:
        term = Term(kind, args, nullable)
        _TABLE[key] = term
    return term


EMPTY = Term(K_EMPTY, None, False)  # ∅: no string
EPS = Term(K_EPS, None, True)       # ε: only the empty string
_STRONG = [EMPTY, EPS]              # the two constants live forever


def byteset(bits: int) -> Term:
    """One byte from a set; the empty set is ∅ (e.g. [^\\x00-\\xff] -> ∅)."""
    if not 0 <= bits <= ALL:
        raise ValueError(f"internal: byte set {bits:#x} outside 0..255")
    return EMPTY if bits == 0 else _intern(K_SET, bits, False)


def cat(*terms: Term) -> Term:
    """Concatenation, flattened: ∅·r -> ∅, ε·r -> r, (ab)c -> a(bc).

    A CAT is a right-nested pair (head, rest), so the tail of a concatenation is
    one field away: the derivative of a 100 000-byte literal costs O(1) per byte.
    The last term is kept as the tail as it is; only the others are walked.
    """
    if any(t is EMPTY for t in terms):
        return EMPTY
    acc = EPS
    for t in reversed(terms):
        if t is EPS:
            continue
        if acc is EPS:
            acc = t
        elif t.kind == K_CAT:
            for item in reversed(_items(t)):
                acc = _cons(item, acc)
        else:
            acc = _cons(t, acc)
    return acc


def _cons(head: Term, rest: Term) -> Term:
    return _intern(K_CAT, (head, rest), head.nullable and rest.nullable)


def _items(t: Term) -> list[Term]:
    """The items of a concatenation chain, e.g. a(b(c)) -> [a, b, c]."""
    out = []
    while t.kind == K_CAT:
        out.append(t.args[0])
        t = t.args[1]
    out.append(t)
    return out


def alt(*terms: Term) -> Term:
    return alt_of(terms)


def alt_of(terms: Iterable[Term]) -> Term:
    """Alternation as a set: r|∅ -> r, r|r -> r, (a|b)|c -> a|b|c, [ab]|c -> [abc],
    and ε|r -> r when r is nullable (e.g. ε|a* -> a*)."""
    members: set[Term] = set()
    bits = 0
    for t in terms:
        for u in (t.args if t.kind == K_ALT else (t,)):
            if u.kind == K_SET:
                bits |= u.args
            elif u is not EMPTY:
                members.add(u)
    if _BUDGET.active:
        _BUDGET.spend(len(members))  # building and hashing the set costs its size
    if bits:
        members.add(byteset(bits))
    if EPS in members and any(u.nullable and u is not EPS for u in members):
        members.discard(EPS)
    if not members:
        return EMPTY
    if len(members) == 1:
        return next(iter(members))
    args = frozenset(members)
    return _intern(K_ALT, args, any(t.nullable for t in args))


def star(t: Term) -> Term:
    """Kleene star: ∅* -> ε, ε* -> ε, r** -> r*, (ε|r)* -> r*."""
    if t is EMPTY or t is EPS:
        return EPS
    if t.kind == K_STAR:
        return t
    if t.kind == K_ALT and EPS in t.args:
        return star(alt_of(u for u in t.args if u is not EPS))
    if t.kind == K_REPEAT and t.args[1] <= 1:
        return star(t.args[0])  # e.g. (a{0,3})* -> a*, (a{1,})* -> a*
    return _intern(K_STAR, t, True)


def opt(t: Term) -> Term:
    """r? as ε|r."""
    return alt(EPS, t)


def repeat(t: Term, lo: int, hi: int | None) -> Term:
    """r{lo,hi} as a counting term (hi None: unbounded).

    Rules: r{0,0} -> ε, r{1,1} -> r, r{0,} -> r*, ∅{0,n} -> ε, ∅{m,n} -> ∅ (m > 0),
    ε{m,n} -> ε, and a nullable r gets lo = 0 (e.g. (a?){2,3} -> (a?){0,3}).
    """
    if lo < 0 or (hi is not None and hi < lo):
        raise ValueError(f"internal: bad repeat bounds {{{lo},{hi}}}")
    if t is EMPTY:
        return EPS if lo == 0 else EMPTY
    if t is EPS or hi == 0:
        return EPS
    if t.nullable:
        lo = 0
    if lo == 0 and hi is None:
        return star(t)
    if lo == 1 and hi == 1:
        return t
    return _intern(K_REPEAT, (t, lo, hi), lo == 0)


def _show(t: Term) -> str:
    """A pattern-like rendering for debugging, e.g. 'ca[rt]|dog'."""
    k = t.kind
    if k == K_EMPTY:
        return "∅"
    if k == K_EPS:
        return "ε"
    if k == K_SET:
        return _show_set(t.args)
    if k == K_CAT:
        return "".join(_wrap(u, (K_ALT,)) for u in _items(t))
    if k == K_ALT:
        return "|".join(sorted(_show(u) for u in t.args))
    if k == K_STAR:
        return _wrap(t.args, (K_ALT, K_CAT, K_STAR, K_REPEAT)) + "*"
    body, lo, hi = t.args
    return _wrap(body, (K_ALT, K_CAT, K_STAR, K_REPEAT)) + f"{{{lo},{'' if hi is None else hi}}}"


def _wrap(t: Term, kinds: tuple[int, ...]) -> str:
    return f"({_show(t)})" if t.kind in kinds else _show(t)


def _show_set(bits: int) -> str:
    """e.g. 'a', '.', '[0-9a]', '[^\\x0a]' (the complement when it is shorter)."""
    if bits == ALL ^ NEWLINE:
        return "."
    ms = _members(bits)
    if len(ms) == 1:
        return _show_byte(ms[0])
    if bits == ALL:
        return "[\\x00-\\xff]"
    if len(ms) > 128:
        return "[^" + _show_ranges(_members(ALL ^ bits)) + "]"
    return "[" + _show_ranges(ms) + "]"


def _show_byte(b: int) -> str:
    c = chr(b)
    return c if c.isalnum() and b < 128 else f"\\x{b:02x}"


def _show_ranges(ms: tuple[int, ...]) -> str:
    out, i = [], 0
    while i < len(ms):
        j = i
        while j + 1 < len(ms) and ms[j + 1] == ms[j] + 1:
            j += 1
        out.append(_show_byte(ms[i]) if j - i < 2 else f"{_show_byte(ms[i])}-{_show_byte(ms[j])}")
        out.extend(_show_byte(ms[k]) for k in range(i + 1, j + 1) if j - i == 1)
        i = j + 1
    return "".join(out)


# ---------------------------------------------------------------------------------
# Front end: Python's own parser on the ASCII bytes of the pattern, then the subset.
# ---------------------------------------------------------------------------------

_REFUSED_OPCODES = {  # sre opcode name -> (construct, scanner kind that locates it)
    "AT": ("anchor", "anchor"),
    "GROUPREF": ("backreference", "backreference"),
    "GROUPREF_EXISTS": ("conditional group", "conditional"),
    "ASSERT": ("lookaround", "lookaround"),
    "ASSERT_NOT": ("lookaround", "lookaround"),
    "MIN_REPEAT": ("lazy quantifier", "lazy"),
    "POSSESSIVE_REPEAT": ("possessive quantifier", "possessive"),
    "ATOMIC_GROUP": ("atomic group", "atomic"),
}


def parse(pattern: str) -> Term:
    """The term of a pattern of the subset.

    Raises TypeError when ``pattern`` is not a str; ``PatternUnsupported`` (naming the
    construct and offset) outside the subset; ``PatternMalformed`` when Python's
    ``re`` refuses the pattern. An empty language is *not* an error here (its term
    is ``EMPTY``); ``canonical_dfa`` refuses it.

    Example: ``parse("a|b") is byteset(0b11 << 97)``.
    """
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise DerivativeLimitExceeded(f"pattern of {len(pattern)} characters, over MAX_PATTERN_CHARS="
                                      f"{MAX_PATTERN_CHARS}")
    return _parse_cached(pattern)


@functools.lru_cache(maxsize=2048)
def _parse_cached(pattern: str) -> Term:
    for i, ch in enumerate(pattern):
        if ord(ch) > 127:
            raise PatternUnsupported(f"non-ASCII character {ch!r}", pattern, i)
    try:
        with warnings.catch_warnings():  # e.g. "Possible nested set": Python's meaning stands
            warnings.simplefilter("ignore", FutureWarning)
            tree = _sre_parse.parse(pattern.encode("ascii"), 0)
    except re.error as e:
        raise PatternMalformed(f"malformed pattern: {e.msg}", pattern, e.pos) from None
    except RecursionError:
        raise DerivativeLimitExceeded("pattern nested too deeply for Python's parser") from None
    except (OverflowError, ValueError):  # a repeat bound Python will not convert (e.g. 5000 digits)
        raise PatternUnsupported(f"repeat bound over MAX_REPEAT={MAX_REPEAT}", pattern,
                                 _locate_big_repeat(pattern)) from None
    if tree.state.flags:
        raise PatternUnsupported("inline flags", pattern, _locate(pattern, "flags"))
    if tree.state.groupdict:
        raise PatternUnsupported("named group", pattern, _locate(pattern, "named group"))
    pos = _locate(pattern, "comment")  # (?#...) leaves no trace in the tree
    if pos is not None:
        raise PatternUnsupported("comment", pattern, pos)
    try:
        return _convert(tree, pattern)
    except RecursionError:
        raise DerivativeLimitExceeded("pattern nested too deeply") from None


def _convert(items, pattern: str) -> Term:
    """The concatenation of a list of sre (opcode, argument) items."""
    return cat(*(_convert_item(op, av, pattern) for op, av in items))


def _convert_item(op, av, pattern: str) -> Term:
    """One sre item; a closed dispatcher, one branch per opcode of the subset."""
    name = str(op)
    if name == "LITERAL":        # a, \x41, \n, \.
        return byteset(1 << av)
    if name == "NOT_LITERAL":    # [^a]
        return byteset(ALL ^ (1 << av))
    if name == "ANY":            # . : any byte but \n (no DOTALL: flags are refused)
        return byteset(ALL ^ NEWLINE)
    if name == "IN":             # [a-z\d], \w, [^...]
        return byteset(_class_bits(av, pattern))
    if name == "BRANCH":         # a|b|  (av = (None, [branch, ...]))
        return alt_of(_convert(branch, pattern) for branch in av[1])
    if name == "SUBPATTERN":     # (...) and (?:...) ; (?i:...) carries flags
        _group, add_flags, del_flags, body = av
        if add_flags or del_flags:
            raise PatternUnsupported("inline flags", pattern, _locate(pattern, "flags"))
        return _convert(body, pattern)
    if name == "MAX_REPEAT":     # * + ? {m} {m,} {m,n}, greedy
        lo, hi, body = av
        hi = None if hi == _sre.MAXREPEAT else hi
        if lo > MAX_REPEAT or (hi is not None and hi > MAX_REPEAT):
            raise PatternUnsupported(f"repeat bound over MAX_REPEAT={MAX_REPEAT}", pattern,
                                     _locate_big_repeat(pattern))
        return repeat(_convert(body, pattern), lo, hi)
    if name in _REFUSED_OPCODES:
        construct, kind = _REFUSED_OPCODES[name]
        raise PatternUnsupported(construct, pattern, _locate(pattern, kind))
    raise PatternUnsupported(f"construct {name}", pattern, None)


def _class_bits(items, pattern: str) -> int:
    """The byte set of an sre IN list: NEGATE first, then LITERAL/RANGE/CATEGORY."""
    bits, negate = 0, False
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            bits |= 1 << av
        elif name == "RANGE":
            bits |= _span(av[0], av[1])
        elif name == "CATEGORY":
            if str(av) not in _CATEGORIES:
                raise PatternUnsupported(f"class category {av}", pattern, None)
            bits |= _CATEGORIES[str(av)]
        else:
            raise PatternUnsupported(f"class item {name}", pattern, None)
    return ALL ^ bits if negate else bits


# The locator scans the text only to report offsets, and to refuse two constructs
# that Python's parser erases from its tree (comments). It never
# decides what an accepted pattern means.

_GROUP_KINDS = {"(?=": "lookaround", "(?!": "lookaround", "(?<=": "lookaround",
                "(?<!": "lookaround", "(?P<": "named group", "(?P=": "backreference",
                "(?#": "comment", "(?>": "atomic", "(?(": "conditional"}


def _locate(pattern: str, kind: str) -> int | None:
    """The offset of the first construct of ``kind`` in the text, or None."""
    for pos, found in _scan(pattern):
        if found == kind:
            return pos
    return None


def _locate_big_repeat(pattern: str) -> int | None:
    """The offset of the first {m,n} with a bound over MAX_REPEAT, e.g. 1 in a{1001}."""
    for pos, found in _scan(pattern):
        close = pattern.find("}", pos)
        if found == "brace" and close > 0:
            bounds = pattern[pos + 1:close].split(",")
            if any(b.isdigit() and (len(b.lstrip("0")) > len(str(MAX_REPEAT)) or int(b) > MAX_REPEAT)
                   for b in bounds):
                return pos
    return None


def _scan(pattern: str):
    """Yield (offset, kind) for the located constructs outside brackets. Kinds:
    anchor, lookaround, named group, backreference, comment, atomic, conditional,
    flags, lazy, possessive, brace."""
    i, n, in_class, after_quant = 0, len(pattern), False, False
    while i < n:
        c = pattern[i]
        quant = False
        if c == "\\" and i + 1 < n:
            e = pattern[i + 1]
            if not in_class and e in "AZbB":
                yield i, "anchor"
            elif not in_class and e.isdigit():
                yield i, "backreference"
            i += 2
            after_quant = False
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif c in "^$":
            yield i, "anchor"
        elif c == "(" and pattern[i + 1:i + 2] == "?":
            kind = next((k for p, k in _GROUP_KINDS.items() if pattern.startswith(p, i)), None)
            if kind is None and not pattern.startswith("(?:", i):
                kind = "flags"
            if kind:
                yield i, kind
        elif c in "*+?" and after_quant:  # e.g. a*? : the offset of the ?
            yield i, "lazy" if c == "?" else "possessive"
        elif c in "*+?":
            quant = True
        elif c == "{":
            yield i, "brace"
            close = pattern.find("}", i)
            if close > 0:
                i = close
                quant = True
        after_quant = quant
        i += 1


# ---------------------------------------------------------------------------------
# Derivatives, nullability and derivative classes.
# ---------------------------------------------------------------------------------


def nullable(term: Term) -> bool:
    """Return True if and only if the empty string is in the term's language."""
    return term.nullable


def derivative(term: Term, byte: int) -> Term:
    """The Brzozowski derivative: the strings w such that ``byte``·w is in L(term).

    Memoized on the term. Rules: d∅ = dε = ∅; d[S] = ε if byte ∈ S else ∅;
    d(rs) = d(r)s | (d(s) if r nullable); d(r|s) = dr|ds; d(r*) = d(r)r*;
    d(r{lo,hi}) = d(r)·r{lo-1,hi-1} (lo floored at 0; r nullable has lo = 0).
    """
    cached = term._deriv.get(byte)
    if cached is not None:
        return cached
    k = term.kind
    if _BUDGET.active:
        _BUDGET.spend(1)
    if k == K_SET:
        out = EPS if (term.args >> byte) & 1 else EMPTY
    elif k == K_CAT:
        head, rest = term.args
        out = cat(derivative(head, byte), rest)
        if head.nullable:
            out = alt(out, derivative(rest, byte))
    elif k == K_ALT:
        out = alt_of(derivative(u, byte) for u in term.args)
    elif k == K_STAR:
        out = cat(derivative(term.args, byte), term)
    elif k == K_REPEAT:
        body, lo, hi = term.args
        out = cat(derivative(body, byte), repeat(body, max(lo - 1, 0), None if hi is None else hi - 1))
    else:  # EMPTY, EPS
        out = EMPTY
    term._deriv[byte] = out
    return out


def classes(term: Term) -> tuple[int, ...]:
    """Approximate derivative classes (Owens et al. 2009, section 4.2): a partition
    of the 256 bytes (as bit sets) such that any two bytes in one class give the
    same derivative. C(∅) = C(ε) = {Σ}; C(S) = {S, Σ∖S}; C(rs) = C(r), met with C(s)
    when r is nullable; C(r|s) = C(r) ∧ C(s); C(r*) = C(r{m,n}) = C(r).
    """
    if term._classes is None:
        term._classes = _compute_classes(term)
    return term._classes


def _compute_classes(term: Term) -> tuple[int, ...]:
    k = term.kind
    if k == K_SET:
        return tuple(b for b in (term.args, ALL ^ term.args) if b)
    if k == K_CAT:
        head = term.args[0]
        own = classes(head)
        return _meet(own, classes(term.args[1])) if head.nullable else own
    if k == K_ALT:
        if _BUDGET.active:
            _BUDGET.spend(len(term.args))
        out: tuple[int, ...] = (ALL,)
        for u in term.args:
            out = _meet(out, classes(u))
        return out
    if k == K_STAR:
        return classes(term.args)
    if k == K_REPEAT:
        return classes(term.args[0])
    return (ALL,)


def _meet(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """The coarsest common refinement of two partitions, e.g. {ab, c} ∧ {a, bc} ->
    {a, b, c}."""
    if len(p) == 1:
        return q
    if len(q) == 1:
        return p
    return tuple(x for a in p for b in q if (x := a & b))


def derive_bytes(term: Term, data: bytes) -> Term:
    """The derivative by every byte of ``data`` in turn (∅ stays ∅)."""
    for b in data:
        if term is EMPTY:
            break
        term = derivative(term, b)
    return term


# ---------------------------------------------------------------------------------
# Emptiness: a search of the derivative automaton for a nullable term.
# ---------------------------------------------------------------------------------


def is_empty_term(term: Term) -> bool:
    """Return True if and only if no nullable term is reachable from ``term`` by
    derivatives (so L(term) is empty). Breadth first over derivative classes;
    memoized: the terms on the path to a nullable term are marked non-empty, and
    when the search fails every visited term is marked empty.

    Raises ``DerivativeLimitExceeded`` past ``MAX_STATES`` visited terms.
    """
    if term._empty is not None:
        return term._empty
    parent: dict[Term, Term | None] = {term: None}
    queue = deque([term])
    while queue:
        t = queue.popleft()
        if t.nullable or t._empty is False:
            while t is not None:  # mark the path back to the start non-empty
                t._empty = False
                t = parent[t]
            return False
        if t._empty:
            continue
        for c in classes(t):
            u = derivative(t, _lowest(c))
            if u not in parent:
                if len(parent) >= MAX_STATES:
                    raise DerivativeLimitExceeded(
                        f"emptiness search visited more than MAX_STATES={MAX_STATES} terms")
                parent[u] = t
                queue.append(u)
    for t in parent:
        t._empty = True
    return True


# ---------------------------------------------------------------------------------
# Witnesses: the shortlex-least member, and the shortlex-least difference.
# ---------------------------------------------------------------------------------


def _shortlex_search(start, is_goal, step) -> bytes | None:
    """Breadth first from ``start``, bytes ascending: nodes are dequeued in the
    shortlex order (length, then bytes) of the first string reaching them, so the
    first goal dequeued is reached by the shortlex-least string. ``step(node)``
    yields (byte set, successor) pairs, or None successors to skip."""
    path: dict = {start: b""}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if is_goal(node):
            return path[node]
        for bits, succ in sorted(step(node), key=lambda pair: _lowest(pair[0])):
            if succ is not None and succ not in path:
                if len(path) >= MAX_STATES:
                    raise DerivativeLimitExceeded(f"witness search past MAX_STATES={MAX_STATES} terms")
                path[succ] = path[node] + bytes([_lowest(bits)])
                queue.append(succ)
    return None


def witness_term(term: Term) -> bytes | None:
    """The shortlex-least member of L(term) (e.g. ``b"ab"`` for ``(ab|ba)c?``), or
    None when the language is empty."""
    def step(t):
        return [(c, None if (u := derivative(t, _lowest(c))) is EMPTY else u) for c in classes(t)]
    return _shortlex_search(term, lambda t: t.nullable, step)


def difference_term(left: Term, right: Term) -> bytes | None:
    """The shortlex-least string in exactly one of the two languages (a member of
    the symmetric difference), or None when they are equal: a product search of
    the two derivative automata over the meet of their classes."""
    def step(pair):
        t, u = pair
        if t is EMPTY and u is EMPTY:
            return []
        out = []
        for c in _meet(classes(t), classes(u)):
            b = _lowest(c)
            out.append((c, (derivative(t, b), derivative(u, b))))
        return out
    return _shortlex_search((left, right), lambda pair: pair[0].nullable != pair[1].nullable, step)


# ---------------------------------------------------------------------------------
# The canonical DFA: explore, keep the live states, Moore-minimize, number.
# ---------------------------------------------------------------------------------


def _explore(start: Term) -> tuple[list[list[int]], list[bool]]:
    """The derivative automaton from ``start``: rows of 256 targets (DEAD for ∅)
    and accepting flags; state i is the i-th term reached breadth first."""
    index: dict[Term, int] = {start: 0}
    order = [start]
    rows: list[list[int]] = []
    for t in order:  # grows while we iterate: a breadth-first queue
        row = [DEAD] * 256
        for c in classes(t):
            u = derivative(t, _lowest(c))
            if u is EMPTY:
                continue
            target = index.get(u)
            if target is None:
                if len(order) >= MAX_STATES:
                    raise DerivativeLimitExceeded(
                        f"derivative automaton has more than MAX_STATES={MAX_STATES} states")
                target = index[u] = len(order)
                order.append(u)
            for b in _members(c):
                row[b] = target
        rows.append(row)
    return rows, [t.nullable for t in order]


def _live(rows: list[list[int]], accept: list[bool]) -> list[bool]:
    """live[s] iff an accepting state is reachable from s (backward search)."""
    preds: list[set[int]] = [set() for _ in rows]
    for s, row in enumerate(rows):
        for t in set(row):
            if t != DEAD:
                preds[t].add(s)
    live = list(accept)
    stack = [s for s, a in enumerate(accept) if a]
    while stack:
        for p in preds[stack.pop()]:
            if not live[p]:
                live[p] = True
                stack.append(p)
    return live


def _moore(trans: np.ndarray, accept: np.ndarray) -> np.ndarray:
    """Block ids after Moore refinement: start from {accepting, not}; split blocks
    whose states move to different blocks on some byte column; stop when the number
    of blocks no longer grows. Equal byte columns are merged first (they stay equal
    under any block mapping), so each round compares classes, not 256 bytes.

    Cost: one round per length of the longest shortest distinguishing string, so
    O(n^2 k) on a chain (a 2 000-byte literal needs 2 000 rounds of 2 001 states);
    past ``MAX_MOORE_WORK`` states x columns x rounds (each column is one ``np.unique``
    per round) it raises ``DerivativeLimitExceeded``.
    """
    _, first = np.unique(trans, axis=1, return_index=True)
    cols = trans[:, np.sort(first)]
    block = accept.astype(np.int64)
    count = len(np.unique(block))  # 1 when every state accepts (or none does)
    for rounds in itertools.count(1):
        if rounds * len(block) * max(1, cols.shape[1]) > MAX_MOORE_WORK:
            raise DerivativeLimitExceeded(
                f"Moore minimization past MAX_MOORE_WORK={MAX_MOORE_WORK} states x columns x rounds "
                f"({len(block)} states, {cols.shape[1]} columns, round {rounds})")
        new_block, new_count = _refine(block, cols)
        if new_count == count:
            return new_block
        block, count = new_block, new_count


def _refine(block: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, int]:
    """One Moore round: number the distinct (block, block of each column's target)
    signatures, folding one column at a time into a dense key (exact, no hashing):
    e.g. key (1, 0) then target block 2 becomes a new dense id for (1, 0, 2)."""
    key = block
    width = int(block.max()) + 2  # target blocks are -1 (DEAD) .. max
    for c in range(cols.shape[1]):
        targets = np.where(cols[:, c] >= 0, block[np.maximum(cols[:, c], 0)], -1)
        _, key = np.unique(key * width + (targets + 1), return_inverse=True)
        key = key.reshape(-1)
    return key, int(key.max()) + 1


def _number(trans: np.ndarray, accept: np.ndarray, block: np.ndarray):
    """The quotient by ``block``, numbered breadth first from block[0], bytes
    ascending: the first block reached gets the next number."""
    rep: dict[int, int] = {}
    for s, b in enumerate(block.tolist()):
        rep.setdefault(b, s)
    number = {int(block[0]): 0}
    order = [int(block[0])]
    rows = []
    for b in order:
        row = []
        for t in trans[rep[b]].tolist():
            if t == DEAD:
                row.append(DEAD)
                continue
            tb = int(block[t])
            if tb not in number:
                number[tb] = len(order)
                order.append(tb)
            row.append(number[tb])
        rows.append(row)
    out_trans = np.array(rows, dtype=np.int32).reshape(len(order), 256)
    out_accept = np.array([bool(accept[rep[b]]) for b in order], dtype=np.bool_)
    return out_trans, out_accept


def _canonical(start: Term, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    if is_empty_term(start):
        raise LanguageEmpty("empty language: the pattern matches no string", pattern, 0)
    rows, accept_list = _explore(start)
    return canonical_from_rows(rows, accept_list)


def canonical_from_rows(rows: list[list[int]], accept_list: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Liveness, Moore minimization and numbering of any complete automaton whose
    start state 0 is live (rows of 256 targets or DEAD). With derivatives the
    liveness pass has nothing to do (∅ is the only empty term, and it is DEAD
    already); it is kept, and tested on hand-made automata with a dead sink."""
    live = _live(rows, accept_list)
    if not live[0]:
        raise LanguageEmpty("empty language: no accepting state is reachable")
    keep = [s for s, ok in enumerate(live) if ok]  # state 0 is live: L is not empty
    new_id = {s: i for i, s in enumerate(keep)}
    trans = np.array([[new_id.get(t, DEAD) for t in rows[s]] for s in keep], dtype=np.int64)
    trans = trans.reshape(len(keep), 256)
    accept = np.array([accept_list[s] for s in keep], dtype=np.bool_)
    return _number(trans, accept, _moore(trans, accept))


# ---------------------------------------------------------------------------------
# The oracle.
# ---------------------------------------------------------------------------------


class _Budget:
    """The derivative work left to the current public call (``MAX_DERIVATIVE_WORK`` at
    its start). Invariant: ``active`` is the depth of nested guarded calls; only the
    outermost one refills, and work outside any guarded call is not counted (direct
    ``derivative`` calls in tests stay unbounded, as documented)."""

    def __init__(self) -> None:
        self.active = 0
        self.left = MAX_DERIVATIVE_WORK

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise DerivativeLimitExceeded(
                f"derivative work past MAX_DERIVATIVE_WORK={MAX_DERIVATIVE_WORK} steps (terms grow too "
                f"large: e.g. nested counted repeats such as ((a{{0,30}}){{0,30}}){{0,30}})")


_BUDGET = _Budget()


@contextlib.contextmanager
def _recursion_guard(input_bytes: int = 0):
    """A term nested deeper than Python's recursion limit is a bound, not a crash; the
    outermost guarded call also gets a fresh derivative work budget, larger by 64
    steps per byte of its input (``matches`` on a long document is linear work)."""
    if not _BUDGET.active:
        _BUDGET.left = MAX_DERIVATIVE_WORK + 64 * input_bytes
    _BUDGET.active += 1
    try:
        yield
    except RecursionError:
        raise DerivativeLimitExceeded("term nested too deeply for the recursion limit") from None
    finally:
        _BUDGET.active -= 1


def _check_bytes(name: str, data) -> bytes:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{name} must be bytes, not {type(data).__name__}")
    return bytes(data)


def _check_vocab(vocab, eos_id) -> list[bytes | None]:
    if isinstance(vocab, (str, bytes)) or not isinstance(vocab, Sequence):
        raise TypeError(f"vocab must be a sequence of bytes or None, not {type(vocab).__name__}")
    out: list[bytes | None] = []
    for i, tok in enumerate(vocab):
        if tok is not None and not isinstance(tok, (bytes, bytearray)):
            raise ValueError(f"vocab[{i}] must be bytes or None, not {type(tok).__name__}")
        out.append(None if tok is None else bytes(tok))
    if eos_id is not None:
        if isinstance(eos_id, bool) or not isinstance(eos_id, (int, np.integer)):
            raise TypeError(f"eos_id must be an int or None, not {type(eos_id).__name__}")
        if not 0 <= int(eos_id) < len(out):
            raise ValueError(f"eos_id {eos_id} out of range 0..{len(out) - 1}")
    return out


class Oracle:
    """The derivative oracle for one pattern, caching its term, its prefixes' terms
    and its canonical DFA for repeated use (the golden generator walks paths).

    Example: ``Oracle("ab?").mask([b"a", b"b", b"c", None], 3, b"a")`` is
    ``[False, True, False, True]``: ``b`` continues, EOS ends the whole string ``a``.
    """

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.term = parse(pattern)
        self._prefix_terms: dict[bytes, Term] = {b"": self.term}
        self._dfa: tuple[np.ndarray, np.ndarray] | None = None

    def __repr__(self) -> str:
        return f"Oracle({self.pattern!r})"

    def after(self, prefix: bytes) -> Term:
        """The derivative of the pattern by ``prefix`` (cached per prefix)."""
        prefix = _check_bytes("prefix", prefix)
        term = self._prefix_terms.get(prefix)
        if term is None:
            if len(self._prefix_terms) > 4 * MAX_STATES:  # bound the cache
                self._prefix_terms = {b"": self.term}
            parent = self._prefix_terms.get(prefix[:-1])
            term = (derive_bytes(parent, prefix[-1:]) if parent is not None
                    else derive_bytes(self.term, prefix))
            self._prefix_terms[prefix] = term
        return term

    def matches(self, data: bytes) -> bool:
        """Return True if and only if ``data`` is in the language."""
        data = _check_bytes("data", data)
        with _recursion_guard(len(data)):
            return derive_bytes(self.term, data).nullable

    def viable(self, prefix: bytes) -> bool:
        """Return True if and only if some member of the language starts with ``prefix``."""
        prefix = _check_bytes("prefix", prefix)
        with _recursion_guard(len(prefix)):
            return not is_empty_term(self.after(prefix))

    def is_empty(self) -> bool:
        """Return True if and only if the language is empty."""
        with _recursion_guard():
            return is_empty_term(self.term)

    def mask(self, vocab: Sequence[bytes | None], eos_id: int | None = None,
             prefix: bytes = b"") -> np.ndarray:
        """bool [V] after ``prefix``, by TokenIndex's rules: a special (None) or empty
        token never; EOS iff the prefix is in the language; any other token iff
        ``prefix + token`` is viable. A non-viable prefix gives all False."""
        vocab = _check_vocab(vocab, eos_id)
        with _recursion_guard(len(_check_bytes("prefix", prefix))):
            return self._mask(vocab, eos_id, prefix)

    def _mask(self, vocab: list[bytes | None], eos_id: int | None, prefix: bytes) -> np.ndarray:
        out = np.zeros(len(vocab), dtype=np.bool_)
        start = self.after(prefix)
        if is_empty_term(start):
            return out
        for i, tok in enumerate(vocab):
            _BUDGET.left = MAX_DERIVATIVE_WORK + 64 * len(tok or b"")  # each token is a call of its own
            if i == eos_id:
                out[i] = start.nullable
            elif tok:
                after = derive_bytes(start, tok)
                out[i] = after is not EMPTY and not is_empty_term(after)
        return out

    def canonical_dfa(self) -> tuple[np.ndarray, np.ndarray]:
        """(trans int32 [S, 256], accept bool [S]): the minimal DFA numbered breadth
        first from 0, bytes ascending, DEAD (-1) for no continuation. Raises
        ``LanguageEmpty`` for an empty language. The arrays are read-only."""
        if self._dfa is None:
            with _recursion_guard():
                trans, accept = _canonical(self.term, self.pattern)
            trans.setflags(write=False)
            accept.setflags(write=False)
            self._dfa = (trans, accept)
        return self._dfa


@functools.lru_cache(maxsize=256)
def _oracle(pattern: str) -> Oracle:
    return Oracle(pattern)


def clear_caches() -> None:
    """Forget the cached parses and oracles; terms no longer referenced are then
    collected (with their memoized derivatives). Terms still held stay valid."""
    _oracle.cache_clear()
    _parse_cached.cache_clear()


def _get(pattern: str) -> Oracle:
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    return _oracle(pattern)


def matches(pattern: str, data: bytes) -> bool:
    """Return True if and only if ``data`` is in the language of ``pattern``."""
    return _get(pattern).matches(data)


def viable(pattern: str, prefix: bytes) -> bool:
    """Return True if and only if ``prefix`` can still grow into a member."""
    return _get(pattern).viable(prefix)


def is_empty(pattern: str) -> bool:
    """Return True if and only if the pattern matches no string at all."""
    return _get(pattern).is_empty()


def mask(pattern: str, vocab: Sequence[bytes | None], eos_id: int | None,
         prefix: bytes = b"") -> np.ndarray:
    """The token mask after ``prefix`` (see ``Oracle.mask``)."""
    return _get(pattern).mask(vocab, eos_id, prefix)


def witness(pattern: str) -> bytes | None:
    """The shortlex-least member of the pattern's language, or None when empty."""
    with _recursion_guard():
        return witness_term(_get(pattern).term)


def difference(left: str, right: str) -> bytes | None:
    """The shortlex-least string that one pattern matches and the other does not,
    or None when they have the same language (e.g. ``difference("a{2,3}", "a{2,4}")``
    is ``b"aaaa"``)."""
    with _recursion_guard():
        return difference_term(_get(left).term, _get(right).term)


def canonical_dfa(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """The canonical (trans, accept) of the pattern (see ``Oracle.canonical_dfa``)."""
    return _get(pattern).canonical_dfa()
