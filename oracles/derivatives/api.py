"""The oracle: ``Oracle(pattern)`` and the module functions, each a guarded public call.

Every public call checks its arguments (TypeError for a wrong type, InvalidArgument for a
bad value), runs within ``bounds.guarded`` (a fresh derivative budget; recursion
turned into ``LimitExceeded``), and caches what it can: the pattern's term,
its prefixes' terms, its canonical DFA; the module functions cache one ``Oracle`` per
pattern. Example::

    >>> Oracle("ab?").mask([b"a", b"b", b"c", None], 3, b"a").tolist()
    [False, True, False, True]
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Sequence

import numpy as np

from . import bounds, terms
from .bounds import BUDGET, guarded
from .derive import derive_bytes
from .dfa import canonical_from_term
from .emptiness import is_empty_term
from .errors import InvalidArgument
from .frontend import _parse_cached, parse
from .terms import NOTHING, Term
from .witnesses import difference_term, witness_term

__all__ = ["Oracle", "matches", "viable", "is_empty", "mask", "canonical_dfa", "witness", "difference",
           "clear_caches"]


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
            raise InvalidArgument(f"vocab[{i}] must be bytes or None, not {type(tok).__name__}")
        out.append(None if tok is None else bytes(tok))
    if eos_id is not None:
        if isinstance(eos_id, bool) or not isinstance(eos_id, (int, np.integer)):
            raise TypeError(f"eos_id must be an int or None, not {type(eos_id).__name__}")
        if not 0 <= int(eos_id) < len(out):
            raise InvalidArgument(f"eos_id {eos_id} out of range 0..{len(out) - 1}")
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
            if len(self._prefix_terms) > 4 * bounds.MAX_STATES:  # bound the cache
                self._prefix_terms = {b"": self.term}
            parent = self._prefix_terms.get(prefix[:-1])
            term = (derive_bytes(parent, prefix[-1:]) if parent is not None
                    else derive_bytes(self.term, prefix))
            self._prefix_terms[prefix] = term
        return term

    def matches(self, data: bytes) -> bool:
        """Return True if and only if ``data`` is in the language."""
        data = _check_bytes("data", data)
        with guarded(len(data)):
            return derive_bytes(self.term, data).nullable

    def viable(self, prefix: bytes) -> bool:
        """Return True if and only if some member of the language starts with ``prefix``."""
        prefix = _check_bytes("prefix", prefix)
        with guarded(len(prefix)):
            return not is_empty_term(self.after(prefix))

    def is_empty(self) -> bool:
        """Return True if and only if the language is empty."""
        with guarded():
            return is_empty_term(self.term)

    def mask(self, vocab: Sequence[bytes | None], eos_id: int | None = None,
             prefix: bytes = b"") -> np.ndarray:
        """bool [V] after ``prefix``, by TokenIndex's rules: a special (None) or empty
        token never; EOS iff the prefix is in the language; any other token iff
        ``prefix + token`` is viable. A non-viable prefix gives all False."""
        vocab = _check_vocab(vocab, eos_id)
        with guarded(len(_check_bytes("prefix", prefix))):
            return self._mask(vocab, eos_id, prefix)

    def _mask(self, vocab: list[bytes | None], eos_id: int | None, prefix: bytes) -> np.ndarray:
        out = np.zeros(len(vocab), dtype=np.bool_)
        start = self.after(prefix)
        if is_empty_term(start):
            return out
        for i, tok in enumerate(vocab):
            BUDGET.refill(len(tok or b""))  # each token is a call of its own
            if i == eos_id:
                out[i] = start.nullable
            elif tok:
                after = derive_bytes(start, tok)
                out[i] = after is not NOTHING and not is_empty_term(after)
        return out

    def canonical_dfa(self) -> tuple[np.ndarray, np.ndarray]:
        """(trans int32 [S, 256], accept bool [S]): the minimal DFA numbered breadth
        first from 0, bytes ascending, DEAD (-1) for no continuation. Raises
        ``EmptyLanguage`` for an empty language. The arrays are read-only."""
        if self._dfa is None:
            with guarded():
                trans, accept = canonical_from_term(self.term, self.pattern)
            trans.setflags(write=False)
            accept.setflags(write=False)
            self._dfa = (trans, accept)
            _CACHED.dfa_cells += trans.size
        return self._dfa


@functools.lru_cache(maxsize=256)
def _oracle(pattern: str) -> Oracle:
    return Oracle(pattern)


class _CacheWeight:
    """What the caches may hold, counted since the last ``clear_caches``: ``dfa_cells``, the
    DFA cells built (an upper bound of what ``_oracle``'s entries keep), and the terms made
    (``terms.MADE`` minus ``made_at_clear``: an upper bound of the terms only the caches
    keep). Neither counts what a caller holds, so a caller keeping many terms or oracles does
    not make every call clear the caches."""

    dfa_cells = 0
    made_at_clear = 0


_CACHED = _CacheWeight()


def clear_caches() -> None:
    """Forget the cached parses and oracles; terms no longer referenced are then
    collected (with their memoized derivatives). Terms still held stay valid."""
    _oracle.cache_clear()
    _parse_cached.cache_clear()
    _CACHED.dfa_cells = 0
    _CACHED.made_at_clear = terms.MADE


def _within_cache_bounds() -> None:
    """Before a module-level call: past ``MAX_CACHED_TERMS`` terms made or
    ``MAX_CACHED_DFA_CELLS`` DFA cells built since the last clear, clear the caches and
    collect the cycles the memos make (``bounds``). Terms a caller still holds stay valid
    and live."""
    made = terms.MADE - _CACHED.made_at_clear
    if made > bounds.MAX_CACHED_TERMS or _CACHED.dfa_cells > bounds.MAX_CACHED_DFA_CELLS:
        clear_caches()
        gc.collect()


def _get(pattern: str) -> Oracle:
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    _within_cache_bounds()
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
    with guarded():
        return witness_term(_get(pattern).term)


def difference(left: str, right: str) -> bytes | None:
    """The shortlex-least string that one pattern matches and the other does not,
    or None when they have the same language (e.g. ``difference("a{2,3}", "a{2,4}")``
    is ``b"aaaa"``)."""
    with guarded():
        return difference_term(_get(left).term, _get(right).term)


def canonical_dfa(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """The canonical (trans, accept) of the pattern (see ``Oracle.canonical_dfa``)."""
    return _get(pattern).canonical_dfa()
