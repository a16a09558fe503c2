"""The reference server and its deliberately broken variants, for testing ``conform``.

A ``Variant`` is where a server can go wrong on the wire; the reference (``Variant``
itself) changes nothing. Each broken variant breaks exactly one rule, the one a
conformance case checks (and the spec's pitfall it mirrors):

=====================  ===============================================  ==============
variant                what it does                                     breaks
=====================  ===============================================  ==============
``content-empty``      ``content: ""`` beside tool_calls (s16)          tools.call
``markup-leak``        a partial ``<tool_`` in the content before       tools.stream (and
                       every call (s15)                                 tools.cutoff*)
``fragments-dropped``  streams only each call's first arguments         tools.stream
                       fragment (s14)
``wrong-tool``         a named tool_choice calls another tool of the    tools.call
                       request (s13)
``wrong-status``       tool-field errors with 400 and 422 swapped       tools.errors
``plain-text-errors``  tool-field errors as text/plain, not JSON        tools.errors
``cut-leak``           a cut answer (max_tokens) releases held markup   tools.cutoff
                       as content and can say tool_calls (issue 24)
``cut-leak-stream``    the same in streams only                         tools.cutoff_stream
``usage-ignored``      ignores ``stream_options.include_usage``         stream.usage
=====================  ===============================================  ==============

Hooks, each an identity in the reference: ``body(text)`` (the raw request body),
``event_filter(streamed)`` (a stateful function over each batch of parser events),
``message(dict)`` (the non-streamed assistant message), ``error(ToolError)`` (the
HTTP error answer), ``withhold_on_cut(streamed)`` (True: a cut answer drops the held
markup) and ``include_usage(requested)``.

Example::

    VARIANTS["content-empty"]().message({"role": "assistant", "content": None, "tool_calls": [...]})
    # {"role": "assistant", "content": "", "tool_calls": [...]}
"""

from __future__ import annotations

import json
from typing import Callable

from starlette.responses import PlainTextResponse, Response

from oracles.tools import Arguments, CallStart, Content, ToolError


def error_response(error: ToolError) -> Response:
    """The OpenAI error shape with the error's status (the reference's answer)."""
    return Response(error.to_json(), status_code=error.status, media_type="application/json")


class Variant:
    """The reference: every hook is the identity (see the module docstring)."""

    name = "reference"
    breaks = ""
    also_breaks: tuple[str, ...] = ()
    """Other cases that check the broken rule in another situation (e.g. on a cut answer)."""

    def body(self, text: str) -> str:
        return text

    def event_filter(self, streamed: bool) -> Callable[[list], list]:
        return lambda events: events

    def message(self, message: dict) -> dict:
        return message

    def error(self, error: ToolError) -> Response:
        return error_response(error)

    def withhold_on_cut(self, streamed: bool) -> bool:
        """Whether a cut answer drops the parser's held text (and says finish_reason length)."""
        return True

    def include_usage(self, requested: bool) -> bool:
        """Whether a stream ends with the usage chunk (``stream_options.include_usage``)."""
        return requested


class ContentEmpty(Variant):
    name, breaks = "content-empty", "tools.call"

    def message(self, message: dict) -> dict:
        if message.get("tool_calls") and message.get("content") is None:
            message = dict(message, content="")
        return message


class MarkupLeak(Variant):
    name, breaks = "markup-leak", "tools.stream"
    also_breaks = ("tools.cutoff", "tools.cutoff_stream")  # they check for markup in the content too

    def event_filter(self, streamed: bool) -> Callable[[list], list]:
        def leak(events: list) -> list:
            out = []
            for event in events:
                if isinstance(event, CallStart):
                    out.append(Content("<tool_"))
                out.append(event)
            return out
        return leak


class FragmentsDropped(Variant):
    name, breaks = "fragments-dropped", "tools.stream"

    def event_filter(self, streamed: bool) -> Callable[[list], list]:
        if not streamed:
            return super().event_filter(streamed)
        seen: set[int] = set()

        def drop(events: list) -> list:
            out = []
            for event in events:
                if isinstance(event, Arguments):
                    if event.index in seen:
                        continue
                    seen.add(event.index)
                out.append(event)
            return out
        return drop


class WrongTool(Variant):
    name, breaks = "wrong-tool", "tools.call"

    def body(self, text: str) -> str:
        try:
            doc = json.loads(text)
            choice = doc["tool_choice"]["function"]["name"]
            others = [t["function"]["name"] for t in doc["tools"] if t["function"]["name"] != choice]
        except (ValueError, KeyError, TypeError):
            return text
        if not others or choice not in [t["function"]["name"] for t in doc["tools"]]:
            return text
        doc["tool_choice"]["function"]["name"] = others[0]
        return json.dumps(doc)


class WrongStatus(Variant):
    name, breaks = "wrong-status", "tools.errors"

    def error(self, error: ToolError) -> Response:
        status = {400: 422, 422: 400}.get(error.status, error.status)
        return Response(error.to_json(), status_code=status, media_type="application/json")


class PlainTextErrors(Variant):
    name, breaks = "plain-text-errors", "tools.errors"

    def error(self, error: ToolError) -> Response:
        return PlainTextResponse(f"error: {error.message}", status_code=error.status)


class CutLeak(Variant):
    """A cut answer releases the held markup as content and reports tool_calls when
    a call was made before the cut (the reference's behaviour before issue 24)."""

    name, breaks = "cut-leak", "tools.cutoff"

    def withhold_on_cut(self, streamed: bool) -> bool:
        return streamed


class CutLeakStream(CutLeak):
    name, breaks = "cut-leak-stream", "tools.cutoff_stream"

    def withhold_on_cut(self, streamed: bool) -> bool:
        return not streamed


class UsageIgnored(Variant):
    name, breaks = "usage-ignored", "stream.usage"

    def include_usage(self, requested: bool) -> bool:
        return False


VARIANTS: dict[str, type[Variant]] = {v.name: v for v in (
    Variant, ContentEmpty, MarkupLeak, FragmentsDropped, WrongTool, WrongStatus, PlainTextErrors, CutLeak,
    CutLeakStream, UsageIgnored)}
"""Every variant by name; ``reference`` is the correct server."""
