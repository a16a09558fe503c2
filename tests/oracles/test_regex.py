"""regex_to_dfa against the spec (spec sections 2.1, 2.2, 3) with Python's ``re`` as oracle."""

from __future__ import annotations

import re
import sys
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facts.constructs import READ_AS_NEWER_PYTHONS, REGEX_REFUSALS
from facts.hand import HAND_ACCEPT, HAND_PATTERN, hand_trans
from oracles.automaton import DEAD, DFA, regex_to_dfa
from oracles.automaton.dfa import live_states
from oracles.automaton.errors import (
    EmptyLanguage,
    LimitExceeded,
    PatternSyntaxError,
    PatternTooLarge,
    UnsupportedSyntax,
)
from tests.support.helpers import assert_canonical, python_refusal

_DFAS: dict[str, DFA] = {}


def dfa_of(pattern: str) -> DFA:
    """``regex_to_dfa(pattern)``, compiled once for the property tests below: their examples ask
    about the same few patterns again and again (900 and 1,400 compiles of 30 and 7 patterns)."""
    if pattern not in _DFAS:
        _DFAS[pattern] = regex_to_dfa(pattern)
    return _DFAS[pattern]

# --- the spec's section 3, by hand ---------------------------------------------------

@pytest.mark.unit
@pytest.mark.smoke
def test_hand_example():
    dfa = regex_to_dfa(HAND_PATTERN)
    assert dfa.n_states == 7
    assert dfa.trans.dtype == np.int32 and dfa.trans.shape == (7, 256)
    assert dfa.accept.dtype == np.bool_ and dfa.accept.tolist() == list(HAND_ACCEPT)
    for state, expected in enumerate(hand_trans().tolist()):  # the spec's table, DEAD elsewhere
        assert dfa.trans[state].tolist() == expected, f"state {state}"
    assert dfa.step(0, b"ca") == 3
    assert dfa.step(0, b"cats") == 6
    assert dfa.step(0, b"cx") == DEAD and dfa.step(DEAD, b"a") == DEAD
    assert dfa.step(0, b"") == 0
    for word, ok in [(b"cat", True), (b"dogs", True), (b"car", True), (b"ca", False),
                     (b"catss", False), (b"", False), (b"cog", False)]:
        assert dfa.matches(word) is ok, word


def test_step_refuses_bad_states_and_types():
    dfa = regex_to_dfa("ab")
    with pytest.raises(ValueError, match="out of range"):
        dfa.step(7, b"a")
    with pytest.raises(TypeError):
        dfa.step(0, "a")


# --- the bank: every construct of the subset, against re.fullmatch ------------------

BANK = [
    "(cat|car|dog)s?", "abc", r"a\.b\*c\+\?\(\)\[\]\{\}\|\\", r"\x41\x00\xff", r"\n\t\r\f\v\a",
    r"\d+", r"\w+", r"\s*x", r"\D\W\S", r".", r"a.c", r"[a-z]+", r"[^a-z]", r"[\d_]+",
    r"[^\s]", r"[a\-z]", r"[-a]", r"[a-]", r"[]a]", r"[^]a]", r"[\x00-\x1f\x7f-\xff]",
    r"(ab|a)(bc|c)", r"(?:ab)*", r"a|", r"|b", r"(|a)+", r"a*", r"a+", r"a?", r"a{3}",
    r"a{2,4}", r"a{2,}", r"a{,2}", r"a{0}", r"a{0,0}b", r"(a|bc){1,3}", r"a{", r"a{}",
    r"a{x}", r"a{1,x}", r"\012\0", r"[\b]", r"[\4\12\7a]", r"\101\0", r"(a)(?:\101|b)", r"((a|b)c)*d",
    r"x(y(z|w)*)?", r"[.]", r"\.",
]


def random_members(dfa: DFA, rng: np.random.Generator, count: int) -> list[bytes]:
    """Random accepting walks: from each state take a random live byte, stop at
    accepting states with probability 1/3 (every state is live, so walks end)."""
    out = []
    rows = dfa.trans
    for _ in range(count):
        state, data = 0, bytearray()
        for _ in range(200):
            if dfa.accept[state] and (rng.random() < 1 / 3 or not (rows[state] != DEAD).any()):
                break
            choices = np.flatnonzero(rows[state] != DEAD)
            b = int(rng.choice(choices))
            data.append(b)
            state = int(rows[state, b])
        out.append(bytes(data))
    return out


def one_byte_edits(data: bytes, rng: np.random.Generator) -> list[bytes]:
    edits = [data + bytes([int(rng.integers(256))])]
    if data:
        i = int(rng.integers(len(data)))
        edits.append(data[:i] + data[i + 1:])                                      # delete
        edits.append(data[:i] + bytes([int(rng.integers(256))]) + data[i + 1:])   # substitute
        edits.append(data[:i] + bytes([data[i] ^ 1]) + data[i + 1:])              # near byte
        edits.append(data[:i] + bytes([int(rng.integers(256))]) + data[i:])       # insert
    return edits


@pytest.mark.golden
@pytest.mark.parametrize("pattern", BANK)
def test_matches_python_re(pattern):
    dfa = regex_to_dfa(pattern)
    oracle = re.compile(pattern.encode("ascii"))
    rng = np.random.default_rng(BANK.index(pattern))
    for member in random_members(dfa, rng, 40):
        probes = [member] + [member[:k] for k in range(len(member))] + one_byte_edits(member, rng)
        for probe in probes:
            assert dfa.matches(probe) == bool(oracle.fullmatch(probe)), (pattern, probe)


@pytest.mark.property
@pytest.mark.parametrize("pattern", [p for p in BANK if "{" not in p or "}" in p][:30])
@settings(max_examples=30)
@given(data=st.data())
def test_python_re_members_are_accepted(pattern, data):
    """The other direction: strings Hypothesis draws from re's own meaning match."""
    member = data.draw(st.from_regex(pattern.encode("ascii"), fullmatch=True))
    assert dfa_of(pattern).matches(member)


@pytest.mark.property
@settings(max_examples=200)
@given(st.binary(max_size=6))
def test_classes_mean_what_python_means(data):
    # . excludes only \n; [^...] complements over all 256 bytes; \w includes _; ranges
    # include their upper end; \s is exactly [ \t\n\r\f\v]
    for pattern in [r".*", r"[^a]*", r"\w*", r"[a-c]*", r"\s*", r"[^\x00-\x7f]*", r"\S*"]:
        assert dfa_of(pattern).matches(data) == bool(re.fullmatch(pattern.encode(), data)), pattern


# --- canonical form ----------------------------------------------------------------

EQUIVALENT = [
    ("a|b", "[ab]"), ("(a|b)*", "(a*b*)*"), ("aa*", "a+"), ("a{2,3}", "aaa?"),
    ("(ab)*a", "a(ba)*"), (r"\d", "[0-9]"), ("(cat|car|dog)s?", "(ca[rt]|dog)(s|)"),
    ("x(|y)z", "xy?z"), ("[^\\n]", "."), ("a{0,}b", "a*b"),
]


@pytest.mark.property
@pytest.mark.parametrize("left,right", EQUIVALENT)
def test_canonical_form(left, right):
    a, b = regex_to_dfa(left), regex_to_dfa(right)
    assert np.array_equal(a.trans, b.trans) and np.array_equal(a.accept, b.accept)
    assert_canonical(a)


def test_canonical_numbering_is_breadth_first_bytes_ascending():
    # from state 0, 'a' (0x61) is seen before 'b' (0x62): a's successor is 1
    dfa = regex_to_dfa("bx|ay")
    assert dfa.trans[0, ord("a")] == 1 and dfa.trans[0, ord("b")] == 2
    assert dfa.trans[1, ord("y")] == 3 and dfa.trans[2, ord("x")] == 3


def test_minimization_merges_equivalent_states():
    # the minimal DFA of a language has one state per Myhill-Nerode class:
    # (a|b)*abb has 4 (the textbook example), a{0,5} has 6, (aa|aaa)* (every
    # length but 1) has 3: "", "a", "aa..."
    assert regex_to_dfa("(a|b)*abb").n_states == 4
    assert regex_to_dfa("a{0,5}").n_states == 6
    assert regex_to_dfa("(aa|aaa)*").n_states == 3


# --- liveness ----------------------------------------------------------------------


@pytest.mark.property
@pytest.mark.parametrize("pattern", BANK + [left for left, _ in EQUIVALENT])
def test_every_state_is_live(pattern):
    dfa = regex_to_dfa(pattern)
    assert live_states(dfa.trans, dfa.accept).all()
    assert_canonical(dfa)


# --- refusals ----------------------------------------------------------------------

# the reference's error class per kind of refusal, and the words its message uses for each
# construct (its own vocabulary; any one of them must be named)
ERROR_OF_KIND = {"unsupported": UnsupportedSyntax, "malformed": PatternSyntaxError, "empty": EmptyLanguage,
                 "too large": PatternTooLarge}
NAMED_AS = {
    "anchor": ("anchor", "word boundary"), "backreference": ("backreference",), "named group": ("named group",),
    "lookahead": ("lookahead",), "lookbehind": ("lookbehind",), "lazy quantifier": ("lazy",),
    "possessive quantifier": ("possessive",), "inline flag": ("flags",), "comment": ("comment",),
    "global flag past the start": ("global flags",),
    "atomic group": ("atomic",), "conditional group": ("conditional",), "non-ASCII character": ("non-ASCII",),
    "bad repeat bounds": ("min repeat",), "repeat over the cap": ("MAX_REPEAT",),
    "bad group reference": ("group reference",), "unknown extension": ("unknown extension",),
    "unbalanced group": ("unterminated", "unbalanced"), "unclosed class": ("unterminated character set",),
    "nothing to repeat": ("nothing to repeat",), "multiple repeat": ("multiple repeat",),
    "bad character range": ("bad character range",), "bad escape": ("bad escape", "incomplete escape"),
    "empty language": ("empty language",),
}
REFUSED = [(r.pattern, ERROR_OF_KIND[r.kind], NAMED_AS[r.construct], r.offset) for r in REGEX_REFUSALS]


@pytest.mark.boundary
@pytest.mark.parametrize("pattern,error,words,offset", REFUSED)
def test_unsupported_syntax_raises(pattern, error, words, offset):
    with pytest.raises(error) as info:
        regex_to_dfa(pattern)
    assert isinstance(info.value, ValueError)
    assert any(word in str(info.value) for word in words), words
    assert info.value.pos == offset and f"at offset {offset}" in str(info.value)


@pytest.mark.boundary
@pytest.mark.parametrize("pattern", [p for p, error, _, _ in REFUSED if error is PatternSyntaxError])
def test_malformed_patterns_are_malformed_for_python_too(pattern):
    """Every pattern we call malformed, Python's re refuses as well (the oracle, as 3.11 reads it)."""
    assert python_refusal(pattern) is not None


@pytest.mark.boundary
@pytest.mark.parametrize("row", READ_AS_NEWER_PYTHONS, ids=lambda row: row.pattern)
def test_the_reference_reads_a_pattern_as_the_newest_python_does_on_every_python(row):
    # the oracle: Python's own parser from the version the row names (CI's newest Python checks
    # every row); on older Pythons the row, so the verdict does not depend on the interpreter
    if sys.version_info >= row.since:
        refusal = python_refusal(row.pattern)
        assert (refusal and refusal[0]) == row.python_says, refusal
        assert refusal is None or refusal[1] == row.offset, refusal
    with pytest.raises(ERROR_OF_KIND[row.kind]) as info:
        regex_to_dfa(row.pattern)
    assert info.value.pos == row.offset, info.value


@pytest.mark.boundary
def test_empty_language_is_refused_but_empty_branches_are_not():
    assert regex_to_dfa(r"a|[^\s\S]").matches(b"a")
    assert regex_to_dfa("").matches(b"") and regex_to_dfa("()").n_states == 1


@pytest.mark.boundary
def test_state_cap_raises_quickly():
    start = time.monotonic()
    with pytest.raises(LimitExceeded, match="MAX_DFA_STATES"):
        regex_to_dfa("(a|b)*a(a|b){30}")
    # not a timed test of speed: a guard that the bound stops the work at all
    assert time.monotonic() - start < 60


def test_type_errors():
    with pytest.raises(TypeError):
        regex_to_dfa(b"ab")


@pytest.mark.boundary
def test_deep_nesting_is_answered_or_bounded():
    # 300 levels: Python answers, so do we; 1000: a LimitExceeded, never a RecursionError
    pattern = "(?:a" * 300 + ")?" * 300
    assert regex_to_dfa(pattern).n_states == 301 and re.fullmatch(pattern.encode(), b"a" * 300)
    with pytest.raises(PatternTooLarge, match="MAX_NESTING"):
        regex_to_dfa("(" * 1000 + "a" + ")" * 1000)
