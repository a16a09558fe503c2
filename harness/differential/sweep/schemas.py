"""``sweep --schemas``: every schema of a small grammar of the subset, to a nesting depth.

Main access points: ``schemas_by_depth(max_depth)`` and the task function
``check_schemas(payload)``.

The grammar (depth 0 are the leaves; depth d is built from every schema of depth d-1):

- leaves: ``{"type": T}`` for the five scalar types; ``{"enum": ["a", 1]}``,
  ``{"enum": [null, true]}``, ``{"const": "a"}``, ``{"const": [1]}``;
- arrays of a child ``S``: ``{"type": "array", "items": S}``, with ``minItems: 1``, with
  ``maxItems: 1``;
- objects: ``properties {"a": S}`` with and without ``required: ["a"]``, with
  ``additionalProperties: false``; ``properties {"a": S, "b": {"type": "integer"}}`` with
  ``required: ["b"]``;
- ``{"anyOf": [S, {"type": "null"}]}``.

For each schema (``check_schema``), the reference compiles it (``json_schema_to_regex``,
``regex_to_dfa``) and:

1. **tables**: the derivative oracle's canonical table of the same regex equals the
   reference's (the derivative oracle has no schema compiler of its own: what is compared
   is the regex's meaning, the schema's meaning is judged by step 2);
2. **instances**, judged by ``jsonschema`` (Draft 2020-12, through
   ``oracles.stdlib.check_document``: parses, valid, compact, property order) in the
   spec's reading: every value of ``instances(schema)`` (values of the schema's shape,
   valid or one change away, and values of every other type), written as compact JSON,
   is accepted by the reference DFA and by the derivative oracle exactly when the
   document oracle says ``ok``. A value outside the reading is counted, not compared:
   ``extra key`` (a key not in ``properties``: the spec's objects are closed). A
   value the reading keeps but the language deliberately leaves out is counted under
   its documented narrowing (``oracles/automaton/schema.py``): ``integral float`` (``1.0``
   for an integer: the language's integers have no fraction), ``raw DEL`` (a string
   holding 0x7F, in the language only as ``\\u007f``);
3. **walks**: ``WALKS`` seeded random members of the reference DFA parse, validate and
   keep the property order (they need not be Python's spelling: ``"\\u0041"`` is in the
   language).

A disagreement is ``{"schema", "check", "witness", "answers", "detail"}``.
"""

from __future__ import annotations

import json
import time
from itertools import combinations

import numpy as np
from jsonschema import Draft202012Validator

from harness.differential.sweep.walks import random_members
from oracles import derivatives
from oracles.automaton import json_schema_to_regex, regex_to_dfa
from oracles.stdlib import check_document, compact_dump

__all__ = ["MAX_DEPTH", "WALKS", "schemas_by_depth", "instances", "check_schemas", "check_schema"]

MAX_DEPTH = 3
WALKS = 12
LEAVES = [{"type": t} for t in ("string", "integer", "number", "boolean", "null")] + [
    {"enum": ["a", 1]}, {"enum": [None, True]}, {"const": "a"}, {"const": [1]}]
SCALARS = {"string": ["", "a", 'q"', "\u00e9", "\x7f", "\t", "[", "\\", "\x00", "\x9f", "\u2028",
                      "\U0001d11e"], "integer": [0, -7, 12, 1.0], "number": [0, -0.5, 2.5, 1e21],
           "boolean": [True, False], "null": [None]}
OTHER_TYPES = [None, True, 0, 1.5, "a", [], {}]


def schemas_by_depth(max_depth: int) -> dict[int, list[dict]]:
    """``{depth: schemas}`` for depths 0..``max_depth`` (module docstring)."""
    if isinstance(max_depth, bool) or not isinstance(max_depth, int):
        raise TypeError(f"max_depth must be an int, not {type(max_depth).__name__}")
    if not 0 <= max_depth <= MAX_DEPTH:
        raise ValueError(f"max_depth must be 0..{MAX_DEPTH}, not {max_depth}")
    out = {0: [dict(s) for s in LEAVES]}
    for depth in range(1, max_depth + 1):
        out[depth] = [s for child in out[depth - 1] for s in _built_on(child)]
    return out


def _built_on(child: dict) -> list[dict]:
    array = {"type": "array", "items": child}
    one = {"type": "object", "properties": {"a": child}}
    return [array, {**array, "minItems": 1}, {**array, "maxItems": 1},
            one, {**one, "required": ["a"]}, {**one, "additionalProperties": False},
            {"type": "object", "properties": {"a": child, "b": {"type": "integer"}}, "required": ["b"]},
            {"anyOf": [child, {"type": "null"}]}]


def instances(schema: dict) -> list:
    """Values of ``schema``'s shape (valid, or one change away) and of every other type."""
    out = list(_shaped(schema)) + OTHER_TYPES
    seen, unique = set(), []
    for value in out:
        key = json.dumps(value, sort_keys=False)
        if key not in seen:
            seen.add(key)
            unique.append(value)
    return unique


def _shaped(schema: dict) -> list:
    if "enum" in schema:
        return list(schema["enum"]) + ["b"]
    if "const" in schema:
        return [schema["const"], [2]]
    if "anyOf" in schema:
        return [v for branch in schema["anyOf"] for v in _shaped(branch)]
    kind = schema["type"]
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == "array":
        items = _shaped(schema["items"])[:3]
        return [[]] + [[v] for v in items] + [[items[0], v] for v in items[:2]]
    return _objects(schema)


def _objects(schema: dict) -> list:
    names = list(schema["properties"])
    values = {n: _shaped(schema["properties"][n])[:3] for n in names}
    out: list = [{}]
    for n in range(1, len(names) + 1):
        for chosen in combinations(names, n):
            out.append({k: values[k][0] for k in chosen})
    for name in names:
        out += [{name: v} for v in values[name][1:]]
    if len(names) > 1:
        out.append({k: values[k][0] for k in reversed(names)})  # out of the declared order
    out.append({**{k: values[k][0] for k in names}, "z": 0})    # a key not in properties
    return out


def check_schemas(payload: dict) -> dict:
    """Task function: check every schema of ``payload["schemas"]`` (payload: schemas,
    depth, seed); the record counts outcomes, instances by verdict, and lists disagreements."""
    start = time.thread_time()
    record = {"depth": payload["depth"], "schemas": len(payload["schemas"]), "outcomes": {}, "instances": {},
              "walks": 0, "disagreements": [], "peer_differences": []}
    peers = _load_peers(payload.get("peers") or [])
    for i, schema in enumerate(payload["schemas"]):
        rng = np.random.default_rng([int(payload["seed"]), int(payload["depth"]), int(payload["offset"]) + i])
        outcome, counts, walks, found = check_schema(schema, rng)
        record["outcomes"][outcome] = record["outcomes"].get(outcome, 0) + 1
        for key, n in counts.items():
            record["instances"][key] = record["instances"].get(key, 0) + n
        record["walks"] += walks
        record["disagreements"] += found
        if peers:
            record["peer_differences"] += peer_differences(schema, peers)
    record["cpu_seconds"] = round(time.thread_time() - start, 6)
    return record


def _load_peers(names: list[str]) -> list:
    if not names:
        return []
    from harness.peers import available_peers
    return available_peers(names)[0]


def peer_differences(schema: dict, peers: list) -> list[dict]:
    """Each peer (isolated: ``harness.peers.isolation``) on the compact JSON of every value of
    ``instances(schema)``, against ``jsonschema`` (JSON Schema's meaning: open objects, any key
    order). A rejection that the same value with its keys in the declared order and without
    undeclared keys turns into acceptance is the peer's documented design (closed objects,
    declared key order) and not listed; the first other difference is, with its witness. A
    crash, hang, limit or a refusal that the peer does not call unsupported is listed too."""
    from harness.peers.findings import FAILED_ON_VALID, is_unsupported
    from harness.peers.isolation import PeerFailed

    validator = Draft202012Validator(schema)
    values = instances(schema)
    docs = [compact_dump(v).encode("utf-8") for v in values]
    out = []
    for peer in peers:
        if not peer.can_schema:
            continue
        row = {"schema": schema, "peer": peer.name, "version": peer.version}
        try:
            compiled = peer.compile_schema(schema)
            answers = compiled.accepts_all(docs)
            for value, doc, says in zip(values, docs, answers):
                valid = validator.is_valid(value)
                if says != valid and not (valid and _declared_form_accepted(compiled, schema, value)):
                    out.append({**row, "witness": repr(doc), "peer_says": says, "jsonschema": valid})
                    break
        except ValueError as exc:
            if not is_unsupported(str(exc)):
                why = " ".join(str(exc).split())
                out.append({**row, "witness": None, "detail": f"{FAILED_ON_VALID}: {why}"[:300]})
        except PeerFailed as exc:
            out.append({**row, "witness": None, "detail": f"{exc.kind} during {exc.op}: {exc.detail}"[:300]})
    return out


def _declared_form_accepted(compiled, schema, value) -> bool:
    """Return True if and only if ``value`` has keys out of the declared order or undeclared
    ones, and the peer accepts it with its keys in the declared order and undeclared ones dropped."""
    form = _declared_form(schema, value)
    changed = form != value or list(_keys(form)) != list(_keys(value))
    return changed and compiled.accepts(compact_dump(form).encode("utf-8"))


def _keys(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


def _declared_form(schema, value):
    if isinstance(schema, dict) and "anyOf" in schema:
        fitting = [b for b in schema["anyOf"] if Draft202012Validator(b).is_valid(value)]
        return _declared_form(fitting[0], value) if fitting else value
    if isinstance(value, dict) and isinstance(schema, dict) and schema.get("type") == "object":
        props = schema.get("properties", {})
        return {k: _declared_form(props[k], value[k]) for k in props if k in value}
    if isinstance(value, list) and isinstance(schema, dict) and schema.get("type") == "array":
        return [_declared_form(schema.get("items"), v) for v in value]
    return value


def check_schema(schema: dict, rng: np.random.Generator) -> tuple[str, dict[str, int], int, list[dict]]:
    """(outcome, instance counts by verdict, walks made, disagreements) for one schema."""
    try:
        pattern = json_schema_to_regex(schema)
        dfa = regex_to_dfa(pattern)
    except ValueError as exc:
        return type(exc).__name__, {}, 0, []
    except Exception as exc:  # a crash is a finding
        return "crash", {}, 0, [_disagreement(schema, "crash", None, detail=f"{type(exc).__name__}: {exc}")]
    try:
        trans, accept = derivatives.canonical_dfa(pattern)
    except Exception as exc:
        return "compiled", {}, 0, [_disagreement(schema, "tables", None, detail=f"derivatives: {type(exc).__name__}: "
                                                 f"{exc}")]
    if not (np.array_equal(dfa.trans, trans) and np.array_equal(dfa.accept, accept)):
        return "compiled", {}, 0, [_disagreement(schema, "tables", None, detail=f"reference {dfa.n_states} states, "
                                                 f"derivatives {len(accept)}")]
    counts: dict[str, int] = {}
    found = _instance_disagreements(schema, dfa, pattern, counts)
    walks = random_members(dfa.trans, dfa.accept, rng, WALKS, 60)
    found += _walk_disagreements(schema, walks)
    return "compiled", counts, len(walks), found


def _instance_disagreements(schema: dict, dfa, pattern: str, counts: dict[str, int]) -> list[dict]:
    oracle = derivatives.Oracle(pattern)
    found = []
    for value in instances(schema):
        doc = compact_dump(value).encode("utf-8")
        ours, theirs = dfa.matches(doc), oracle.matches(doc)
        verdict = check_document(schema, doc)
        reason = _outside_or_narrowed(schema, value, dfa) if verdict.ok and not ours else ""
        key = reason or ("valid" if verdict.ok else "invalid")
        counts[key] = counts.get(key, 0) + 1
        if ours != theirs or (not reason and ours != verdict.ok):
            found.append(_disagreement(schema, "instance", doc, reference=ours, derivatives=theirs,
                                       jsonschema=verdict.ok, detail=verdict.reason))
    return found


def _outside_or_narrowed(schema: dict, value, dfa) -> str:
    """Why a value the document oracle calls ok may be left out (module docstring, step 2), or ""."""
    if _has_extra_key(schema, value):
        return "extra key"
    if "\x7f" in compact_dump(value):
        return "raw DEL"
    if dfa.matches(compact_dump(integral_floats_as_ints(value)).encode("utf-8")):
        return "integral float"
    return ""


def _has_extra_key(schema, value) -> bool:
    if isinstance(schema, dict) and "anyOf" in schema:
        fitting = [b for b in schema["anyOf"] if Draft202012Validator(b).is_valid(value)]
        return bool(fitting) and all(_has_extra_key(branch, value) for branch in fitting)
    if isinstance(value, dict) and isinstance(schema, dict) and schema.get("type") == "object":
        props = schema.get("properties", {})
        return any(k not in props for k in value) or any(_has_extra_key(props[k], v) for k, v in value.items())
    if isinstance(value, list) and isinstance(schema, dict) and schema.get("type") == "array":
        return any(_has_extra_key(schema.get("items"), v) for v in value)
    return False


def integral_floats_as_ints(value):
    """``value`` with every integral float (``1.0``) as an int: JSON that Python reads as floats,
    written the way the spec's compact form writes numbers (the corpus uses it too)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [integral_floats_as_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: integral_floats_as_ints(v) for k, v in value.items()}
    return value


def _walk_disagreements(schema: dict, walks: list[bytes]) -> list[dict]:
    for doc in walks:
        verdict = check_document(schema, doc)
        if not (verdict.parses and verdict.valid and verdict.ordered):
            return [_disagreement(schema, "walk", doc, reference=True, jsonschema=False, detail=verdict.reason)]
    return []


def _disagreement(schema: dict, check: str, witness: bytes | None, detail: str = "", **answers) -> dict:
    return {"schema": schema, "check": check, "witness": None if witness is None else repr(witness),
            "answers": answers, "detail": detail}
