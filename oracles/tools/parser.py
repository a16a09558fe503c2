"""The streaming tool-call parser and the OpenAI shapes of its answer (the spec's section 2.5).

``ToolParser(request_id)`` reads the model's text piece by piece (``push(piece)``,
then ``finish()``) and returns events as soon as they are certain:

- ``Content(text)``: user-visible text;
- ``CallStart(index, id, name)``: call ``index`` (0, 1, ...) of function ``name``,
  ``id = call_<request id>_<index>``;
- ``Arguments(index, fragment)``: the next piece of that call's arguments text.

State machine (one mode at a time)::

    TEXT    emit text; hold back only a suffix that could start <tool_call>
            (e.g. "a<tool_" holds "<tool_", "a<b" holds nothing)
    HEADER  after <tool_call>: wait for {"name":"...","arguments": and the { of the
            arguments (JSON whitespace allowed between the tokens); then CallStart.
            Text that cannot be a header turns the opener back into content.
    ARGS    pass every piece on as Arguments, tracking brace depth and string
            escapes, until the arguments object closes
    CLOSE   consume } and </tool_call> (whitespace allowed); then TEXT

Guarantees (``tests/oracles/test_tools_parser.py`` checks each, the first two as Hypothesis
properties over arbitrary text):

- split invariance: however the text is cut into pieces, ``collect`` of the events
  is the same;
- nothing is lost: every character of the input is in a ``Content``, an
  ``Arguments`` fragment, or the markup of a call (the opener, the header, the
  closing ``}`` and ``</tool_call>``, whitespace around them, and whitespace between
  two calls or after the last one, which separates them; whitespace after a call
  followed by anything else, even a false opener, is content);
- no markup in content: the opener of a call whose header follows never reaches
  ``Content``; a partial opener is held back, and released as content when the text
  shows it is not one (or at ``finish()``);
- an unterminated call at ``finish()`` keeps the fragments already streamed, and
  ``incomplete`` names its index (its arguments are then not valid JSON; the engine's
  finish reason, e.g. ``length``, says why); an opener without a header at
  ``finish()`` is content; a stream that ends after a call's arguments closed, before
  or inside its ``}</tool_call>``, ends a whole call (what it wrote of the closer is
  markup).

Bounds: a header not complete within the first ``MAX_HEADER`` characters after the
opener is not markup (the opener becomes content), and text after the arguments
that does not complete ``}</tool_call>`` within ``MAX_CLOSE`` characters is
content; both are decided on those first characters alone, so splits cannot change them.

Example (the spec's section 3)::

    >>> p = ToolParser("req7")
    >>> [e for piece in ['Sure.<tool_', 'call>{"name":"get_weather","argu',
    ...                  'ments":{"city":"Pa', 'ris"}}</tool_call>'] for e in p.push(piece)] + p.finish()
    [Content(text='Sure.'), CallStart(index=0, id='call_req7_0', name='get_weather'), \
Arguments(index=0, fragment='{"city":"Pa'), Arguments(index=0, fragment='ris"}')]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .grammar import CLOSER, TRIGGER
from .wire import dumps

OPENER = TRIGGER
MAX_HEADER = 1024
"""Characters after ``<tool_call>`` within which the header must be complete."""
MAX_CLOSE = 256
"""Characters after the arguments within which ``}</tool_call>`` must be complete."""
WHITESPACE = " \t\n\r"

TEXT, HEADER, ARGS, CLOSE, DONE = "text", "header", "args", "close", "done"
_STRUCT = re.compile(r'[{}"]')
_IN_STRING = re.compile(r'["\\]')
_STRING = object()  # a header token: a JSON string (the function name)
_HEADER_TOKENS = ("{", '"name"', ":", _STRING, ",", '"arguments"', ":", "{")
_CLOSE_TOKENS = ("}", CLOSER)


@dataclass(frozen=True)
class Content:
    text: str


@dataclass(frozen=True)
class CallStart:
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class Arguments:
    index: int
    fragment: str


def _content(text: str, _new=object.__new__) -> Content:
    """``Content(text)`` for the hot paths: a frozen dataclass's ``__init__`` sets each
    field through ``object.__setattr__`` (about twice the cost); this fills the instance
    dict directly and gives an equal, equally hashed object (``tests/oracles/test_tools_parser.py``)."""
    event = _new(Content)
    event.__dict__["text"] = text
    return event


def _arguments(index: int, fragment: str, _new=object.__new__) -> Arguments:
    """``Arguments(index, fragment)`` for the hot paths (see ``_content``)."""
    event = _new(Arguments)
    fields = event.__dict__
    fields["index"] = index
    fields["fragment"] = fragment
    return event


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str


def match_tokens(text: str, tokens, k: int = 0, pos: int = 0, string: str | None = None):
    """Match ``tokens[k:]`` (literals, or ``_STRING``) in ``text`` from ``pos``, with JSON
    whitespace between them; the last token is matched but not consumed. Returns
    ``(status, pos, string, k)``: ``"ok"`` with ``pos`` where the last token starts and
    ``string`` the decoded ``_STRING``; ``"more"`` when ``text`` is a prefix of a match,
    with ``(pos, string, k)`` the point to resume from once more text arrives (the
    start of the first incomplete token); or ``"bad"``. E.g.
    ``match_tokens('} </tool_call>', _CLOSE_TOKENS)[:2] == ("ok", 2)``."""
    n, last = len(text), len(tokens) - 1
    while True:
        while pos < n and text[pos] in WHITESPACE:
            pos += 1
        if pos == n:
            return ("more", pos, string, k)
        token = tokens[k]
        if token is _STRING:
            status, end, value = _match_string(text, pos)
            if status != "ok":
                return (status, pos, string, k)
            pos, string, k = end, value, k + 1
            continue
        if text.startswith(token, pos):
            if k == last:
                return ("ok", pos, string, k)
            pos, k = pos + len(token), k + 1
        elif token.startswith(text[pos:]):
            return ("more", pos, string, k)
        else:
            return ("bad", pos, string, k)


def _match_string(text: str, pos: int) -> tuple[str, int, str | None]:
    """A JSON string literal at ``pos``: ``("ok", end, value)``, ``"more"`` or ``"bad"``."""
    if text[pos] != '"':
        return ("bad", 0, None)
    i = pos + 1
    while True:
        m = _IN_STRING.search(text, i)
        if m is None:
            return ("more", 0, None)
        if text[m.start()] == "\\":
            i = m.start() + 2
            if i > len(text):
                return ("more", 0, None)
            continue
        end = m.start() + 1
        try:
            value = json.loads(text[pos:end])
            value.encode("utf-8")  # a lone surrogate (\\ud800) is no name
            return ("ok", end, value)
        except ValueError:  # a raw control character or a broken escape: not a header
            return ("bad", 0, None)


class ToolParser:
    """See the module docstring. ``incomplete`` is the index of a call left unterminated
    at ``finish()`` (else ``None``); ``calls`` counts the calls started so far."""

    def __init__(self, request_id: str):
        if not isinstance(request_id, str):
            raise TypeError(f"request_id must be a str, not {type(request_id).__name__}")
        self.request_id = request_id
        self.calls = 0
        self.incomplete: int | None = None
        self._mode = TEXT
        self._held = ""           # TEXT: a partial opener (after a call: after the gap); HEADER/CLOSE: text so far
        self._after_call = False  # TEXT: only whitespace (``_gap``), maybe then a partial opener, since a call closed
        self._gap: list[str] = []  # TEXT after a call: the whitespace so far, piece by piece (joined once: linear)
        self._depth = 0           # ARGS: brace depth outside strings
        self._in_string = False
        self._escaped = False     # ARGS: the piece ended right after a backslash in a string
        self._resume = (0, 0, None)  # HEADER: (token, position, name) where the match resumes
        self._separator = ""      # HEADER: whitespace after a call before this opener (content if no header)

    def push(self, piece: str) -> list:
        """The events ``piece`` makes certain (see the module docstring)."""
        if type(piece) is not str:
            raise TypeError(f"a piece must be a str, not {type(piece).__name__}")
        mode = self._mode
        if mode is TEXT and not self._held and not self._after_call and "<" not in piece:
            return [_content(piece)] if piece else []  # the common case: plain text
        if not piece and mode is not DONE:
            return []  # nothing new: no state changes (an escape or a held suffix waits for the next piece)
        events: list = []
        if mode is ARGS:  # never holds text
            if not self._escaped and ('"' not in piece and "\\" not in piece if self._in_string
                                      else '"' not in piece and "{" not in piece and "}" not in piece):
                return [_arguments(self.calls - 1, piece)] if piece else []  # nothing that changes the scan
            text = self._args(piece, events)
        elif mode is DONE:
            raise ValueError("push() after finish(): a ToolParser reads one answer")
        elif mode is TEXT and self._after_call:
            text = self._after_gap(piece)
        else:
            text = self._held + piece
            self._held = ""
        while text:
            text = self._STEP[self._mode](self, text, events)
        return events

    def finish(self) -> list:
        """The events of the held text at the end of the answer."""
        if self._mode is DONE:
            return []
        events: list = []
        held, mode = self._held, self._mode
        if mode is TEXT and held:  # a partial opener (after a call's gap: the gap is content too)
            events.append(Content("".join(self._gap) + held if self._after_call else held))
        elif mode is HEADER:
            events.append(Content(self._separator + OPENER + held))
        elif mode is ARGS:
            self.incomplete = self.calls - 1
        self._mode, self._held, self._gap = DONE, "", []
        return events

    # --- one step per mode: consume from ``text``, append events, return the rest -------

    def _after_gap(self, piece: str) -> str:
        """TEXT after a call: add ``piece``'s leading whitespace to the gap (O(len(piece)),
        never re-reading the gap, so whitespace pushed byte by byte stays linear) and
        return the text to scan once something else arrives ("" while undecided).
        The gap is markup when another call's opener follows, else content."""
        if not self._held:
            rest = piece.lstrip(WHITESPACE)
            if len(rest) < len(piece):
                self._gap.append(piece[:len(piece) - len(rest)])
            piece = rest
            if not piece:
                return ""
        text = self._held + piece
        self._held = ""
        if OPENER.startswith(text) and len(text) < len(OPENER):
            self._held = text  # maybe another call's opener: wait
            return ""
        gap = "".join(self._gap)
        self._after_call, self._gap = False, []
        if text.startswith(OPENER):  # whitespace between two calls, if a header follows
            self._separator = gap
            return text
        return gap + text

    def _text(self, text: str, events: list) -> str:
        k = text.find(OPENER)
        if k >= 0:
            if k:
                events.append(_content(text[:k]))
            self._mode = HEADER
            return text[k + len(OPENER):]
        cut = text.rfind("<", max(0, len(text) - len(OPENER) + 1))
        if cut >= 0 and OPENER.startswith(text[cut:]):
            self._held = text[cut:]
            text = text[:cut]
        if text:
            events.append(_content(text))
        return ""

    def _header(self, text: str, events: list) -> str:
        head = text if len(text) <= MAX_HEADER else text[:MAX_HEADER]
        status, end, name, k = match_tokens(head, _HEADER_TOKENS, *self._resume)
        if status == "more" and len(text) < MAX_HEADER:  # decided on the first MAX_HEADER only: split-invariant
            self._held, self._resume = text, (k, end, name)
            return ""
        self._resume = (0, 0, None)
        separator, self._separator = self._separator, ""
        if status != "ok" or not isinstance(name, str):
            events.append(Content(separator + OPENER))  # not a call after all: the opener was text
            self._mode = TEXT
            return text
        index = self.calls
        self.calls += 1
        events.append(CallStart(index, f"call_{self.request_id}_{index}", name))
        self._mode, self._depth, self._in_string, self._escaped = ARGS, 0, False, False
        return text[end:]

    def _args(self, text: str, events: list) -> str:
        """Scan for the brace that closes the arguments: strings skipped (a backslash
        escapes the next character, even across pieces), braces counted outside them."""
        i, n, end = 0, len(text), None
        if self._escaped and n:  # the character after a piece-final backslash: skipped
            self._escaped, i = False, 1
        in_string, depth, stop, search = self._in_string, self._depth, _IN_STRING.search, _STRUCT.search
        while i < n:
            if in_string:
                m = stop(text, i)
                if m is None:
                    break
                i = m.end()
                if text[i - 1] == "\\":
                    i += 1  # e.g. \" inside a string: not its end
                    self._escaped = i > n
                else:
                    in_string = False
                continue
            m = search(text, i)
            if m is None:
                break
            i = m.end()
            ch = text[i - 1]
            if ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    end = i
                    break
        self._in_string, self._depth = in_string, depth
        fragment = text if end is None else text[:end]
        if fragment:
            events.append(_arguments(self.calls - 1, fragment))
        if end is None:
            return ""
        self._mode = CLOSE
        return text[end:]

    def _close(self, text: str, events: list) -> str:
        status, end, _, _ = match_tokens(text[:MAX_CLOSE], _CLOSE_TOKENS)
        if status == "more" and len(text) < MAX_CLOSE:
            self._held = text
            return ""
        self._mode = TEXT
        if status != "ok":
            return text  # the call is whole; what follows it is text
        self._after_call, self._gap = True, []
        return self._after_gap(text[end + len(CLOSER):])

    _STEP = {TEXT: _text, HEADER: _header, ARGS: _args, CLOSE: _close}


# --- the answer's OpenAI shapes ---------------------------------------------------------

def collect(events) -> tuple[str | None, list[ToolCall]]:
    """Fold events into ``(content, calls)``: content ``None`` when there was none;
    each call's arguments are its fragments joined."""
    content: list[str] = []
    calls: list[list] = []
    for event in events:
        if isinstance(event, Content):
            content.append(event.text)
        elif isinstance(event, CallStart):
            if event.index != len(calls):
                raise ValueError(f"CallStart index {event.index} out of order (expected {len(calls)})")
            calls.append([event.id, event.name, []])
        elif isinstance(event, Arguments):
            if not 0 <= event.index < len(calls):
                raise ValueError(f"Arguments for call {event.index}, which has not started")
            calls[event.index][2].append(event.fragment)
        else:
            raise TypeError(f"not a tool event: {type(event).__name__}")
    text = "".join(content)
    return (text or None), [ToolCall(i, n, "".join(a)) for i, n, a in calls]


def finish_reason(calls, engine: str) -> str:
    """``"tool_calls"`` when any call was made (``calls``: a count or a list of calls),
    else the engine's own reason (``"stop"``, ``"length"``)."""
    count = calls if isinstance(calls, int) and not isinstance(calls, bool) else len(calls)
    return "tool_calls" if count > 0 else engine


def _call_record(call: ToolCall) -> dict:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def message_json(content: str | None, calls) -> str:
    """The assistant message: ``{"role":"assistant","content":...,"tool_calls":[...]}``;
    content is ``null`` when there is no text (never ``""`` beside tool_calls, which
    clients read as a text turn); no ``tool_calls`` key without calls."""
    if calls and not content:
        content = None
    message: dict = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [_call_record(c) for c in calls]
    return dumps(message)


def delta_json(event) -> str:
    """One stream chunk's ``delta``: ``{"content":...}``; at a call's start
    ``{"tool_calls":[{"index":i,"id":...,"type":"function","function":{"name":...,"arguments":""}}]}``;
    then ``{"tool_calls":[{"index":i,"function":{"arguments":"<fragment>"}}]}``."""
    if isinstance(event, Content):
        return dumps({"content": event.text})
    if isinstance(event, CallStart):
        return dumps({"tool_calls": [{"index": event.index, "id": event.id, "type": "function",
                                      "function": {"name": event.name, "arguments": ""}}]})
    if isinstance(event, Arguments):
        return dumps({"tool_calls": [{"index": event.index, "function": {"arguments": event.fragment}}]})
    raise TypeError(f"not a tool event: {type(event).__name__}")
