"""oracles.tools.wire against Python's json module (the oracle of "Python's compact JSON")."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracles.tools import dumps, json_quote, loads_ordered, python_float
from oracles.tools.wire import MAX_DEPTH

finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20)


@pytest.mark.property
@given(json_values)
def test_dumps_is_pythons_compact_json(value):
    assert dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.property
@given(st.text())
def test_json_quote_is_pythons(s):
    assert json_quote(s) == json.dumps(s, ensure_ascii=False)


@pytest.mark.property
@given(finite)
def test_python_float_is_what_json_dumps_writes(x):
    assert python_float(x) == json.dumps(x)
    assert float(python_float(x)) == x and math.copysign(1, float(python_float(x))) == math.copysign(1, x)


@pytest.mark.unit
def test_python_float_hand_examples():
    assert [python_float(x) for x in (1.5e-05, 1e16, -0.0, 0.1, 2.5, 1e22)] == \
        ["1.5e-05", "1e+16", "-0.0", "0.1", "2.5", "1e+22"]
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            python_float(bad)


@pytest.mark.property
@given(json_values)
def test_loads_ordered_reads_back_what_dumps_wrote_in_order(value):
    text = json.dumps(value)
    got = loads_ordered(text)
    assert dumps(got) == dumps(json.loads(text))  # same values, same key order


@pytest.mark.boundary
@pytest.mark.parametrize("text, message", [
    ('{"a":1,"a":2}', "duplicate key 'a'"),
    ("NaN", "NaN is not JSON"),
    ("[Infinity]", "Infinity is not JSON"),
    ('{"a":', "not JSON"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "deeper than MAX_DEPTH"),
])
def test_loads_ordered_refuses_what_is_not_json(text, message):
    with pytest.raises(ValueError, match=message):
        loads_ordered(text)
    with pytest.raises(TypeError):
        loads_ordered(b"{}")


@pytest.mark.unit
def test_loads_ordered_keeps_key_order():
    assert list(loads_ordered('{"b":1,"a":{"z":1,"y":2}}')) == ["b", "a"]
    assert list(loads_ordered('{"b":1,"a":{"z":1,"y":2}}')["a"]) == ["z", "y"]
