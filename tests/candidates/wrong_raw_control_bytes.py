"""Wrong (spec pitfall 8, mutant s15): JSON strings allow raw control bytes (0x00-0x1f),
which ``json.loads`` refuses. Must fail: test_json_schema_documents and
test_constrained_generation_parses (a generation writes a raw control byte into a string);
the 14 others pass. The honest twin of ``lies_about_generation_inputs.py``."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex

STRING_CHARACTER = r"[ !#-\[\]-~]"  # the reference's: printable ASCII but " and \


if STRING_CHARACTER not in _reference_json_schema_to_regex({"type": "string"}):
    raise AssertionError("the reference's string pattern changed: update this candidate")


def json_schema_to_regex(schema):
    return _reference_json_schema_to_regex(schema).replace(STRING_CHARACTER, r"[\x00-!#-\[\]-~]")
