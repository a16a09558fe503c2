"""Three tests of one enum with a non-ASCII value, each written to one reading of the spec's
"compact JSON" (spec 000 section 2.5): the literal ``json.dumps(v, separators=(",", ":"))`` call
(``ensure_ascii``: ``\\u00e9``), raw UTF-8 (spec 002's "raw non-ASCII"), and Latin-1 bytes, which
neither reading allows. grade-tests rules the first two valid, each under its reading, and the
third invalid (``tests/test_grade_tests_readings.py``)."""

import json

from tinyllm.infer import constrain


def _enum_matches(data: bytes) -> bool:
    return constrain.regex_to_dfa(constrain.json_schema_to_regex({"enum": ["é"]})).matches(data)


def test_enum_value_is_written_as_the_literal_json_dumps_call():
    assert _enum_matches(json.dumps("é", separators=(",", ":")).encode())  # b'"\\u00e9"'


def test_enum_value_is_written_as_raw_utf8():
    assert _enum_matches(json.dumps("é", separators=(",", ":"), ensure_ascii=False).encode())  # b'"\xc3\xa9"'


def test_enum_value_is_written_in_latin1():
    assert _enum_matches('"é"'.encode("latin-1"))  # b'"\xe9"': no reading writes this
