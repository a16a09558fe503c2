"""Instances of any JSON schema, valid and invalid, for inputs outside our subset.

Main access point: ``schema_instances(schema, seed, count)`` -> JSON values, each later
judged by ``jsonschema`` (``given.judge``): the generator need not be exact, it only has to
land on both sides of the line often. ``values_for(schema)`` is a Hypothesis strategy that
follows the common keywords (``type`` and type lists, ``const``, ``enum``, ``anyOf``/``oneOf``,
``allOf`` (merged), ``pattern`` (``st.from_regex``), ``format`` (email, date, date-time, time,
uuid, ipv4, uri), ``minLength``/``maxLength``, ``minimum``/``maximum`` and their exclusive
forms, ``multipleOf``, ``items``/``minItems``/``maxItems``, ``properties``/``required``/
``patternProperties``/``additionalProperties``); each value then gets ``mutations`` (a key
dropped or added, a number pushed past a bound, a string lengthened, a type changed).

Why our own: ``hypothesis-jsonschema`` 0.23.1, the well-kept generator, fails on the
installed Hypothesis (6.170: ``'many' object has no attribute 'more'``), and pinning an older
Hypothesis would hold back the whole project; this one is small because ``jsonschema``, not
the generator, decides what is valid.

Example::

    schema_instances({"type": "integer", "minimum": 3}, seed=0, count=4)
    # [3, 4, 2, "a", ...]: valid ones and, after mutation, invalid ones
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

__all__ = ["FORMATS", "mutations", "schema_instances", "values_for"]

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=6),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))
JSON_ANY = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids,
                                                                                             max_size=3), max_leaves=6)
FORMATS = {
    "email": st.from_regex(r"[a-z]{1,6}@[a-z]{1,6}\.(com|org)", fullmatch=True),
    "date": st.dates().map(str), "date-time": st.datetimes().map(lambda d: d.isoformat() + "Z"),
    "time": st.times().map(lambda t: t.isoformat() + "Z"), "uuid": st.uuids().map(str),
    "ipv4": st.ip_addresses(v=4).map(str), "uri": st.from_regex(r"https://[a-z]{1,8}\.org/[a-z]{0,5}", fullmatch=True),
}
MAX_ITEMS = 4


def values_for(schema) -> st.SearchStrategy:
    """Values that often satisfy ``schema`` (module docstring); any JSON for what it does not know."""
    if schema is True or not isinstance(schema, dict):
        return JSON_ANY
    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return st.one_of([values_for(s) for s in schema[key]])
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged.update(part if isinstance(part, dict) else {})
        return values_for(merged)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([values_for({**schema, "type": k}) for k in kind]) if kind else JSON_ANY
    return _TYPED.get(kind, lambda s: JSON_ANY)(schema)


def _string(schema: dict) -> st.SearchStrategy:
    if isinstance(schema.get("pattern"), str):
        try:
            return st.from_regex(schema["pattern"])
        except Exception:  # a pattern Python cannot read: any text, the judge decides
            return st.text(max_size=8)
    if schema.get("format") in FORMATS:
        return FORMATS[schema["format"]]
    low = int(schema.get("minLength", 0) or 0)
    return st.text(min_size=low, max_size=max(low, min(int(schema.get("maxLength", low + 8)), low + 8)))


def _bounds(schema: dict, integer: bool) -> tuple[Any, Any]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(schema.get("exclusiveMinimum"), (int, float)) and not isinstance(schema["exclusiveMinimum"], bool):
        low = schema["exclusiveMinimum"] + (1 if integer else 0)
    if isinstance(schema.get("exclusiveMaximum"), (int, float)) and not isinstance(schema["exclusiveMaximum"], bool):
        high = schema["exclusiveMaximum"] - (1 if integer else 0)
    return low, high


def _integer(schema: dict) -> st.SearchStrategy:
    low, high = _bounds(schema, True)
    low = None if low is None else int(-(-low // 1))
    high = None if high is None else int(high // 1)
    values = st.integers(low, high) if low is None or high is None or low <= high else st.integers()
    step = schema.get("multipleOf")
    return values.map(lambda v: v - v % step) if isinstance(step, int) and step > 0 else values


def _number(schema: dict) -> st.SearchStrategy:
    low, high = _bounds(schema, False)
    if low is not None and high is not None and low > high:
        low = high = None
    return st.one_of(_integer(schema), st.floats(low, high, allow_nan=False, allow_infinity=False))


def _array(schema: dict) -> st.SearchStrategy:
    low = int(schema.get("minItems", 0) or 0)
    high = max(low, min(int(schema.get("maxItems", low + MAX_ITEMS)), low + MAX_ITEMS))
    return st.lists(values_for(schema.get("items", True)), min_size=low, max_size=high)


def _object(schema: dict) -> st.SearchStrategy:
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [k for k in schema.get("required", []) if isinstance(k, str)]
    fixed = {k: values_for(props.get(k, True)) for k in required}
    optional = {k: values_for(v) for k, v in props.items() if k not in fixed}
    parts = [st.fixed_dictionaries(fixed, optional=optional)]
    for key_pattern, sub in (schema.get("patternProperties") or {}).items():
        try:
            keys = st.from_regex(key_pattern)
        except Exception:
            continue
        parts.append(st.dictionaries(keys, values_for(sub), max_size=2))
    extra = schema.get("additionalProperties", True)
    if extra is not False:
        parts.append(st.dictionaries(st.text(max_size=5), values_for(extra), max_size=1))
    return st.tuples(*parts).map(lambda ds: {k: v for d in ds for k, v in d.items()})


_TYPED = {"string": _string, "integer": _integer, "number": _number, "boolean": lambda s: st.booleans(),
          "null": lambda s: st.none(), "array": _array, "object": _object}


def mutations(value) -> list:
    """One-change neighbours of ``value`` (often invalid): a key dropped, a key added, a number
    past a bound, a string lengthened, another type."""
    out: list = [None if value is not None else 0, "x" if not isinstance(value, str) else 7]
    if isinstance(value, dict):
        out += [{k: v for k, v in value.items() if k != drop} for drop in list(value)[:3]]
        out.append({**value, "zz": 1})
    elif isinstance(value, list):
        out += [value[:-1], value + value[:1]] if value else [[0]]
    elif isinstance(value, bool):
        out.append(not value)
    elif isinstance(value, (int, float)):
        out += [value + 1, value - 1, value + 0.5, -value]
    elif isinstance(value, str):
        out += [value + "!", value[:-1], value.upper()]
    return out


def schema_instances(schema, seed: int, count: int = 12) -> list:
    """``count`` values drawn from ``values_for(schema)`` (seeded: Hypothesis, no database),
    each followed by its ``mutations``, every value once; [] when no value can be drawn."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hyp_seed

    drawn: list = []

    @hyp_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(values_for(schema))
    def collect(value):
        drawn.append(value)

    try:
        collect()
    except Exception:  # a strategy Hypothesis cannot draw from (an unsatisfiable pattern): no instances
        return []
    out, seen = [], set()
    for value in drawn:
        for v in [value, *mutations(value)]:
            key = json.dumps(v, sort_keys=False, default=str)
            if key not in seen:
                seen.add(key)
                out.append(v)
    return out
