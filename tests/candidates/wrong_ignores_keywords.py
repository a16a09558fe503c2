"""Wrong (spec pitfall 11, mutant s25): keywords outside the subset are dropped instead of
refused. Must fail: test_json_schema_rejects_keywords_outside_the_subset."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex

DROPPED = {"pattern", "maxLength", "minLength", "format", "minimum", "uniqueItems", "x-unknown"}


def _strip(schema):
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k not in DROPPED}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def json_schema_to_regex(schema):
    return _reference_json_schema_to_regex(_strip(schema))
