"""The byte-exact text layout of the golden files.

``render(obj)`` is a pure function of ``obj``: keys sorted, ASCII only (``\\uXXXX``
escapes), one-space indentation, and a list on one line when its items are scalars
or short lists of at most three scalars (e.g. a mask, or a DFA row of
``[lo, hi, target]`` runs), else one item per line: a step of a path or a state of a
DFA is one line, so diffs stay small and point at it. Floats are refused: every number in
a golden file is an integer, so no float formatting can differ between runs, machines or readers (JSON texts whose
float printing is the point are stored as strings).

Example::

    >>> print(render({"b": [1, 2], "a": {"x": True}}))
    {
     "a": {
      "x": true
     },
     "b": [1,2]
    }
"""

from __future__ import annotations

import json


def render(obj) -> str:
    """The golden text of ``obj`` (dicts, lists, str, int, bool, None), newline-terminated."""
    return _render(obj, 0) + "\n"


def _render(obj, level: int) -> str:
    if isinstance(obj, dict):
        return _render_dict(obj, level)
    if isinstance(obj, (list, tuple)):
        return _render_list(list(obj), level)
    return _scalar(obj)


def _scalar(obj) -> str:
    if obj is None or isinstance(obj, (bool, str)):
        return json.dumps(obj, ensure_ascii=True)
    if isinstance(obj, int):
        return str(int(obj))
    raise TypeError(f"golden layout: {type(obj).__name__} {obj!r} is not allowed (integers, strings, "
                    "booleans, null, lists and dicts only)")


def _is_scalar(x) -> bool:
    return not isinstance(x, (dict, list, tuple))


def _is_flat(items: list) -> bool:
    # e.g. [1,2,3] or [[0,9,1],[10,10,2]]: one line; [[1,2,3,4],[5]] one item per line
    return all(_is_scalar(x) or (isinstance(x, (list, tuple)) and len(x) <= 3 and all(map(_is_scalar, x)))
               for x in items)


def _render_list(items: list, level: int) -> str:
    if not items:
        return "[]"
    if _is_flat(items):
        return "[" + ",".join(_render(x, level) for x in items) + "]"
    pad = " " * (level + 1)
    body = ",\n".join(pad + _render(x, level + 1) for x in items)
    return "[\n" + body + "\n" + " " * level + "]"


def _render_dict(obj: dict, level: int) -> str:
    if not obj:
        return "{}"
    for key in obj:
        if not isinstance(key, str):
            raise TypeError(f"golden layout: key {key!r} is not a string")
    pad = " " * (level + 1)
    body = ",\n".join(f"{pad}{json.dumps(k, ensure_ascii=True)}: {_render(obj[k], level + 1)}" for k in sorted(obj))
    return "{\n" + body + "\n" + " " * level + "}"
