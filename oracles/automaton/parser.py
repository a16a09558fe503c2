"""Pattern text -> tree of byte sets (``oracles.automaton.ast``), with Python's meanings.

The subset is Python's ``re`` on bytes patterns (the pattern text is ASCII and is read
as ``pattern.encode('ascii')``), so ``re.fullmatch`` is an exact oracle:

- literals (ASCII), escaped metacharacters (``\\.``, ``\\{``, ...), ``\\xHH``, octal
  ``\\0`` ``\\012``, ``\\a \\f \\n \\r \\t \\v``;
- shorthands ``\\d`` = ``[0-9]``, ``\\w`` = ``[A-Za-z0-9_]``, ``\\s`` = ``[ \\t\\n\\r\\f\\v]``
  and their negations ``\\D \\W \\S`` (complements over all 256 bytes);
- ``.`` = any byte but ``\\n``;
- bracket classes with ranges, escapes (``\\b`` is backspace inside a class) and
  negation ``[^...]`` (complement over all 256 bytes);
- ``(...)``, ``(?:...)``, ``|`` with empty branches;
- greedy ``* + ? {m} {m,} {,n} {m,n}``; a ``{`` that does not start a well-formed
  repeat is a literal, as in Python (e.g. ``a{x}``, ``a{}``).

Refused (``UnsupportedSyntax``, valid Python outside the subset): anchors ``^ $ \\A
\\Z \\b \\B``, backreferences, lookarounds, lazy and possessive quantifiers, named
groups, inline flags, comments, atomic groups, conditionals, non-ASCII characters.
Malformed (``PatternSyntaxError``, Python refuses it too): unbalanced groups or
brackets, nothing to repeat, a multiple repeat, ``{3,2}``, a bad range ``[z-a]``, a
bad escape, a reference to a group that is not closed, an unknown extension ``(?4``.
Over a bound (``PatternTooLarge``): a pattern longer than ``MAX_PATTERN_LENGTH``, a
repeat bound over ``MAX_REPEAT`` (however many digits it has), groups nested deeper
than ``MAX_NESTING``. The length and the nesting are checked on the text before
parsing (so they win over any other problem of the pattern).

Malformed or unsupported is Python's call: before an ``UnsupportedSyntax``, a
``PatternSyntaxError`` or a repeat's ``PatternTooLarge`` leaves ``parse``, Python's own
parser reads the whole pattern, and if it refuses it the error becomes a
``PatternSyntaxError`` with Python's message and offset (e.g. ``(?=a`` is an
unterminated subpattern, ``(?P<1>a)`` a bad group name, ``a(?i`` a missing ``)``:
malformed, not an unsupported lookahead, group or flag; ``(?Z:)`` is reported at
Python's offset 1, the ``Z``; ``a{5000}(`` is malformed, not over a bound), as Python
3.13 reads it, on every Python (``python_refuses``: 3.10 reads a possessive quantifier,
an atomic group and a global flag past the start otherwise, 3.10 and 3.11 a conditional
group named ``+1``, 3.10-3.12 a template flag ``(?t)``; ``facts.constructs.READ_AS_NEWER_PYTHONS``). Python is
asked only on those error paths, never about what an accepted pattern means; the
derivative oracle (``oracles.derivatives``) reads every pattern with Python's parser,
so the two give the same class and offset (``tests/oracles/test_bounds_refusals.py``).

One function per grammar rule; each takes ``(parser state)`` and returns a node::

    alternation := concatenation ('|' concatenation)*
    concatenation := quantified*
    quantified := atom quantifier?
    atom := '(' group ')' | '[' class ']' | '.' | escape | literal
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import warnings

from . import ast
from .ast import FULL_MASK, ByteSet, Node
from .errors import PatternError, PatternSyntaxError, PatternTooLarge, UnsupportedSyntax

MAX_PATTERN_LENGTH = 200_000
"""Longest pattern text parsed (characters); longer raises PatternTooLarge at offset
``MAX_PATTERN_LENGTH`` before any work. A pattern this long parses in under a second,
and ``nfa.MAX_NFA_STATES`` (two states per byte) refuses literals over 100,000 bytes anyway."""
MAX_REPEAT = 1000
"""The largest repeat bound accepted (``x{1000}``); above it (``x{1001}``, however many
digits) a PatternTooLarge. ``nfa.MAX_NFA_STATES`` (counted before building) and
``determinize.MAX_DFA_STATES`` bound the work independently (``(a{1000}){1000}``)."""
MAX_NESTING = 400
"""Groups nested deeper than this raise PatternTooLarge, a LimitExceeded (Python's own parser fails with
a RecursionError somewhere under 1000; the recursive stages here need room for
about five frames per level, see ``compile.regex_to_dfa``)."""


def _mask(chars: str | bytes) -> int:
    m = 0
    for b in chars.encode("ascii") if isinstance(chars, str) else chars:
        m |= 1 << b
    return m


def _range_mask(lo: int, hi: int) -> int:
    """Bytes ``lo..hi`` inclusive, e.g. ``_range_mask(0x30, 0x39)`` is ``\\d``."""
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


DIGIT = _range_mask(0x30, 0x39)
WORD = DIGIT | _range_mask(0x41, 0x5A) | _range_mask(0x61, 0x7A) | _mask("_")
SPACE = _mask(" \t\n\r\f\v")
NEWLINE = _mask("\n")
DOT = FULL_MASK & ~NEWLINE

# escape letter -> byte set; shorthand classes (usable inside brackets, not in ranges)
CATEGORIES = {
    "d": DIGIT, "D": FULL_MASK & ~DIGIT,
    "w": WORD, "W": FULL_MASK & ~WORD,
    "s": SPACE, "S": FULL_MASK & ~SPACE,
}
# escape letter -> the single byte it stands for (outside and inside brackets)
ESCAPES = {"a": 0x07, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
# zero-width assertions: valid Python, outside the subset
ANCHOR_ESCAPES = {"A": "anchor \\A", "Z": "anchor \\Z", "b": "word boundary \\b",
                  "B": "word boundary \\B", "z": "anchor \\z", "G": "anchor \\G"}
# what follows "(?" -> the construct it opens (all refused but "(?:")
GROUP_EXTENSIONS = {
    "=": "lookahead", "!": "negative lookahead", "<=": "lookbehind", "<!": "negative lookbehind",
    "P<": "named group", "P=": "named backreference", "<": "named group", "#": "comment",
    ">": "atomic group", "(": "conditional group",
}
REPEAT_CHARS = "*+?{"
SPECIAL = set("()[]|*+?{}.^$\\")


class _Parser:
    """Cursor over the pattern; every error carries the pattern and the offset."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.pos = 0
        self.groups = 0                 # capturing groups opened so far
        self.closed: set[int] = set()   # capturing groups closed so far (backreference targets)

    def peek(self, n: int = 1) -> str:
        return self.pattern[self.pos:self.pos + n]

    def at_end(self) -> bool:
        return self.pos >= len(self.pattern)

    def take(self) -> str:
        ch = self.pattern[self.pos]
        self.pos += 1
        return ch

    def syntax(self, message: str, pos: int | None = None) -> PatternSyntaxError:
        return PatternSyntaxError(message, self.pattern, self.pos if pos is None else pos)

    def unsupported(self, message: str, pos: int) -> UnsupportedSyntax:
        return UnsupportedSyntax(message, self.pattern, pos)


def parse(pattern: str) -> Node:
    """Parse ``pattern`` into a tree; raises PatternError subclasses (ValueError)."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be str, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternTooLarge(f"the pattern has {len(pattern)} characters, over MAX_PATTERN_LENGTH="
                              f"{MAX_PATTERN_LENGTH}", pattern, MAX_PATTERN_LENGTH)
    too_deep = _first_group_deeper_than(pattern, MAX_NESTING)
    if too_deep is not None:  # checked on the text first, whatever else the pattern holds
        raise PatternTooLarge(f"groups nested deeper than MAX_NESTING={MAX_NESTING}", pattern, too_deep)
    try:
        return _parse_subset(pattern)
    except (PatternSyntaxError, UnsupportedSyntax, PatternTooLarge) as exc:
        malformed = python_refuses(pattern)
        if malformed is None:
            raise
        if isinstance(exc, PatternSyntaxError):  # our words, Python's offset (e.g. a{3,2}: 2, the "2")
            raise PatternSyntaxError(f"{exc.msg} (Python: {malformed.msg})", pattern, malformed.pos) from exc
        raise malformed from exc


def _first_group_deeper_than(pattern: str, limit: int) -> int | None:
    """The offset of the first ``(`` that opens group number ``limit + 1`` of a nest
    (outside brackets, not escaped), or None; e.g. 1 for ``((a))`` and limit 1. A
    bracket's first ``]`` (after an optional ``^``) is a member, as Python reads it."""
    if pattern.count("(") <= limit:  # the common case, at C speed: no nest can be deeper
        return None
    depth, pos, end = 0, 0, len(pattern)
    while pos < end:
        ch = pattern[pos]
        if ch == "\\":
            pos += 2
        elif ch == "[":
            pos = _end_of_bracket(pattern, pos)
        else:
            depth += (ch == "(") - (ch == ")" and depth > 0)
            if ch == "(" and depth > limit:
                return pos
            pos += 1
    return None


def _end_of_bracket(pattern: str, start: int) -> int:
    """The offset after the ``]`` that closes the bracket opened at ``start`` (the end
    of the pattern if none does)."""
    pos = start + 1
    pos += pattern.startswith("^", pos)
    pos += pattern.startswith("]", pos)
    while pos < len(pattern) and pattern[pos] != "]":
        pos += 2 if pattern[pos] == "\\" else 1
    return pos + 1


def _parse_subset(pattern: str) -> Node:
    if not pattern.isascii():
        i = next(i for i, ch in enumerate(pattern) if ord(ch) > 0x7F)
        raise UnsupportedSyntax(f"non-ASCII character {pattern[i]!r} is not supported (the subset is "
                                f"bytes patterns; write it as \\xHH bytes)", pattern, i)
    p = _Parser(pattern)
    node = parse_alternation(p)
    if not p.at_end():
        # only an unmatched ')' stops the top-level alternation early
        raise p.syntax("unbalanced parenthesis")
    return node


def python_refuses(pattern: str) -> PatternSyntaxError | None:
    """Python's verdict on a pattern we found outside the subset: a PatternSyntaxError
    with Python's message and offset when Python's parser refuses it too (``re.error``),
    else None (valid Python: unsupported it stays). A bytes pattern when the text is
    ASCII, as the subset reads it; a str pattern otherwise. The newest Python's reading on
    every Python: before 3.11 the constructs 3.11 added are read as 3.11 reads them
    (``_as_python_311_reads``) and a global flag past the start is refused (``_refusal_of``);
    before 3.12 a conditional group's name is checked as 3.12 checks it (``_python_parse``);
    before 3.13 a ``t`` flag is unknown, as 3.13 has it (``_python_parser``)."""
    text = pattern.encode("ascii") if pattern.isascii() else pattern
    origin = list(range(len(text)))  # origin[i]: the pattern offset of text[i] (text may lose a '+')
    while True:
        try:
            with warnings.catch_warnings():  # e.g. "Possible nested set": not our business here
                warnings.simplefilter("ignore")
                warnings.filterwarnings("error", FLAGS_PAST_THE_START_310, DeprecationWarning)
                _python_parse(text)
        except (re.error, DeprecationWarning, PatternSyntaxError) as exc:
            msg, pos = _refusal_of(exc)
            rewritten = _as_python_311_reads(text, msg, pos)
            dropped_plus = rewritten is not None and len(rewritten) < len(text)
            if dropped_plus and pos > 0 and origin[pos - 1] != origin[pos] - 1:
                rewritten = None  # a '+' after a possessive '+' (a*++): Python 3.11 refuses it too
            elif dropped_plus and text[pos + 1:pos + 2] in ("?", b"?"):  # a*+? : 3.10 would read a lazy a*?
                (msg, pos), rewritten = _repeat_after_a_possessive(text, pos), None
            if rewritten is not None:  # a 3.11 construct this Python does not know: ask again without it
                if dropped_plus:
                    del origin[pos]
                text = rewritten
                continue
            pos = origin[pos] if pos < len(origin) else len(pattern)
            return PatternSyntaxError(f"{msg} (Python refuses the pattern)", pattern, pos)
        except Exception:  # noqa: BLE001 - RecursionError, OverflowError: no verdict from Python
            return None
        return None


FLAGS_PAST_THE_START_310 = "Flags not at the start of the expression"
"""How Python 3.10's parser words the DeprecationWarning for a global flag past the start of
the pattern (``a(?i)b``), which it reads, where 3.11 and later refuse the pattern ("global
flags not at the start of the expression", at the flag's ``(``); the warning ends with that
offset ("... but at position 1")."""
_WARNED_AT = re.compile(r"but at position (\d+)$")


def _refusal_of(exc: Exception) -> tuple[str, int]:
    """(message, offset) of Python's refusal: its ``re.error``, or on 3.10 the warning
    ``FLAGS_PAST_THE_START_310`` read as the error 3.11 raises in its place, at the same
    offset, so that a global flag past the start is malformed on every Python."""
    if isinstance(exc, (re.error, PatternSyntaxError)):  # the second: 3.12's, before 3.12 (_python_parse)
        return exc.msg, exc.pos if exc.pos is not None else 0
    found = _WARNED_AT.search(str(exc))
    return "global flags not at the start of the expression", int(found.group(1)) if found else 0


def _as_python_311_reads(text, message: str, pos: int):
    """Python 3.10 calls the 3.11 syntax of two refused constructs malformed: a possessive
    quantifier (``a*+``: "multiple repeat" at the ``+``) and an atomic group (``(?>a)``:
    "unknown extension ?>"). Return ``text`` with the construct made plain (the ``+``
    dropped when right after its repeat and not after a lazy one; ``(?>`` read as ``(?:``)
    so that the verdict, hence the error class, is the same on every Python; None for any
    other error (and always on 3.11+). The third
    construct 3.11 reads otherwise, a global flag past the start, 3.10 reads with a
    warning, which ``python_refuses`` takes as 3.11's refusal (``_refusal_of``)."""
    if sys.version_info >= (3, 11):
        return None
    plus, colon, ends = (b"+", b":", b"*+?}") if isinstance(text, bytes) else ("+", ":", "*+?}")
    right_after_a_quantifier = pos > 0 and text[pos - 1:pos] in ends  # a*\n+ in verbose mode: not possessive
    possessive = message == "multiple repeat" and text[pos:pos + 1] == plus and right_after_a_quantifier
    if possessive and not _after_a_lazy_repeat(text, pos):
        return text[:pos] + text[pos + 1:]
    if message.startswith("unknown extension ?>"):  # pos is the '?' of "(?>"
        return text[:pos + 1] + colon + text[pos + 2:]
    return None


def _repeat_after_a_possessive(text, pos: int) -> tuple[str, int]:
    """Python 3.11's error for a ``?`` after a possessive ``+`` (at ``pos``; ``a*+?``), which
    3.10, the ``+`` dropped, would read as lazy: a multiple repeat at the ``?``, unless the
    pattern then ends in a lone backslash, which Python's tokenizer, one token ahead,
    refuses first (``a*+?\\``: a bad escape at the backslash)."""
    if text[pos + 2:] in ("\\", b"\\"):
        return "bad escape (end of pattern)", pos + 2
    return "multiple repeat", pos + 1


def _after_a_lazy_repeat(text, pos: int) -> bool:
    """Whether the ``+`` at ``pos`` follows a lazy quantifier (``a+?+``, ``a??+``): a multiple
    repeat on 3.11 too, not a possessive one. Its ``?`` is lazy exactly when a repeat comes
    before it, which Python 3.10 itself tells: a ``+`` in the ``?``'s place is then a
    multiple repeat there (errors come in the text's order, so nothing later can answer first)."""
    question = b"?" if isinstance(text, bytes) else "?"
    if pos == 0 or text[pos - 1:pos] != question:
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _python_parser().parse(text[:pos - 1] + text[pos:pos + 1], 0)
    except re.error as exc:
        return exc.msg == "multiple repeat" and exc.pos == pos - 1
    except Exception:  # noqa: BLE001 - RecursionError, OverflowError: no verdict, read it as possessive
        return False
    return False


def _python_parse(text) -> None:
    """Python's parser on ``text`` (raises its ``re.error``), refusing a conditional group's
    name as 3.12 and later do on every Python: a name that is neither an identifier nor
    ASCII digits (``(?(+1)a)``, ``(?( 1)a)``), which 3.10 and 3.11 read as the number
    ``int()`` makes of it. Before 3.12 this is ``parse``'s own sequence, with a tokenizer
    that checks the name where 3.12 does, right after reading it (``_GroupNamesAs312``:
    ``PatternSyntaxError`` with 3.12's message and offset in ``text``)."""
    parser = _python_parser()
    if sys.version_info >= (3, 12):
        parser.parse(text, 0)
        return
    source = _GroupNamesAs312(text)
    state = parser.State()
    state.str = text
    try:
        tree = parser._parse_sub(source, state, False, 0)
    except getattr(parser, "Verbose", ()):  # 3.10: a (?x) read; parse again, verbose throughout
        state = parser.State()
        state.flags, state.str = parser.SRE_FLAG_VERBOSE, text
        source.seek(0)
        tree = parser._parse_sub(source, state, True, 0)
    parser.fix_flags(text, tree.state.flags)
    if source.next is not None:
        raise PatternSyntaxError("unbalanced parenthesis", None, source.tell())
    for group, pos in tree.state.grouprefpos.items():
        if group >= tree.state.groups:
            raise PatternSyntaxError(f"invalid group reference {group}", None, pos)


@functools.cache
def _python_parser():
    """This Python's ``re`` parser module; before 3.13 a private copy of it whose flag table
    lacks the TEMPLATE flag ``t``, which 3.13 removed: ``(?t)`` is then an unknown extension
    (at the ``?``) and ``(?it)`` an unknown flag (at the ``t``) on every Python, where 3.10-3.12
    read a template flag. ``re`` itself keeps its own."""
    try:  # Python >= 3.11
        from re import _parser
    except ImportError:  # Python 3.10
        import sre_parse as _parser  # type: ignore[no-redef]
    if sys.version_info >= (3, 13):
        return _parser
    spec = importlib.util.spec_from_file_location(f"{_parser.__name__}_without_t", _parser.__file__)
    without_t = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(without_t)
    del without_t.FLAGS["t"]
    return without_t


if sys.version_info < (3, 12):
    class _GroupNamesAs312(_python_parser().Tokenizer):
        """Python's tokenizer (3.10, 3.11), refusing a group name read up to ``)`` (a
        conditional's, or ``(?P=``'s, which Python refuses anyway) as 3.12 does."""

        def getuntil(self, terminator, name):
            found = super().getuntil(terminator, name)
            refused = not found.isidentifier() and not (found.isdecimal() and found.isascii())
            if terminator == ")" and name == "group name" and refused:
                at = self.tell() - len(found) - 1  # where 3.12 reports it: the name's first character
                raise PatternSyntaxError(f"bad character in group name {found!r}", None, at)
            return found


def parse_alternation(p: _Parser) -> Node:
    branches = [parse_concatenation(p)]
    while p.peek() == "|":
        p.take()
        branches.append(parse_concatenation(p))
    return ast.alt(*branches)


def parse_concatenation(p: _Parser) -> Node:
    items: list[Node] = []
    while not p.at_end() and p.peek() not in "|)":
        items.append(parse_quantified(p))
    return ast.concat(*items)


def parse_quantified(p: _Parser) -> Node:
    if p.peek() in "*+?" or (p.peek() == "{" and _repeat_bounds(p, consume=False) is not None):
        raise p.syntax("nothing to repeat")
    node = parse_atom(p)
    bounds = _quantifier(p)
    if bounds is None:
        return node
    lo, hi = bounds
    # what may follow a quantifier: '?' lazy and '+' possessive are refused,
    # another quantifier is a multiple repeat (Python: "multiple repeat")
    if p.peek() == "?":
        raise p.unsupported("lazy quantifier is not supported", p.pos)
    if p.peek() == "+":
        raise p.unsupported("possessive quantifier is not supported", p.pos)
    if p.peek() == "*" or (p.peek() == "{" and _repeat_bounds(p, consume=False) is not None):
        raise p.syntax("multiple repeat")
    return ast.repeat(node, lo, hi)


def _quantifier(p: _Parser) -> tuple[int, int | None] | None:
    ch = p.peek()
    if ch == "*":
        p.take()
        return 0, None
    if ch == "+":
        p.take()
        return 1, None
    if ch == "?":
        p.take()
        return 0, 1
    if ch == "{":
        return _repeat_bounds(p, consume=True)
    return None


def _repeat_bounds(p: _Parser, *, consume: bool) -> tuple[int, int | None] | None:
    """Read ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}`` at the cursor; None if the brace is
    a literal (Python: ``{}`` and ``{x`` are literals). Checks bounds when consuming."""
    text = p.pattern
    i = p.pos + 1
    j = i
    while j < len(text) and text[j].isdigit():
        j += 1
    lo_text = text[i:j]
    if j < len(text) and text[j] == ",":
        k = j + 1
        while k < len(text) and text[k].isdigit():
            k += 1
        hi_text = text[j + 1:k]
        end = k
    else:
        hi_text = lo_text
        end = j
    if end >= len(text) or text[end] != "}" or (end == i):
        return None  # "{" followed by no digits and no comma, or unterminated: a literal
    lo = _bound_value(lo_text) if lo_text else 0
    hi = _bound_value(hi_text) if hi_text else None
    if consume:
        brace = p.pos
        for text_, bound in ((lo_text, lo), (hi_text, hi)):
            if bound is not None and bound > MAX_REPEAT:
                shown = text_ if len(text_) <= 12 else f"of {len(text_)} digits"
                raise PatternTooLarge(f"repeat bound {shown} exceeds the limit MAX_REPEAT={MAX_REPEAT}",
                                      p.pattern, brace)
        if hi is not None and hi < lo:
            raise p.syntax(f"min repeat greater than max repeat ({{{lo},{hi}}})", brace)
        p.pos = end + 1
    return lo, hi


def _bound_value(digits: str) -> int:
    """The value of a repeat bound's digits, or ``MAX_REPEAT + 1`` when it is larger
    (never converts thousands of digits: ``int()`` refuses over 4300 of them)."""
    significant = digits.lstrip("0")
    if len(significant) > len(str(MAX_REPEAT)):
        return MAX_REPEAT + 1
    return int(significant or "0")


# one shared node per ASCII literal: a 200,000-character literal holds references, not copies
_LITERAL = tuple(ByteSet(1 << b) for b in range(128))


def parse_atom(p: _Parser) -> Node:
    pos = p.pos
    ch = p.take()
    if ch == "(":                               # group: (...) or (?:...)
        return parse_group(p, pos)
    if ch == "[":                               # bracket class: [a-z], [^...]
        return ByteSet(parse_class(p, pos))
    if ch == ".":                               # any byte but \n
        return ByteSet(DOT)
    if ch == "\\":                              # escape: \d, \x41, \.
        return ByteSet(parse_escape(p, pos, in_class=False))
    if ch in "^$":                              # anchors: outside the subset
        raise p.unsupported(f"anchor {ch!r} is not supported", pos)
    return _LITERAL[ord(ch)]                    # literal (incl. ']' '}' and a literal '{'; never ')':
                                                # parse_concatenation stops there)


def parse_group(p: _Parser, pos: int) -> Node:
    capture = None
    if p.peek() == "?":
        p.take()
        if p.peek() != ":":
            raise _extension_error(p, pos)
        p.take()
    else:
        p.groups += 1
        capture = p.groups
    node = parse_alternation(p)  # no deeper than MAX_NESTING: parse refused a deeper nest on the text first
    if p.peek() != ")":
        raise p.syntax("missing ), unterminated subpattern", pos)
    p.take()
    if capture is not None:
        p.closed.add(capture)
    return node


INLINE_FLAGS = set("aiLmsux-")


def _extension_error(p: _Parser, pos: int) -> PatternError:
    """After ``(?``: the construct it opens, refused; or malformed (``(?4``)."""
    for key in sorted(GROUP_EXTENSIONS, key=len, reverse=True):
        if p.pattern.startswith(key, p.pos):
            return p.unsupported(f"{GROUP_EXTENSIONS[key]} (?{key}...) is not supported", pos)
    if p.peek() and p.peek() in INLINE_FLAGS:
        flags = p.pattern[p.pos:].split(")", 1)[0].split(":", 1)[0]
        if all(c in INLINE_FLAGS for c in flags):
            return p.unsupported("inline flags (?...) are not supported", pos)
        return p.syntax(f"unknown flag in (?{flags}", pos)
    return p.syntax(f"unknown extension (?{p.peek()}", pos)


def parse_class(p: _Parser, pos: int) -> int:
    """After ``[``: the byte set of the class, negation over all 256 bytes."""
    negate = p.peek() == "^"
    if negate:
        p.take()
    mask = 0
    first = True
    while True:
        if p.at_end():
            raise p.syntax("unterminated character set", pos)
        if p.peek() == "]" and not first:
            p.take()
            break
        first = False
        lo_pos = p.pos
        lo = _class_item(p)
        if p.peek() == "-" and p.peek(2) != "-]" and p.pattern[p.pos + 1:p.pos + 2] not in ("]", ""):
            p.take()
            hi = _class_item(p)
            if isinstance(lo, tuple) or isinstance(hi, tuple):
                raise p.syntax("bad character range", lo_pos)
            if hi < lo:
                raise p.syntax(f"bad character range {chr(lo)}-{chr(hi)}", lo_pos)
            mask |= _range_mask(lo, hi)
        else:
            mask |= lo[0] if isinstance(lo, tuple) else 1 << lo
    return FULL_MASK & ~mask if negate else mask


def _class_item(p: _Parser):
    """One class member: a byte (int), or a shorthand's set as a 1-tuple ``(mask,)``."""
    pos = p.pos
    ch = p.take()
    if ch == "\\":
        if p.peek() in CATEGORIES and p.peek():
            return (CATEGORIES[p.take()],)
        return _single_bit(parse_escape(p, pos, in_class=True))
    return ord(ch)


def _single_bit(mask: int) -> int:
    b = mask.bit_length() - 1
    assert mask == 1 << b, "internal: a single-byte escape produced a set"
    return b


def parse_escape(p: _Parser, pos: int, *, in_class: bool) -> int:
    """After ``\\``: the byte set of the escape (a single bit unless a shorthand)."""
    if p.at_end():
        raise p.syntax("bad escape (end of pattern)", pos)
    ch = p.take()
    if ch in CATEGORIES:                          # \d \w \s \D \W \S
        return CATEGORIES[ch]
    if ch in ESCAPES:                             # \n \t ...
        return 1 << ESCAPES[ch]
    if ch == "b" and in_class:                    # [\b] is backspace
        return 1 << 0x08
    if ch in ANCHOR_ESCAPES:                      # \A \Z \b \B
        raise p.unsupported(f"{ANCHOR_ESCAPES[ch]} is not supported", pos)
    if ch == "x":                                 # \xHH: exactly two hex digits
        digits = p.peek(2)
        if len(digits) != 2 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise p.syntax("incomplete escape \\x", pos)
        p.pos += 2
        return 1 << int(digits, 16)
    if ch in "01234567":
        return _octal_or_backreference(p, pos, ch, in_class)
    if ch in "89":
        if in_class:
            raise p.syntax(f"bad escape \\{ch}", pos)
        raise p.unsupported("backreference is not supported", pos)
    if ch.isascii() and ch.isalpha():
        raise p.syntax(f"bad escape \\{ch}", pos)
    return 1 << ord(ch)                           # \. \\ \- \{ ...: the character itself


def _octal_or_backreference(p: _Parser, pos: int, first: str, in_class: bool) -> int:
    """Python's rules. Inside a class, and for ``\\0`` anywhere: an octal escape of up
    to three digits (``[\\4]`` is 0x04, ``\\012`` is 0x0A). Outside a class, ``\\1``-``\\7``
    followed by two more octal digits is octal (``\\101`` is ``A``); otherwise
    ``\\1``-``\\99`` is a backreference: refused when it names a closed group, malformed
    when it names no group (``\\5a`` with no group 5)."""
    digits = first
    if first == "0" or in_class:
        while len(digits) < 3 and p.peek() and p.peek() in "01234567":
            digits += p.take()
        return _octal_value(p, pos, digits)
    nxt = p.pattern[p.pos:p.pos + 2]
    if len(nxt) == 2 and all(c in "01234567" for c in nxt):
        p.pos += 2
        return _octal_value(p, pos, first + nxt)
    if p.peek() and p.peek().isdigit():
        digits += p.take()
    group = int(digits)
    if group not in p.closed:
        raise p.syntax(f"invalid group reference {group} (no closed group {group} before it)", pos)
    raise p.unsupported("backreference is not supported", pos)


def _octal_value(p: _Parser, pos: int, digits: str) -> int:
    value = int(digits, 8)
    if value > 0o377:
        raise p.syntax(f"octal escape value \\{digits} outside of range 0-0o377", pos)
    return 1 << value
