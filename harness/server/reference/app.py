"""The reference server: an OpenAI-compatible chat-completions API as an ASGI app (Starlette).

``create_app(engine, model_name="reference", variant=Variant())`` serves:

- ``GET /v1/models``: ``{"object":"list","data":[{"id":model_name,"object":"model",...}]}``;
- ``POST /v1/chat/completions``: the spec's chat route with tools. The raw body goes to
  ``parse_tool_request`` first (property order survives), the prompt is
  ``render_prompt(CHATML_TEMPLATE, ...)``, the grammar is ``grammar(request)``, the
  answer is decoded by ``Engine.generate`` and read by ``ToolParser`` into
  ``message_json`` (``"stream": false``) or ``delta_json`` chunks as server-sent events
  (``"stream": true``: a role chunk, one chunk per event, a final chunk with the
  finish_reason, then ``data: [DONE]``).

Fields read besides the tool fields: ``messages`` (required; the ``developer`` role is
read as ``system``, as OpenAI does for models without a developer role), ``model``
(the served model's name, or absent; another name is 404 ``model_not_found``),
``stream``, ``stream_options`` (``include_usage``: a last chunk with ``choices: []``
and the usage, every other chunk ``"usage": null``, as OpenAI sends), ``max_tokens``
/ ``max_completion_tokens`` (default ``MAX_TOKENS_DEFAULT``, at most
``MAX_TOKENS_CAP``), ``seed`` (default 0), ``temperature`` (0 to 2, default 1),
``top_p`` and ``n`` (only 1); others are ignored, except the legacy ``functions`` /
``function_call``, refused with 400: they are deprecated by OpenAI in favour of
``tools``, and serving them would need a second answer shape (``message.function_call``)
that the spec does not define; silently ignoring them answers text where a client
expects a call.

Errors always have the OpenAI shape ``{"error":{"message","type","param","code"}}``: a
malformed body or field is 400 naming the ``param``, a parameters schema outside the
subset 422 (``ToolError``), an unknown route 404, an unknown model 404, a bug of the
server 500.

Bounds, checked before any work that grows with them (issue 25), each refusal naming
the limit: a body over ``MAX_BODY_BYTES`` is 413 (from its Content-Length before any
byte is read, else as soon as the bytes read pass it); a body not received within
``BODY_SECONDS`` is 408; more than ``MAX_MESSAGES`` messages, a message of more than
``MAX_MESSAGE_CHARS`` characters, more than ``MAX_TOOLS`` tools, a tool's parameters of
more than ``MAX_SCHEMA_BYTES`` (compact JSON), tool schemas whose compilation costs
more than ``COMPILE_BUDGET_SECONDS`` CPU seconds (measured once per pattern) are 400.
The prompt's token count is linear (``model.bounded_encoder``), the grammars' indexes
are bounded in bytes (``decode.IndexCache``). A client that disconnects before its body
is read costs the read and nothing else: no answer, no traceback.

finish_reason: ``length`` when max_tokens cut the answer (whatever was made before),
else ``tool_calls`` when a call was made, else ``stop``. On a cut, the text the parser
holds back (a partial ``<tool_call>`` or an opener whose header is incomplete) is
dropped, never released as content: no markup reaches ``content``; a call whose
arguments were cut keeps the fragments already sent (not valid JSON; finish_reason
``length`` says why).

Example::

    app = create_app(Engine(load_vocabulary("cl100k_base")))
    uvicorn.run(app, host="127.0.0.1", port=8000)
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import threading
import time

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from harness.server.reference.decode import (
    COMPILE_BUDGET_SECONDS,
    MAX_TOKENS_CAP,
    MAX_TOKENS_DEFAULT,
    Engine,
    OverBudget,
)
from harness.server.reference.model import EOS_TEXT
from harness.server.reference.variants import Variant, error_response
from oracles.automaton import SamplingParams
from oracles.tools import (
    CHATML_TEMPLATE,
    CallStart,
    ToolError,
    ToolParser,
    collect,
    delta_json,
    finish_reason,
    grammar,
    message_json,
    parse_tool_request,
    render_prompt,
)

MAX_BODY_BYTES = 1 << 20
"""A request body larger than this (1 MiB) is refused with 413."""
BODY_SECONDS = 30.0
"""Wall seconds a client has to send its whole body (408 after): a client dripping its
body holds a connection, never a worker."""
MAX_MESSAGES = 256
"""Messages one request may hold."""
MAX_MESSAGE_CHARS = 1 << 16
"""Characters of text one message may hold (its content and its calls' arguments)."""
MAX_TOOLS = 64
"""Tools one request may declare (each is compiled to a DFA at validation)."""
MAX_SCHEMA_BYTES = 16 << 10
"""Bytes of one tool's parameters schema as compact JSON."""
PARALLEL_GRAMMAR_FACTOR = 4
"""How many times its tools' cost a parallel "required" grammar is charged (up to four calls)."""


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
    prompt_tokens: int = 0
    include_usage: bool = False


def _limit(param: str | None, message: str) -> ToolError:
    return ToolError(400, param, "limit_exceeded", message)


def _text_chars(value) -> int:
    """Characters in every string of a JSON value (keys included), without recursion."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += sum(len(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return total


def check_limits(doc: dict) -> None:
    """The size bounds of the module docstring, and the legacy fields, before any work."""
    for legacy in ("functions", "function_call"):
        if doc.get(legacy) is not None:
            raise _bad(legacy, f"{legacy} (the legacy function-calling API) is not supported: use tools and "
                       "tool_choice", "unsupported_parameter")
    messages = doc.get("messages")
    if isinstance(messages, list):
        if len(messages) > MAX_MESSAGES:
            raise _limit("messages", f"{len(messages)} messages is more than the limit MAX_MESSAGES={MAX_MESSAGES}")
        for i, message in enumerate(messages):
            chars = _text_chars(message)
            if chars > MAX_MESSAGE_CHARS:
                raise _limit(f"messages[{i}]", f"messages[{i}] holds {chars} characters, more than the limit "
                             f"MAX_MESSAGE_CHARS={MAX_MESSAGE_CHARS}")
    tools = doc.get("tools")
    if isinstance(tools, list):
        if len(tools) > MAX_TOOLS:
            raise _limit("tools", f"{len(tools)} tools is more than the limit MAX_TOOLS={MAX_TOOLS}")
        for i, tool in enumerate(tools):
            parameters = _parameters_of(tool)
            if parameters is None:
                continue
            size = len(json.dumps(parameters, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
            if size > MAX_SCHEMA_BYTES:
                raise _limit(f"tools[{i}].function.parameters", f"tools[{i}].function.parameters is {size} bytes "
                             f"as compact JSON, more than the limit MAX_SCHEMA_BYTES={MAX_SCHEMA_BYTES}")


def _parameters_of(tool) -> dict | None:
    function = tool.get("function") if isinstance(tool, dict) else None
    parameters = function.get("parameters") if isinstance(function, dict) else None
    return parameters if isinstance(parameters, dict) else None


def _arguments_patterns(doc: dict) -> list[str]:
    """The arguments pattern of every tool whose schema translates (the others are the
    validation's to refuse), once per tool."""
    from oracles.automaton import json_schema_to_regex

    patterns = []
    for tool in doc.get("tools") or []:
        parameters = _parameters_of(tool)
        if parameters is None or parameters.get("type") != "object":
            continue
        try:
            patterns.append(json_schema_to_regex(parameters))
        except (ValueError, TypeError, RecursionError):
            continue
    return patterns


def _stream_options(doc: dict, stream: bool) -> bool:
    """include_usage of ``stream_options`` (OpenAI's rules: an object, only with stream)."""
    options = doc.get("stream_options")
    if options is None:
        return False
    if not isinstance(options, dict):
        raise _bad("stream_options", "stream_options must be an object", "invalid_type")
    if not stream:
        raise _bad("stream_options", "stream_options is only allowed when stream is true")
    include = options.get("include_usage", False)
    if not isinstance(include, bool):
        raise _bad("stream_options.include_usage", "stream_options.include_usage must be a boolean", "invalid_type")
    return include


def _messages(messages: list) -> list:
    """The messages with the ``developer`` role read as ``system``."""
    return [dict(m, role="system") if isinstance(m, dict) and m.get("role") == "developer" else m for m in messages]


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
        doc = self._document(body)
        check_limits(doc)
        model = doc.get("model")
        if model is None:
            model = self.model_name
        elif not isinstance(model, str):
            raise _bad("model", "model must be a string", "invalid_type")
        elif model != self.model_name:
            raise ToolError(404, "model", "model_not_found",
                            f"the model {json.dumps(model)[:80]} does not exist: this server serves "
                            f"{json.dumps(self.model_name)}")
        stream, max_tokens, seed, params = _fields(doc)
        include_usage = self.variant.include_usage(_stream_options(doc, stream))
        compiled: set[str] = set()  # arguments patterns the budget compiled without error: not compiled again
        tool_cost = self._charge_compile(doc, compiled)
        tool_request = parse_tool_request(body, compiled=compiled)  # 400/422 for the tool fields
        messages = doc.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _bad("messages", "messages must be a non-empty array", "invalid_type")
        prompt = render_prompt(CHATML_TEMPLATE, _messages(messages), tool_request.tools, "", EOS_TEXT)
        plan = Plan(self.next_id(), model, stream, prompt, grammar(tool_request), params, max_tokens, seed,
                    len(self.engine.vocabulary.encode(prompt)), include_usage)
        if plan.grammar is not None:
            if tool_request.choice.kind == "required" and tool_request.parallel:
                self._over_budget(tool_cost * PARALLEL_GRAMMAR_FACTOR, "the parallel calls' grammar")
            try:
                self.engine.indexes.get(plan.grammar.pattern)  # build (or touch) the index before answering
            except ValueError as exc:  # a bound of the automaton: the request's grammar is too large
                raise ToolError(422, "tools", "unsupported_parameter",
                                f"the answer's grammar cannot be built: {str(exc).splitlines()[0]}") from None
        return plan

    @staticmethod
    def _document(body: str) -> dict:
        try:
            doc = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise ToolError(400, None, "invalid_json", f"the request body is not valid JSON: "
                            f"{str(exc)[:200] or type(exc).__name__}") from None
        if not isinstance(doc, dict):
            parse_tool_request(body)  # its 400 names what the body is
            raise ToolError(400, None, "invalid_json", "the request body must be a JSON object")
        return doc

    def _charge_compile(self, doc: dict, compiled: set) -> float:
        """The CPU seconds the request's tool schemas cost to compile, or 400 past the budget
        (``compiled``: the patterns the budget compiled without error, see ``CompileBudget``)."""
        try:
            return self.engine.compile_budget.charge(_arguments_patterns(doc), COMPILE_BUDGET_SECONDS, compiled)
        except OverBudget as over:
            self._over_budget(over.seconds, "compiling the tools' schemas")

    @staticmethod
    def _over_budget(seconds: float, what: str) -> None:
        if seconds > COMPILE_BUDGET_SECONDS:
            raise _limit("tools", f"{what} costs {seconds:.1f} CPU seconds or more, more than the limit "
                         f"COMPILE_BUDGET_SECONDS={COMPILE_BUDGET_SECONDS:g}")

    def events(self, plan: Plan, streamed: bool):
        """(generation, parser, iterator over batches of events) for one answer.

        On a cut (finish ``length``) the parser's held text is dropped, not finished:
        what it holds is a partial opener or an incomplete header, markup either way."""
        generation = self.engine.generate(plan.grammar, plan.params, plan.max_tokens, plan.seed, plan.prompt)
        parser = ToolParser(plan.request_id)
        keep = self.variant.event_filter(streamed)

        def batches():
            for piece in generation:
                yield keep(parser.push(piece))
            if generation.finish != "length" or not self.variant.withhold_on_cut(streamed):
                yield keep(parser.finish())
        return generation, parser, batches()

    def finish_reason(self, generation, parser, n_calls: int, streamed: bool) -> str:
        """length when max_tokens cut the answer; else tool_calls when a call was made; else stop."""
        if not self.variant.withhold_on_cut(streamed):  # the broken variants' old rule
            return "length" if parser.incomplete is not None else finish_reason(n_calls, generation.finish)
        return "length" if generation.finish == "length" else finish_reason(n_calls, generation.finish)

    @staticmethod
    def usage(plan: Plan, generation) -> dict:
        return {"prompt_tokens": plan.prompt_tokens, "completion_tokens": generation.tokens,
                "total_tokens": plan.prompt_tokens + generation.tokens}

    def complete(self, plan: Plan) -> str:
        """The non-streamed answer as JSON text."""
        generation, parser, batches = self.events(plan, streamed=False)
        events = [event for batch in batches for event in batch]
        content, calls = collect(events)
        message = self.variant.message(json.loads(message_json(content, calls)))
        return json.dumps({
            "id": f"chatcmpl-{plan.request_id}", "object": "chat.completion", "created": int(time.time()),
            "model": plan.model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": self.finish_reason(generation, parser, len(calls), False)}],
            "usage": self.usage(plan, generation)}, ensure_ascii=False)

    def stream(self, plan: Plan):
        """The streamed answer: server-sent event lines (a sync iterator of str)."""
        created = int(time.time())

        def event(body: dict) -> str:
            head = {"id": f"chatcmpl-{plan.request_id}", "object": "chat.completion.chunk", "created": created,
                    "model": plan.model}
            if plan.include_usage:
                body.setdefault("usage", None)
            return "data: " + json.dumps({**head, **body}, ensure_ascii=False) + "\n\n"

        def chunk(delta: dict, reason: str | None = None) -> str:
            return event({"choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}]})

        generation, parser, batches = self.events(plan, streamed=True)
        yield chunk({"role": "assistant"})
        calls = 0
        for batch in batches:
            for item in batch:
                calls += isinstance(item, CallStart)
                yield chunk(json.loads(delta_json(item)))
        yield chunk({}, self.finish_reason(generation, parser, calls, True))
        if plan.include_usage:
            yield event({"choices": [], "usage": self.usage(plan, generation)})
        yield "data: [DONE]\n\n"


async def read_bounded(request: Request) -> bytes:
    """The body, read no further than MAX_BODY_BYTES and for at most BODY_SECONDS
    (ToolError 413 / 408); a declared Content-Length over the bound is refused before
    any byte is read. ``ClientDisconnect`` when the client leaves first."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _too_large(f"the declared Content-Length {int(declared)}")

    async def read() -> bytes:
        parts, size = [], 0
        async for part in request.stream():
            size += len(part)
            if size > MAX_BODY_BYTES:
                raise _too_large("the request body")
            parts.append(part)
        return b"".join(parts)
    try:
        return await asyncio.wait_for(read(), BODY_SECONDS)
    except asyncio.TimeoutError:
        raise ToolError(408, None, "request_timeout",
                        f"the request body did not arrive within BODY_SECONDS={BODY_SECONDS:g} s") from None


def _too_large(what: str) -> ToolError:
    return ToolError(413, None, "request_too_large", f"{what} is more than MAX_BODY_BYTES={MAX_BODY_BYTES} bytes")


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
        except ClientDisconnect:  # the client left: nobody reads an answer, nothing to report
            return Response(status_code=400)
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
