"""The reference server: an OpenAI-compatible chat-completions API as an ASGI app (Starlette).

``create_app(engine, model_name="reference", variant=Variant())`` serves:

- ``GET /v1/models``: ``{"object":"list","data":[{"id":model_name,"object":"model",...}]}``;
- ``POST /v1/chat/completions``: the seed's chat route with tools. The raw body goes to
  ``parse_tool_request`` first (property order survives), the prompt is
  ``render_prompt(CHATML_TEMPLATE, ...)``, the grammar is ``grammar(request)``, the
  answer is decoded by ``Engine.generate`` and read by ``ToolParser`` into
  ``message_json`` (``"stream": false``) or ``delta_json`` chunks as server-sent events
  (``"stream": true``: a role chunk, one chunk per event, a final chunk with the
  finish_reason, then ``data: [DONE]``).

Fields read besides the tool fields: ``messages`` (required), ``model`` (echoed),
``stream``, ``max_tokens`` / ``max_completion_tokens`` (default
``MAX_TOKENS_DEFAULT``, at most ``MAX_TOKENS_CAP``), ``seed`` (default 0),
``temperature`` (0 to 2, default 1), ``top_p`` and ``n`` (only 1); others are ignored.

Errors always have the OpenAI shape ``{"error":{"message","type","param","code"}}``: a
malformed body or field is 400 naming the ``param``, a parameters schema outside the
subset 422 (``ToolError``), an unknown route 404, a body over ``MAX_BODY_BYTES`` 413, a
bug of the server 500.

finish_reason: ``tool_calls`` when a call was made, ``length`` when max_tokens cut the
answer (a call left open included), else ``stop``.

Example::

    app = create_app(Engine(load_vocabulary("cl100k_base")))
    uvicorn.run(app, host="127.0.0.1", port=8000)
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import time

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from harness.serve.decode import MAX_TOKENS_CAP, MAX_TOKENS_DEFAULT, Engine
from harness.serve.model import EOS_TEXT
from harness.serve.variants import Variant, error_response
from oracles.automaton import SamplingParams
from oracles.tools import (CHATML_TEMPLATE, CallStart, ToolError, ToolParser, collect, delta_json, finish_reason, grammar,
                           message_json, parse_tool_request, render_prompt)

MAX_BODY_BYTES = 1 << 20
"""A request body larger than this (1 MiB) is refused with 413."""


def _bad(param: str | None, message: str, code: str = "invalid_value") -> ToolError:
    return ToolError(400, param, code, message)


@dataclasses.dataclass
class Plan:
    """A validated request, ready to decode."""

    request_id: str
    model: str
    stream: bool
    prompt: str
    grammar: object
    params: SamplingParams
    max_tokens: int
    seed: int


def _number(doc: dict, key: str, default, low: float, high: float, integer: bool = False):
    value = doc.get(key)
    if value is None:
        return default
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise _bad(key, f"{key} must be {'an integer' if integer else 'a number'}, not {json.dumps(value)[:40]}",
                   "invalid_type")
    if not low <= value <= high:
        raise _bad(key, f"{key} must be between {low:g} and {high:g}, got {value}")
    return value


def _fields(doc: dict) -> tuple[bool, int, int, SamplingParams]:
    """(stream, max_tokens, seed, sampling params) of a body, or ToolError 400."""
    stream = doc.get("stream", False)
    if not isinstance(stream, bool):
        raise _bad("stream", "stream must be a boolean", "invalid_type")
    key = "max_completion_tokens" if doc.get("max_completion_tokens") is not None else "max_tokens"
    max_tokens = _number(doc, key, MAX_TOKENS_DEFAULT, 1, MAX_TOKENS_CAP, integer=True)
    seed = _number(doc, "seed", 0, -2**63, 2**64 - 1, integer=True)
    _number(doc, "n", 1, 1, 1, integer=True)  # one choice per request
    params = SamplingParams(temperature=float(_number(doc, "temperature", 1.0, 0, 2)),
                            top_p=float(_number(doc, "top_p", 1.0, 1e-9, 1)))
    return stream, max_tokens, seed, params


class ChatService:
    """The chat route's work, outside the event loop (see the module docstring)."""

    def __init__(self, engine: Engine, model_name: str, variant: Variant) -> None:
        self.engine, self.model_name, self.variant = engine, model_name, variant
        self._ids = itertools.count(1)
        self._ids_lock = threading.Lock()

    def next_id(self) -> str:
        with self._ids_lock:
            return f"r{next(self._ids)}"

    def plan(self, body: str) -> Plan:
        """Validate ``body`` and build its prompt and grammar (the grammar's index too)."""
        body = self.variant.body(body)
        tool_request = parse_tool_request(body)  # 400/422 for the tool fields, and for malformed JSON
        doc = json.loads(body)
        messages = doc.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _bad("messages", "messages must be a non-empty array", "invalid_type")
        model = doc.get("model", self.model_name)
        if not isinstance(model, str):
            raise _bad("model", "model must be a string", "invalid_type")
        stream, max_tokens, seed, params = _fields(doc)
        prompt = render_prompt(CHATML_TEMPLATE, messages, tool_request.tools, "", EOS_TEXT)
        plan = Plan(self.next_id(), model, stream, prompt, grammar(tool_request), params, max_tokens, seed)
        if plan.grammar is not None:
            try:
                self.engine.indexes.get(plan.grammar.pattern)  # build (or touch) the index before answering
            except ValueError as exc:  # a bound of the automaton: the request's grammar is too large
                raise ToolError(422, "tools", "unsupported_parameter",
                                f"the answer's grammar cannot be built: {str(exc).splitlines()[0]}") from None
        return plan

    def events(self, plan: Plan, streamed: bool):
        """(generation, parser, iterator over batches of events) for one answer."""
        generation = self.engine.generate(plan.grammar, plan.params, plan.max_tokens, plan.seed, plan.prompt)
        parser = ToolParser(plan.request_id)
        keep = self.variant.event_filter(streamed)

        def batches():
            for piece in generation:
                yield keep(parser.push(piece))
            yield keep(parser.finish())
        return generation, parser, batches()

    @staticmethod
    def finish_reason(generation, parser, n_calls: int) -> str:
        """tool_calls when a call was made; length when a call was left open or max_tokens cut."""
        if parser.incomplete is not None:
            return "length"
        return finish_reason(n_calls, generation.finish)

    def complete(self, plan: Plan) -> str:
        """The non-streamed answer as JSON text."""
        generation, parser, batches = self.events(plan, streamed=False)
        events = [event for batch in batches for event in batch]
        content, calls = collect(events)
        message = self.variant.message(json.loads(message_json(content, calls)))
        prompt_tokens = len(self.engine.vocabulary.encode(plan.prompt))
        return json.dumps({
            "id": f"chatcmpl-{plan.request_id}", "object": "chat.completion", "created": int(time.time()),
            "model": plan.model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": self.finish_reason(generation, parser, len(calls))}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": generation.tokens,
                      "total_tokens": prompt_tokens + generation.tokens}}, ensure_ascii=False)

    def stream(self, plan: Plan):
        """The streamed answer: server-sent event lines (a sync iterator of str)."""
        created = int(time.time())

        def chunk(delta: dict, reason: str | None = None) -> str:
            return "data: " + json.dumps({
                "id": f"chatcmpl-{plan.request_id}", "object": "chat.completion.chunk", "created": created,
                "model": plan.model, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                                  "finish_reason": reason}]}, ensure_ascii=False) + "\n\n"

        generation, parser, batches = self.events(plan, streamed=True)
        yield chunk({"role": "assistant"})
        calls = 0
        for batch in batches:
            for event in batch:
                calls += isinstance(event, CallStart)
                yield chunk(json.loads(delta_json(event)))
        yield chunk({}, self.finish_reason(generation, parser, calls))
        yield "data: [DONE]\n\n"


async def read_bounded(request: Request) -> bytes:
    """The body, read no further than MAX_BODY_BYTES (ToolError 413 beyond)."""
    parts, size = [], 0
    async for part in request.stream():
        size += len(part)
        if size > MAX_BODY_BYTES:
            raise ToolError(413, None, "request_too_large",
                            f"the request body is more than MAX_BODY_BYTES={MAX_BODY_BYTES} bytes")
        parts.append(part)
    return b"".join(parts)


def create_app(engine: Engine, model_name: str = "reference", variant: Variant | None = None) -> Starlette:
    service = ChatService(engine, model_name, variant or Variant())

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": model_name, "object": "model", "created": 0, "owned_by": "constrain-harness"}]})

    async def chat_completions(request: Request) -> Response:
        try:
            raw = await read_bounded(request)
            try:
                body = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ToolError(400, None, "invalid_json", f"the request body is not UTF-8: {exc}") from None
            plan = await run_in_threadpool(service.plan, body)
        except ToolError as error:
            return service.variant.error(error)
        if plan.stream:
            return StreamingResponse(service.stream(plan), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache"})
        return Response(await run_in_threadpool(service.complete, plan), media_type="application/json")

    async def http_error(request: Request, exc: HTTPException) -> Response:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
        return error_response(ToolError(exc.status_code, None, code, f"{request.method} {request.url.path}: "
                                        f"{exc.detail}"))

    async def internal_error(request: Request, exc: Exception) -> Response:
        # a bug of the server, never of the request: still the OpenAI shape, and the reason
        return error_response(ToolError(500, None, "internal_error", f"internal error: {type(exc).__name__}: {exc}"))

    routes = [Route("/v1/models", models, methods=["GET"]),
              Route("/v1/chat/completions", chat_completions, methods=["POST"])]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: internal_error})
