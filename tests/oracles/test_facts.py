"""The shared facts (``facts/``) checked against the oracles that can answer for them:
Python's ``re`` and the ``regex`` module's partial matching for the hand example,
``jsonschema`` for the tool schemas, Python's parser and the derivative oracle for the
refusal table. A typo in a fact fails here, not as a puzzling failure elsewhere."""

from __future__ import annotations

import json
import re
import sys

import jsonschema
import pytest

from facts import constructs, hand, tools
from oracles import derivatives
from oracles.stdlib import fullmatch, partial_match
from tests.support.helpers import python_refusal

PY311 = sys.version_info >= (3, 11)


# --- the hand example: spec 000 section 3 --------------------------------------------


@pytest.mark.unit
def test_hand_table_is_the_language_of_the_pattern():
    """Each state's text reaches it; its live edges are exactly the bytes that keep the
    text a prefix of a match (regex partial); it accepts iff re.fullmatch matches."""
    trans = hand.hand_trans()
    for state, text in hand.HAND_TEXT.items():
        reached = 0
        for byte in text:
            reached = int(trans[reached, byte])
        assert reached == state, text
        live = {chr(b) for b in range(256) if partial_match(hand.HAND_PATTERN, text + bytes([b]))}
        assert live == set(hand.HAND_EDGES[state]), state
        assert hand.HAND_ACCEPT[state] == fullmatch(hand.HAND_PATTERN, text)
    assert len(hand.HAND_EDGES) == len(hand.HAND_ACCEPT) == hand.HAND_N_STATES == 7
    assert len(hand.hand_edge_triples()) == 8  # "eight live edges" (spec 002 section 3)


@pytest.mark.unit
def test_hand_masks_are_the_definition():
    """A token is allowed iff its bytes keep the text a prefix of a match; EOS iff the text
    matches; the special (EOS's bytes) and the empty token never."""
    assert hand.HAND_VOCAB[hand.HAND_EOS] is None and hand.HAND_VOCAB[14] == b"" and len(hand.HAND_VOCAB) == 15
    for state, allowed in hand.HAND_MASKS.items():
        text = hand.HAND_TEXT[state]
        want = {t for t, token in enumerate(hand.HAND_VOCAB)
                if token and partial_match(hand.HAND_PATTERN, text + token)}
        if fullmatch(hand.HAND_PATTERN, text):
            want.add(hand.HAND_EOS)
        assert set(allowed) == want, state


@pytest.mark.unit
def test_the_sampling_example():
    """002 section 3: in state 0 only ``a`` walks live, although ``c`` has the largest logit."""
    assert hand.SAMPLE_VOCAB[hand.SAMPLE_EOS] is None
    live = [t for t, token in enumerate(hand.SAMPLE_VOCAB) if token and partial_match(hand.SAMPLE_PATTERN, token)]
    assert live == [0] and max(hand.SAMPLE_LOGITS) == hand.SAMPLE_LOGITS[2]


# --- the tool schemas: spec 002 section 3, spec 000 section 1 -------------------------


@pytest.mark.unit
def test_tool_schemas_mean_what_the_specs_say():
    weather = jsonschema.Draft202012Validator(tools.WEATHER_PARAMETERS)
    assert weather.is_valid({"city": "Paris"}) and not weather.is_valid({}) and not weather.is_valid({"city": 3})
    forecast = jsonschema.Draft202012Validator(tools.FORECAST_PARAMETERS)
    assert forecast.is_valid({"city": "Oslo", "days": 3})  # spec 000 section 1's example
    assert not forecast.is_valid({"city": "Oslo", "days": "three"}) and not forecast.is_valid({"city": "Oslo"})
    assert list(tools.FORECAST_PARAMETERS["properties"]) == ["city", "days", "units"]  # order is language


@pytest.mark.unit
def test_the_streamed_call_folds_to_one_get_weather_call():
    text = "".join(tools.HAND_STREAM_PIECES)
    content, _, rest = text.partition("<tool_call>")
    call = json.loads(rest.removesuffix("</tool_call>"))
    assert content == "Sure." and call["name"] == tools.WEATHER_TOOL_NAME
    jsonschema.validate(call["arguments"], tools.WEATHER_PARAMETERS)
    assert call["arguments"] == {"city": "Paris"}


# --- the refusal table -----------------------------------------------------------------


def _python_refuses(pattern: str) -> bool:
    return python_refusal(pattern) is not None


@pytest.mark.boundary
@pytest.mark.parametrize("row", constructs.REGEX_REFUSALS, ids=lambda r: r.pattern)
def test_each_regex_refusal_is_of_its_kind(row):
    """malformed iff Python's re refuses it (Python 3.11+ syntax aside); an empty language is
    empty for the derivative oracle; a repeat over the cap has a bound over 1000."""
    assert row.kind in constructs.KINDS and set(row.listed) <= set(constructs.LISTS)
    assert 0 <= row.offset < len(row.pattern)
    newer_syntax = not PY311 and row.construct in ("possessive quantifier", "atomic group")
    assert _python_refuses(row.pattern) == (row.kind == "malformed" or newer_syntax)
    if row.kind == "empty":
        assert derivatives.is_empty(row.pattern)
    if row.kind == "too large":
        assert max(int(n) for n in re.findall(r"\d+", row.pattern)) > 1000


@pytest.mark.boundary
def test_the_lists_of_the_specs():
    patterns = [r.pattern for r in constructs.REGEX_REFUSALS]
    names = [r.name for r in constructs.SCHEMA_REFUSALS]
    assert len(set(patterns)) == len(patterns) and len(set(names)) == len(names)
    assert (len(constructs.regex_refusals("port")), len(constructs.schema_refusals("port"))) == (15, 11)
    categories = {r.construct for r in constructs.regex_refusals("port", "l87")}
    assert constructs.SPEC_REGEX_CATEGORIES <= categories
    assert constructs.SPEC_SCHEMA_CATEGORIES <= {r.name for r in constructs.schema_refusals("port")}
    with pytest.raises(ValueError, match="unknown lists"):
        constructs.regex_refusals("l88")


@pytest.mark.boundary
@pytest.mark.parametrize("row", constructs.SCHEMA_REFUSALS, ids=lambda r: r.name)
def test_each_schema_refusal_points_into_its_schema(row):
    """The pointer leads to a member of the schema (RFC 6901); None only where two keywords
    outside the subset stand side by side."""
    if row.pointer is None:
        assert len(set(row.schema) - constructs.SCHEMA_KEYWORDS) == 2
        return
    node = row.schema
    for part in row.pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]  # a KeyError is a wrong pointer
