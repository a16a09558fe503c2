"""Misbehaves: spins forever in one catalogue test of each half of a check (the twin's
split, ``harness.suite.twin``): ``regex_to_dfa`` on ``(ca[rt]|dog)s{0,1}`` (only
test_canonical_form builds it) and ``json_schema_to_regex`` on a schema with a
``pattern`` keyword (only test_json_schema_rejects_keywords_outside_the_subset gives one).
Expected: those two tests get the verdict ``timeout``; the others still run, each half's
candidate restarted after its timeout."""

import json

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    while pattern == "(ca[rt]|dog)s{0,1}":
        pass
    return _reference_regex_to_dfa(pattern)


def json_schema_to_regex(schema):
    while '"pattern"' in json.dumps(schema):
        pass
    return _reference_json_schema_to_regex(schema)
