"""json_schema_to_regex against the spec (spec section 2.5), with json + jsonschema as oracle.

Every document's verdict from the DFA is compared with ``oracles.stdlib.check_document``
(json.loads, a Draft 2020-12 validator, compactness, property order). Where the subset
is deliberately narrower than JSON Schema (extra keys, key order), the test says so.
"""

from __future__ import annotations

import json

import pytest

from facts.constructs import SCHEMA_KEYWORDS, SCHEMA_REFUSALS
from facts.tools import FORECAST_PARAMETERS
from oracles.automaton import json_schema_to_regex, regex_to_dfa
from oracles.automaton.errors import SchemaError
from oracles.stdlib import check_document

TOOL = FORECAST_PARAMETERS  # the tool schema: city, days, units (facts.tools)
BIG = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "score": {"type": "number"},
        "ok": {"type": "boolean"},
        "note": {"type": "null"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                  "required": ["lat", "lon"]},
        "kind": {"anyOf": [{"enum": ["a", "b\"", 2.5]}, {"type": "integer"}]},
    },
    "required": ["id", "tags"],
}

# schema, valid documents, invalid documents (what the spec's test lists: missing keys,
# wrong types, order, extra keys, trailing commas, spaces, bounds, raw control bytes,
# leading zeros, exponent without digits, invalid UTF-8)
CASES = [
    (TOOL,
     ['{"city":"Oslo","days":3}', '{"city":"Oslo","days":3,"units":"c"}', '{"city":"","days":-12}',
      '{"city":"Z\\u00fcrich \\"Z\\"","days":0}', '{"city":"Zürich","days":1}', '{"city":"\\ud83d\\ude00","days":1}',
      '{"city":"😀","days":1}', '{"city":"a\\\\b\\/c\\n","days":1}'],
     ['{"city":"Oslo"}', '{"days":3}', '{"days":3,"city":"Oslo"}', '{"city":"Oslo","days":"3"}',
      '{"city":"Oslo","days":3,}', '{"city":"Oslo", "days":3}', '{"city":"Oslo","days":03}',
      '{"city":"Oslo","days":3.5}', '{"city":"Oslo","days":3,"units":"k"}', '{"city":"Os\nlo","days":3}',
      '{"city":"Os\tlo","days":3}', '{"city":"Oslo","days":3,"extra":1}',
      '{"city":"Oslo","days":3,"units":"c","units":"c"}',
      '{"city":Oslo,"days":3}', '{"city":"a\\xb","days":1}', '{"city":"\\u12G4","days":1}', '']),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3},
     ["[1,2]", "[1,2,3]", "[0,-0,10]"],
     ["[]", "[1]", "[1,2,3,4]", "[1,2,]", "[1, 2]", "[01,2]", "[1,2", "[1,,2]"]),
    ({"type": "array", "items": {"type": "boolean"}, "maxItems": 1},
     ["[]", "[true]"], ["[true,false]", "[null]", "[True]"]),
    ({"type": "array", "items": {"type": "null"}, "minItems": 0, "maxItems": 0}, ["[]"], ["[null]"]),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 1}, ["[1]", "[1,2,3,4,5,6]"], ["[]"]),
    ({"type": "number"},
     ["0", "-0", "1.5", "1e5", "1E+5", "-2.5e-3", "10", "0.0"],
     ["01", "1.", ".5", "1e", "1e+", "+1", "1.5e", "--1", "1 ", "NaN", "Infinity", "0x1"]),
    ({"type": "integer"}, ["0", "-0", "7", "123"], ["00", "-", "1.0", "1e2", "+1", "007"]),
    ({"type": "boolean"}, ["true", "false"], ["True", "1", "tru"]),
    ({"type": "null"}, ["null"], ["None", "nul", ""]),
    ({"enum": ["a\"b", 2.5, None, 1e-05, "é", [1, {"k": "v"}], -0.0, 10**20]},
     ['"a\\"b"', "2.5", "null", "1e-05", '"é"', '[1,{"k":"v"}]', "-0.0", "100000000000000000000"],
     ["2x5", '"a"b"', "1e-5", "0.00001", '"\\u00e9"', '[1,{"k":"v"} ]', "-0", "1e20"]),
    ({"const": {"a": [1, 2]}}, ['{"a":[1,2]}'], ['{"a":[1,2,]}', '{"a":[2,1]}']),
    ({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
     ["{}", '{"x":1}', '{"y":2}', '{"x":1,"y":2}'],
     ['{"y":2,"x":1}', '{"x":1"y":2}', '{,"y":2}', '{"x":1,}', '{"x":1,"x":1}']),
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                                       "c": {"type": "integer"}}, "required": ["c"]},
     ['{"c":3}', '{"a":1,"c":3}', '{"b":2,"c":3}', '{"a":1,"b":2,"c":3}'],
     ['{"a":1}', '{"a":1,"b":2}', '{"c":3,"a":1}', '{"a":1"c":3}']),
    ({"type": "object", "properties": {}, "additionalProperties": False}, ["{}"], ['{"a":1}', "{ }"]),
    ({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "array", "items": {"type": "null"}}]},
     ["1", '"1"', "[]", "[null,null]"], ["1.5", "true", '["1"]']),
    (BIG,
     ['{"id":1,"tags":["x"]}', '{"id":1,"name":"n","score":1.5,"ok":true,"note":null,"tags":["a","b","c"],'
      '"where":{"lat":1,"lon":-2.5e3},"kind":"b\\""}', '{"id":1,"tags":["x"],"kind":2.5}',
      '{"id":1,"tags":["x"],"kind":7}'],
     ['{"id":1,"tags":[]}', '{"id":1,"tags":["a","b","c","d"]}', '{"id":1,"tags":["x"],"where":{"lat":1}}',
      '{"tags":["x"],"id":1}', '{"id":1,"tags":["x"],"kind":"c"}', '{"id":1,"tags":["x"],"kind":2x5}']),
]

RAW_INVALID_UTF8 = [b'"\xc3"', b'"\xc0\xaf"', b'"\xed\xa0\x80"', b'"\xf4\x90\x80\x80"', b'"\xe0\x80\xaf"',
                    b'"\xff"', b'"\x80"', b'"\xf8\x88\x80\x80\x80"', b'"a\x00"', b'"\x1f"', b'"\x7f"']


def _dfa(schema):
    return regex_to_dfa(json_schema_to_regex(schema))


@pytest.mark.unit
@pytest.mark.parametrize("index", range(len(CASES)))
def test_json_schema_documents(index):
    schema, valid, invalid = CASES[index]
    dfa = _dfa(schema)
    for doc in valid:
        verdict = check_document(schema, doc)
        assert verdict.parses and verdict.valid and verdict.ordered, (doc, verdict.reason)
        assert dfa.matches(doc.encode("utf-8")), f"valid document refused: {doc}"
    for doc in invalid:
        assert not dfa.matches(doc.encode("utf-8")), f"invalid document accepted: {doc}"
        verdict = check_document(schema, doc)
        # the oracle refuses it too, or it is one of the subset's documented narrowings
        # (oracles/automaton/schema.py): extra keys (the subset closes objects), a
        # non-compact spelling, an enum value written other than its compact JSON
        # (1e-5 for 1e-05), an integer written with a fraction (1.0)
        if verdict.parses and verdict.valid and verdict.ordered:
            narrowings = ['"extra"' in doc, not verdict.compact, "enum" in json.dumps(schema),
                          schema.get("type") == "integer" and "." in doc]
            assert any(narrowings), (doc, verdict)


@pytest.mark.unit
@pytest.mark.parametrize("raw", RAW_INVALID_UTF8)
def test_strings_are_well_formed_utf8_without_raw_control_bytes(raw):
    dfa = _dfa({"type": "string"})
    assert not dfa.matches(raw)
    # all but DEL are refused by json.loads too; DEL is refused raw by the spec's
    # "printable ASCII" and accepted when written \u007f
    if raw != b'"\x7f"':
        assert not check_document({"type": "string"}, raw).parses
    assert dfa.matches(b'"\\u007f"')


@pytest.mark.unit
def test_every_well_formed_code_point_class_is_accepted():
    dfa = _dfa({"type": "string"})
    for cp in [0x20, 0x7E, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFD, 0x10000, 0x3FFFF,
               0x40000, 0xFFFFF, 0x100000, 0x10FFFF]:
        text = json.dumps(chr(cp), ensure_ascii=False)
        assert dfa.matches(text.encode("utf-8")) == (cp not in (0x22, 0x5C)), hex(cp)


@pytest.mark.unit
def test_object_size_grows_quadratically_not_exponentially():
    def schema(n):
        return {"type": "object", "properties": {f"p{i}": {"type": "null"} for i in range(n)}}
    sizes = [len(json_schema_to_regex(schema(n))) for n in (8, 16, 32)]
    assert sizes[2] < 5 * sizes[1] < 25 * sizes[0]
    dfa = _dfa(schema(12))
    doc = "{" + ",".join(f'"p{i}":null' for i in range(0, 12, 3)) + "}"
    assert dfa.matches(doc.encode()) and check_document(schema(12), doc).ok


# the words of the reference's message for each refusal (its own vocabulary): the keyword
# itself (``keyword 'minLength' is not supported``) unless named here
NAMED_AS = {"unknown_required": "'b'", "unknown_required_string": "'b'", "type_list": "list of types",
            "empty_enum": "non-empty", "array_without_items": "items", "min_over_max": "minItems",
            "min_over_max_null": "minItems", "empty_schema": "empty schema", "const_of_another_type": "not of type",
            "enum_not_json": "not JSON", "ref": "not supported", "ref_defs_string": "not supported"}
NAMED_AS |= {r.name: "unknown type" for r in SCHEMA_REFUSALS if r.what.startswith("unknown type")}
REFUSED = [  # schema, JSON pointer named (None: one of two), words
    (r.schema, r.pointer, NAMED_AS.get(r.name) or r.pointer.rsplit("/", 1)[-1]) for r in SCHEMA_REFUSALS]
assert all(words for _, _, words in REFUSED)


@pytest.mark.boundary
@pytest.mark.parametrize("schema,pointer,words", REFUSED)
def test_json_schema_rejects_keywords_outside_the_subset(schema, pointer, words):
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex(schema)
    assert isinstance(info.value, ValueError)
    if pointer is None:  # two keywords outside the subset: naming either is right
        assert info.value.pointer in {f"/{key}" for key in schema if key not in SCHEMA_KEYWORDS}, str(info.value)
    else:
        assert info.value.pointer == pointer, str(info.value)
    assert words in str(info.value)


def test_schema_type_errors():
    with pytest.raises(TypeError):
        json_schema_to_regex('{"type":"null"}')
    with pytest.raises(ValueError, match="boolean schemas"):
        json_schema_to_regex(True)


def test_depth_is_bounded():
    schema = {"type": "null"}
    for _ in range(40):
        schema = {"type": "array", "items": schema}
    with pytest.raises(SchemaError, match="MAX_DEPTH"):
        json_schema_to_regex(schema)
