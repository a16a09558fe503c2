"""Requests to the server under test, through the official ``openai`` client, bounded.

``Exchange(base_url, model, api_key, timeout)`` sends chat completions three ways:

- ``create(label, **params)``: a non-streamed request; returns the parsed
  ``ChatCompletion``;
- ``stream(label, **params)``: a streamed request; returns the chunks as the JSON the
  server sent (``chunk.to_dict()``: only the fields present), at most
  ``MAX_STREAM_CHUNKS`` of them, within ``timeout`` seconds in total;
- ``expect_error(label, **params)``: a request that must fail; returns an
  ``ErrorReply`` (status, content type, text) of the HTTP answer (status 200 and
  the completion when the server accepted it: the case then fails it).

Every request is sent once (``max_retries=0``: a retried request would hide a
failure) with ``timeout`` seconds per request. Anything that keeps the exchange
from being judged (connection refused, a timeout, a body that is not JSON, a
malformed event stream, an unexpected HTTP error) raises ``Unanswered``, whose
``failure`` names the request and what happened: never a hang or a traceback.

Example::

    ex = Exchange("http://127.0.0.1:8000/v1", model="reference")
    completion = ex.create("tools.call named", messages=[...], tools=[...], tool_choice=...)
"""

from __future__ import annotations

import dataclasses
import json
import time

from harness.conform.verdict import Failure, excerpt

try:
    from openai.types.chat import ChatCompletion
except ImportError:  # pragma: no cover - Exchange() then says what to install
    ChatCompletion = None

MAX_STREAM_CHUNKS = 4096
"""A stream with more chunks than this is cut and judged an error (a flooding server)."""
DEFAULT_TIMEOUT = 30.0
"""Seconds per request (and in total per stream) unless ``--timeout`` says otherwise."""


class Unanswered(Exception):
    """The request got no answer that can be judged; ``failure`` says why."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(f"{failure.rule}: {failure.excerpt}")
        self.failure = failure


@dataclasses.dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer as it came: status, Content-Type, body text (and its JSON or None)."""

    status: int
    content_type: str
    text: str
    body: object | None


def describe_request(label: str, params: dict) -> str:
    """One line naming the request: the label and the fields a reader needs to replay it."""
    keep = {k: params[k] for k in ("tool_choice", "parallel_tool_calls", "response_format", "seed",
                                   "max_tokens", "stream") if k in params}
    tools = params.get("tools")
    if tools:
        keep["tools"] = [tool_label(t) for t in tools]
    return f"{label} {excerpt(keep, 240)}"


def tool_label(tool: object) -> object:
    """A tool as a request summary shows it: its function's name, else its type."""
    if not isinstance(tool, dict):
        return tool
    function = tool.get("function")
    return (function.get("name") if isinstance(function, dict) else None) or tool.get("type")


class Exchange:
    """The client side of one conformance run (see the module docstring)."""

    def __init__(self, base_url: str, model: str | None = None, api_key: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        try:
            import openai
        except ImportError:
            raise RuntimeError("conform needs the official openai client: pip install 'constrain-harness[serve]'") \
                from None

        if not timeout > 0:
            raise ValueError(f"Exchange: timeout must be > 0 seconds, got {timeout}")
        self.base_url = base_url
        self.timeout = float(timeout)
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "conform", timeout=self.timeout,
                                    max_retries=0)
        self.requests = 0
        self._model = model

    # ----------------------------------------------------------------- the model

    def model(self) -> str:
        """The ``--model`` given, else the first id of ``GET /models``."""
        if self._model is None:
            self.requests += 1
            try:
                ids = [m.id for m in self.client.models.list().data]
            except Exception as exc:  # noqa: BLE001 - every failure becomes a verdict
                raise Unanswered(Failure("GET /models answers a model list", "GET /models", _describe(exc))) from None
            if not ids:
                raise Unanswered(Failure("GET /models answers a model list", "GET /models",
                                         "an empty list: give --model"))
            self._model = ids[0]
        return self._model

    # ----------------------------------------------------------------- requests

    def create(self, label: str, **params):
        """A non-streamed chat completion (parsed by the openai client)."""
        where = describe_request(label, params)
        self.requests += 1
        try:
            completion = self.client.chat.completions.create(model=self.model(), **params)
        except Exception as exc:  # noqa: BLE001
            raise Unanswered(Failure("the server answers the request", where, _describe(exc))) from None
        if not isinstance(completion, ChatCompletion):  # the client hands back a body that is not JSON as is
            raise Unanswered(Failure("the server answers with a JSON chat completion", where,
                                     f"not JSON: {excerpt(completion)}"))
        return completion

    def stream(self, label: str, **params) -> list[dict]:
        """A streamed chat completion: its chunks as sent (only the fields present)."""
        where = describe_request(label, {**params, "stream": True})
        self.requests += 1
        deadline = time.monotonic() + self.timeout
        chunks: list[dict] = []
        try:
            stream = self.client.chat.completions.create(model=self.model(), stream=True, **params)
            with stream:
                for chunk in stream:
                    chunks.append(chunk.to_dict())
                    if len(chunks) > MAX_STREAM_CHUNKS:
                        raise Unanswered(Failure("the stream ends", where,
                                                 f"more than {MAX_STREAM_CHUNKS} chunks: cut"))
                    if time.monotonic() > deadline:
                        raise Unanswered(Failure("the stream ends", where,
                                                 f"still streaming after {self.timeout:g} s: cut"))
        except Unanswered:
            raise
        except Exception as exc:  # noqa: BLE001
            got = f"after {len(chunks)} chunk(s): " if chunks else ""
            raise Unanswered(Failure("the server streams the answer as server-sent events", where,
                                     got + _describe(exc))) from None
        return chunks

    def expect_error(self, label: str, **params) -> ErrorReply:
        """A request the server must refuse: its HTTP error answer as it came."""
        import openai

        where = describe_request(label, params)
        self.requests += 1
        try:
            completion = self.client.chat.completions.create(model=self.model(), **params)
        except openai.APIStatusError as exc:
            response = exc.response
            text = response.text
            try:
                body = json.loads(text)
            except ValueError:
                body = None
            return ErrorReply(response.status_code, response.headers.get("content-type", ""), text, body)
        except Exception as exc:  # noqa: BLE001
            raise Unanswered(Failure("the server answers the request", where, _describe(exc))) from None
        accepted = _dump(completion)  # a 2xx answer: judged by the case like any other reply
        return ErrorReply(200, "application/json", excerpt(accepted), accepted)

    def close(self) -> None:
        self.client.close()


def _dump(model) -> object:
    try:
        return model.to_dict()
    except Exception:  # noqa: BLE001 - a response the client could not model
        return repr(model)


def _describe(exc: BaseException) -> str:
    """What went wrong, in one line a reader understands (no traceback)."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out (no answer within the timeout)"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return f"connection failed: {excerpt(str(cause) if cause else str(exc), 200)}"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {excerpt(exc.response.text)}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg} at offset {exc.pos}): {excerpt(exc.doc)}"
    return f"{type(exc).__name__}: {excerpt(str(exc))}"
