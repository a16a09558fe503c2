"""Catalogue: the JSON-schema subset (spec tests 14, 15).

Oracle: ``json.loads`` + ``jsonschema`` (Draft 2020-12) + property order, through
``oracles.stdlib.check_document``. Each document's expected verdict is the oracle's;
the hand-written lists only choose *which* documents to ask about (every spelling
asked about is one Python's ``json.dumps`` writes, or one the language excludes for
every implementation: spaces, raw control bytes, malformed UTF-8, bad numbers).
"""

from __future__ import annotations

import json

import pytest

from facts.constructs import schema_refusals
from harness.suite import oracle_memo, strength
from harness.suite.batched import calls_ahead
from harness.suite.explain import expect_valueerror, fail
from harness.suite.inputs import TOOL_SCHEMA
from harness.suite.test_dfa import _raises, compile_ok
from harness.suite.tiers import decision


def dumps(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


SEVERAL = {"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"const": "x"}, "c": {"type": "integer"}},
           "required": ["c"]}
BOUNDED = {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}
NESTED = {"type": "object", "properties": {"p": {"type": "object", "properties": {"q": {"type": "null"}},
                                                 "required": ["q"], "additionalProperties": False},
                                           "r": {"type": "array", "items": {"enum": [1, "two", None]}}},
          "required": ["p"], "additionalProperties": False}
STRING = {"type": "string"}
EITHER = {"anyOf": [{"type": "null"}, {"type": "number"}]}
# enum values whose compact JSON holds regex metacharacters: inserted unescaped, 2.5
# would match 2x5 and "(p|q)" would match "p" (mutant s22)
ENUMS = {"enum": [2.5, "a\"b", "x.y", "(p|q)", [1, {"k": "v"}], 1.5e-05, None]}

# (schema, name, documents the oracle accepts, documents it refuses)
DOCUMENTS = [
    (TOOL_SCHEMA, "tool", [
        {"city": "Oslo", "days": 3}, {"city": "Oslo", "days": 3, "units": "metric"},
        {"city": "", "days": -12, "lat": 59.91},
        {"city": "Z\u00fcrich", "days": 0, "alerts": False, "tags": ["a", "b"]},
        {"city": "a\"b\\c\n\u0007", "days": 1}, {"city": "\u65e5\u672c\U0001f600", "days": 10, "tags": []},
        {"city": "x", "days": 1, "lat": 1e+20}, {"city": "x", "days": 1, "lat": -2.5e-07},
        {"city": "x", "days": 1, "units": "imperial", "lat": 3, "alerts": True, "tags": ["t"]},
    ], [
        b'{"city":"Oslo"}', b'{"days":3}', b'{"city":3,"days":3}', b'{"city":"Oslo","days":"3"}',
        b'{"city":"Oslo","days":3.5}', b'{"days":3,"city":"Oslo"}', b'{"city":"Oslo","days":3,"x":1}',
        b'{"city":"Oslo","days":3,}', b'{"city": "Oslo","days":3}', b'{"city":"Oslo","days":3} ',
        b' {"city":"Oslo","days":3}', b'{"city":"a","days":1,"tags":["a","b","c"]}',
        b'{"city":"a\tb","days":1}', b'{"city":"a\x00","days":1}', b'{"city":"a\x1f","days":1}',
        b'{"city":"a","days":01}', b'{"city":"a","days":00}', b'{"city":"a","days":1,"lat":1e}',
        b'{"city":"a","days":1,"lat":1.}', b'{"city":"a","days":1,"lat":.5}', b'{"city":"a","days":1,"lat":1e+}',
        b'{"city":"\xff","days":1}', b'{"city":"\xc0\xaf","days":1}', b'{"city":"\xed\xa0\x80","days":1}',
        b'{"city":"\xe6\x97","days":1}', b'{"city":"\x80","days":1}', b'{"city":"\xf4\x90\x80\x80","days":1}',
        b'{"city":"a","days":1,"units":"kelvin"}', b'{"city":"a","days":1,"days":2}',
        b'{"city":"a","days":1,"alerts":True}', b'{"city":"a","days":1,"tags":[1]}',
        b'{"city":"a","days":1,"tags":["a",]}', b'{"city":"a\\x","days":1}', b'{"city":"a\\u12","days":1}',
        b"null", b"", b"{}", b'{"city":"Oslo","days":3}{}',
    ]),
    (SEVERAL, "optional then required",
     [{"c": 1}, {"a": True, "c": 1}, {"b": "x", "c": 2}, {"a": False, "b": "x", "c": 0}],
     [b'{"a":true,"b":"x"}', b'{"a":true}', b'{"c":1,"a":true}', b'{"a":true,"c":1,"b":"x"}', b'{,"c":1}',
      b'{"a":true,,"c":1}', b'{"b":"y","c":1}']),
    (BOUNDED, "array bounds", [[1], [1, 2, 3], [-7, 0]],
     [b"[]", b"[1,2,3,4]", b"[1,]", b"[01]", b'["1"]', b"[1 ,2]", b"[[1]]"]),
    (NESTED, "nested", [{"p": {"q": None}}, {"p": {"q": None}, "r": [1, "two", None, 1]}, {"p": {"q": None}, "r": []}],
     [b'{"p":{}}', b'{"p":{"q":null,"z":1}}', b'{"p":{"q":null},"r":[2]}', b'{"r":[],"p":{"q":null}}']),
    (STRING, "string", ["", "a b", "\u00e9", "\"", "\\", "\ud7ff", "\ue000", "\U0010ffff"],
     [b'"a', b"a", b'"a\nb"', b'"\xc3"', b'"a"b"', b"'a'"]),
    (EITHER, "anyOf", [None, 1.5, -3, 0], [b'"null"', b"true", b"nul", b"1.5.2"]),
    (ENUMS, "enum with metacharacters", [2.5, "a\"b", "x.y", "(p|q)", [1, {"k": "v"}], 1.5e-05, None],
     [b"2x5", b'"x-y"', b'"p"', b'"q"', b"1x5e-05", b"1.5e-5", b'[1,{"k":"v"},]', b'"a"b"', b"nullnull"]),
]


@pytest.mark.unit
def test_json_schema_documents(impl):
    for schema, name, valid, invalid in DOCUMENTS:
        pattern = impl.json_schema_to_regex(schema)
        if not isinstance(pattern, str):
            fail("json_schema_to_regex must return a str", schema=name, got=type(pattern).__name__)
        dfa, _, _ = compile_ok(impl, pattern)
        documents = [dumps(v) for v in valid] + invalid
        verdicts = [oracle_memo.answer("check_document", schema, document) for document in documents]
        # the calls below made ahead in one round trip, given the documents only (harness.suite.batched.calls_ahead)
        ahead = calls_ahead(dfa, "matches", [[document] for document in documents])
        for document, verdict in zip(documents, verdicts):
            assert verdict.ok == (document not in invalid), \
                f"catalogue bug: the oracle disagrees with the hand list on {document!r}: {verdict}"
            got = bool(ahead.take("call", lambda: dfa.matches(document)))
            if got != verdict.ok:
                fail("a document's match differs from json + jsonschema", schema=name, document=document,
                     expected=verdict.ok, got=got, oracle=verdict.reason or "valid, compact, ordered")
    _check_compact_readings(impl)
    strength.run_for("test_json_schema_documents", impl)


# Values and property names the spec's two readings of compact JSON write differently (section
# 2.5: "as json.dumps(v, separators=(",", ":")) writes it", whose ensure_ascii escapes non-ASCII
# and DEL; the reference writes raw UTF-8): either reading passes, the same one throughout.
READING_SCHEMAS = [({"enum": ["Z\u00fcrich", "\x7f", 1]}, ["Z\u00fcrich", "\x7f"]),
                   ({"type": "object", "properties": {"\u00e9t\u00e9": {"type": "null"}},
                     "required": ["\u00e9t\u00e9"]}, [{"\u00e9t\u00e9": None}])]


def _check_compact_readings(impl) -> None:
    from golden.readings import compact_readings

    taken = set()
    for schema, values in READING_SCHEMAS:
        dfa, _, _ = compile_ok(impl, impl.json_schema_to_regex(schema))
        for value in values:
            texts = compact_readings(value)
            got = {name: bool(dfa.matches(text.encode("utf-8"))) for name, text in texts.items()}
            reading = [name for name, ok in got.items() if ok]
            if len(reading) != 1:
                fail("an enum/const value or property name must match as exactly one reading of compact JSON "
                     "(raw UTF-8, or the literal json.dumps call's \\uXXXX)", schema=json.dumps(schema),
                     raw=texts["raw"], ascii=texts["ascii"], got=got)
            taken.add(reading[0])
    if len(taken) > 1:
        fail("enum/const values and property names follow one reading of compact JSON, not both",
             readings=sorted(taken))
    decision("enum_const_raw_utf8", taken == {"raw"}, "enum/const values and property names are written as the "
             "literal json.dumps call writes them (ensure_ascii: \\uXXXX escapes)")


# (schema, what it is): every one must raise ValueError (facts.constructs, the catalogue's rows)
OUTSIDE = [(r.schema, r.what) for r in schema_refusals("l87")]
INSIDE = [TOOL_SCHEMA, SEVERAL, BOUNDED, NESTED, STRING, EITHER, {"const": {"k": [1, 2]}}, {"type": "boolean"}]
# The spec's 2.5 refuses "anything else"; annotations constrain nothing, so the default tier
# accepts either reading: refused with ValueError, or accepted with the language unchanged.
ANNOTATED = [({**STRING, "title": "t", "description": "d"}, STRING, "string"),
             ({"type": "integer", "examples": [1], "default": 1, "$comment": "c",
               "$schema": "https://json-schema.org/draft/2020-12/schema"}, {"type": "integer"}, "integer")]
# Where the spec is silent (the contract decides): (schema, decision key, accepted?)
DECIDED = [({"type": "integer", "enum": [1, 2]}, "type_with_enum", True),
           ({"type": "string", "const": "x"}, "type_with_enum", True),
           ({"type": ["string", "null"]}, "type_list_refused", False),
           ({"enum": []}, "empty_enum_refused", False)]
ANNOTATION_PROBES = [b'""', b'"a"', "\"\u00e9\"".encode(), b"1", b"-12", b"0", b"01", b"1.5", b"null", b'"a', b"true"]


@pytest.mark.boundary
def test_json_schema_rejects_keywords_outside_the_subset(impl):
    for schema, what in OUTSIDE:  # the spec: "Anything else ... raises ValueError"
        with _raises(ValueError, f"a schema with {what} must raise ValueError", schema=json.dumps(schema)):
            impl.json_schema_to_regex(schema)
    for schema in INSIDE:
        try:
            impl.json_schema_to_regex(schema)
        except ValueError as exc:
            fail("a schema inside the subset was refused", schema=json.dumps(schema), error=str(exc).splitlines()[0])
    for annotated, plain, name in ANNOTATED:
        _check_annotated(impl, annotated, plain, name)
    for schema, key, accepted in DECIDED:
        if accepted:
            try:
                impl.json_schema_to_regex(schema)
            except Exception as exc:  # noqa: BLE001 - the decision is about accepting it
                decision(key, False, f"{json.dumps(schema)} was refused: {type(exc).__name__}: {exc}")
        else:
            expect_valueerror(key, lambda: impl.json_schema_to_regex(schema), "must be refused",
                              schema=json.dumps(schema))
    strength.run_for("test_json_schema_rejects_keywords_outside_the_subset", impl)


def _check_annotated(impl, annotated: dict, plain: dict, name: str) -> None:
    """Refused with ValueError, or accepted without changing the language (checked on
    probe documents against the unannotated schema's oracle verdicts: ``oracles.stdlib.check_document``)."""
    try:
        pattern = impl.json_schema_to_regex(annotated)
    except ValueError as exc:
        decision("annotations_accepted", False, f"{json.dumps(annotated)} was refused: {str(exc).strip()[:120]}")
        return
    dfa, _, _ = compile_ok(impl, pattern)
    for document in ANNOTATION_PROBES:
        want = oracle_memo.answer("check_document", plain, document).ok
        if bool(dfa.matches(document)) != want:
            fail("annotations must not change the language (or be refused with ValueError)", schema=name,
                 annotated=json.dumps(annotated), document=document, expected=want, got=bool(dfa.matches(document)))
