"""Requests to the server under test, through the official ``openai`` client, bounded.

``Exchange(base_url, model, api_key, timeout, case_timeout)`` sends chat completions three ways:

- ``create(label, **params)``: a non-streamed request; returns the parsed
  ``ChatCompletion``;
- ``stream(label, **params)``: a streamed request; returns the chunks as the JSON the
  server sent (``chunk.to_dict()``: only the fields present), at most
  ``MAX_STREAM_CHUNKS`` of them;
- ``expect_error(label, **params)``: a request that must fail; returns an
  ``ErrorReply`` (status, content type, text) of the HTTP answer (status 200 and
  the completion when the server accepted it: the case then fails it).

Bounds (issue 25), enforced under the client by a transport that wraps the response's
byte stream, so they hold streamed or not: a request ends by its deadline, the
earlier of ``timeout`` seconds after it starts and the case's deadline
(``begin_case()``: ``case_timeout`` seconds for the whole case); every network wait
is itself at most the time left when the request started, so a server that drips a
byte a second or streams forever is cut at the deadline, one wait late at most;
a response of more than ``MAX_RESPONSE_BYTES`` bytes is cut when the bytes read pass
it (never read whole). Both end the request as ``Unanswered``: a fault of the server.

Arguments are checked when the Exchange is made (``check_base_url``, finite positive
timeouts: ValueError naming the argument): a bad argument is never blamed on the server.

Redirects: a redirect to the same origin (scheme, host and port) is followed as the
client does; one to another origin is never followed (the transport refuses the hop before
any request leaves for it: a server under test cannot make conform query an internal
address, such as a cloud metadata service, and print what it answers) and is a finding,
``RedirectRefused``: the case fails with the rule "the server does not redirect to another
origin", naming the status and the target.

Every request is sent once (``max_retries=0``: a retried request would hide a
failure). Anything that keeps the exchange from being judged (connection refused, a
timeout, a body that is not JSON, a malformed event stream, an unexpected HTTP
error) raises ``Unanswered``, whose ``failure`` names the request and what happened:
never a hang or a traceback.

Example::

    ex = Exchange("http://127.0.0.1:8000/v1", model="reference")
    completion = ex.create("tools.call named", messages=[...], tools=[...], tool_choice=...)
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import time
import urllib.parse

from harness.server.conform.verdict import Failure, excerpt

MAX_STREAM_CHUNKS = 4096
"""A stream with more chunks than this is cut and judged an error (a flooding server)."""
MAX_RESPONSE_BYTES = 8 << 20
"""A response body (streamed or not) longer than this is cut and judged an error."""
DEFAULT_TIMEOUT = 30.0
"""Seconds per request unless ``--timeout`` says otherwise."""
DEFAULT_CASE_TIMEOUT = 180.0
"""Seconds per case (all its requests) unless ``--case-timeout`` says otherwise."""
MAX_TIMEOUT = 86400.0
"""The longest timeout accepted (a day): longer is a usage error, like inf and nan."""


def check_timeout(name: str, value) -> float:
    """``value`` as seconds, or ValueError: a finite number in (0, MAX_TIMEOUT]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise ValueError(f"{name} must be a finite number of seconds in (0, {MAX_TIMEOUT:g}], got {value}")
    return float(value)


def check_base_url(url) -> str:
    """``url`` if it is an http(s) URL with a host (and a valid port), else ValueError."""
    if not isinstance(url, str):
        raise TypeError(f"the base URL must be a str, not {type(url).__name__}")
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"the base URL {url!r} is not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the base URL must be an http(s) URL with a host, e.g. http://127.0.0.1:8000/v1; "
                         f"got {url!r}")
    if any(ch.isspace() for ch in url):
        raise ValueError(f"the base URL {url!r} holds whitespace")
    return url


def http_library():
    """The HTTP library the openai client is built on (httpx; httpx2 from openai 3)."""
    import openai

    for cls in openai.DefaultHttpxClient.__mro__:
        root = cls.__module__.split(".")[0]
        if cls.__name__ == "Client" and root != "openai":
            return importlib.import_module(root)
    raise RuntimeError("conform: cannot tell the openai client's HTTP library")


REDIRECTS = (301, 302, 303, 307, 308)


def origin(url) -> tuple[str, str, int]:
    """(scheme, host, port) of an ``httpx.URL``, the port made explicit (80, 443)."""
    scheme = url.scheme.lower()
    return scheme, (url.host or "").lower(), url.port or {"http": 80, "https": 443}.get(scheme, 0)


def bounded_transport(lib, exchange: "Exchange"):
    """A transport of ``lib`` whose responses end by the exchange's request deadline
    and after at most MAX_RESPONSE_BYTES bytes (``DeadlinePassed``, ``ResponseTooLarge``),
    and which refuses a redirect to another origin (``CrossOriginRedirect``)."""

    class DeadlinePassed(lib.ReadTimeout):
        pass

    class ResponseTooLarge(lib.ReadError):
        pass

    class CrossOriginRedirect(lib.RemoteProtocolError):
        def __init__(self, status: int, target: str, request) -> None:
            super().__init__(f"HTTP {status} to {excerpt(target, 200)}: another origin, not followed",
                             request=request)
            self.status, self.target = status, target

    class BoundedStream(lib.SyncByteStream):
        def __init__(self, inner, request, deadline: float) -> None:
            self.inner, self.request, self.deadline, self.read = inner, request, deadline, 0

        def __iter__(self):
            for part in self.inner:
                self.read += len(part)
                if self.read > MAX_RESPONSE_BYTES:
                    raise ResponseTooLarge(f"the response is more than MAX_RESPONSE_BYTES={MAX_RESPONSE_BYTES} "
                                           "bytes: cut", request=self.request)
                if time.monotonic() > self.deadline:
                    raise DeadlinePassed(exchange.deadline_message(self.read), request=self.request)
                yield part

        def close(self) -> None:
            self.inner.close()

    class BoundedTransport(lib.BaseTransport):
        def __init__(self) -> None:
            self.inner = lib.HTTPTransport()

        def handle_request(self, request):
            deadline = exchange.request_deadline
            response = self.inner.handle_request(request)
            location = response.headers.get("location")
            if response.status_code in REDIRECTS and location is not None:
                try:
                    target = request.url.join(location)
                    foreign = origin(target) != origin(request.url)
                except Exception:  # noqa: BLE001 - a Location that is not a URL: never followed either
                    target, foreign = location, True
                if foreign:
                    response.close()
                    raise CrossOriginRedirect(response.status_code, str(target), request)
            if time.monotonic() > deadline:
                response.close()
                raise DeadlinePassed(exchange.deadline_message(0), request=request)
            response.stream = BoundedStream(response.stream, request, deadline)
            return response

        def close(self) -> None:
            self.inner.close()

    BoundedTransport.errors = (DeadlinePassed, ResponseTooLarge, CrossOriginRedirect)
    return BoundedTransport()


class Unanswered(Exception):
    """The request got no answer that can be judged; ``failure`` says why. ``status`` is
    the case's verdict: ``error`` (could not be judged), ``failed`` for a finding
    (``RedirectRefused``)."""

    status = "error"

    def __init__(self, failure: Failure) -> None:
        super().__init__(f"{failure.rule}: {failure.excerpt}")
        self.failure = failure


class RedirectRefused(Unanswered):
    """The server redirected the request to another origin: not followed, and a finding."""

    status = "failed"
    RULE = "the server does not redirect to another origin"


def _unanswered(exc: BaseException, rule: str, where: str, describe) -> Unanswered:
    """The ``Unanswered`` for a request that raised ``exc``: ``RedirectRefused`` when the
    transport refused a redirect, else one naming ``rule`` and what happened."""
    bound = _bound_error(exc)
    if bound is not None and type(bound).__name__ == "CrossOriginRedirect":
        return RedirectRefused(Failure(RedirectRefused.RULE, where, str(bound)))
    return Unanswered(Failure(rule, where, describe(exc)))


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
                 timeout: float = DEFAULT_TIMEOUT, case_timeout: float = DEFAULT_CASE_TIMEOUT) -> None:
        try:
            import openai
        except ImportError:
            raise RuntimeError("conform needs the official openai client: pip install 'constrain-harness[serve]'") \
                from None

        self.base_url = check_base_url(base_url)
        self.timeout = check_timeout("timeout", timeout)
        self.case_timeout = check_timeout("case_timeout", case_timeout)
        self.case_deadline = math.inf
        self.request_deadline = math.inf
        self._request_seconds = self.timeout
        self._streaming = False
        lib = http_library()
        transport = bounded_transport(lib, self)
        self.transport_errors = transport.errors
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "conform", timeout=self.timeout,
                                    max_retries=0, http_client=openai.DefaultHttpxClient(transport=transport))
        self.requests = 0
        self._model = model

    # ----------------------------------------------------------------- deadlines

    def begin_case(self) -> None:
        """Start a case's clock: its requests end by ``case_timeout`` seconds from now."""
        self.case_deadline = time.monotonic() + self.case_timeout

    def _begin_request(self, streaming: bool = False) -> float:
        """Set the next request's deadline; return the seconds it has (each network wait's bound)."""
        self._streaming = streaming
        now = time.monotonic()
        self.request_deadline = min(now + self.timeout, self.case_deadline)
        self._request_seconds = max(self.request_deadline - now, 0.001)
        return self._request_seconds

    def _which_deadline(self) -> str:
        which = "the case's" if self.request_deadline == self.case_deadline else "the request's"
        return f"{which} deadline ({self._request_seconds:.3g} s for this request)"

    def deadline_message(self, bytes_read: int) -> str:
        got = f" after {bytes_read} bytes" if bytes_read else ""
        doing = "still streaming" if self._streaming else "still answering"
        return f"{doing}{got} at {self._which_deadline()}: cut"

    def describe(self, exc: BaseException) -> str:
        """``_describe(exc)``, a timeout naming the deadline that ended it."""
        import openai

        if isinstance(exc, openai.APITimeoutError) and _bound_error(exc) is None:
            return f"timed out: no answer by {self._which_deadline()}"
        return _describe(exc)

    # ----------------------------------------------------------------- the model

    def model(self) -> str:
        """The ``--model`` given, else the first id of ``GET /models``."""
        if self._model is None:
            self.requests += 1
            seconds = self._begin_request()
            try:
                ids = [m.id for m in self.client.models.list(timeout=seconds).data]
            except Exception as exc:  # noqa: BLE001 - every failure becomes a verdict
                raise _unanswered(exc, "GET /models answers a model list", "GET /models", self.describe) from None
            if not ids:
                raise Unanswered(Failure("GET /models answers a model list", "GET /models",
                                         "an empty list: give --model"))
            self._model = ids[0]
        return self._model

    # ----------------------------------------------------------------- requests

    def create(self, label: str, **params):
        """A non-streamed chat completion (parsed by the openai client)."""
        where = describe_request(label, params)
        model = self.model()
        self.requests += 1
        seconds = self._begin_request()
        try:
            completion = self.client.chat.completions.create(model=model, timeout=seconds, **params)
        except Exception as exc:  # noqa: BLE001
            raise _unanswered(exc, "the server answers the request", where, self.describe) from None
        from openai.types.chat import ChatCompletion  # here, not at the top: importing the cases costs no openai

        if not isinstance(completion, ChatCompletion):  # the client hands back a body that is not JSON as is
            raise Unanswered(Failure("the server answers with a JSON chat completion", where,
                                     f"not JSON: {excerpt(completion)}"))
        return completion

    def stream(self, label: str, **params) -> list[dict]:
        """A streamed chat completion: its chunks as sent (only the fields present)."""
        where = describe_request(label, {**params, "stream": True})
        model = self.model()
        self.requests += 1
        seconds = self._begin_request(streaming=True)
        chunks: list[dict] = []
        try:
            stream = self.client.chat.completions.create(model=model, stream=True, timeout=seconds, **params)
            with stream:
                for chunk in stream:
                    chunks.append(chunk.to_dict())
                    if len(chunks) > MAX_STREAM_CHUNKS:
                        raise Unanswered(Failure("the stream ends", where,
                                                 f"more than {MAX_STREAM_CHUNKS} chunks: cut"))
                    if time.monotonic() > self.request_deadline:
                        raise Unanswered(Failure("the stream ends", where, self.deadline_message(0)))
        except Unanswered:
            raise
        except Exception as exc:  # noqa: BLE001
            got = f"after {len(chunks)} chunk(s): " if chunks else ""
            raise _unanswered(exc, "the server streams the answer as server-sent events", where,
                              lambda e: got + self.describe(e)) from None
        return chunks

    def expect_error(self, label: str, **params) -> ErrorReply:
        """A request the server must refuse: its HTTP error answer as it came."""
        import openai

        where = describe_request(label, params)
        model = self.model()
        self.requests += 1
        seconds = self._begin_request()
        try:
            completion = self.client.chat.completions.create(model=model, timeout=seconds, **params)
        except openai.APIStatusError as exc:
            response = exc.response
            text = response.text
            try:
                body = json.loads(text)
            except ValueError:
                body = None
            return ErrorReply(response.status_code, response.headers.get("content-type", ""), text, body)
        except Exception as exc:  # noqa: BLE001
            raise _unanswered(exc, "the server answers the request", where, self.describe) from None
        accepted = _dump(completion)  # a 2xx answer: judged by the case like any other reply
        return ErrorReply(200, "application/json", excerpt(accepted), accepted)

    def close(self) -> None:
        self.client.close()


def _dump(model) -> object:
    try:
        return model.to_dict()
    except Exception:  # noqa: BLE001 - a response the client could not model
        return repr(model)


def _bound_error(exc: BaseException) -> BaseException | None:
    """The DeadlinePassed or ResponseTooLarge behind ``exc`` (its cause chain), if any."""
    seen = 0
    while exc is not None and seen < 8:
        if type(exc).__name__ in ("DeadlinePassed", "ResponseTooLarge", "CrossOriginRedirect"):
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _describe(exc: BaseException) -> str:
    """What went wrong, in one line a reader understands (no traceback)."""
    import openai

    bound = _bound_error(exc)
    if bound is not None:
        return str(bound)
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
