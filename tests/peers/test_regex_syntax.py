"""``harness.regex_syntax``: the one scanner of pattern syntax, and its three users
(``peers.given.ecma_dollar``, ``peers.compare._unwrapped_groups``, ``peers.judged_masks.greedy``).

Oracle: Python's own parser (``re._parser``, ``re.compile``) on every pattern it accepts:
a ``CLASS`` token alone parses to one item; the ``END`` tokens are its ``AT_END`` items, the
``LAZY`` tokens its lazy repeats, the ``QUANTIFIER`` tokens its repeats; the capturing
openers are its groups; a pair of ``groups`` wrapped in one more group still compiles, with
one more group. Checked on a table of tricky patterns and on generated ones (pieces chosen
for their traps, kept where ``re`` compiles them).
"""

from __future__ import annotations

import re
import sys
import warnings

try:  # the oracle: Python's own reading of the pattern (3.11+: re._parser; 3.10: sre_parse, its old name)
    import re._parser as sre_parse  # noqa: PLC2701
except ImportError:  # Python 3.10
    import sre_parse  # type: ignore[no-redef]

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import regex_syntax as rs
from harness.peers.compare import _unwrapped_groups
from harness.peers.given import ecma_dollar
from harness.peers.judged_masks import greedy

POSSESSIVE = getattr(sre_parse, "POSSESSIVE_REPEAT", None)  # 3.11+; 3.10 reads no possessive repeat
ATOMIC_AND_POSSESSIVE = {"(?>a+)$", "a*+"}  # Python 3.11's syntax: 3.10's re refuses them, so it has no reading

TRICKY = [
    "[]$]", "[^]$]", "[]]", "[\\]$]$", "[a\\]]$", "[^\\]]*?$", "[\\x5d$]", "[$]", "[[]", "[(]([)])",
    "a\\$", "\\\\$", "\\(a\\)", "\\x41$", "\\N{DIGIT ONE}?",
    "(?:a)$", "(?#x$)$", "(?#a\\)$)b$", "(?P<n>a)(?P=n)$", "(?i)a$", "(?ims)a$", "(?i:a)", "(?-i:a)", "(?s:.)$",
    "(?<=a)b", "(?<!a)b", "(?=a)(?!b)", "(a)(?(1)b|c)", "(?>a+)$", "(?:[]()]|\\))+?$", "a|b$|c",
    "a{2,}?b", "x{}?", "x{,3}?", "x{a}", "{", "a{2", "a{2,x}?", "a{3}?", "x??", "a*+", "a*?b+?c??",
]
MALFORMED = ["[abc", "a)", "(a", "\\", "(?Q)", "(?#open", "[^", "[]", "[^]", "(?P<a", "\\N{DIGIT"]


def compiles(pattern: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "[[" warns of possible set operations in the future
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError):
            return False
    return True


def parse(pattern: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sre_parse.parse(pattern)


def parsed_items(pattern: str) -> list:
    """Every (op, argument) item of ``re._parser``'s reading, nested ones too."""
    items, todo = [], [parse(pattern)]
    while todo:
        value = todo.pop()
        if isinstance(value, sre_parse.SubPattern):
            for op, av in value.data:
                items.append((op, av))
                todo.append(av)
        elif isinstance(value, (tuple, list)):
            todo.extend(value)
    return items


def kinds(pattern: str, kind: str) -> list[str]:
    return [t.text(pattern) for t in rs.scan(pattern) if t.kind == kind]


def assert_reads_as_re_does(pattern: str) -> None:
    """The module's guarantees on a pattern ``re`` compiles, against ``re._parser``."""
    tokens = rs.scan(pattern)
    assert "".join(t.text(pattern) for t in tokens) == pattern and all(t.start < t.end for t in tokens)
    items = parsed_items(pattern)
    for text in kinds(pattern, rs.CLASS):
        assert len(parse(text).data) == 1, (pattern, text)
    ops = [op for op, _ in items]
    # re's parser factors an item every branch of an alternation starts with out of it ('($|(?#)$)' reads
    # as one AT_END): where a pattern alternates, its count of an item is at most the scanner's
    same = (lambda scanned, read: scanned >= read) if "|" in pattern else (lambda scanned, read: scanned == read)
    ends = sum(1 for op, av in items if op is sre_parse.AT and av is sre_parse.AT_END)
    assert same(len(kinds(pattern, rs.END)), ends), pattern
    if kinds(pattern, rs.END):  # and exactly the end anchors: each made \Z, no AT_END is left, nothing else moves
        absolute = "".join("\\Z" if t.kind == rs.END else t.text(pattern) for t in tokens)
        assert compiles(absolute) and not [av for op, av in parsed_items(absolute)
                                           if op is sre_parse.AT and av is sre_parse.AT_END], (pattern, absolute)
    assert same(len(kinds(pattern, rs.LAZY)), ops.count(sre_parse.MIN_REPEAT)), pattern
    repeats = ops.count(sre_parse.MIN_REPEAT) + ops.count(sre_parse.MAX_REPEAT) + ops.count(POSSESSIVE)
    assert same(len(kinds(pattern, rs.QUANTIFIER)), repeats), pattern
    capturing = [o for o in kinds(pattern, rs.OPEN) if o == "(" or o.startswith(("(?P<", "(?<")) and o[-1] == ">"]
    assert len(capturing) == re.compile(pattern).groups, pattern
    for opener, closer in rs.groups(pattern):
        wrapped = pattern[:opener.start] + "(" + pattern[opener.start:closer.end] + ")" + pattern[closer.end:]
        assert compiles(wrapped) and re.compile(wrapped).groups == re.compile(pattern).groups + 1, (pattern, wrapped)


@pytest.mark.parametrize("pattern", [
    pytest.param(p, marks=pytest.mark.skipif(sys.version_info < (3, 11), reason="3.11's syntax: no oracle on 3.10"))
    if p in ATOMIC_AND_POSSESSIVE else p for p in TRICKY])
def test_the_scanner_reads_tricky_patterns_as_re_does(pattern):
    assert compiles(pattern), pattern
    assert_reads_as_re_does(pattern)


def test_a_bracket_first_in_a_class_is_a_literal_and_the_class_goes_on():
    assert [(t.kind, t.text("[]$]$")) for t in rs.scan("[]$]$")] == [("CLASS", "[]$]"), ("END", "$")]
    assert kinds("[^]a]|b", rs.CLASS) == ["[^]a]"] and kinds("[\\]$]", rs.CLASS) == ["[\\]$]"]
    assert kinds("(?#a[b)c$", rs.INLINE) == ["(?#a[b)"] and kinds("(?#a[b)c$", rs.END) == ["$"]


@pytest.mark.parametrize("pattern", MALFORMED)
def test_a_malformed_pattern_is_still_cut_whole_without_raising(pattern):
    assert not compiles(pattern)
    tokens = rs.scan(pattern)
    assert "".join(t.text(pattern) for t in tokens) == pattern and all(t.start < t.end for t in tokens)
    assert all(t.kind in rs.KINDS for t in tokens)


def test_a_pattern_that_is_not_text_is_a_type_error():
    with pytest.raises(TypeError, match="scan: the pattern must be a str, not bytes"):
        rs.scan(b"a$")


PIECES = ["a", "b", "$", "^", ".", "|", "[]$]", "[^]a]", "[$]", "[\\]]", "[(]", "\\$", "\\)", "\\N{DIGIT ONE}",
          "(", ")", "(?:", "(?=", "(?!", "(?<=a)", "(?P<g>", "(?#c)", "(?#)$)", "(?i:", "*", "+", "?", "??", "*?",
          "{2}", "{1,}?", "{,2}", "{}", "{x}", "*+"]


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join).filter(compiles))
def test_generated_patterns_are_read_as_re_reads_them(pattern):
    assert_reads_as_re_does(pattern)


# --------------------------------------------------------------------------- the three users


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join).filter(compiles))
def test_ecma_dollar_makes_every_end_anchor_and_nothing_else_absolute(pattern):
    rewritten = ecma_dollar(pattern)
    assert compiles(rewritten), (pattern, rewritten)
    before, after = parsed_items(pattern), parsed_items(rewritten)
    ends = [av for op, av in before if op is sre_parse.AT and av is sre_parse.AT_END]
    assert not [av for op, av in after if op is sre_parse.AT and av is sre_parse.AT_END]
    assert len([av for op, av in after if op is sre_parse.AT and av is sre_parse.AT_END_STRING]) == len(ends) + \
        len([av for op, av in before if op is sre_parse.AT and av is sre_parse.AT_END_STRING])


def test_ecma_dollar_keeps_a_dollar_in_a_class_whose_first_character_is_a_bracket():
    """The scanner before this one closed ``[]$]`` at its first ``]`` and wrote ``[]\\Z]``,
    which ``re`` refuses (``\\Z`` in a class): the judge raised instead of judging."""
    assert ecma_dollar("[]$]") == "[]$]" and ecma_dollar("^[^]$]+$") == "^[^]$]+\\Z"
    assert re.fullmatch(ecma_dollar("[]$]+"), "$]$") and not re.search(ecma_dollar("^a$"), "a\n")


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join).filter(compiles))
def test_greedy_makes_every_lazy_repeat_greedy_and_changes_nothing_else(pattern):
    made = greedy(pattern)
    assert compiles(made), (pattern, made)
    assert str(parse(made)) == str(parse(pattern)).replace("MIN_REPEAT", "MAX_REPEAT")


def test_greedy_keeps_a_question_mark_that_is_a_quantifier():
    assert greedy("a{2,}?b") == "a{2,}b" and greedy("x??") == "x?" and greedy("x{}?") == "x{}?"
    assert greedy("\\N{DIGIT ONE}?") == "\\N{DIGIT ONE}?" and greedy("[?]*?") == "[?]*"


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join).filter(compiles))
def test_each_unwrapped_candidate_removes_one_group_whole(pattern):
    pairs = rs.groups(pattern)
    candidates = list(_unwrapped_groups(pattern))
    assert len(candidates) == len(pairs)
    for (opener, closer), candidate in zip(pairs, candidates):
        assert len(candidate) == len(pattern) - (opener.end - opener.start) - 1
        assert candidate == pattern[:opener.start] + pattern[opener.end:closer.start] + pattern[closer.end:]


def test_unwrapping_skips_classes_escapes_and_comments_and_removes_a_whole_opener():
    assert list(_unwrapped_groups("(?:ab)c")) == ["abc"]
    assert list(_unwrapped_groups("(?P<x>[)]\\))(?#)")) == ["[)]\\)(?#)"]
    assert list(_unwrapped_groups("((a)b)")) == ["(ab)", "(a)b"]
