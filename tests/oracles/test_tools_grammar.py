"""The grammar per tool_choice: each language holds exactly the calls it should, by the
automaton and by the derivative oracle; generated outputs parse and validate (jsonschema)."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from golden import cases as constrain_cases
from golden.tools_cases import CONFORMANCE_TOOLS, GRAMMAR_WITNESSES, GRAMMARS
from golden.walks import ReferenceWalker, walk
from oracles import derivatives
from oracles.automaton import regex_to_dfa
from oracles.tools import ToolParser, collect, grammar, json_object_regex, parse_tool_request

GRAMMAR = {name: grammar(parse_tool_request(body)) for name, body in GRAMMARS}
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in CONFORMANCE_TOOLS}


@pytest.mark.unit
@pytest.mark.parametrize("name", [n for n, _ in GRAMMARS])
def test_grammar_by_tool_choice(name):
    g = GRAMMAR[name]
    if name in ("none", "no_tools"):
        assert g is None  # free text
        return
    assert g.trigger == ("<tool_call>" if name == "auto" else None)
    dfa = regex_to_dfa(g.pattern)
    trans, accept = derivatives.canonical_dfa(g.pattern)
    assert np.array_equal(dfa.trans, trans) and np.array_equal(dfa.accept, accept)
    accepts, refuses = GRAMMAR_WITNESSES[name]
    for text in accepts:
        assert dfa.matches(text.encode()) and derivatives.matches(g.pattern, text.encode()), text
    for text in refuses:
        assert not dfa.matches(text.encode()) and not derivatives.matches(g.pattern, text.encode()), text


def _calls(text: str):
    parser = ToolParser("t")
    return collect(parser.push(text) + parser.finish())


@pytest.mark.unit
def test_a_named_choice_allows_only_that_function():
    """The shortlex-least text that ``required`` allows and named ``get_weather`` does not
    is a call of the other tool: the named language is exactly the get_weather calls."""
    witness = derivatives.difference(GRAMMAR["named_get_weather"].pattern, GRAMMAR["required_single"].pattern)
    assert witness is not None
    assert not derivatives.matches(GRAMMAR["named_get_weather"].pattern, witness)
    content, calls = _calls(witness.decode())
    assert content is None and [c.name for c in calls] == ["get_forecast"]


@pytest.mark.unit
def test_auto_after_its_trigger_is_one_call_of_any_tool():
    assert derivatives.difference("<tool_call>" + GRAMMAR["auto"].pattern, GRAMMAR["required_single"].pattern) is None


@pytest.mark.unit
def test_parallel_off_is_one_call_and_on_is_one_to_four():
    single, parallel = GRAMMAR["required_single"].pattern, GRAMMAR["required_parallel"].pattern
    extra = derivatives.difference(single, parallel)  # in parallel only: the shortest two calls
    assert extra is not None and len(_calls(extra.decode())[1]) == 2
    four = "\n".join(['<tool_call>{"name":"get_weather","arguments":{"city":""}}</tool_call>'] * 4)
    assert derivatives.matches(parallel, four.encode())
    assert not derivatives.matches(parallel, (four + "\n" + four[:77]).encode())


def _walk_texts(pattern: str, seeds: int):
    vocab, eos = constrain_cases.CONSTRAIN_VOCAB, constrain_cases.CONSTRAIN_EOS
    from oracles import automaton

    walker = ReferenceWalker(automaton, pattern, vocab, eos)
    for k in range(seeds):
        path = walk(walker, eos, [4242, k], budget=(8, 40, 160)[k % 3], limit=600)
        assert path.ended == "eos", (k, path.ended)
        yield path.text.decode("utf-8")


@pytest.mark.property
@pytest.mark.parametrize("name, calls", [("named_get_weather", (1, 1)), ("required_single", (1, 1)),
                                         ("required_parallel", (1, 4)), ("auto", (1, 1))])
def test_outputs_generated_under_each_grammar_parse_and_validate(name, calls):
    g = GRAMMAR[name]
    counts = set()
    for text in _walk_texts(g.pattern, 9):
        content, got = _calls((g.trigger or "") + text)
        assert content is None and calls[0] <= len(got) <= calls[1], text
        counts.add(len(got))
        for call in got:
            assert name != "named_get_weather" or call.name == "get_weather"
            jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])
    assert name != "required_parallel" or len(counts) > 1  # the walks do reach several calls


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@pytest.mark.property
def test_json_object_outputs_parse_as_objects_nested_at_most_three():
    for text in _walk_texts(GRAMMAR["none_json_object"].pattern, 6):
        value = json.loads(text)
        assert isinstance(value, dict) and _depth(value) <= 3


strings = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f"), max_size=4)
values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | strings,
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strings, inner, max_size=3),
                      max_leaves=10)
JSON_OBJECT_2 = regex_to_dfa(json_object_regex(2))


@pytest.mark.property
@given(values)
def test_json_object_regex_is_the_objects_up_to_its_depth(value):
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    want = isinstance(value, dict) and _depth(value) <= 2
    assert JSON_OBJECT_2.matches(text) == want
    assert derivatives.matches(json_object_regex(2), text) == want


@pytest.mark.boundary
@pytest.mark.parametrize("depth, error", [(0, ValueError), (5, ValueError), (True, TypeError), ("3", TypeError)])
def test_json_object_regex_refuses_depths_outside_its_bound(depth, error):
    with pytest.raises(error):
        json_object_regex(depth)


@pytest.mark.unit
def test_a_hand_built_request_gets_the_same_grammar():
    from oracles.tools import Tool, ToolChoice, ToolRequest

    parsed = parse_tool_request(GRAMMARS[0][1])
    by_hand = ToolRequest([Tool(t.name, t.description, t.parameters) for t in parsed.tools],
                          ToolChoice.named("get_weather"), "text", True)
    assert grammar(by_hand) == grammar(parsed)
