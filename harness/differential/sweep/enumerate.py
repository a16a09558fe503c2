"""Every pattern of the regex subset up to a size, over a small alphabet, once each.

Main access point: ``patterns_by_size(grammar, max_size)`` -> ``{size: [pattern text]}``.

A pattern is a tree of atoms and operators; its **size** counts both (RE2's exhaustive
tester counts the same way): an atom is 1, a unary operator adds 1, a binary one adds 1
plus its two operands. ``ab*`` is ``concat(a, star(b))``: size 4.

The grammar (``Grammar``):

- atoms: each byte of the alphabet as a literal (``a``, ``b``); with ``classes`` every
  bracket over the alphabet of two or more bytes and every negated bracket (``[ab]``,
  ``[^a]``, ``[^ab]``); with ``dot`` the any-byte-but-newline ``.``; with ``escapes`` the
  shorthands ``\\d \\w \\s \\D \\W \\S`` and an escaped metacharacter ``\\.``; with
  ``empty`` the empty pattern (rendered ``(?:)`` where it needs a group);
- operators (``OPERATORS``): ``concat`` and ``|`` (binary); ``* + ?``, the counted repeats
  ``{2} {0,2} {1,}`` and the capturing group ``()`` (unary).

Deduplication, by syntactic canonical form (never by meaning: a pattern that means what
another means is still checked, since each implementation parses it afresh):
concatenation is associative and alternation associative, commutative and idempotent, so
a tree is normalised (nested concatenations flattened; alternatives flattened, sorted and
distinct) and rendered, and each rendered text is kept once, at its smallest size.
An alternation whose alternatives collapse (``a|a``) is the smaller pattern ``a`` and is
not produced again. Rendering adds ``(?:...)`` only where precedence needs it, so
``(ab)c`` and ``a(bc)`` are one pattern, ``abc``, and ``b|a`` is ``a|b``.

Bound: the count grows about sevenfold per size with the default grammar;
``MAX_PATTERNS`` (2,000,000) patterns in all is refused before they are built, from
the counts of the sizes below (``ValueError`` naming the size).

Example::

    >>> patterns_by_size(Grammar(alphabet=b"ab"), 2)
    {1: ['a', 'b'], 2: ['a*', 'b*', 'a+', 'b+', 'a?', 'b?']}
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Grammar", "OPERATORS", "DEFAULT_OPERATORS", "MAX_PATTERNS", "MAX_SIZE", "patterns_by_size",
           "string_alphabet"]

OPERATORS = ("concat", "|", "*", "+", "?", "{2}", "{0,2}", "{1,}", "()")
DEFAULT_OPERATORS = ("concat", "|", "*", "+", "?")
UNARY = {"*": "*", "+": "+", "?": "?", "{2}": "{2}", "{0,2}": "{0,2}", "{1,}": "{1,}"}
MAX_PATTERNS = 2_000_000
MAX_SIZE = 16
METACHARACTERS = ".^$*+?{}[]\\|()"
ESCAPES = ("\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "\\.")

# Tree nodes are tuples: ("atom", text) | ("cat", parts) | ("alt", branches) | ("rep", op, child)
# | ("group", child). Precedence: alt 0 < cat 1 < rep 2 < atom/group 3.


@dataclass(frozen=True)
class Grammar:
    """What patterns are made of (see the module docstring)."""

    alphabet: bytes = b"ab"
    operators: tuple[str, ...] = DEFAULT_OPERATORS
    classes: bool = False
    dot: bool = False
    escapes: bool = False
    empty: bool = False

    def __post_init__(self):
        if not isinstance(self.alphabet, bytes) or not 1 <= len(self.alphabet) <= 8:
            raise ValueError(f"alphabet must be 1 to 8 bytes, not {self.alphabet!r}")
        if len(set(self.alphabet)) != len(self.alphabet):
            raise ValueError(f"alphabet {self.alphabet!r} repeats a byte")
        if any(not 0x21 <= b < 0x7F for b in self.alphabet):
            raise ValueError(f"alphabet {self.alphabet!r}: printable ASCII bytes only (no space)")
        unknown = [op for op in self.operators if op not in OPERATORS]
        if unknown or not self.operators:
            raise ValueError(f"unknown operator(s) {unknown or '(none given)'}; known: {' '.join(OPERATORS)}")

    def atoms(self) -> list[str]:
        out = [_literal(b) for b in self.alphabet]
        if self.classes:
            out += _brackets(self.alphabet)
        if self.dot:
            out.append(".")
        if self.escapes:
            out += ESCAPES
        if self.empty:
            out.append("")
        return out

    def options(self) -> dict:
        return {"alphabet": self.alphabet.decode("ascii"), "operators": list(self.operators),
                "classes": self.classes, "dot": self.dot, "escapes": self.escapes, "empty": self.empty}


def _literal(byte: int) -> str:
    char = chr(byte)
    return "\\" + char if char in METACHARACTERS else char


def _brackets(alphabet: bytes) -> list[str]:
    """Every bracket over two or more bytes of ``alphabet``, and every negated one."""
    subsets = [[b for i, b in enumerate(alphabet) if mask >> i & 1] for mask in range(1, 1 << len(alphabet))]
    inside = ["".join(_in_bracket(b) for b in s) for s in subsets]
    return [f"[{s}]" for s, sub in zip(inside, subsets) if len(sub) > 1] + [f"[^{s}]" for s in inside]


def _in_bracket(byte: int) -> str:
    char = chr(byte)
    return "\\" + char if char in "]\\^-[&|~" else char


def string_alphabet(grammar: Grammar) -> bytes:
    """The bytes the sweep's strings are made of: the alphabet, plus one byte outside it
    when an atom matches more than the alphabet (a negated class, ``.``, an escape): a
    newline for ``.`` and ``\\s``, else the first of ``c x 0 _`` not in the alphabet."""
    extra = b""
    if grammar.dot or grammar.escapes:
        extra += b"\n"
    if grammar.classes or grammar.dot or grammar.escapes:
        extra += next(bytes([c]) for c in b"cx0_" if c not in grammar.alphabet)
    return grammar.alphabet + extra


def patterns_by_size(grammar: Grammar, max_size: int) -> dict[int, list[str]]:
    """``{size: patterns}`` for sizes 1..``max_size``, each pattern text once, in a
    fixed order (see the module docstring)."""
    if isinstance(max_size, bool) or not isinstance(max_size, int):
        raise TypeError(f"max_size must be an int, not {type(max_size).__name__}")
    if not 1 <= max_size <= MAX_SIZE:
        raise ValueError(f"max_size must be 1..{MAX_SIZE}, not {max_size}")
    trees: dict[int, list[tuple]] = {}
    seen: set[str] = set()
    out: dict[int, list[str]] = {}
    for size in range(1, max_size + 1):
        estimate = sum(len(v) for v in trees.values()) + 8 * len(trees.get(size - 1, ()))
        if estimate > MAX_PATTERNS:
            raise ValueError(f"size {size} would make about {estimate} patterns, over MAX_PATTERNS={MAX_PATTERNS}")
        level: list[tuple] = []
        texts: list[str] = []
        for tree in _trees_of_size(grammar, size, trees):
            text = render(tree)
            if text not in seen:
                seen.add(text)
                level.append(tree)
                texts.append(text)
        trees[size] = level
        out[size] = texts
    return out


def _trees_of_size(grammar: Grammar, size: int, smaller: dict[int, list[tuple]]):
    if size == 1:
        yield from (("atom", a) for a in grammar.atoms())
        return
    for op in grammar.operators:
        if op in UNARY:
            yield from (("rep", op, child) for child in smaller[size - 1])
        elif op == "()":
            yield from (("group", child) for child in smaller[size - 1])
    for left_size in range(1, size - 1):
        right_size = size - 1 - left_size
        for op in ("concat", "|"):
            if op not in grammar.operators:
                continue
            for left in smaller[left_size]:
                for right in smaller[right_size]:
                    tree = _concat(left, right) if op == "concat" else _alternation(left, right, left_size, right_size)
                    if tree is not None:
                        yield tree


def _concat(left: tuple, right: tuple) -> tuple:
    parts = (left[1] if left[0] == "cat" else (left,)) + (right[1] if right[0] == "cat" else (right,))
    return ("cat", parts)


def _alternation(left: tuple, right: tuple, left_size: int, right_size: int) -> tuple | None:
    branches = (left[1] if left[0] == "alt" else (left,)) + (right[1] if right[0] == "alt" else (right,))
    distinct = sorted(set(branches), key=render)
    if len(distinct) < len(branches):
        return None  # idempotence: a|a is a, already produced at a smaller size
    return ("alt", tuple(distinct))


def render(tree: tuple) -> str:
    """The pattern text of ``tree``, with ``(?:...)`` only where precedence needs it."""
    kind = tree[0]
    if kind == "atom":
        return tree[1]
    if kind == "group":
        return f"({render(tree[1])})"
    if kind == "rep":
        return _wrap(tree[2], 3) + UNARY[tree[1]]
    if kind == "cat":
        return "".join(_wrap(part, 2) for part in tree[1])
    return "|".join(render(branch) for branch in tree[1])


def _precedence(tree: tuple) -> int:
    if tree[0] == "atom":
        return 3 if tree[1] else 0  # the empty pattern needs a group wherever it is an operand
    return {"group": 3, "rep": 2, "cat": 1, "alt": 0}[tree[0]]


def _wrap(tree: tuple, needed: int) -> str:
    text = render(tree)
    return text if _precedence(tree) >= needed else f"(?:{text})"
