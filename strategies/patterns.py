"""Patterns of the regex subset, generated as trees and rendered to text.

Main access point: ``patterns()`` (pattern text); ``pattern_trees()`` gives the tree,
whose ``render()`` is the text and whose ``is_empty()`` / ``witness()`` answer
structurally, without any automaton.

The tree uses the project's vocabulary of constructs (one frozen dataclass each,
``repr`` reads like the code that built it):

    Literal(byte, spelling)     one byte: ``a``, ``\\.``, ``\\x41``, ``\\n``
    Shorthand(text)             ``.`` ``\\d`` ``\\w`` ``\\s`` ``\\D`` ``\\W`` ``\\S``
    Range(lo, hi)               ``a-z`` inside brackets (lo <= hi)
    Bracket(items, negated)     ``[a-z\\d\\-]``, ``[^\\x00-\\x1f]``: a list of bracket items
                                (``BracketItem``: Literal, Range, Shorthand); its
                                ``byteset()`` is the byte set it matches
    Group(child, capturing)     ``(...)`` and ``(?:...)``
    Repeat(child, lo, hi, braces)  ``* + ? {m} {m,} {m,n}`` (hi None: unbounded)
    Concat(parts)               two or more parts
    Alt(branches)               two or more branches, empty ones allowed
    EmptyString()               the empty pattern (matches only b"")

The names follow the glossary in ``oracles/__init__.py``: ``EmptyString`` is the empty
string (the reference's ``EmptyString``), an unmatchable bracket such as ``[^\\d\\D]``
denotes the empty language (``UNMATCHABLE_BRACKETS``), and a bracket (text) is not a
byte set (meaning).

Rendering puts in the non-capturing groups that precedence needs, e.g.
``Repeat(Concat((a, b)), 0, None)`` renders as ``(?:ab)*`` and
``Repeat(Repeat(a, 0, None), 0, 1)`` as ``(?:a*)?`` (never ``a*?``, which is lazy).

Guarantees of the rendered text: pure ASCII, no raw control characters; Python's
``re.compile(text.encode())`` accepts it without warnings (every character that a
bracket class could read as an operator, ``] \\ ^ - [ & | ~``, is escaped or spelled
``\\xHH``); its meaning on bytes is Python's.

Example::

    >>> Concat((Literal.of(b"a"), Repeat(Alt((Literal.of(b"."), EmptyString())), 1, 3, True))).render()
    'a(?:\\\\.|){1,3}'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from strategies.reuse import reused

__all__ = [
    "Alt", "Bracket", "Concat", "EmptyString", "Group", "Literal", "Range", "Repeat",
    "Shorthand", "Node", "near_patterns", "pattern_trees", "patterns",
]

# Symbol tables -------------------------------------------------------------------

METACHARACTERS = ".^$*+?{}[]\\|()"
NAMED_ESCAPES = {"\\n": 0x0A, "\\t": 0x09, "\\r": 0x0D, "\\f": 0x0C, "\\v": 0x0B}
# Printable characters that stand for themselves outside brackets / inside them.
PLAIN = "abcxyzABZ019 !\"#%&',-/:;<=>@_`~"
PLAIN_IN_CLASS = "abcxyzABZ019 !\"#%',/:;<=>@_`"  # not & | ~ (set operations), not -
ALL_BYTES = frozenset(range(256))
SHORTHANDS: dict[str, frozenset[int]] = {
    ".": ALL_BYTES - {0x0A},
    "\\d": frozenset(b"0123456789"),
    "\\w": frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
    "\\s": frozenset(b" \t\n\r\f\v"),
}
SHORTHANDS["\\D"] = ALL_BYTES - SHORTHANDS["\\d"]
SHORTHANDS["\\W"] = ALL_BYTES - SHORTHANDS["\\w"]
SHORTHANDS["\\S"] = ALL_BYTES - SHORTHANDS["\\s"]


# The tree --------------------------------------------------------------------------

class _Tree:
    """What every node answers structurally (see ``is_empty`` and ``witness``)."""

    __slots__ = ()

    def is_empty(self) -> bool:
        return is_empty(self)

    def witness(self) -> bytes | None:
        return witness(self)


@dataclass(frozen=True)
class Literal(_Tree):
    """One byte and how the pattern spells it (e.g. ``Literal(46, '\\\\.')``)."""

    byte: int
    spelling: str

    @staticmethod
    def of(char: bytes) -> Literal:
        """The plainest spelling of one byte, e.g. ``Literal.of(b"*")`` is ``\\*``."""
        (byte,) = char
        text = chr(byte)
        if text in METACHARACTERS:
            return Literal(byte, "\\" + text)
        if text in PLAIN:
            return Literal(byte, text)
        return Literal(byte, f"\\x{byte:02x}")

    def byteset(self) -> frozenset[int]:
        return frozenset((self.byte,))

    def render(self) -> str:
        return self.spelling


@dataclass(frozen=True)
class Shorthand(_Tree):
    """``.`` or a class escape such as ``\\d`` (Python's bytes meaning)."""

    text: str

    def byteset(self) -> frozenset[int]:
        return SHORTHANDS[self.text]

    def render(self) -> str:
        return self.text


@dataclass(frozen=True)
class Range:
    """``lo-hi`` inside brackets, both ends included; ``lo.byte <= hi.byte``."""

    lo: Literal
    hi: Literal

    def byteset(self) -> frozenset[int]:
        return frozenset(range(self.lo.byte, self.hi.byte + 1))

    def render(self) -> str:
        return f"{self.lo.spelling}-{self.hi.spelling}"


BracketItem = Union[Literal, Range, Shorthand]


@dataclass(frozen=True)
class Bracket(_Tree):
    """A bracket ``[...]``: its items, ``negated`` complementing over all 256 bytes."""

    items: tuple[BracketItem, ...]
    negated: bool = False

    def byteset(self) -> frozenset[int]:
        members = frozenset().union(*(item.byteset() for item in self.items))
        return ALL_BYTES - members if self.negated else members

    def render(self) -> str:
        return "[" + ("^" if self.negated else "") + "".join(i.render() for i in self.items) + "]"


@dataclass(frozen=True)
class Group(_Tree):
    child: Node
    capturing: bool = True

    def render(self) -> str:
        return ("(" if self.capturing else "(?:") + self.child.render() + ")"


@dataclass(frozen=True)
class Repeat(_Tree):
    """``child{lo,hi}``; ``hi`` None is unbounded. ``braces`` False spells (0,None),
    (1,None), (0,1) as ``*``, ``+``, ``?``."""

    child: Node
    lo: int
    hi: int | None
    braces: bool = False

    def operator(self) -> str:
        if not self.braces:
            symbol = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((self.lo, self.hi))
            if symbol:
                return symbol
        if self.hi is None:
            return f"{{{self.lo},}}"
        if self.hi == self.lo:
            return f"{{{self.lo}}}"
        return f"{{{self.lo},{self.hi}}}"

    def render(self) -> str:
        return _atom_text(self.child) + self.operator()


@dataclass(frozen=True)
class Concat(_Tree):
    parts: tuple[Node, ...]

    def render(self) -> str:
        return "".join(_unalternated_text(p) for p in self.parts)


@dataclass(frozen=True)
class Alt(_Tree):
    branches: tuple[Node, ...]

    def render(self) -> str:
        return "|".join(b.render() for b in self.branches)


@dataclass(frozen=True)
class EmptyString(_Tree):
    def render(self) -> str:
        return ""


Node = Union[Literal, Shorthand, Bracket, Group, Repeat, Concat, Alt, EmptyString]
_ATOMS = (Literal, Shorthand, Bracket, Group)


def _atom_text(node: Node) -> str:
    # An operand of a quantifier must be one atom, e.g. (?:ab)*, (?:a*)?, (?:)*
    return node.render() if isinstance(node, _ATOMS) else f"(?:{node.render()})"


def _unalternated_text(node: Node) -> str:
    # A part of a concatenation must not expose a top-level |, e.g. a(?:b|c)
    return f"(?:{node.render()})" if isinstance(node, Alt) else node.render()


# Structural answers (no automaton): the language is empty, a shortest member ----------

def is_empty(node: Node) -> bool:
    """Return True if and only if the tree's language is empty (e.g. ``a[^\\x00-\\xff]``)."""
    return witness(node) is None


def witness(node: Node) -> bytes | None:
    """A shortest member of the language (smallest byte first), or None if it is empty."""
    if isinstance(node, (Literal, Shorthand, Bracket)):
        members = node.byteset()
        return bytes((min(members),)) if members else None
    if isinstance(node, Group):
        return witness(node.child)
    if isinstance(node, Repeat):
        if node.lo == 0:
            return b""
        inner = witness(node.child)
        return None if inner is None else inner * node.lo
    if isinstance(node, Concat):
        pieces = [witness(p) for p in node.parts]
        return None if any(p is None for p in pieces) else b"".join(pieces)
    if isinstance(node, Alt):
        found = [w for w in map(witness, node.branches) if w is not None]
        return min(found, key=lambda w: (len(w), w)) if found else None
    if isinstance(node, EmptyString):
        return b""
    raise NotImplementedError(f"internal: unknown pattern node {node!r}")


# Strategies ----------------------------------------------------------------------------

@st.composite
def _literals(draw, *, in_class: bool = False) -> Literal:
    plain = PLAIN_IN_CLASS if in_class else PLAIN
    kind = draw(st.sampled_from(["plain", "metachar", "hex", "named"]))
    if kind == "plain":
        char = draw(st.sampled_from(plain))
        return Literal(ord(char), char)
    if kind == "metachar":  # e.g. \. \[ \\ (and \- inside brackets)
        char = draw(st.sampled_from(METACHARACTERS + ("-" if in_class else "")))
        return Literal(ord(char), "\\" + char)
    if kind == "hex":  # e.g. \x00, \xFF, \x4f
        byte = draw(st.integers(0, 255))
        digits = draw(st.sampled_from(["{:02x}", "{:02X}"])).format(byte)
        return Literal(byte, "\\x" + digits)
    name = draw(st.sampled_from(sorted(NAMED_ESCAPES)))
    return Literal(NAMED_ESCAPES[name], name)


def _hex_literal(byte: int) -> Literal:
    return Literal(byte, f"\\x{byte:02x}")


@st.composite
def _ranges(draw) -> Range:
    # Ends spelled plainly when they can be, else \xHH, e.g. a-c, \x00-\x1f, 0-\xff
    lo = draw(st.integers(0, 255))
    hi = draw(st.one_of(st.integers(lo, min(lo + 3, 255)), st.integers(lo, 255)))
    ends = [Literal(b, chr(b)) if chr(b) in PLAIN_IN_CLASS else _hex_literal(b) for b in (lo, hi)]
    return Range(*ends)


@st.composite
def _brackets(draw, *, unmatchable: bool) -> Bracket:
    shorthands = st.sampled_from(sorted(SHORTHANDS.keys() - {"."})).map(Shorthand)
    item = st.one_of(_literals(in_class=True), _ranges(), shorthands)
    items = tuple(draw(st.lists(item, min_size=1, max_size=4)))
    negated = draw(st.booleans())
    cls = Bracket(items, negated)
    if negated and not cls.byteset() and not unmatchable:
        cls = Bracket(items, False)  # e.g. [^\d\D] -> [\d\D]: keep the language non-empty
    return cls


UNMATCHABLE_BRACKETS = (
    Bracket((Range(Literal(0, "\\x00"), Literal(255, "\\xff")),), negated=True),  # [^\x00-\xff]
    Bracket((Shorthand("\\d"), Shorthand("\\D")), negated=True),  # [^\d\D]
    Bracket((Shorthand("\\S"), Shorthand("\\s")), negated=True),  # [^\S\s]
)


@reused
def _atoms(unmatchable: bool) -> st.SearchStrategy[Node]:
    atoms = [
        st.sampled_from("abc").map(lambda c: Literal(ord(c), c)),
        _literals(),
        st.sampled_from(sorted(SHORTHANDS)).map(Shorthand),
        _brackets(unmatchable=unmatchable),
        st.just(EmptyString()),
    ]
    if unmatchable:
        atoms.append(st.sampled_from(UNMATCHABLE_BRACKETS))
    return st.one_of(atoms)


@st.composite
def _repeats(draw, child: Node, max_repeat: int) -> Repeat:
    lo = draw(st.integers(0, max_repeat))
    hi = draw(st.one_of(st.none(), st.integers(lo, max_repeat)))
    return Repeat(child, lo, hi, braces=draw(st.booleans()))


def _extend(children: st.SearchStrategy[Node], max_repeat: int) -> st.SearchStrategy[Node]:
    return st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda xs: Concat(tuple(xs))),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: Alt(tuple(xs))),
        children.flatmap(lambda c: _repeats(c, max_repeat)),
        st.tuples(children, st.booleans()).map(lambda t: Group(*t)),
    )


@reused
def pattern_trees(*, max_leaves: int = 8, max_repeat: int = 3,
                  unmatchable_classes: bool = False) -> st.SearchStrategy[Node]:
    """Trees over every construct of the subset (see the module docstring).

    ``max_leaves`` bounds the number of atoms, ``max_repeat`` every bound of a
    repetition (``{m,n}`` with ``m <= n <= max_repeat``). Unless
    ``unmatchable_classes`` is True, no bracket class is empty (``[^\\x00-\\xff]``), so
    no language is empty; with it, ``tree.is_empty()`` says which are. A shortest
    member is at most ``MAX_WITNESS`` (12) bytes long, so inputs to a backtracking
    matcher such as ``re`` can stay short.

    Shrinks toward the single literal ``a``.
    """
    if not isinstance(max_leaves, int) or max_leaves < 1:
        raise InvalidArgument(f"max_leaves={max_leaves!r} must be an int >= 1")
    if not isinstance(max_repeat, int) or max_repeat < 0:
        raise InvalidArgument(f"max_repeat={max_repeat!r} must be an int >= 0")
    trees = st.recursive(_atoms(unmatchable_classes), lambda c: _extend(c, max_repeat), max_leaves=max_leaves)
    return trees.filter(_short_enough)


MAX_WITNESS = 12  # a shortest member is at most this long, e.g. not ((\W{3,}){3}){3}


def _short_enough(tree: Node) -> bool:
    # Nested bounds multiply (((\W{3,}){3}){3} needs 27 bytes) and re, a backtracking
    # matcher, can take exponential time on long inputs to such patterns.
    w = tree.witness()
    return w is None or len(w) <= MAX_WITNESS


@reused
def patterns(*, max_leaves: int = 8, max_repeat: int = 3,
             unmatchable_classes: bool = False) -> st.SearchStrategy[str]:
    """Pattern text of the subset: ``pattern_trees(...)`` rendered.

    Every pattern compiles with Python's ``re`` as a bytes pattern and, unless
    ``unmatchable_classes`` is True, has a non-empty language.

    Shrinks toward the pattern ``a``.
    """
    return pattern_trees(max_leaves=max_leaves, max_repeat=max_repeat,
                         unmatchable_classes=unmatchable_classes).map(lambda t: t.render())


# Fuzz-and-reject: text one edit away from the subset -------------------------------------

EDIT_CHARACTERS = "()[]{}|*+?\\^$.-,:=!<>#P0123456789xdwsbBAZaz \t\x01\x7fé"


@st.composite
def near_patterns(draw, *, max_leaves: int = 6) -> str:
    """Pattern text one character edit (insert, delete or replace) away from a
    ``patterns()`` pattern, edits drawn from ``EDIT_CHARACTERS`` (metacharacters,
    digits, escape letters, a control byte, DEL and one non-ASCII letter). Some are
    still in the subset, some are valid Python outside it (``\\b``, ``a*?``), some are
    malformed (``a{3,2``), some are not ASCII: a parser must answer each with a
    result or a ValueError, never another exception.

    Shrinks toward inserting ``(`` before the pattern ``a``.
    """
    text = draw(patterns(max_leaves=max_leaves))
    kind = draw(st.sampled_from(["insert", "delete", "replace"] if text else ["insert"]))
    char = draw(st.sampled_from(EDIT_CHARACTERS))
    if kind == "insert":
        i = draw(st.integers(0, len(text)))
        return text[:i] + char + text[i:]
    i = draw(st.integers(0, len(text) - 1))
    return text[:i] + text[i + 1:] if kind == "delete" else text[:i] + char + text[i + 1:]
