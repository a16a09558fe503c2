"""Wrong (spec pitfall 8, mutant s23): integers may have leading zeros (``[0-9]+``).
Must fail: test_json_schema_documents."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex

INTEGER = "-?(?:0|[1-9][0-9]*)"


def json_schema_to_regex(schema):
    pattern = _reference_json_schema_to_regex(schema)
    if INTEGER not in pattern and '"integer"' in str(schema).replace("'", '"'):
        raise AssertionError("the reference's integer pattern changed: update this candidate")
    return pattern.replace(INTEGER, "-?[0-9]+")
