"""The tree a pattern is parsed into: plain, immutable data over byte sets.

Vocabulary (shared by the parser, the NFA builder, strategies and mutant names; the
glossary of all three implementations is in ``oracles/__init__.py``):

- ``ByteSet(mask)``: one byte from a set; ``mask`` is a 256-bit int, bit ``b`` set
  iff byte ``b`` is in the set. A literal is a one-bit set; a bracket ``[...]`` is
  parsed straight into its byte set. ``ByteSet(0)`` matches nothing: the empty
  language (e.g. ``[^\\x00-\\xff]``), which the tree has no other node for.
- ``EmptyString()``: the empty string (an empty branch, ``()``).
- ``Concat(items)``: two or more items in sequence.
- ``Alt(items)``: two or more alternatives.
- ``Repeat(item, min, max)``: ``item{min,max}``; ``max`` None means unbounded.

Only the smart constructors ``concat``, ``alt`` and ``repeat`` build compound nodes,
so that concatenations and alternations always hold two or more items and never
directly nest in themselves (e.g. ``concat(a, concat(b, c))`` is ``Concat((a, b, c))``).

Reprs are the dataclasses' own, the code that builds the node with each mask as its decimal
int: the literal ``a`` is ``ByteSet(1 << 97)`` and prints as below (``ByteSet(mask=97)`` would be
the set of bytes 0, 5 and 6: 97 is ``0b1100001``); the ``dfa`` verb's dump
(``harness.commands.dfa_dump``) prints byte sets as ranges.

Example: ``ab|c*`` parses to
``Alt((Concat((ByteSet(1 << 97), ByteSet(1 << 98))), Repeat(ByteSet(1 << 99), 0, None)))``::

    >>> from oracles.automaton.parser import parse
    >>> parse("a")
    ByteSet(mask=158456325028528675187087900672)
    >>> parse("ab|c*") == Alt((Concat((ByteSet(1 << 97), ByteSet(1 << 98))), Repeat(ByteSet(1 << 99), 0, None)))
    True
"""

from __future__ import annotations

import dataclasses

FULL_MASK = (1 << 256) - 1


@dataclasses.dataclass(frozen=True)
class ByteSet:
    mask: int


@dataclasses.dataclass(frozen=True)
class EmptyString:
    pass


@dataclasses.dataclass(frozen=True)
class Concat:
    items: tuple


@dataclasses.dataclass(frozen=True)
class Alt:
    items: tuple


@dataclasses.dataclass(frozen=True)
class Repeat:
    item: object
    min: int
    max: int | None


Node = ByteSet | EmptyString | Concat | Alt | Repeat


def concat(*items: Node) -> Node:
    """Sequence, flattened; ``EmptyString`` items dropped (e.g. ``concat(a, EmptyString(), b) == concat(a, b)``)."""
    flat: list[Node] = []
    for item in items:
        if isinstance(item, Concat):
            flat.extend(item.items)
        elif not isinstance(item, EmptyString):
            flat.append(item)
    if not flat:
        return EmptyString()
    if len(flat) == 1:
        return flat[0]
    return Concat(tuple(flat))


def alt(*items: Node) -> Node:
    """Alternation, flattened; order kept (order does not change the language)."""
    flat: list[Node] = []
    for item in items:
        flat.extend(item.items if isinstance(item, Alt) else (item,))
    if len(flat) == 1:
        return flat[0]
    return Alt(tuple(flat))


def repeat(item: Node, lo: int, hi: int | None) -> Node:
    """``item{lo,hi}`` (``hi`` None: unbounded). Requires ``0 <= lo`` and ``hi is None or lo <= hi``."""
    assert lo >= 0 and (hi is None or hi >= lo), f"internal: bad repeat bounds {lo},{hi}"
    if hi == 1 and lo == 1:
        return item
    if hi == 0:
        return EmptyString()
    return Repeat(item, lo, hi)
