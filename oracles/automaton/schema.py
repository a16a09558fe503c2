"""JSON-schema subset -> a pattern of the regex subset (the spec's section 2.5).

The language is *compact* JSON, as ``json.dumps(v, separators=(",", ":"),
ensure_ascii=False)`` writes it (no whitespace), restricted as follows.

Supported features (one handler per keyword, see ``TYPES`` and ``KEYWORDS``):

- ``type``: ``string`` (well-formed UTF-8 per RFC 3629, no overlongs or surrogates;
  printable ASCII 0x20-0x7E except ``"`` and ``\\``; the escapes ``\\" \\\\ \\/ \\b \\f
  \\n \\r \\t \\uXXXX``; no raw control bytes), ``integer`` (``-?(0|[1-9][0-9]*)``, no
  leading zeros), ``number`` (adds ``(\\.[0-9]+)?([eE][+-]?[0-9]+)?``), ``boolean``,
  ``null``, ``array`` (``items`` required, ``minItems``, ``maxItems``), ``object``
  (``properties`` written in the order given, each at most once, ``required`` ones
  always; ``additionalProperties: false`` allowed, and absent means the same: only
  the listed properties can be written);
- ``enum`` / ``const``: an alternation of each value's compact JSON, escaped (alone,
  or beside a ``type`` that every value must have);
- ``anyOf``: an alternation (alone);
- annotations that do not constrain: ``title``, ``description``, ``$schema``,
  ``$comment``, ``examples``, ``default``.

Anything else raises a ``SchemaError`` (a ValueError) naming the JSON pointer of the
offending place, e.g. ``/properties/city: keyword 'pattern' is not supported``, as
one of three kinds (``oracles.automaton.errors``): ``SchemaUnsupported``, a valid JSON
Schema outside the subset (an unknown or refused keyword is refused by its name, its
value unread); ``SchemaMalformed``, a value the subset reads that JSON Schema's
meta-schema rejects (``{"type": 3}``, ``{"anyOf": []}``) or that is no JSON at all
(keys or property names that are not strings, ``enum`` and ``const`` members that
are NaN, sets, lone surrogates, integers Python will not print); and
``SchemaTooLarge``, every bound below (``MAX_DEPTH``, ``MAX_ITEMS_BOUND``,
``MAX_ENUM_VALUES``, ``MAX_VALUE_DEPTH``, ``MAX_REGEX_LENGTH``). Ignoring a keyword
would let the model write output the schema forbids.

Known, deliberate differences from JSON Schema validation (the language is a
subset of the valid documents): extra object keys are never allowed; properties
appear in the schema's order; an ``enum`` value matches only as its own compact
JSON (``1.0`` does not match ``1``); an integer has no fraction (``1.0`` is a valid
integer to JSON Schema, not to the spec's ``-?(0|[1-9][0-9]*)``); strings hold DEL
(0x7F) only escaped.

Object members are built from the end so the commas come out right, in size
quadratic in the number of properties: ``after[i]`` is "members i.. when something
was written" and ``first[i]`` is "members i.. when nothing was written yet"; e.g. two
optional integers x, y give ``\\{(?:\\"x\\":INT(?:,\\"y\\":INT)?|(?:\\"y\\":INT|))\\}``.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

from .errors import SchemaMalformed, SchemaTooLarge, SchemaUnsupported
from .parser import MAX_PATTERN_LENGTH

MAX_DEPTH = 32
"""Schema nesting deeper than this raises SchemaTooLarge (e.g. 33 nested arrays)."""
MAX_ITEMS_BOUND = 1000
"""``minItems``/``maxItems`` above this raise SchemaTooLarge (the regex repeat cap)."""
MAX_ENUM_VALUES = 10_000
"""``enum`` arrays longer than this raise SchemaTooLarge at ``/enum`` before any value is read."""
MAX_VALUE_DEPTH = 64
"""``enum``/``const`` values nested deeper than this (arrays and objects) raise SchemaTooLarge."""
MAX_REGEX_LENGTH = MAX_PATTERN_LENGTH
"""The longest regex a schema may translate to (the parser's own bound). Checked as
the regex grows, node by node and member by member, so a schema whose regex doubles
per level (arrays: ``[item(,item)*]``) or grows with the square of its optional
properties is refused at the first node over the bound, having built at most a few
times the bound: 24 nested arrays (a regex of hundreds of MB) fail in milliseconds."""

# --- the regex pieces -------------------------------------------------------------

_UTF8_MULTIBYTE = [  # RFC 3629, section 4: well-formed sequences of 2 to 4 bytes
    r"[\xc2-\xdf][\x80-\xbf]",
    r"\xe0[\xa0-\xbf][\x80-\xbf]",
    r"[\xe1-\xec][\x80-\xbf][\x80-\xbf]",
    r"\xed[\x80-\x9f][\x80-\xbf]",                 # excludes the surrogates ED A0-BF
    r"[\xee-\xef][\x80-\xbf][\x80-\xbf]",
    r"\xf0[\x90-\xbf][\x80-\xbf][\x80-\xbf]",      # excludes overlong F0 80-8F
    r"[\xf1-\xf3][\x80-\xbf][\x80-\xbf][\x80-\xbf]",
    r"\xf4[\x80-\x8f][\x80-\xbf][\x80-\xbf]",      # up to U+10FFFF
]
STRING_CHAR = "|".join([
    r"[ !#-\[\]-~]",                                # printable ASCII but " and \
    r'\\["\\/bfnrt]',                               # the eight escapes
    r"\\u[0-9a-fA-F]{4}",
] + _UTF8_MULTIBYTE)
STRING = f'"(?:{STRING_CHAR})*"'
INTEGER = r"-?(?:0|[1-9][0-9]*)"
NUMBER = INTEGER + r"(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
BOOLEAN = "(?:true|false)"
NULL = "null"

_REGEX_SPECIAL = set("\\.^$|?*+()[]{}-\"#&~")


def escape(text: str) -> str:
    """A pattern matching exactly the UTF-8 bytes of ``text``: regex metacharacters and
    ``"`` get a backslash, other printable ASCII stays, every other byte is ``\\xHH``.
    E.g. ``escape('{"a":2.5}') == '\\\\{\\\\"a\\\\":2\\\\.5\\\\}'``."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        if ch in _REGEX_SPECIAL:
            out.append("\\" + ch)
        elif 0x20 < b < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def compact(value: Any) -> str:
    """Python's compact JSON of ``value``: ``json.dumps(v, separators=(",", ":"),
    ensure_ascii=False)``; e.g. ``compact(1e-05) == '1e-05'``."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def group(pattern: str) -> str:
    return f"(?:{pattern})"


# --- the translation -----------------------------------------------------------------

ANNOTATIONS = frozenset({"title", "description", "$schema", "$comment", "examples", "default"})
# type -> the keywords it accepts besides "type" and annotations
TYPE_KEYWORDS = {
    "string": frozenset(), "integer": frozenset(), "number": frozenset(),
    "boolean": frozenset(), "null": frozenset(),
    "array": frozenset({"items", "minItems", "maxItems"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
}
_JSON_TYPE_OF: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def json_schema_to_regex(schema: dict) -> str:
    """The pattern of the compact JSON documents valid under ``schema`` (see module doc)."""
    if not isinstance(schema, dict):
        if isinstance(schema, bool):
            raise SchemaUnsupported(_boolean_schema(schema), "")
        raise TypeError(f"schema must be a dict, not {type(schema).__name__}")
    return to_regex(schema, "", 0)


def _boolean_schema(schema: bool) -> str:
    if schema:
        return ("boolean schemas are not supported: true is any JSON value, which is not a "
                "regular language")
    return ("boolean schemas are not supported: false matches no value at all (an empty "
            "language: a constraint that could never finish)")


def _checked(regex: str, pointer: str) -> str:
    """``regex`` when it is within ``MAX_REGEX_LENGTH``, else SchemaTooLarge at ``pointer``."""
    _check_length(len(regex), pointer)
    return regex


def _check_length(length: int, pointer: str) -> None:
    if length > MAX_REGEX_LENGTH:
        raise SchemaTooLarge(f"the regex of this schema grows past MAX_REGEX_LENGTH={MAX_REGEX_LENGTH} "
                             f"characters (nested arrays double it per level; optional properties grow "
                             f"it with their square)", pointer)


def _pointer(base: str, *parts: object) -> str:
    for part in parts:
        base += "/" + str(part).replace("~", "~0").replace("/", "~1")
    return base


def to_regex(schema: Any, pointer: str, depth: int) -> str:
    """Dispatch one schema node: exactly one of enum/const, anyOf, type decides it."""
    if depth > MAX_DEPTH:
        raise SchemaTooLarge(f"schema nesting deeper than MAX_DEPTH={MAX_DEPTH}", pointer)
    if isinstance(schema, bool):
        raise SchemaUnsupported(_boolean_schema(schema), pointer)
    if not isinstance(schema, dict):
        raise SchemaMalformed(f"a schema must be an object, not {type(schema).__name__}", pointer)
    for key in schema:
        if not isinstance(key, str):
            raise SchemaMalformed(f"schema keys must be strings, found {type(key).__name__} {_short(key)}", pointer)
    _check_annotations(schema, pointer)
    keys = set(schema) - ANNOTATIONS
    if "enum" in keys or "const" in keys:
        return _checked(enum_or_const(schema, keys, pointer), pointer)
    if "anyOf" in keys:
        return _checked(any_of(schema, keys, pointer, depth), pointer)
    if "type" not in keys:
        if not keys:
            raise SchemaUnsupported("an empty schema means any JSON value, which is not a regular "
                                    "language; give a type, enum, const or anyOf", pointer)
        unknown = sorted(keys)[0]
        raise SchemaUnsupported(f"keyword {unknown!r} is not supported without a type", _pointer(pointer, unknown))
    kind = _type_name(schema, pointer)
    for key in sorted(keys - {"type"} - TYPE_KEYWORDS[kind]):
        raise SchemaUnsupported(f"keyword {key!r} is not supported", _pointer(pointer, key))
    return _checked(TYPES[kind](schema, pointer, depth), pointer)


ANNOTATION_SHAPES = {"title": (str, "a string"), "description": (str, "a string"), "$comment": (str, "a string"),
                     "$schema": (str, "a string (a URI)"), "examples": (list, "an array")}
"""What JSON Schema's meta-schema requires of each annotation (``default``: any JSON value)."""


def _check_annotations(schema: dict, pointer: str) -> None:
    """Annotations constrain nothing, but a malformed one is a malformed schema (as the
    meta-schema says): SchemaMalformed at its pointer, e.g. ``{"description": 5}``,
    ``{"examples": "x"}``, ``{"default": NaN}`` (NaN has no JSON)."""
    for key, (kind, shape) in ANNOTATION_SHAPES.items():
        if key in schema and not isinstance(schema[key], kind):
            raise SchemaMalformed(f"{key} must be {shape}, not {type(schema[key]).__name__} "
                                  f"{_short(schema[key])}", _pointer(pointer, key))
    for key in ("examples", "default"):
        if key in schema:
            _check_json_value(schema[key], _pointer(pointer, key))


def _type_name(schema: dict, pointer: str) -> str:
    """The value of ``type``: one of ``TYPE_KEYWORDS``, else SchemaError at ``/type``."""
    kind = schema["type"]
    if isinstance(kind, list):
        # a list of distinct known types is valid JSON Schema, just outside the subset
        valid = kind and all(isinstance(k, str) and k in TYPE_KEYWORDS for k in kind) and len(set(kind)) == len(kind)
        error = SchemaUnsupported if valid else SchemaMalformed
        raise error("a list of types is not supported; use anyOf", _pointer(pointer, "type"))
    if not isinstance(kind, str):
        raise SchemaMalformed(f"type must be a string naming a JSON type, not {type(kind).__name__}",
                              _pointer(pointer, "type"))
    if kind not in TYPE_KEYWORDS:
        raise SchemaMalformed(f"unknown type {_short(kind)}", _pointer(pointer, "type"))
    return kind


def _short(value: Any) -> str:
    """A bounded repr for messages (e.g. a 5000-digit int is not printed whole)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"<int of {value.bit_length()} bits>"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def enum_or_const(schema: dict, keys: set, pointer: str) -> str:
    if "enum" in keys and "const" in keys:
        raise SchemaUnsupported("enum and const together are not supported; use one", pointer)
    keyword = "enum" if "enum" in keys else "const"
    values = schema["enum"] if keyword == "enum" else [schema["const"]]
    if keyword == "enum" and (not isinstance(values, list) or not values):
        # not an array: malformed; empty: valid JSON Schema, but an empty language
        error = SchemaUnsupported if isinstance(values, list) else SchemaMalformed
        raise error("enum must be a non-empty array", _pointer(pointer, "enum"))
    if len(values) > MAX_ENUM_VALUES:
        raise SchemaTooLarge(f"enum has {len(values)} values, over MAX_ENUM_VALUES={MAX_ENUM_VALUES}",
                             _pointer(pointer, "enum"))
    for key in sorted(keys - {keyword, "type"}):
        raise SchemaUnsupported(f"keyword {key!r} is not supported beside {keyword}", _pointer(pointer, key))
    where = [_pointer(pointer, keyword, i) if keyword == "enum" else _pointer(pointer, keyword)
             for i in range(len(values))]
    texts = [_value_text(value, where[i]) for i, value in enumerate(values)]
    if "type" in keys:
        kind = _type_name(schema, pointer)
        for i, value in enumerate(values):
            if not _JSON_TYPE_OF[kind](value):
                raise SchemaUnsupported(f"{keyword} value {texts[i][:60]} is not of type {kind!r}", where[i])
    unique = list(dict.fromkeys(texts))  # first occurrences, in order (a dict, not a list search)
    _check_length(sum(len(text) + 1 for text in unique), _pointer(pointer, keyword))  # escaping only grows
    return group("|".join(escape(t) for t in unique)) if len(unique) > 1 else escape(unique[0])


def _value_text(value: Any, pointer: str) -> str:
    """The compact JSON of an enum/const member, or SchemaMalformed at its pointer when it
    is no JSON value: NaN or infinity, a set or tuple, a non-string key, a lone
    surrogate, an integer Python will not print (over 4300 digits), nesting deeper
    than ``MAX_VALUE_DEPTH``."""
    _check_json_value(value, pointer)
    try:
        text = compact(value)
    except (TypeError, ValueError) as exc:
        raise SchemaMalformed(f"value is not JSON: {exc}", pointer) from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SchemaMalformed(f"value is not JSON: a string holds the lone surrogate "
                              f"U+{ord(exc.object[exc.start]):04X}, which has no UTF-8", pointer) from None
    return text


def _check_json_value(value: Any, pointer: str) -> None:
    """Walk ``value`` (iteratively: no recursion however deep) and raise SchemaMalformed at
    ``pointer`` for the first part that is not plain JSON data."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_VALUE_DEPTH:
            raise SchemaTooLarge(f"value is nested deeper than MAX_VALUE_DEPTH={MAX_VALUE_DEPTH}", pointer)
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    raise SchemaMalformed(f"value is not JSON: an object key is a {type(key).__name__} "
                                          f"({_short(key)}), not a string", pointer)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise SchemaMalformed(f"value is not JSON: {item!r} (NaN and infinities have no JSON)", pointer)
        elif item is not None and not isinstance(item, (str, int, float)):
            raise SchemaMalformed(f"value is not JSON: a {type(item).__name__}", pointer)


def any_of(schema: dict, keys: set, pointer: str, depth: int) -> str:
    for key in sorted(keys - {"anyOf"}):
        raise SchemaUnsupported(f"keyword {key!r} beside anyOf is not supported", _pointer(pointer, key))
    branches = schema["anyOf"]
    if not isinstance(branches, list) or not branches:
        raise SchemaMalformed("anyOf must be a non-empty array", _pointer(pointer, "anyOf"))
    parts, total = [], 0
    for i, branch in enumerate(branches):
        parts.append(to_regex(branch, _pointer(pointer, "anyOf", i), depth + 1))
        total += len(parts[-1]) + 1
        _check_length(total, pointer)
    return group("|".join(parts))


def scalar(pattern: str) -> Callable[[dict, str, int], str]:
    return lambda schema, pointer, depth: pattern


def array(schema: dict, pointer: str, depth: int) -> str:
    if "items" not in schema:
        raise SchemaUnsupported("an array needs 'items' (an array of any JSON value is not a "
                                "regular language)", pointer)
    lo = _bound(schema, "minItems", 0, pointer)
    hi = _bound(schema, "maxItems", None, pointer)
    if hi is not None and hi < lo:
        raise SchemaUnsupported(f"minItems {lo} is greater than maxItems {hi}: no array is valid",
                                _pointer(pointer, "maxItems"))
    item = to_regex(schema["items"], _pointer(pointer, "items"), depth + 1)
    if hi == 0:
        return r"\[\]"
    # [ item (, item){lo-1,hi-1} ], the whole inside optional when lo == 0
    more_lo = max(lo - 1, 0)
    more = f"{more_lo}," if hi is None else f"{more_lo},{hi - 1}"
    inside = f"{group(item)}(?:,{group(item)}){{{more}}}"
    if lo == 0:
        inside = f"(?:{inside})?"
    return rf"\[{inside}\]"


def _bound(schema: dict, key: str, default, pointer: str):
    if key not in schema:
        return default
    value = schema[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        # 2.0 is a non-negative integer to JSON Schema, but the subset reads only ints
        whole = isinstance(value, float) and value.is_integer() and value >= 0
        error = SchemaUnsupported if whole else SchemaMalformed
        raise error(f"{key} must be a non-negative integer", _pointer(pointer, key))
    if value > MAX_ITEMS_BOUND:
        raise SchemaTooLarge(f"{key} {_short(value)} exceeds the limit MAX_ITEMS_BOUND={MAX_ITEMS_BOUND}",
                             _pointer(pointer, key))
    return value


def obj(schema: dict, pointer: str, depth: int) -> str:
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise SchemaMalformed("properties must be an object", _pointer(pointer, "properties"))
    extra = schema.get("additionalProperties", False)
    if extra is not False:
        # true or a schema is valid JSON Schema outside the subset; anything else is malformed
        error = SchemaUnsupported if isinstance(extra, (bool, dict)) else SchemaMalformed
        raise error("additionalProperties other than false is not supported",
                    _pointer(pointer, "additionalProperties"))
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaMalformed("required must be an array of strings", _pointer(pointer, "required"))
    listed: set[str] = set()
    for i, name in enumerate(required):
        if name in listed:  # the meta-schema: uniqueItems
            raise SchemaMalformed(f"required lists {name!r} twice", _pointer(pointer, "required", i))
        listed.add(name)
        if name not in props:
            raise SchemaUnsupported(f"required name {name!r} is not in properties", _pointer(pointer, "required", i))
    members, total = [], 0
    for name, sub in props.items():
        name_text = _property_name(name, _pointer(pointer, "properties"))
        member = escape(name_text) + ":" + to_regex(sub, _pointer(pointer, "properties", name), depth + 1)
        members.append((member, name in required))
        total += len(member)
        _check_length(total, pointer)
    return r"\{" + object_members(members, pointer) + r"\}"


def _property_name(name: Any, pointer: str) -> str:
    """The compact JSON of a property name; SchemaMalformed at ``/properties`` unless it is
    a string with UTF-8 (a Python dict may hold ``{1: ...}``: JSON has no such key)."""
    if not isinstance(name, str):
        raise SchemaMalformed(f"property names must be strings, found {type(name).__name__} {_short(name)}", pointer)
    text = compact(name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SchemaMalformed(f"property name {_short(name)} holds the lone surrogate "
                              f"U+{ord(exc.object[exc.start]):04X}, which has no UTF-8", pointer) from None
    return text


def object_members(members: list[tuple[str, bool]], pointer: str = "") -> str:
    """The members, in order, each at most once, required ones always, commas right.

    Built from the end: ``after`` is the rest after something was written, ``first``
    the rest when nothing was written yet. E.g. for [(A, required), (B, optional)]
    the result is ``A(?:,B)?``."""
    after = ""
    first = ""
    for member, required in reversed(members):
        first = member + after if required else group(f"{member}{after}|{first}")
        after = f",{member}{after}" if required else f"(?:,{member})?{after}"
        _checked(first, pointer)  # each round at most doubles: checked before it can grow further
    return first


TYPES: dict[str, Callable[[dict, str, int], str]] = {
    "string": scalar(STRING),
    "integer": scalar(INTEGER),
    "number": scalar(NUMBER),
    "boolean": scalar(BOOLEAN),
    "null": scalar(NULL),
    "array": array,
    "object": obj,
}
