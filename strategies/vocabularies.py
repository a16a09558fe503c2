"""Token vocabularies: what a mask is computed over.

Main access point: ``vocabularies()`` -> ``(vocab, eos_id)`` with ``vocab`` a list of
``bytes | None`` (None: a special token) and ``eos_id`` None or any id in
``range(len(vocab))`` (the EOS entry's own bytes are ignored by the mask rules).

Tokens come in the kinds that break mask code (see the spec's section 2.3 and the
golden vocabulary of 002's section 4):

    printable   one printable ASCII byte, e.g. b"{", b" "
    word        several bytes, e.g. b"ab", b'":', b"true"
    utf8        a whole UTF-8 character, e.g. "é".encode() == b"\\xc3\\xa9"
    fragment    a proper piece of a UTF-8 character, e.g. b"\\xc3", b"\\xa9", b"\\xe2\\x82"
    byte        any single byte, lone continuation bytes (0x80-0xBF) included
    special     None, never allowed
    empty       b"", never allowed

Example: ``([b"a", None, b"", b"\\xc3", b"ab"], 1)``: EOS is the special at id 1.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from strategies.reuse import reused

__all__ = ["tokens", "vocabularies"]

_CHARS = "é€😀ßж\u2028"  # 2, 3 and 4-byte UTF-8, and a separator json.dumps keeps raw


def _fragments(char: str) -> list[bytes]:
    # Every proper, non-empty slice of the character's UTF-8 encoding, e.g. "é" -> \xc3, \xa9
    data = char.encode("utf-8")
    return [data[i:j] for i in range(len(data)) for j in range(i + 1, len(data) + 1) if j - i < len(data)]


_FRAGMENTS = sorted({f for c in _CHARS for f in _fragments(c)})


@reused
def tokens(*, alphabet: bytes | None = None) -> st.SearchStrategy[bytes | None]:
    """One vocabulary entry of any kind (see the module docstring). Multi-byte
    ``word`` tokens are drawn from ``alphabet`` when given (e.g. the bytes of a
    pattern, so that tokens can match), else from printable ASCII.

    Shrinks toward the token ``b"a"`` (or the first byte of ``alphabet``).
    """
    letters = sorted(set(alphabet)) if alphabet else list(range(0x20, 0x7F))
    if not letters:
        raise InvalidArgument("tokens: alphabet must not be empty")
    letter = st.sampled_from(letters)
    first = bytes((letters[0],)) if alphabet else b"a"
    printable = st.sampled_from([first] + [bytes((b,)) for b in range(0x20, 0x7F)])
    return st.one_of(
        printable,
        st.lists(letter, min_size=2, max_size=4).map(bytes),
        st.sampled_from(_CHARS).map(lambda c: c.encode("utf-8")),
        st.sampled_from(_FRAGMENTS),
        st.integers(0, 255).map(lambda b: bytes((b,))),
        st.none(),
        st.just(b""),
    )


@reused
@st.composite
def vocabularies(draw, *, min_size: int = 1, max_size: int = 24,
                 alphabet: bytes | None = None) -> tuple[list[bytes | None], int | None]:
    """``(vocab, eos_id)``: between ``min_size`` and ``max_size`` tokens from
    ``tokens(alphabet=alphabet)`` (duplicates allowed, as the mask rules are per id),
    and ``eos_id`` None or any id.

    Shrinks toward a one-token vocabulary ``[b"a"]`` with EOS at id 0.
    """
    if not isinstance(min_size, int) or not isinstance(max_size, int) or not 1 <= min_size <= max_size:
        raise InvalidArgument(f"vocabularies: need 1 <= min_size <= max_size, got {min_size!r}, {max_size!r}")
    vocab = draw(st.lists(tokens(alphabet=alphabet), min_size=min_size, max_size=max_size))
    eos_id = draw(st.one_of(st.integers(0, len(vocab) - 1), st.none()))
    return vocab, eos_id
