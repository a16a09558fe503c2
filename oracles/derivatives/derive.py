"""Derivatives: the Brzozowski derivative, nullability, and derivative classes.

``derivative(t, b)`` is the term of the strings w with b·w in L(t), memoized on the
term; ``classes(t)`` partitions the 256 bytes so that any two bytes in one class give
the same derivative (so later phases derive once per class, not per byte). Example::

    >>> from oracles.derivatives.frontend import parse
    >>> derive_bytes(parse("(cat|car|dog)s?"), b"ca")
    Term('[rt]s{0,1}')
"""

from __future__ import annotations

from .bounds import BUDGET
from .terms import ALL, EMPTY_STRING, K_ALT, K_CAT, K_REPEAT, K_SET, K_STAR, NOTHING, Term, alt, alt_of, cat, repeat

__all__ = ["nullable", "derivative", "classes", "derive_bytes", "meet"]

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
    if BUDGET.active:
        BUDGET.spend(1)
    if k == K_SET:
        out = EMPTY_STRING if (term.args >> byte) & 1 else NOTHING
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
    else:  # NOTHING, EMPTY_STRING
        out = NOTHING
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
        return meet(own, classes(term.args[1])) if head.nullable else own
    if k == K_ALT:
        if BUDGET.active:
            BUDGET.spend(len(term.args))
        out: tuple[int, ...] = (ALL,)
        for u in term.args:
            out = meet(out, classes(u))
        return out
    if k == K_STAR:
        return classes(term.args)
    if k == K_REPEAT:
        return classes(term.args[0])
    return (ALL,)


def meet(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
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
        if term is NOTHING:
            break
        term = derivative(term, b)
    return term
