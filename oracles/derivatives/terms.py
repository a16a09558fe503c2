"""Terms: hash-consed regex terms over byte sets, built only by smart constructors.

Byte sets are Python ints used as 256-bit sets (bit b set iff byte b is a member):
``ALL``, ``DIGIT``, ``WORD``, ``SPACE``, ``NEWLINE``. Terms (Owens, Reppy and Turon,
"Regular-expression derivatives re-examined", JFP 2009) are interned: two terms are
equal iff they are the same object. The constructors ``byteset``, ``cat``, ``alt`` /
``alt_of``, ``star``, ``opt``, ``repeat`` enforce a normal form (each rule with an e.g.
at its code): alternation is a frozenset with all byte-set members merged into one,
concatenation a right-nested chain, ∅ and ε absorbed; bounded repeats stay counting
terms.

Guarantee (by induction over the constructors): a term denotes the empty language
iff it *is* ``NOTHING``. Example::

    >>> cat(byteset(1 << 97), alt(EMPTY_STRING, byteset(1 << 98)))
    Term('a(b|ε)')
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable

from .bounds import BUDGET
from .errors import InvalidArgument

__all__ = ["span", "members", "lowest", "ALL", "DIGIT", "WORD", "SPACE", "NEWLINE", "Term", "NOTHING", "EMPTY_STRING",
           "K_NOTHING", "K_EMPTY_STRING", "K_SET", "K_CAT", "K_ALT", "K_STAR", "K_REPEAT",
           "byteset", "cat", "alt", "alt_of", "star", "opt", "repeat"]

# Byte sets.

ALL = (1 << 256) - 1


def span(lo: int, hi: int) -> int:
    """The bytes lo..hi inclusive, e.g. span(0x30, 0x39) is the digits."""
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


def _of(text: bytes) -> int:
    bits = 0
    for b in text:
        bits |= 1 << b
    return bits


DIGIT = span(0x30, 0x39)
WORD = DIGIT | span(0x41, 0x5A) | span(0x61, 0x7A) | _of(b"_")
SPACE = _of(b" \t\n\r\f\v")
NEWLINE = 1 << 10


@functools.lru_cache(maxsize=4096)
def members(bits: int) -> tuple[int, ...]:
    """The bytes of a set, ascending, e.g. members(0b101) == (0, 2)."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return tuple(out)


def lowest(bits: int) -> int:
    return (bits & -bits).bit_length() - 1


# Terms and their smart constructors.

K_NOTHING, K_EMPTY_STRING, K_SET, K_CAT, K_ALT, K_STAR, K_REPEAT = range(7)


class Term:
    """A hash-consed regex term; build it only through the constructors below.

    ``kind`` is one of the K_* codes; ``args`` is, by kind: NOTHING/EMPTY_STRING ``None``, SET
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
"""The live terms, by ``_key``. Invariant: a key names a term's parts by ``id``, never holds
them. A key that held its parts kept them alive, and a derivative's memo can lead back to
the term whose key holds it (``d((ab)*, a)`` is ``b(ab)*``, whose key held ``(ab)*``): every
such cycle ran through this module-level table and was never collected (193,146 terms,
~200 MB, outlived ``clear_caches()`` after one refused schema of the bounds fuzz). An ``id``
is unique while its object lives and a term holds its parts, so a key names at most one
live term; the entry of a dead one answers None and is replaced."""


def _key(kind: int, args) -> tuple:
    if kind == K_CAT:
        return (kind, id(args[0]), id(args[1]))
    if kind == K_ALT:
        return (kind, frozenset(map(id, args)))
    if kind == K_STAR:
        return (kind, id(args))
    if kind == K_REPEAT:
        return (kind, id(args[0]), args[1], args[2])
    return (kind, args)  # K_SET: the byte set, an int


MADE = 0
"""How many terms ``_intern`` has made, ever (read it as ``terms.MADE``). ``api`` bounds its
caches by the terms made since its last clear: an upper bound of what the caches can hold
that terms a caller keeps do not inflate."""


def _intern(kind: int, args, nullable: bool) -> Term:
    global MADE
    key = _key(kind, args)
    term = _TABLE.get(key)
    if term is None:
        term = Term(kind, args, nullable)
        _TABLE[key] = term
        MADE += 1
    return term


NOTHING = Term(K_NOTHING, None, False)            # ∅, the empty language: no string
EMPTY_STRING = Term(K_EMPTY_STRING, None, True)   # ε: only the empty string
_STRONG = [NOTHING, EMPTY_STRING]                 # the two constants live forever


def byteset(bits: int) -> Term:
    """One byte from a set; the empty set is ∅ (e.g. [^\\x00-\\xff] -> ∅)."""
    if not 0 <= bits <= ALL:
        raise InvalidArgument(f"internal: byte set {bits:#x} outside 0..255")
    return NOTHING if bits == 0 else _intern(K_SET, bits, False)


def cat(*terms: Term) -> Term:
    """Concatenation, flattened: ∅·r -> ∅, ε·r -> r, (ab)c -> a(bc).

    A CAT is a right-nested pair (head, rest), so the tail of a concatenation is
    one field away: the derivative of a 100 000-byte literal costs O(1) per byte.
    The last term is kept as the tail as it is; only the others are walked.
    """
    if any(t is NOTHING for t in terms):
        return NOTHING
    acc = EMPTY_STRING
    for t in reversed(terms):
        if t is EMPTY_STRING:
            continue
        if acc is EMPTY_STRING:
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
            elif u is not NOTHING:
                members.add(u)
    if BUDGET.active:
        BUDGET.spend(len(members))  # building and hashing the set costs its size
    if bits:
        members.add(byteset(bits))
    if EMPTY_STRING in members and any(u.nullable and u is not EMPTY_STRING for u in members):
        members.discard(EMPTY_STRING)
    if not members:
        return NOTHING
    if len(members) == 1:
        return next(iter(members))
    args = frozenset(members)
    return _intern(K_ALT, args, any(t.nullable for t in args))


def star(t: Term) -> Term:
    """Kleene star: ∅* -> ε, ε* -> ε, r** -> r*, (ε|r)* -> r*."""
    if t is NOTHING or t is EMPTY_STRING:
        return EMPTY_STRING
    if t.kind == K_STAR:
        return t
    if t.kind == K_ALT and EMPTY_STRING in t.args:
        return star(alt_of(u for u in t.args if u is not EMPTY_STRING))
    if t.kind == K_REPEAT and t.args[1] <= 1:
        return star(t.args[0])  # e.g. (a{0,3})* -> a*, (a{1,})* -> a*
    return _intern(K_STAR, t, True)


def opt(t: Term) -> Term:
    """r? as ε|r."""
    return alt(EMPTY_STRING, t)


def repeat(t: Term, lo: int, hi: int | None) -> Term:
    """r{lo,hi} as a counting term (hi None: unbounded).

    Rules: r{0,0} -> ε, r{1,1} -> r, r{0,} -> r*, ∅{0,n} -> ε, ∅{m,n} -> ∅ (m > 0),
    ε{m,n} -> ε, and a nullable r gets lo = 0 (e.g. (a?){2,3} -> (a?){0,3}).
    """
    if lo < 0 or (hi is not None and hi < lo):
        raise InvalidArgument(f"internal: bad repeat bounds {{{lo},{hi}}}")
    if t is NOTHING:
        return EMPTY_STRING if lo == 0 else NOTHING
    if t is EMPTY_STRING or hi == 0:
        return EMPTY_STRING
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
    if k == K_NOTHING:
        return "∅"
    if k == K_EMPTY_STRING:
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
    ms = members(bits)
    if len(ms) == 1:
        return _show_byte(ms[0])
    if bits == ALL:
        return "[\\x00-\\xff]"
    if len(ms) > 128:
        return "[^" + _show_ranges(members(ALL ^ bits)) + "]"
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
