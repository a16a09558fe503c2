"""The front end: pattern text -> term, with Python's own parser, for the subset only.

Python's ``re`` parser reads the ASCII bytes of the pattern (so its meaning is
Python's by construction); ``_convert`` maps the subset's opcodes to terms and refuses
the rest with ``UnsupportedSyntax`` naming the construct and its offset (found by a
scanner that only locates, never decides meaning). Python's ``re.error`` is
``PatternSyntaxError``, and so, before 3.11, is the DeprecationWarning Python's parser gives
for a global flag past the start (``a(?i)b``), which 3.11 and later refuse; before 3.13 the
parser is a copy without the template flag ``t``, which 3.13 removed (``_parser_as_313``). Example::

    >>> parse("a|b") is byteset(0b11 << 97)
    True
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import re
import sys
import warnings

from . import bounds
from .errors import PatternSyntaxError, PatternTooLarge, UnsupportedSyntax
from .terms import ALL, DIGIT, NEWLINE, SPACE, WORD, Term, alt_of, byteset, cat, repeat, span

try:  # Python >= 3.11
    from re import _constants as _sre
    from re import _parser as _this_pythons_parser
except ImportError:  # Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _this_pythons_parser  # type: ignore[no-redef]


def _parser_as_313(module):
    """Python's parser ``module``; before 3.13 a private copy of it without the TEMPLATE
    flag ``t`` in its flag table, as 3.13 has it: ``(?t)`` an unknown extension at the
    ``?``, ``(?it)`` an unknown flag at the ``t`` (3.10-3.12 read a template flag). The
    copy is this module's: ``re`` itself is left as it is."""
    if sys.version_info >= (3, 13):
        return module
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_as_313", module.__file__)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    del copy.FLAGS["t"]
    return copy


_sre_parse = _parser_as_313(_this_pythons_parser)

__all__ = ["parse"]

_CATEGORIES = {  # Python's bytes-pattern meanings (no LOCALE, no UNICODE)
    "CATEGORY_DIGIT": DIGIT, "CATEGORY_NOT_DIGIT": ALL ^ DIGIT,
    "CATEGORY_WORD": WORD, "CATEGORY_NOT_WORD": ALL ^ WORD,
    "CATEGORY_SPACE": SPACE, "CATEGORY_NOT_SPACE": ALL ^ SPACE,
}


_REFUSED_OPCODES = {  # sre opcode name -> (construct, scanner kind that locates it)
    "AT": ("anchor", "anchor"),
    "GROUPREF": ("backreference", "backreference"),
    "GROUPREF_EXISTS": ("conditional group", "conditional"),
    "ASSERT": ("lookaround", "lookaround"),
    "ASSERT_NOT": ("lookaround", "lookaround"),
    "MIN_REPEAT": ("lazy quantifier", "lazy"),
    "POSSESSIVE_REPEAT": ("possessive quantifier", "possessive"),
    "ATOMIC_GROUP": ("atomic group", "atomic"),
    "FAILURE": ("lookaround", "lookaround"),  # 3.13+: the empty negative lookahead (?!), which never matches
}


def parse(pattern: str) -> Term:
    """The term of a pattern of the subset.

    Raises TypeError when ``pattern`` is not a str; ``UnsupportedSyntax`` (naming the
    construct and offset) outside the subset; ``PatternSyntaxError`` when Python's
    ``re`` refuses the pattern. An empty language is *not* an error here (its term
    is ``NOTHING``); ``canonical_dfa`` refuses it.

    Example: ``parse("a|b") is byteset(0b11 << 97)``.
    """
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    if len(pattern) > bounds.MAX_PATTERN_CHARS:
        raise PatternTooLarge(f"pattern of {len(pattern)} characters, over MAX_PATTERN_CHARS="
                              f"{bounds.MAX_PATTERN_CHARS}", pattern, bounds.MAX_PATTERN_CHARS)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, RECURSION_ROOM))  # MAX_NESTING levels of Python's parser and _convert
    try:
        return _parse_cached(pattern)
    finally:
        sys.setrecursionlimit(old)


RECURSION_ROOM = 5000
"""Python frames allowed while parsing: Python's parser recurses about three frames per
group level and ``_convert`` two, so ``bounds.MAX_NESTING`` (400) levels fit."""


@functools.lru_cache(maxsize=2048)
def _parse_cached(pattern: str) -> Term:
    deep = _locate_deep_group(pattern, bounds.MAX_NESTING)
    if deep is not None:  # before Python's parser, which recurses per level
        raise PatternTooLarge(f"groups nested deeper than MAX_NESTING={bounds.MAX_NESTING}", pattern, deep)
    if not pattern.isascii():
        _refuse_non_ascii(pattern)
    try:
        with _python_warnings_as_311_reads():
            tree = _python_tree(pattern.encode("ascii"))
    except re.error as e:
        raise PatternSyntaxError(f"malformed pattern: {e.msg}", pattern, e.pos) from None
    except DeprecationWarning as w:
        raise _flags_past_the_start(pattern, w) from None
    except PatternSyntaxError:  # a refusal of 3.12's, before 3.12 (_python_tree): not a bound's ValueError
        raise
    except RecursionError:
        raise PatternTooLarge("pattern nested too deeply for Python's parser") from None
    except (OverflowError, ValueError):  # a repeat bound Python will not convert (e.g. 5000 digits)
        big = _locate_big_repeat(pattern)
        refused = _first_refused_before(pattern, big)  # Python stopped there: what came before it counts
        if refused is not None:
            raise UnsupportedSyntax(refused[1], pattern, refused[0]) from None
        raise PatternTooLarge(f"repeat bound over MAX_REPEAT={bounds.MAX_REPEAT}", pattern, big) from None
    # Constructs Python's tree does not keep in place (flags, names, comments) and the
    # first refused item of the tree: the first in the text is the one reported.
    problems = [(pos, construct) for construct, kind, present in (
        ("inline flags", "flags", tree.state.flags), ("named group", "named group", tree.state.groupdict),
        ("comment", "comment", True)) if present and (pos := _locate(pattern, kind)) is not None]
    try:
        term = _convert(tree, pattern)
    except RecursionError:
        raise PatternTooLarge("pattern nested too deeply") from None
    except PatternTooLarge as err:
        if not problems or (err.pos is not None and err.pos < min(problems)[0]):
            raise
    except UnsupportedSyntax as err:
        err = _first_in_the_text(pattern, err)
        if not problems or (err.pos is not None and err.pos < min(problems)[0]):
            raise err from None
    if problems:
        pos, construct = min(problems)
        raise UnsupportedSyntax(construct, pattern, pos)
    return term


def _python_tree(text):
    """Python's parse tree of ``text``. Before 3.12 the parser is run with a tokenizer that
    refuses a conditional group's name as 3.12 does (``_NamesChecked``): neither an identifier
    nor ASCII digits (``(?(+1)a)``, which 3.10 and 3.11 read as group 1); the rest is
    ``parse``'s own sequence, so every other answer is this Python's. Python's refusals are
    its ``re.error``; the ones made here, ``PatternSyntaxError``."""
    if sys.version_info >= (3, 12):
        return _sre_parse.parse(text, 0)
    tokens = _NamesChecked(text)
    state = _sre_parse.State()
    state.str = text
    try:
        tree = _sre_parse._parse_sub(tokens, state, False, 0)
    except getattr(_sre_parse, "Verbose", ()):  # 3.10 met (?x): the whole text again, verbose
        state = _sre_parse.State()
        state.flags, state.str = _sre.SRE_FLAG_VERBOSE, text
        tokens.seek(0)
        tree = _sre_parse._parse_sub(tokens, state, True, 0)
    tree.state.flags = _sre_parse.fix_flags(text, tree.state.flags)
    if tokens.next is not None:
        raise PatternSyntaxError("malformed pattern: unbalanced parenthesis", _as_text(text), tokens.tell())
    for group, where in tree.state.grouprefpos.items():
        if group >= tree.state.groups:
            raise PatternSyntaxError(f"malformed pattern: invalid group reference {group}", _as_text(text), where)
    return tree


def _as_text(text) -> str:
    return text.decode("ascii") if isinstance(text, bytes) else text


if sys.version_info < (3, 12):
    class _NamesChecked(_sre_parse.Tokenizer):
        """Python's tokenizer, refusing a group name read up to ``)`` (a conditional's, or
        ``(?P=``'s, which Python refuses anyway) that 3.12 refuses, at the name, in 3.12's words."""

        def getuntil(self, terminator, name):
            read = super().getuntil(terminator, name)
            if terminator == ")" and name == "group name" and not (
                    read.isidentifier() or (read.isascii() and read.isdecimal())):
                raise PatternSyntaxError(f"malformed pattern: bad character in group name {read!r}",
                                         _as_text(self.string), self.tell() - len(read) - 1)
            return read


@contextlib.contextmanager
def _python_warnings_as_311_reads():
    """Python's parser prints nothing (e.g. "Possible nested set", a FutureWarning: this
    Python's meaning stands), except that before 3.11 its DeprecationWarning for a global
    flag past the start ("Flags not at the start of the expression ... but at position N")
    is raised: 3.11 and later refuse that pattern, at that offset (``_flags_past_the_start``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", "Flags not at the start", DeprecationWarning)
        yield


def _flags_past_the_start(pattern: str, warning: Warning) -> PatternSyntaxError:
    """The refusal Python 3.11 makes where 3.10 warned (``_python_warnings_as_311_reads``)."""
    found = re.search(r"at position (\d+)$", str(warning))
    return PatternSyntaxError("malformed pattern: global flags not at the start of the expression", pattern,
                              int(found.group(1)) if found else None)


_PREEMPTING = ("anchor", "lookaround", "named group", "comment", "atomic", "conditional", "flags", "lazy", "possessive")


_CONSTRUCTS = {kind: construct for construct, kind in _REFUSED_OPCODES.values()} | {
    "flags": "inline flags", "named group": "named group", "comment": "comment"}
"""The construct each located kind names in an error: ``_REFUSED_OPCODES``'s, and those of the
constructs Python's tree does not keep in place (``_parse_cached``'s problems)."""


def _first_in_the_text(pattern: str, err: UnsupportedSyntax) -> UnsupportedSyntax:
    """``err`` (the first refused item of Python's tree, in tree order), or the refused
    construct the text has before it: an outer item comes first in the tree but not in
    the text (``(?:^a)*?``: the lazy ``*?`` wraps the anchor), and the first in the text
    is the one reported, as a left-to-right parser reports it."""
    earlier = _first_refused_before(pattern, err.pos) if err.pos is not None else None
    return err if earlier is None else UnsupportedSyntax(_CONSTRUCTS[earlier[1]], pattern, earlier[0])


def _first_refused_before(pattern: str, end: int | None) -> tuple[int, str] | None:
    """The first located refused construct (not a backreference: ``\\1`` may be octal)
    before offset ``end``, as ``(offset, kind)``; None if there is none."""
    for pos, kind in _scan(pattern):
        if end is not None and pos >= end:
            return None
        if kind in _PREEMPTING:
            return pos, kind
    return None


def _refuse_non_ascii(pattern: str) -> None:
    """A pattern with a non-ASCII character is outside the subset (bytes patterns), unless
    Python's parser, reading it as a str pattern, refuses it: then it is malformed, at
    Python's offset (e.g. ``(?é:a)``: an unknown flag, not a non-ASCII literal)."""
    try:
        with _python_warnings_as_311_reads():
            _python_tree(pattern)
    except re.error as e:
        raise PatternSyntaxError(f"malformed pattern: {e.msg}", pattern, e.pos) from None
    except DeprecationWarning as w:
        raise _flags_past_the_start(pattern, w) from None
    except PatternSyntaxError:
        raise
    except (RecursionError, OverflowError, ValueError):
        pass  # no verdict from Python: the non-ASCII character is the answer
    i = next(i for i, ch in enumerate(pattern) if ord(ch) > 127)
    raise UnsupportedSyntax(f"non-ASCII character {pattern[i]!r}", pattern, i)


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
            raise UnsupportedSyntax("inline flags", pattern, _locate(pattern, "flags"))
        return _convert(body, pattern)
    if name == "MAX_REPEAT":     # * + ? {m} {m,} {m,n}, greedy
        lo, hi, body = av
        hi = None if hi == _sre.MAXREPEAT else hi
        if lo > bounds.MAX_REPEAT or (hi is not None and hi > bounds.MAX_REPEAT):
            raise PatternTooLarge(f"repeat bound over MAX_REPEAT={bounds.MAX_REPEAT}", pattern,
                                  _locate_big_repeat(pattern))
        return repeat(_convert(body, pattern), lo, hi)
    if name in _REFUSED_OPCODES:
        construct, kind = _REFUSED_OPCODES[name]
        raise UnsupportedSyntax(construct, pattern, _locate(pattern, kind))
    raise UnsupportedSyntax(f"construct {name}", pattern, None)


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
            bits |= span(av[0], av[1])
        elif name == "CATEGORY":
            if str(av) not in _CATEGORIES:
                raise UnsupportedSyntax(f"class category {av}", pattern, None)
            bits |= _CATEGORIES[str(av)]
        else:
            raise UnsupportedSyntax(f"class item {name}", pattern, None)
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
            numbers = pattern[pos + 1:close].split(",")
            if any(b.isdigit() and (len(b.lstrip("0")) > len(str(bounds.MAX_REPEAT)) or int(b) > bounds.MAX_REPEAT)
                   for b in numbers):
                return pos
    return None


_REPEAT_BRACES = re.compile(r"\{(?:\d+(?:,\d*)?|,\d*)\}")
"""A brace that Python reads as a repeat (e.g. ``{2}``, ``{,3}``, ``{,}``); any other
``{`` is a literal (``a{1(?#x)}``: the ``{`` is a literal, the comment is a comment)."""


def _locate_deep_group(pattern: str, limit: int) -> int | None:
    """The offset of the first ``(`` nested deeper than ``limit`` groups (outside
    brackets, not escaped), or None. E.g. ``_locate_deep_group("((a))", 1) == 1``."""
    if pattern.count("(") <= limit:  # the common case: no nest can be deeper
        return None
    depth, i, n, in_class = 0, 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 1 + (pattern[i + 1:i + 2] == "^")
            i += pattern[i:i + 1] == "]"  # a ] first in a class is a literal
            continue
        elif c == "(":
            depth += 1
            if depth > limit:
                return i
        elif c == ")":
            depth = max(0, depth - 1)
        i += 1
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
        elif c == "{" and _REPEAT_BRACES.match(pattern, i):  # {m}, {m,}, {,n}, {m,n}; else a literal {
            yield i, "brace"
            i = pattern.index("}", i)
            quant = True
        after_quant = quant
        i += 1
