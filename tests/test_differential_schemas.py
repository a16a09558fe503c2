"""Differential: a schema's DFA against the document oracle, both ways.

For a generated schema of the subset, ``regex_to_dfa(json_schema_to_regex(schema))``
is the language of compact, ordered, valid documents. Checked against
``oracles.stdlib.check_document`` (``json.loads``, a Draft 2020-12 validator,
compactness, property order):

- DFA to oracle: random walks of the DFA parse, validate, keep the schema's property
  order, and have no whitespace between tokens. (They need not be *Python's*
  spelling: ``"\\u0041"``, ``1E5`` and ``-0`` are in the language, so the oracle's
  strict ``compact`` is not asked of them.)
- oracle to DFA: documents valid by construction (Python's compact dump of a valid
  value) are accepted;
- mutated documents (one mutation each) get the oracle's verdict ``ok``: the DFA
  accepts exactly those the oracle calls parsed, valid, compact and ordered.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given, strategies as st

from oracles.automaton import json_schema_to_regex, regex_to_dfa
from oracles.stdlib import check_document
from strategies.schemas import documents, schemas
from strategies.strings import members

pytestmark = pytest.mark.property

TOOL = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                          "unit": {"enum": ["C", "F"]}},
        "required": ["city"], "additionalProperties": False}

_DFAS: dict[str, object] = {}


def schema_dfa(schema: dict):
    key = json.dumps(schema)
    if key not in _DFAS:
        _DFAS[key] = regex_to_dfa(json_schema_to_regex(schema))
    return _DFAS[key]


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def between_tokens(text: str) -> str:
    """The text with every string literal removed, e.g. '{"a b":1}' -> '{:1}'."""
    return _STRING.sub("", text)


@given(st.data())
def test_walks_of_a_schema_dfa_parse_validate_and_keep_order(data):
    schema = data.draw(schemas(), label="schema")
    walk = data.draw(members(schema_dfa(schema), max_size=24), label="walk")
    verdict = check_document(schema, walk)
    assert verdict.parses and verdict.valid and verdict.ordered, (walk, verdict.reason)
    assert not set(between_tokens(walk.decode("utf-8"))) & set(" \t\n\r"), walk


@given(st.data())
def test_valid_documents_match_the_schema_dfa(data):
    schema = data.draw(schemas(), label="schema")
    doc = data.draw(documents(schema), label="document")
    assert check_document(schema, doc).ok, check_document(schema, doc).reason
    assert schema_dfa(schema).matches(doc.encode("utf-8")), doc


@given(st.data())
def test_mutated_documents_get_the_document_oracles_verdict(data):
    schema = data.draw(schemas(), label="schema")
    doc = data.draw(documents(schema, valid=False), label="mutated document")
    verdict = check_document(schema, doc)
    assert schema_dfa(schema).matches(doc.encode("utf-8")) == verdict.ok, (doc, verdict)


@pytest.mark.unit
@pytest.mark.parametrize("doc", ['{"city":"Oslo"}', '{"city":"Oslo","days":3,"unit":"C"}', '{"days":3}',
                                 '{"city":"Oslo","unit":"C","days":3}', '{"city":"Oslo",}', '{"city": "Oslo"}',
                                 '{"city":"Oslo","days":"3"}', '{"city":"Oslo","days":03}'])
def test_tool_schema_documents_get_the_oracles_verdict(doc):
    assert schema_dfa(TOOL).matches(doc.encode()) == check_document(TOOL, doc).ok
