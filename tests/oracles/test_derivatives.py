"""The derivative oracle against the spec and the independent oracles.

What answers each question (never the reference's own output):
- matching: Python's ``re.fullmatch`` on bytes (the subset's definition);
- viable prefixes: the ``regex`` module's partial matching, on patterns without an
  empty sub-language (where it is right; see ``oracles.stdlib``), and hand-derived
  answers where it is wrong;
- masks: brute force over ``viable`` and ``matches``, and ``regex`` partial matching;
- canonical tables: the spec's section 3 by hand, equivalent-pattern pairs, a
  breadth-first re-walk of the tables, and (differential) ``regex_to_dfa``.
"""

from __future__ import annotations

import itertools
import re
import sys
import warnings

import numpy as np
import pytest

from facts.constructs import READ_AS_NEWER_PYTHONS, REGEX_REFUSALS
from facts.hand import HAND_ACCEPT, HAND_EOS, HAND_MASKS, HAND_PATTERN, HAND_TEXT, HAND_VOCAB, hand_trans
from oracles import derivatives as D
from oracles.derivatives import (
    DEAD,
    EMPTY_STRING,
    NOTHING,
    EmptyLanguage,
    LimitExceeded,
    Oracle,
    PatternSyntaxError,
    PatternTooLarge,
    UnsupportedSyntax,
    alt,
    byteset,
    canonical_dfa,
    cat,
    derivative,
    is_empty,
    mask,
    matches,
    nullable,
    opt,
    parse,
    repeat,
    star,
    viable,
)
from oracles.stdlib import partial_match
from tests.support.helpers import python_refusal

PY311 = sys.version_info >= (3, 11)

# --- a bank: every construct of the subset --------------------------------------------

BANK = [
    "(cat|car|dog)s?", "abc", r"a\.b\*c\+\?\(\)\[\]\{\}\|\\", r"\x41\x00\xff", r"\n\t\r\f\v\a",
    r"\d+", r"\w+", r"\s*x", r"\D\W\S", ".", "a.c", "[a-z]+", "[^a-z]", r"[\d_]+", r"[^\s]",
    r"[a\-z]", "[-a]", "[a-]", "[]a]", "[^]a]", r"[\x00-\x1f\x7f-\xff]", r"[^\n]", r"[\b]",
    "(ab|a)(bc|c)", "(?:ab)*", "a|", "|b", "(|a)+", "a*", "a+", "a?", "a{3}", "a{2,4}",
    "a{2,}", "a{,2}", "a{,}", "a{0}", "a{0,0}b", "(a|bc){1,3}", "a{", "a{}", "a{x}",
    "a{1,x}", r"\012\0", "((a|b)c)*d", "x(y(z|w)*)?", "[.]", "()", "(?:)", "", "(a?){2,3}",
    "(a*)+b", "(a|b)*a(a|b){2}", r"(\d{1,3}\.){3}\d{1,3}", r"a[^\x00-\xff]|b",
    r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?", r'"(?:[^"\\]|\\.)*"',
]

def alphabet_for(pattern: str) -> list[int]:
    """Bytes worth trying: the pattern's own characters and the class edges."""
    edges = {0x00, 0x07, 0x08, 0x0A, 0x20, 0x2E, 0x30, 0x39, 0x5F, 0x7F, 0x80, 0xFF}
    return sorted(edges | set(pattern.encode("ascii")))


def short_strings(pattern: str, length: int = 3, limit: int = 14) -> list[bytes]:
    """Every string up to ``length`` over the first ``limit`` bytes of the alphabet
    (two bytes over the whole alphabet): small scopes, exhaustively."""
    alpha = alphabet_for(pattern)
    out = [bytes(s) for n in range(3) for s in itertools.product(alpha, repeat=n)]
    out += [bytes(s) for s in itertools.product(alpha[:limit], repeat=length)]
    return out


def random_members(trans: np.ndarray, accept: np.ndarray, rng, count: int) -> list[bytes]:
    """Random accepting walks of a table (inputs only: the verdict comes from re)."""
    out = []
    for _ in range(count):
        state, data = 0, bytearray()
        for _ in range(60):
            live = np.flatnonzero(trans[state] != DEAD)
            if accept[state] and (rng.random() < 0.3 or live.size == 0):
                break
            b = int(rng.choice(live))
            data.append(b)
            state = int(trans[state, b])
        out.append(bytes(data))
    return out


def one_byte_edits(data: bytes, rng) -> list[bytes]:
    out = [data + bytes([int(rng.integers(256))])]
    if data:
        i = int(rng.integers(len(data)))
        out += [data[:i] + data[i + 1:], data[:i] + bytes([int(rng.integers(256))]) + data[i + 1:]]
    return out


def has_empty_class(pattern: str) -> bool:
    """Where ``regex`` partial matching is wrong: a sub-pattern of empty language."""
    return r"[^\x00-\xff]" in pattern or r"[^\s\S]" in pattern


# --- the spec's hand example ----------------------------------------------------------


@pytest.mark.unit
@pytest.mark.smoke
def test_hand_example():
    trans, accept = canonical_dfa(HAND_PATTERN)
    assert trans.dtype == np.int32 and trans.shape == (7, 256)
    assert accept.dtype == np.bool_ and accept.tolist() == list(HAND_ACCEPT)
    for state, expected in enumerate(hand_trans().tolist()):  # the spec's table, DEAD elsewhere
        assert trans[state].tolist() == expected, f"state {state}"


@pytest.mark.unit
@pytest.mark.smoke
def test_hand_example_masks():
    for state, allowed in HAND_MASKS.items():  # the spec's table, reached by a text of its state
        got = mask(HAND_PATTERN, HAND_VOCAB, HAND_EOS, HAND_TEXT[state])
        assert got.dtype == np.bool_ and got.shape == (15,)
        assert np.flatnonzero(got).tolist() == sorted(allowed), HAND_TEXT[state]
    # a prefix that is not viable allows nothing, EOS included
    assert not mask(HAND_PATTERN, HAND_VOCAB, HAND_EOS, b"cx").any()


# --- matching: re.fullmatch is the definition ----------------------------------------


@pytest.mark.golden
@pytest.mark.parametrize("pattern", BANK)
def test_matches_python_re(pattern):
    compiled = re.compile(pattern.encode("ascii"))
    oracle = Oracle(pattern)
    strings = short_strings(pattern)
    if not oracle.is_empty():
        rng = np.random.default_rng(BANK.index(pattern))
        trans, accept = oracle.canonical_dfa()
        members = random_members(trans, accept, rng, 30)
        strings += members + [e for m in members for e in one_byte_edits(m, rng)]
    wrong = [s for s in strings if oracle.matches(s) != (compiled.fullmatch(s) is not None)]
    assert not wrong, f"{len(wrong)} of {len(strings)} strings disagree with re, e.g. {wrong[:5]}"


@pytest.mark.unit
def test_module_functions_agree_with_the_oracle_object():
    assert matches("a+b", b"aab") and not matches("a+b", b"ab a")
    assert viable("a+b", b"aa") and not viable("a+b", b"b")
    assert is_empty(r"a[^\s\S]") and not is_empty("a|b")


@pytest.mark.unit
def test_classes_are_pythons_bytes_classes():
    """Every byte against each class: the pitfall list of the seed (1)."""
    for pattern in [r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", ".", "[^a]", "[^a-c]", "[a-c]",
                    r"[^\n]", r"[\x7f-\xff]", r"[^\d\s]", r"[\w-]", r"[\b]"]:
        compiled = re.compile(pattern.encode("ascii"))
        for b in range(256):
            assert matches(pattern, bytes([b])) == (compiled.fullmatch(bytes([b])) is not None), (pattern, b)


# --- refusals: the same subset as regex_to_dfa, errors that name what and where ------

# the oracle's error class per kind of refusal (the same names as the reference's; an empty
# language parses, canonical_dfa refuses it), and the
# words of its messages per construct (its own vocabulary; any one of them must be named)
ERROR_OF_KIND = {"unsupported": UnsupportedSyntax, "too large": PatternTooLarge, "malformed": PatternSyntaxError}
NAMED_AS = {
    "anchor": ("anchor",), "backreference": ("backreference",), "named group": ("named group",),
    "lookahead": ("lookaround",), "lookbehind": ("lookaround",), "lazy quantifier": ("lazy",),
    "possessive quantifier": ("possessive",), "inline flag": ("flags",), "comment": ("comment",),
    "global flag past the start": ("global flags",),
    "atomic group": ("atomic",), "conditional group": ("conditional",), "non-ASCII character": ("non-ASCII",),
    "bad repeat bounds": ("min repeat",), "repeat over the cap": ("MAX_REPEAT",),
    "bad group reference": ("group reference", "open group"), "unknown extension": ("unknown extension",),
    "unbalanced group": ("missing", "unbalanced"), "unclosed class": ("unterminated character set",),
    "nothing to repeat": ("nothing to repeat",), "multiple repeat": ("multiple repeat",),
    "bad character range": ("bad character range",), "bad escape": ("bad escape", "incomplete escape"),
}
_NEW_IN_311 = re.compile(r"\(\?>|[*+?}]\+")  # atomic groups, possessive repeats: 3.11 syntax
PYTHON_311_SYNTAX = {"possessive quantifier": "multiple repeat", "atomic group": "unknown extension"}
"""Python 3.11+ syntax: before 3.11, Python (so this oracle) calls it malformed, in these words."""


def _refusal(row) -> tuple:
    """(pattern, error class, words, offset); a malformed pattern's offset is the one Python's
    re.error reports (None: read it from Python in the test)."""
    kind, words = row.kind, NAMED_AS[row.construct]
    if not PY311 and row.construct in PYTHON_311_SYNTAX:
        kind, words = "malformed", (PYTHON_311_SYNTAX[row.construct],)
    return row.pattern, ERROR_OF_KIND[kind], words, None if kind == "malformed" else row.offset


REFUSED = [_refusal(r) for r in REGEX_REFUSALS if r.kind != "empty"]


@pytest.mark.boundary
@pytest.mark.parametrize("pattern,error,words,offset", REFUSED)
def test_unsupported_syntax_raises(pattern, error, words, offset):
    with pytest.raises(error) as info:
        parse(pattern)
    assert isinstance(info.value, ValueError)
    assert any(word in str(info.value) for word in words), words
    if offset is None:
        offset = python_refusal(pattern)[1]
    assert info.value.pos == offset and f"at offset {offset}" in str(info.value)


@pytest.mark.boundary
@pytest.mark.parametrize("pattern, error", [(r.pattern, "EmptyLanguage" if r.kind == "empty" else
                                               ERROR_OF_KIND[r.kind].__name__) for r in REGEX_REFUSALS])
def test_refused_by_the_reference_too(pattern, error):
    """The two front ends draw the subset's border in the same place, and the reference names
    each kind of the table as this oracle does (one vocabulary). The table's kind, not this
    oracle's answer: before 3.11 the reference reads possessive quantifiers and atomic groups
    as 3.11 does, on purpose, where Python's own parser, hence this oracle, calls them malformed."""
    from oracles.automaton import regex_to_dfa
    with pytest.raises(ValueError) as info:
        regex_to_dfa(pattern)
    assert type(info.value).__name__ == error, (pattern, info.value)


@pytest.mark.boundary
@pytest.mark.parametrize("pattern", ["a(?i)b", "(?:c|(?i)^{^1,}x52-d", "a(?i)b(", "(a(?x) b)", "a|(?s)", "\u00e9(?i)"])
def test_a_flag_past_the_start_is_refused_on_every_python_as_3_11_refuses_it_without_a_warning(pattern):
    """The oracle: Python's own refusal, as 3.11 and later make it (``python_refusal``: before
    3.11 Python warns, DeprecationWarning, and reads the flag; 3.11 refuses the pattern at the
    flag's group). Both front ends give that class and offset on every Python, so a record or a
    catalogue test holding such a pattern expects one answer; neither prints a warning."""
    from oracles.automaton import regex_to_dfa
    from oracles.derivatives.frontend import _parse_cached

    _parse_cached.cache_clear()
    message, offset = python_refusal(pattern)
    assert message == "global flags not at the start of the expression"
    for front_end in (parse, regex_to_dfa):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError) as info:
                front_end(pattern)
        assert type(info.value).__name__ == "PatternSyntaxError", (front_end, info.value)
        assert info.value.pos == offset and "global flags" in str(info.value), (front_end, info.value)


@pytest.mark.boundary
@pytest.mark.parametrize("row", [row for row in READ_AS_NEWER_PYTHONS if PY311 or not _NEW_IN_311.search(row.pattern)],
                         ids=lambda row: row.pattern)
def test_the_oracle_reads_a_pattern_as_the_newest_python_does(row):
    """facts.constructs.READ_AS_NEWER_PYTHONS (Python's own parser checks it from the version
    each row names, tests/oracles/test_regex.py): this oracle gives that class and offset on every
    Python, but for 3.11's possessive and atomic syntax on 3.10, where it reads its Python's."""
    with pytest.raises(ERROR_OF_KIND[row.kind]) as info:
        parse(row.pattern)
    assert info.value.pos == row.offset, info.value


@pytest.mark.boundary
@pytest.mark.parametrize("pattern", [p for p, error, *_ in REFUSED if error is PatternSyntaxError])
def test_malformed_for_python_too(pattern):
    assert python_refusal(pattern) is not None


@pytest.mark.boundary
def test_bounds_and_types():
    assert matches("a{1000}", b"a" * 1000) and not matches("a{1000}", b"a" * 999)
    with pytest.raises(TypeError):
        parse(b"ab")
    with pytest.raises(TypeError):
        matches("ab", "ab")
    with pytest.raises(TypeError):
        viable("ab", None)


@pytest.mark.boundary
def test_empty_language_has_no_canonical_dfa():
    for pattern in [r"[^\x00-\xff]", r"[^\s\S]", r"a[^\d\D]b", r"(?:[^\w\W])+"]:
        assert is_empty(pattern) and not viable(pattern, b"")
        with pytest.raises(EmptyLanguage, match="empty language"):
            canonical_dfa(pattern)
    # an empty branch or a zero repeat of the empty class is not empty
    assert matches(r"a|[^\s\S]", b"a") and matches(r"[^\s\S]*", b"") and matches(r"b[^\s\S]{0}", b"b")


@pytest.mark.boundary
def test_state_limit_raises(monkeypatch):
    monkeypatch.setattr(D.bounds, "MAX_STATES", 40)
    with pytest.raises(LimitExceeded, match="MAX_STATES=40"):
        Oracle("(a|b)*a(a|b){6}").canonical_dfa()


@pytest.mark.boundary
def test_moore_work_limit_raises(monkeypatch):
    """A literal of n bytes needs n Moore rounds of n + 1 states over 2 distinct columns
    (its byte and every other byte): 40 x 41 x 2 < 4000 < 50 x 51 x 2."""
    monkeypatch.setattr(D.bounds, "MAX_MOORE_WORK", 4000)
    assert Oracle("a" * 40).canonical_dfa()[0].shape == (41, 256)
    with pytest.raises(LimitExceeded, match="MAX_MOORE_WORK=4000"):
        Oracle("b" * 50).canonical_dfa()


# --- terms: the smart constructors' normal form ---------------------------------------


@pytest.mark.unit
def test_smart_constructors_normal_form():
    a, b, c = (byteset(1 << ord(x)) for x in "abc")
    ab = cat(a, b)
    assert alt(a, ab) is alt(ab, a) is alt(ab, a, ab, NOTHING)          # ACI, r|∅ -> r
    assert alt(a, alt(ab, c)) is alt(alt(a, ab), c)                   # associative
    assert alt(a, c) is byteset((1 << ord("a")) | (1 << ord("c")))    # [a]|[c] -> [ac]
    assert cat(a, NOTHING, b) is NOTHING and cat(EMPTY_STRING, a, EMPTY_STRING) is a        # ∅·r, ε·r
    assert cat(cat(a, b), c) is cat(a, cat(b, c))                     # flattened
    assert star(star(a)) is star(a) and star(EMPTY_STRING) is EMPTY_STRING and star(NOTHING) is EMPTY_STRING
    assert star(opt(a)) is star(a) and alt(EMPTY_STRING, star(a)) is star(a)
    assert repeat(a, 0, None) is star(a) and repeat(a, 1, 1) is a and repeat(a, 0, 0) is EMPTY_STRING
    assert repeat(NOTHING, 0, 3) is EMPTY_STRING and repeat(NOTHING, 2, 3) is NOTHING
    assert repeat(opt(a), 2, 3) is repeat(opt(a), 0, 3)               # nullable body: lo -> 0
    assert byteset(0) is NOTHING
    assert parse("a|b") is parse("[ab]") is parse("b|a")


@pytest.mark.unit
def test_derivative_rules():
    assert derivative(parse("abc"), ord("a")) is parse("bc")
    assert derivative(parse("abc"), ord("b")) is NOTHING
    assert derivative(parse("a*b"), ord("a")) is parse("a*b")
    assert derivative(parse("a{2,3}"), ord("a")) is parse("a{1,2}")
    assert derivative(parse("(ab)?b"), ord("b")) is EMPTY_STRING
    assert nullable(parse("a*|b")) and not nullable(parse("a+")) and nullable(parse("(a?){3}"))


@pytest.mark.property
@pytest.mark.parametrize("pattern", BANK)
def test_emptiness_search_agrees_with_the_structural_invariant(pattern):
    """A term is empty iff it *is* NOTHING (the constructors' invariant); the search
    that decides emptiness by definition must agree on every derivative."""
    start = parse(pattern)
    for s in short_strings(pattern, length=2):
        term = D.derive_bytes(start, s)
        assert D.is_empty_term(term) == (term is NOTHING), (pattern, s)


@pytest.mark.property
@pytest.mark.parametrize("pattern", BANK[:20])
def test_derivative_classes_are_sound(pattern):
    """Two bytes in one class give the same derivative (Owens et al. 4.2)."""
    start = parse(pattern)
    for s in short_strings(pattern, length=1):
        term = D.derive_bytes(start, s)
        cls = D.classes(term)
        assert sum(bin(c).count("1") for c in cls) == 256 and len(set(cls)) == len(cls)
        union = 0
        for c in cls:
            union |= c
            targets = {derivative(term, b) for b in D.members(c)}
            assert len(targets) == 1, (pattern, s, term)
        assert union == D.ALL


# --- viable prefixes: regex partial matching where it is right ------------------------


@pytest.mark.golden
@pytest.mark.parametrize("pattern", [p for p in BANK if not has_empty_class(p)])
def test_viable_agrees_with_regex_partial(pattern):
    strings = short_strings(pattern)
    wrong = [s for s in strings if viable(pattern, s) != partial_match(pattern, s)]
    assert not wrong, f"{len(wrong)} prefixes disagree with regex partial, e.g. {wrong[:5]}"


@pytest.mark.unit
@pytest.mark.parametrize("pattern,prefix,expected", [
    (r"[^\x00-\xff]", b"", False),
    (r"a[^\x00-\xff]", b"a", False),
    (r"a[^\x00-\xff]", b"", False),
    (r"a|b[^\x00-\xff]", b"b", False),
    (r"a|b[^\x00-\xff]", b"", True),
    (r"(?:a[^\s\S])?b", b"a", False),
    (r"(?:a[^\s\S])?b", b"", True),
    # found by Hypothesis (pattern_trees with unmatchable classes): members y..yyyy
    (r"(?:y|y|[^\d\D]){1,4}", b"ya", False),
    (r"(?:(?:\r||[^\d\D]){3}){1,2}", b"a", False),
])
def test_regex_partial_answers_partial_for_an_empty_language(pattern, prefix, expected):
    """Finding: ``regex`` answers "partial" once the text runs out, even when the
    rest of the pattern matches nothing, and it reads ``[^\\d\\D]`` as every byte.
    The expected answers are by hand: no member of ``a[^\\x00-\\xff]`` exists, so
    no prefix is viable; the members of ``(?:y|y|[^\\d\\D]){1,4}`` are y to yyyy.
    The derivative oracle is right; ``regex`` is the wrong side (documented in
    oracles/stdlib.py)."""
    assert viable(pattern, prefix) is expected
    if not expected:
        assert partial_match(pattern, prefix), "regex fixed this? update oracles/stdlib.py"


# --- masks: brute force over viable/matches, and regex partial ------------------------

VOCAB = [b"a", b"b", b"c", b"ab", b"ba", b"abc", b"0", b"12", b".", b"\n", b"\xff", b"\xc3\xa9",
         b"\x80", None, b"", b"cat", b"dog", b"s", b'"', b"\\", b"x", b"aaaa", b"<eos>"]
EOS = len(VOCAB) - 1


def brute_mask(pattern: str, vocab, eos_id, prefix: bytes) -> list[bool]:
    """The TokenIndex rules, spelled out token by token."""
    if not viable(pattern, prefix):
        return [False] * len(vocab)
    return [matches(pattern, prefix) if i == eos_id else bool(tok) and viable(pattern, prefix + tok)
            for i, tok in enumerate(vocab)]


@pytest.mark.property
@pytest.mark.parametrize("pattern", BANK[:40])
def test_masks_match_brute_force(pattern):
    for prefix in short_strings(pattern, length=1)[:60]:
        got = mask(pattern, VOCAB, EOS, prefix)
        assert got.tolist() == brute_mask(pattern, VOCAB, EOS, prefix), (pattern, prefix)


@pytest.mark.golden
@pytest.mark.parametrize("pattern", [p for p in BANK if not has_empty_class(p)][:40])
def test_masks_match_regex_partial(pattern):
    compiled = re.compile(pattern.encode("ascii"))
    for prefix in short_strings(pattern, length=1)[:40]:
        got = mask(pattern, VOCAB, EOS, prefix).tolist()
        if not partial_match(pattern, prefix):
            assert not any(got), (pattern, prefix)
            continue
        want = [compiled.fullmatch(prefix) is not None if i == EOS
                else bool(tok) and partial_match(pattern, prefix + tok) for i, tok in enumerate(VOCAB)]
        assert got == want, (pattern, prefix)


@pytest.mark.boundary
def test_mask_rules_and_bad_vocabularies():
    got = mask("ab?", [b"a", b"b", b"c", None, b""], None)
    assert got.tolist() == [True, False, False, False, False]
    # the EOS entry's own bytes are ignored, even when they would walk
    assert mask("ab?", [b"a", b"b", b"a"], 2, b"a").tolist() == [False, True, True]
    assert mask("ab?", [b"a", b"b", b"a"], 2, b"").tolist() == [True, False, False]
    with pytest.raises(TypeError):
        mask("ab", b"ab", None)
    with pytest.raises(ValueError, match=r"vocab\[1\]"):
        mask("ab", [b"a", "b"], None)
    with pytest.raises(ValueError, match="eos_id"):
        mask("ab", [b"a"], 1)
    with pytest.raises(TypeError):
        mask("ab", [b"a"], True)
