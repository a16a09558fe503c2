"""JSON on the wire: an order-keeping reader and Python's compact writer.

``loads_ordered(text)`` reads one JSON text into plain Python values (``dict``,
``list``, ``str``, ``int``, ``float``, ``bool``, ``None``). Guarantees beyond
``json.loads``: object key order is the order in the text (``dict`` keeps insertion
order, and property order is part of a schema's language), a key repeated in one
object is refused (``json.loads`` silently keeps the last), ``NaN``/``Infinity`` are
refused (they are not JSON), and nesting deeper than ``MAX_DEPTH`` is refused with a
``ValueError`` instead of a ``RecursionError``.

``dumps(value)`` writes what ``json.dumps(value, separators=(",", ":"),
ensure_ascii=False)`` writes, from two small parts a port can copy:
``json_quote(s)`` (a JSON string literal) and ``python_float(x)`` (Python's ``repr``
of a float: shortest round-trip digits, ``1e-05``, ``1e+16``, ``-0.0``).

Example::

    >>> loads_ordered('{"b":1,"a":[2.5,-0.0]}')
    {'b': 1, 'a': [2.5, -0.0]}
    >>> dumps({"b": 1, "a": [1.5e-05, "é\\n"]})
    '{"b":1,"a":[1.5e-05,"é\\\\n"]}'
"""

from __future__ import annotations

import json
import math

MAX_DEPTH = 128
"""Arrays and objects nested deeper than this are refused by ``loads_ordered`` and ``dumps``."""

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r} in a JSON object")
        out[key] = value
    return out


def loads_ordered(text: str):
    """The value of one JSON text, key order kept (see the module docstring).

    Raises ValueError naming the problem and its offset; TypeError if ``text`` is not a str."""
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be a str, not {type(text).__name__}")
    if _nesting(text) > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than MAX_DEPTH={MAX_DEPTH}")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at offset {exc.pos}") from None


def _nesting(text: str) -> int:
    """An upper bound of the text's bracket nesting (brackets inside strings count too,
    so this only ever over-estimates; it is cheap and cannot recurse)."""
    if len(text) <= MAX_DEPTH:
        return 0
    depth = deepest = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)
    return deepest


def json_quote(s: str) -> str:
    """The JSON string literal Python writes with ``ensure_ascii=False``: ``"``, ``\\``
    and the control characters escaped (``\\n`` style where JSON has one, else
    ``\\u00XX``), everything else raw. E.g. ``json_quote('a"é\\x01') == '"a\\\\"é\\\\u0001"'``."""
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def python_float(x: float) -> str:
    """Python's ``repr`` of a finite float, which is what ``json.dumps`` writes:
    ``1.5``, ``1e-05``, ``1e+16``, ``-0.0``, ``0.1``. NaN and infinities raise ValueError."""
    if not math.isfinite(x):
        raise ValueError(f"{x!r} is not JSON (NaN and infinities are refused)")
    return float.__repr__(float(x))


def dumps(value, *, _depth: int = 0) -> str:
    """Python's compact JSON of ``value`` (``json.dumps(value, separators=(",", ":"),
    ensure_ascii=False)``); keys written in the dict's order. TypeError for a value
    JSON cannot hold, ValueError for NaN, infinities or nesting over ``MAX_DEPTH``."""
    if _depth > MAX_DEPTH:
        raise ValueError(f"value nested deeper than MAX_DEPTH={MAX_DEPTH}")
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json_quote(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return python_float(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v, _depth=_depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_key(k)}:{dumps(v, _depth=_depth + 1)}" for k, v in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _key(key) -> str:
    # json.dumps converts scalar keys to strings the same way
    if isinstance(key, str):
        return json_quote(key)
    if key is True or key is False or key is None:
        return json_quote(dumps(key))
    if isinstance(key, (int, float)):
        return json_quote(dumps(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
