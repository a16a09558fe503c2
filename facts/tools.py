"""The tool schemas of the specs' examples and spec 002's streamed call, written once.

- ``WEATHER_PARAMETERS``: spec 002 section 3, "A schema": the conformance tool's
  parameters, one required string ``city`` (the tool is ``get_weather``).
- ``FORECAST_PARAMETERS``: spec 000 section 1's ``{"city": "Oslo", "days": 3}`` as a
  schema: required ``city`` and ``days``, an optional ``units`` enum ``c``/``f``;
  the tool ``get_forecast`` of the golden file and the benchmarks' tool schema.
- ``HAND_STREAM``: spec 002 section 3, "A streamed call": the request id and the
  four pieces of test ``parser_hand_example``.

Guarantees: plain JSON data whose key order is the order given (property order is
part of the language). Shared objects: never change them in place; take
``copy.deepcopy`` first (``golden/`` serializes them, so an edit would change the
golden files).

Example::

    >>> import json; json.dumps(WEATHER_PARAMETERS, separators=(",", ":"))
    '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}'
"""

from __future__ import annotations

WEATHER_TOOL_NAME = "get_weather"
WEATHER_PARAMETERS: dict = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

FORECAST_TOOL_NAME = "get_forecast"
FORECAST_PARAMETERS: dict = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "units": {"enum": ["c", "f"]}},
    "required": ["city", "days"],
}

# (request id, pieces): folded, content "Sure." and one call get_weather {"city":"Paris"}
HAND_STREAM_REQUEST_ID = "req7"
HAND_STREAM_PIECES: tuple[str, ...] = (
    'Sure.<tool_', 'call>{"name":"get_weather","argu', 'ments":{"city":"Pa', 'ris"}}</tool_call>',
)
