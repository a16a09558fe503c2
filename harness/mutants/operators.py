"""The mutation operators cosmic-ray lacks, written to cosmic-ray's ``Operator`` interface.

cosmic-ray (``cosmic_ray.operators``) supplies the classic operators over parso trees:
binary, comparison and unary operator replacement, ``and``/``or`` swaps, ``not``
added to conditions, ``True``/``False`` swaps, numbers off by one, ``break``/
``continue`` swaps, a ``for`` loop run zero times, a decorator removed, an ``except``
clause that catches nothing. The issue also names five kinds it does not have; each is
an ``Operator`` here (``mutation_positions(node)`` yields one position per mutation of
``node``, ``mutate(node, index)`` applies one), so ``cosmic_ray.mutating.mutate_code``
applies them exactly like its own:

- ``RemoveStatement``: a call statement, an augmented assignment or a ``raise`` becomes ``pass``;
- ``ReplaceReturnValue``: ``return X`` becomes ``return None``;
- ``SwapArguments``: the first two positional arguments of a call change places;
- ``SliceBounds``: a slice loses its lower bound, or its upper bound (``a[1:k]`` -> ``a[:k]``, ``a[1:]``);
- ``ChangeDtype``: a NumPy dtype becomes a narrower or different one (``np.int32`` -> ``np.int16``).

Example::

    >>> from cosmic_ray.mutating import mutate_code
    >>> mutate_code("x = f(a, b)\\n", SwapArguments(), 0)
    'x = f(b, a)\\n'

Invariant: every mutation changes the source text (a position is only yielded where
the mutated code differs), and the tree stays valid Python.
"""

from __future__ import annotations

import parso.python.tree as tree
from cosmic_ray.operators.operator import Example, Operator

__all__ = ["RemoveStatement", "ReplaceReturnValue", "SwapArguments", "SliceBounds", "ChangeDtype", "EXTRA"]


def _keyword(value: str, like) -> tree.Keyword:
    """A keyword leaf placed where ``like`` starts, keeping its leading whitespace."""
    return tree.Keyword(value, like.start_pos, prefix=like.get_first_leaf().prefix)


def _is_call(node) -> bool:
    return (node.type in ("atom_expr", "power") and node.children[-1].type == "trailer"
            and node.children[-1].children[0].value == "(")


class RemoveStatement(Operator):
    """A statement removed: a call statement, ``x += ...`` or ``raise ...`` becomes ``pass``."""

    def mutation_positions(self, node):
        if node.parent is not None and node.parent.type == "simple_stmt" and (
                _is_call(node) or node.type == "raise_stmt"
                or (node.type == "expr_stmt" and node.children[1].type == "operator"
                    and node.children[1].value not in ("=", ":"))):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        return _keyword("pass", node)

    @classmethod
    def examples(cls):
        return (Example("f(x)\n", "pass\n"), Example("x += 1\n", "pass\n"), Example("raise E\n", "pass\n"))


class ReplaceReturnValue(Operator):
    """``return X`` becomes ``return None`` (unless X is already ``None``)."""

    def mutation_positions(self, node):
        if node.type == "return_stmt" and len(node.children) == 2 and getattr(node.children[1], "value", "") != "None":
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        node.children[1] = tree.Keyword("None", node.children[1].start_pos, prefix=" ")
        node.children[1].parent = node
        return node

    @classmethod
    def examples(cls):
        return (Example("def f():\n    return 1\n", "def f():\n    return None\n"),)


def _positional(arglist) -> bool:
    """The first two entries of an ``arglist`` are plain positional arguments (no ``k=``, ``*``)."""
    items = arglist.children
    return (len(items) >= 3 and items[1].type == "operator" and items[1].value == ","
            and all(a.type != "argument" and not (a.type == "operator") for a in (items[0], items[2])))


class SwapArguments(Operator):
    """The first two positional arguments of a call change places: ``f(a, b)`` -> ``f(b, a)``."""

    def mutation_positions(self, node):
        if (node.type == "arglist" and node.parent.type == "trailer" and _positional(node)
                and node.children[0].get_code(include_prefix=False) != node.children[2].get_code(include_prefix=False)):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        first, second = node.children[0], node.children[2]
        first_prefix, second_prefix = first.get_first_leaf().prefix, second.get_first_leaf().prefix
        first.get_first_leaf().prefix, second.get_first_leaf().prefix = second_prefix, first_prefix
        node.children[0], node.children[2] = second, first
        return node

    @classmethod
    def examples(cls):
        return (Example("x = f(a, b)\n", "x = f(b, a)\n"),)


class SliceBounds(Operator):
    """A slice bound dropped: ``a[i:j]`` -> ``a[:j]`` (position 0) or ``a[i:]`` (position 1)."""

    def mutation_positions(self, node):
        if node.type == "subscript":
            for _ in self._bounds(node):
                yield (node.start_pos, node.end_pos)

    @staticmethod
    def _bounds(node) -> list[int]:
        children = node.children
        colon = next(i for i, c in enumerate(children) if c.type == "operator" and c.value == ":")
        found = [0] if colon > 0 else []
        if colon + 1 < len(children) and children[colon + 1].type != "sliceop":
            found.append(colon + 1)
        return found

    def mutate(self, node, index):
        position = self._bounds(node)[index]
        node.children = node.children[:position] + node.children[position + 1:]
        return node

    @classmethod
    def examples(cls):
        return (Example("y = a[1:k]\n", "y = a[:k]\n"), Example("y = a[1:k]\n", "y = a[1:]\n", occurrence=1))


DTYPE_CHANGES = {
    "int64": "int32", "int32": "int16", "intp": "int32", "uint8": "int8",
    "float64": "float32", "bool_": "uint8",
}


class ChangeDtype(Operator):
    """A NumPy dtype changed: ``np.int32`` -> ``np.int16``, ``np.float64`` -> ``np.float32``, ..."""

    def mutation_positions(self, node):
        if (node.type == "name" and node.value in DTYPE_CHANGES and node.parent.type == "trailer"
                and node.parent.children[0].value == "."):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        node.value = DTYPE_CHANGES[node.value]
        return node

    @classmethod
    def examples(cls):
        return (Example("x = np.zeros(3, np.int32)\n", "x = np.zeros(3, np.int16)\n"),)


EXTRA: dict[str, type[Operator]] = {
    f"harness/{cls.__name__}": cls
    for cls in (RemoveStatement, ReplaceReturnValue, SwapArguments, SliceBounds, ChangeDtype)
}
