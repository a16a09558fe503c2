"""Wrong (mutants ``schema.RemoveStatement.30`` and ``.57``): a lone surrogate in a schema's
value or property name is read as ``?`` instead of refused (a str holding one has no JSON
text: the contract's ``malformed_schema_valueerror``). Must fail, behind the wall:
``test_deep_malformed_schemas_are_refused`` under ``--strict`` (``tests/suite/test_deep_wall.py``)."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex


def _mended(value):
    """``value`` with every lone surrogate of its strs (keys too) written as ``?``."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mended(v) for v in value]
    return value


def json_schema_to_regex(schema):
    return _reference_json_schema_to_regex(_mended(schema))
