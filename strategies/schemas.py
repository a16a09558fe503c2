"""JSON schemas of the subset, and compact documents for them (valid, or one mutation away).

Main access points: ``schemas()`` and ``documents(schema, valid=True)``.

The subset is the contract's (``json_schema_to_regex``): ``type`` string, integer,
number, boolean, null, array (``items``, ``minItems``, ``maxItems``), object
(``properties`` in order, ``required``, ``additionalProperties: false``); ``enum``
and ``const``; ``anyOf``; the annotation ``title``. Enum and const values are the
tricky ones: quotes, backslashes, control characters, DEL, non-ASCII, U+2028,
``-0.0``, ``1e-05``, ``1e+16``, integers past 2**63, and small arrays and objects.

A valid document is built, never searched for: a Python value drawn for the schema
(objects keep the schema's property order), written as Python's compact JSON,
``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``.

An invalid document is a valid one with exactly one of ``MUTATIONS`` applied:

    missing_key     a required property removed          {"a":1,"b":2} -> {"b":2}
    swapped_order   two adjacent properties swapped      {"a":1,"b":2} -> {"b":2,"a":1}
    wrong_type      one value replaced by another type   {"a":1} -> {"a":"0"}
    bound           an array one item past a bound       [1] with minItems 1 -> []
    trailing_comma  a comma before a closing bracket     [1,2] -> [1,2,]
    space           one space between two tokens         {"a":1} -> {"a": 1}

A mutation can leave a document valid (a wrong type that another ``anyOf`` branch
takes; a space is well-formed JSON, only not compact), so the verdict of a mutated
document must come from the document oracle (``oracles.stdlib.check_document``),
never from the strategy.

Example: ``{"type": "object", "properties": {"a": {"type": "integer"}},
"required": ["a"]}`` gives ``{"a":0}``, ``{"a":-12}``; with ``valid=False``,
``{}``, ``{"a":null}``, ``{"a":0,}``, ``{"a": 0}``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from facts.constructs import SCHEMA_ANNOTATIONS, SCHEMA_KEYWORDS
from strategies.reuse import reused

__all__ = ["MUTATIONS", "documents", "dumps", "schemas", "tricky_values"]

MUTATIONS = ("missing_key", "swapped_order", "wrong_type", "bound", "trailing_comma", "space")
SCALAR_TYPES = ("string", "integer", "number", "boolean", "null")
KEYWORDS = SCHEMA_KEYWORDS | SCHEMA_ANNOTATIONS  # spec 000 section 2.5's subset (facts.constructs)

TRICKY_STRINGS = ["", "a", 'say "hi"', "back\\slash", "\\\"", "/", "\x00", "\x1f", "tab\there",
                  "\n", "\x7f", "é", "naïve €", "😀", "\u2028", "'",
                  # regex metacharacters, which the schema's regex must escape
                  "a.b", "[x]", "(?:", "^$", "a|b", "\\d", "{1}", "*+?", "-",
                  # UTF-8 boundaries (RFC 3629): first and last of each length, around surrogates
                  "\x80", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0010ffff"]
TRICKY_NUMBERS = [0, -1, 7, 2**53 + 1, 2**63, -(2**63) - 1, 10**20, 0.5, -0.0, 1e-05, 1e+16,
                  1.5e300, -2.5, 0.1, 1e-7]
PROPERTY_NAMES = ["a", "b", "city", "days", 'q"uote', "back\\slash", "é", "new\nline", "", " ", "😀",
                  "a.b", "(x)|"]


def dumps(value: Any) -> str:
    """Python's compact JSON, the form every document of the subset takes."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# Values ----------------------------------------------------------------------------

@reused
def _json_strings() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(TRICKY_STRINGS), st.text(st.characters(codec="utf-8"), max_size=6))


@reused
def _integers() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(-1000, 1000), st.sampled_from([n for n in TRICKY_NUMBERS if isinstance(n, int)]),
                     st.integers())


@reused
def _numbers() -> st.SearchStrategy[int | float]:
    floats = st.floats(allow_nan=False, allow_infinity=False)
    return st.one_of(st.sampled_from(TRICKY_NUMBERS), _integers(), floats)


@reused
def tricky_values(*, nested: bool = True) -> st.SearchStrategy[Any]:
    """JSON values worth putting in an ``enum`` or ``const``: tricky strings and
    numbers, booleans, null, and (when ``nested``) small arrays and objects of them.

    Shrinks toward the empty string.
    """
    scalars = st.one_of(_json_strings(), _numbers(), st.booleans(), st.none())
    if not nested:
        return scalars
    return st.one_of(scalars, st.lists(scalars, max_size=2),
                     st.dictionaries(st.sampled_from(PROPERTY_NAMES), scalars, max_size=2))


# Schemas ---------------------------------------------------------------------------

@reused
def _scalar_schemas() -> st.SearchStrategy[dict]:
    return st.one_of(
        st.sampled_from(SCALAR_TYPES).map(lambda t: {"type": t}),
        st.lists(tricky_values(), min_size=1, max_size=3).map(lambda vs: {"enum": vs}),
        tricky_values().map(lambda v: {"const": v}),
        st.lists(_json_strings(), min_size=1, max_size=3).map(lambda vs: {"type": "string", "enum": vs}),
    )


@st.composite
def _arrays(draw, items: st.SearchStrategy[dict]) -> dict:
    schema = {"type": "array", "items": draw(items)}
    lo = draw(st.one_of(st.none(), st.integers(0, 2)))
    hi = draw(st.one_of(st.none(), st.integers(lo or 0, 3)))
    if lo is not None:
        schema["minItems"] = lo
    if hi is not None:
        schema["maxItems"] = hi
    return schema


@st.composite
def _objects(draw, values: st.SearchStrategy[dict]) -> dict:
    names = draw(st.lists(st.sampled_from(PROPERTY_NAMES), unique=True, max_size=3))
    properties = {name: draw(values) for name in names}
    schema = {"type": "object", "properties": properties}
    required = [n for n in names if draw(st.booleans())]
    if required:
        schema["required"] = required
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


def _extend(children: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    return st.one_of(
        _arrays(children),
        _objects(children),
        st.lists(children, min_size=1, max_size=3).map(lambda bs: {"anyOf": bs}),
    )


def _titled(schema: dict, title: str | None) -> dict:
    return schema if title is None else {"title": title, **schema}


@reused
def schemas(*, max_leaves: int = 5) -> st.SearchStrategy[dict]:
    """Schemas of the subset (module docstring), nested up to ``max_leaves`` scalar
    schemas, sometimes carrying a ``title`` (an annotation: it must not constrain).

    Every schema is a valid Draft 2020-12 schema that ``json_schema_to_regex``
    must accept.

    Shrinks toward ``{"type": "string"}``.
    """
    if not isinstance(max_leaves, int) or max_leaves < 1:
        raise InvalidArgument(f"schemas: max_leaves={max_leaves!r} must be an int >= 1")
    trees = st.recursive(_scalar_schemas(), _extend, max_leaves=max_leaves)
    return st.tuples(trees, st.one_of(st.none(), st.sampled_from(["args", "a \"title\""]))).map(
        lambda t: _titled(*t))


# Documents -------------------------------------------------------------------------

def _check_schema(schema: Any, pointer: str = "") -> None:
    if not isinstance(schema, dict):
        raise InvalidArgument(f"documents: {pointer or '/'}: a schema must be a dict, got {schema!r}")
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise InvalidArgument(f"documents: {pointer or '/'}: keywords outside the subset: {sorted(unknown)}")
    for name, sub in schema.get("properties", {}).items():
        _check_schema(sub, f"{pointer}/properties/{name}")
    if "items" in schema:
        _check_schema(schema["items"], f"{pointer}/items")
    for i, sub in enumerate(schema.get("anyOf", [])):
        _check_schema(sub, f"{pointer}/anyOf/{i}")


def _draw_value(draw, schema: dict, sites: list, path: tuple) -> Any:
    """A value valid under ``schema``; appends ``(path, schema)`` for every node."""
    sites.append((path, schema))
    if "anyOf" in schema:  # the union keeps its site; the branch's nodes follow it
        return _draw_value(draw, draw(st.sampled_from(schema["anyOf"])), sites, path)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    kind = schema["type"]
    if kind == "array":
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")
        n = draw(st.integers(lo, hi if hi is not None else lo + 3))
        return [_draw_value(draw, schema["items"], sites, path + (i,)) for i in range(n)]
    if kind == "object":
        required = set(schema.get("required", ()))
        return {name: _draw_value(draw, sub, sites, path + (name,))
                for name, sub in schema["properties"].items() if name in required or draw(st.booleans())}
    return draw({"string": _json_strings(), "integer": _integers(), "number": _numbers(),
                 "boolean": st.booleans(), "null": st.none()}[kind])


def _replace(value: Any, path: tuple, new: Any) -> Any:
    # A copy of value with the node at path replaced, e.g. ({"a": [1]}, ("a", 0), 2) -> {"a": [2]}
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        return [(_replace(v, rest, new) if i == head else v) for i, v in enumerate(value)]
    return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}


def _get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


# Never a number for a number (1.0 would still be an "integer" to jsonschema), and
# only the number 0.5 (an enum's 0.0 or -0.0 equals 0 to jsonschema, not in text).
_OTHER_TYPE = [
    (bool, ["true", None, 0.5]), (int, ["0", None, False]), (float, ["0.5", None, True]),
    (str, [0.5, None, False, []]), (type(None), ["null", 0.5, False]), (list, [{}, "[]", 0.5]),
    (dict, [[], "{}", None]),
]


def _other_type(value: Any) -> list:
    for cls, others in _OTHER_TYPE:
        if isinstance(value, cls):
            return others
    raise NotImplementedError(f"internal: not a JSON value {value!r}")


_NO_FIT = object()  # a mutation that fits no node (None is JSON null, a real value)


def _value_mutations(draw, value: Any, sites: list, kind: str) -> Any:
    """The value after one structural mutation of ``kind``, or _NO_FIT."""
    if kind == "wrong_type":
        path, _ = draw(st.sampled_from(sites))
        return _replace(value, path, draw(st.sampled_from(_other_type(_get(value, path)))))
    if kind == "missing_key":
        fits = [(p, s) for p, s in sites if isinstance(_get(value, p), dict) and s.get("type") == "object"
                and set(s.get("required", ())) & set(_get(value, p))]
        if not fits:
            return _NO_FIT
        path, schema = draw(st.sampled_from(fits))
        gone = draw(st.sampled_from([k for k in _get(value, path) if k in schema.get("required", ())]))
        return _replace(value, path, {k: v for k, v in _get(value, path).items() if k != gone})
    if kind == "swapped_order":
        fits = [p for p, _ in sites if isinstance(_get(value, p), dict) and len(_get(value, p)) >= 2]
        if not fits:
            return _NO_FIT
        path = draw(st.sampled_from(fits))
        items = list(_get(value, path).items())
        i = draw(st.integers(0, len(items) - 2))
        items[i], items[i + 1] = items[i + 1], items[i]
        return _replace(value, path, dict(items))
    if kind == "bound":
        return _bound_mutation(draw, value, sites)
    raise NotImplementedError(f"internal: unknown mutation {kind!r}")


def _bound_mutation(draw, value: Any, sites: list) -> Any:
    # An array one item below minItems or one above maxItems, e.g. maxItems 1: [1] -> [1,1]
    fits = []
    for path, schema in sites:
        node = _get(value, path)
        if isinstance(node, list) and schema.get("type") == "array":
            if schema.get("minItems", 0) > 0 and len(node) == schema["minItems"]:
                fits.append((path, node[:-1]))
            if schema.get("maxItems") is not None and len(node) == schema["maxItems"]:
                extra = node[-1] if node else _draw_value(draw, schema["items"], [], ())
                fits.append((path, node + [extra]))
    if not fits:
        return _NO_FIT
    path, new = draw(st.sampled_from(fits))
    return _replace(value, path, new)


def _token_boundaries(text: str) -> tuple[list[int], list[int]]:
    """Offsets outside string literals: where a token may end (a space may go), and
    where a closing bracket is (a trailing comma may go before it)."""
    between, closers, in_string, escaped = [0, len(text)], [], False, False
    for i, ch in enumerate(text):
        if in_string:
            in_string = not (ch == '"' and not escaped)
            escaped = ch == "\\" and not escaped
            if not in_string:
                between.append(i + 1)
        elif ch == '"':
            in_string, escaped = True, False
            between.append(i)
        elif ch in "{}[]:,":
            between += [i, i + 1]
            if ch in "}]":
                closers.append(i)
    return sorted(set(between)), closers


def _text_mutations(draw, text: str, kind: str) -> str | None:
    between, closers = _token_boundaries(text)
    if kind == "space":
        i = draw(st.sampled_from(between))
        return text[:i] + " " + text[i:]
    if kind == "trailing_comma":
        if not closers:
            return None
        i = draw(st.sampled_from(closers))
        return text[:i] + "," + text[i:]
    raise NotImplementedError(f"internal: unknown mutation {kind!r}")


@st.composite
def _documents(draw, schema: dict, valid: bool, mutations: tuple[str, ...]) -> str:
    sites: list = []
    value = _draw_value(draw, schema, sites, ())
    if valid:
        return dumps(value)
    kinds = draw(st.permutations(mutations))
    for kind in kinds:  # the first mutation that fits this value
        if kind in ("space", "trailing_comma"):
            mutated = _text_mutations(draw, dumps(value), kind)
        else:
            mutated = _value_mutations(draw, value, sites, kind)
            mutated = None if mutated is _NO_FIT else dumps(mutated)
        if mutated is not None:
            return mutated
    # reached only when ``mutations`` leaves out both 'space' and 'wrong_type', which fit every document
    raise ValueError(f"documents: no mutation of {mutations} fits the document {dumps(value)[:60]}")


def documents(schema: dict, *, valid: bool = True, mutations: tuple[str, ...] = MUTATIONS) -> st.SearchStrategy[str]:
    """Compact JSON documents for ``schema`` (a schema of the subset).

    ``valid=True``: valid by construction, in Python's compact form, properties in
    the schema's order. ``valid=False``: one of ``mutations`` (see ``MUTATIONS``)
    applied to such a document; most are invalid, but the verdict belongs to the
    document oracle. ``mutations`` must include ``space`` or ``wrong_type``, which
    fit every document.

    Shrinks toward the simplest valid value (shortest arrays, optional properties
    left out), and for ``valid=False`` toward the first mutation in ``mutations``.
    """
    _check_schema(schema)
    mutations = tuple(mutations)
    unknown = set(mutations) - set(MUTATIONS)
    if unknown:
        raise InvalidArgument(f"documents: unknown mutations {sorted(unknown)}; expected some of {MUTATIONS}")
    if not valid and not {"space", "wrong_type"} & set(mutations):
        raise InvalidArgument("documents: mutations must include 'space' or 'wrong_type', which fit every document")
    return _documents(schema, bool(valid), mutations)
