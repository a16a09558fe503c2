"""Seeded inputs shared by the catalogue tests: the seed's hand example, the pattern
lists, a small seeded pattern generator, vocabularies and the tool schema.

Everything here is data or a pure function of a ``numpy.random.Generator`` seeded by
the caller, so every run sees the same inputs. Nothing here is computed by an
implementation under test.

Example::

    >>> rng = np.random.default_rng(0)
    >>> random_pattern(rng)            # e.g. '(b|[^a])*c?'
    '...'
"""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------- the seed's section 3

HAND_PATTERN = "(cat|car|dog)s?"
# state -> {byte: next state}; accepting states 5 and 6 (the seed's table, verbatim)
HAND_EDGES = {0: {b"c": 1, b"d": 2}, 1: {b"a": 3}, 2: {b"o": 4}, 3: {b"r": 5, b"t": 5},
              4: {b"g": 5}, 5: {b"s": 6}, 6: {}}
HAND_ACCEPT = [False, False, False, False, False, True, True]
# ids 0..14: c a t r d o g s ca cat dog ts x <eos> ""; EOS is 13 (a special: no bytes)
HAND_VOCAB = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
HAND_EOS = 13
HAND_MASKS = {0: {0, 4, 8, 9, 10}, 3: {2, 3, 11}, 5: {7, 13}, 6: {13}}  # the seed's mask table


def hand_trans() -> np.ndarray:
    """The seed's hand table as an int32 [7, 256] array (DEAD = -1 elsewhere)."""
    trans = np.full((7, 256), -1, dtype=np.int32)
    for state, edges in HAND_EDGES.items():
        for byte, target in edges.items():
            trans[state, byte[0]] = target
    return trans


# ---------------------------------------------------------------- patterns

# test_matches_python_re: ten patterns chosen so each of pitfalls 1 and 6 changes the
# answer on some string (comment: the construct each one exercises).
RE_PATTERNS = (
    "(cat|car|dog)s?",                 # the hand example
    "a.c",                             # . is any byte but \n (s01)
    "[^abc]+",                         # negation over all 256 bytes (s02)
    r"\w+@\w+\.com",                   # \w includes _ (s08)
    "[a-f0-9]{2,4}",                   # range upper ends (s11), bounded repeat (s09)
    "(ab|c)+d*",                       # + is one or more (s10)
    "x{2,3}y?z{2,}",                   # {m,n} (s09) and {m,} (s21)
    r"\d{1,3}(\.\d{1,3}){3}",          # dotted quad, \d
    r"[\s,]*-?\d+\S?",                 # \s, \S
    r'"([^"\\\n]|\\.)*"',              # a quoted string with escapes
)

# test_canonical_form: five pairs of patterns with the same language (checked against
# Python's re by the test itself before they are used).
EQUIVALENT_PAIRS = (
    ("a|b", "[ab]"),
    ("(a|b)*", "[ab]*"),
    ("aa*", "a+"),
    ("(cat|car|dog)s?", "(ca[rt]|dog)(s|)"),
    ("(ab)*a", "a(ba)*"),
)

# test_unsupported_syntax_raises: (pattern, what it is); every one must raise ValueError.
UNSUPPORTED = (
    ("^ab", "anchor ^"), ("ab$", "anchor $"), (r"\Aab", r"anchor \A"), (r"ab\Z", r"anchor \Z"),
    (r"a\bb", r"word boundary \b"), (r"a\Bb", r"\B"),
    (r"(a)\1", "backreference"), (r"(?P<x>a)(?P=x)", "named backreference"),
    ("(?=a)a", "lookahead"), ("(?!a)b", "negative lookahead"), ("(?<=a)b", "lookbehind"),
    ("(?<!a)b", "negative lookbehind"),
    ("a*?", "lazy *"), ("a+?", "lazy +"), ("a??", "lazy ?"), ("a{1,2}?", "lazy {m,n}"),
    ("caf\u00e9", "non-ASCII literal"), ("[\u00e9]", "non-ASCII in a class"),
    ("a{3,2}", "bad repeat {3,2}"), ("a{1000000000}", "repeat bound over any sane cap"),
    ("*a", "nothing to repeat"), ("(ab", "unbalanced ("), ("ab)", "unbalanced )"), ("[ab", "unclosed ["),
    (r"[^\x00-\xff]", "empty language"), (r"a[^\x00-\xff]b", "empty language inside a concatenation"),
)
SUPPORTED = ("(?:ab)+", "a|", r"\x41[\d_-]", "[]a]", r"\.\*\+\?\(\)\[\]\{\}\|\\", "a{0}b", "a{2,}")


def random_pattern(rng: np.random.Generator, depth: int = 3) -> str:
    """A small pattern of the subset: literals a b c, classes, ., concatenation,
    alternation and every greedy repeat."""
    if depth == 0 or rng.random() < 0.3:
        return str(rng.choice(["a", "b", "c", "[ab]", "[^a]", ".", r"\d", "[a-c]", "ab"]))
    kind = rng.integers(4)
    if kind == 0:
        return random_pattern(rng, depth - 1) + random_pattern(rng, depth - 1)
    if kind == 1:
        return f"({random_pattern(rng, depth - 1)}|{random_pattern(rng, depth - 1)})"
    op = str(rng.choice(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}"]))
    return f"({random_pattern(rng, depth - 1)}){op}"


def random_patterns(seed: int, n: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [random_pattern(rng) for _ in range(n)]


# ---------------------------------------------------------------- vocabularies


def random_vocab(rng: np.random.Generator, alphabet: bytes, n_multi: int = 120,
                 all_bytes: bool = True) -> tuple[list[bytes | None], int]:
    """A vocabulary: every single byte (when ``all_bytes``), ``n_multi`` multi-byte tokens
    drawn mostly from ``alphabet``, two specials (None), an empty token, and EOS at a
    seeded position in the middle of the id range. Returns (vocab, eos_id)."""
    vocab: list[bytes | None] = [bytes([b]) for b in range(256)] if all_bytes else []
    pool = np.frombuffer(alphabet + b"\x00\n\xff", dtype=np.uint8)
    for _ in range(n_multi):
        length = int(rng.integers(2, 6))
        vocab.append(bytes(int(rng.choice(pool)) if rng.random() < 0.9 else int(rng.integers(256))
                           for _ in range(length)))
    vocab += [None, b"", None]
    order = rng.permutation(len(vocab))
    vocab = [vocab[i] for i in order]
    eos_id = int(rng.integers(len(vocab) // 4, 3 * len(vocab) // 4))
    vocab.insert(eos_id, None)
    return vocab, eos_id


def pattern_alphabet(pattern: str) -> bytes:
    """The literal bytes a pattern mentions, plus a few class members: where the
    interesting tokens are."""
    return bytes(sorted(set(pattern.encode("ascii")) | set(b"abc09 _-.,\"\\")))


# ---------------------------------------------------------------- JSON schemas

TOOL_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"enum": ["metric", "imperial"]},
        "lat": {"type": "number"},
        "alerts": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}
