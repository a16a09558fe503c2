"""conform against servers that misbehave on the wire: every one gets a clear verdict, in bounded time.

A hostile Starlette app (one behaviour per URL prefix) runs on a loopback thread;
each test runs ``run_conformance`` against one behaviour with a short timeout and
checks the verdict and the reason it gives (issue 19, item 4): connection refused,
a timeout, a body that is not JSON, a malformed event stream, a flooding stream, an
HTML 500 and a 200 that is not a completion; and (issue 25) a stream of comments that
never ends, a body dripped a byte at a time, 200 MB answers streamed or not, a server
slow enough to pass the case's deadline, and arguments that are conform's fault (a
timeout that is not finite, a base URL that is not one), refused with exit 2 before
any request. No test may hang: the exchanges are bounded by the deadlines,
``MAX_STREAM_CHUNKS`` and ``MAX_RESPONSE_BYTES``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

from tests.support.helpers import skip_module_without

skip_module_without("openai")  # found, not imported: harness.server.conform imports it when used
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from harness.cli import main  # noqa: E402
from harness.server.conform.exchange import MAX_RESPONSE_BYTES, MAX_STREAM_CHUNKS  # noqa: E402
from harness.server.conform.run import run_conformance  # noqa: E402
from harness.server.reference.runner import ServerThread  # noqa: E402

pytestmark = pytest.mark.boundary
TIMEOUT = 1.0
CHUNK = "data: " + json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                               "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None}]}) + "\n\n"


async def models(request):
    return JSONResponse({"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "t"}]})


async def flood():
    while True:
        yield CHUNK
        await asyncio.sleep(0)


HUGE_BYTES = 200 << 20
PIECE = b" " * (1 << 20)


async def comments_forever():
    while True:  # server-sent event comments: no event ever completes
        yield ": still thinking\n\n"
        await asyncio.sleep(0.01)


async def drip(prefix: bytes):
    for byte in prefix:
        yield bytes([byte])
        await asyncio.sleep(TIMEOUT / 5)  # each wait well within the timeout
    while True:
        yield b" "
        await asyncio.sleep(TIMEOUT / 5)


async def huge(prefix: bytes):
    yield prefix
    for _ in range(HUGE_BYTES // len(PIECE)):
        yield PIECE
        await asyncio.sleep(0)


async def chat(request):
    mode = request.path_params["mode"]
    body = json.loads(await request.body())
    if mode == "forever" and body.get("stream"):
        return StreamingResponse(comments_forever(), media_type="text/event-stream")
    if mode == "drip":
        return StreamingResponse(drip(b'{"id":"x","object":"chat.completion",'), media_type="application/json")
    if mode == "huge":
        stream = body.get("stream")
        return StreamingResponse(huge(b'data: {"id":"' if stream else b'{"id":"x","object":"chat.completion","a":"'),
                                 media_type="text/event-stream" if stream else "application/json")
    if mode == "slowish":
        await asyncio.sleep(TIMEOUT * 0.6)
    if mode == "slow":
        await asyncio.sleep(TIMEOUT * 3)
        return JSONResponse({})
    if mode == "text":
        return PlainTextResponse("hello, this is not JSON")
    if mode == "badsse" and body.get("stream"):
        return StreamingResponse(iter([CHUNK, "data: {not json\n\n"]), media_type="text/event-stream")
    if mode == "flood" and body.get("stream"):
        return StreamingResponse(flood(), media_type="text/event-stream")
    if mode == "html500":
        return Response("<html><body>Internal Server Error</body></html>", status_code=500, media_type="text/html")
    return JSONResponse({"unexpected": True})


@pytest.fixture(scope="module")
def hostile():
    app = Starlette(routes=[Route("/{mode}/v1/models", models), Route("/{mode}/v1/chat/completions", chat,
                                                                      methods=["POST"])])
    server = ServerThread(app).start()
    yield server
    server.stop()


def url(server, mode: str) -> str:
    return f"http://{server.host}:{server.port}/{mode}/v1"


def judged(base_url: str, cases: list[str], model: str | None = "m", case_timeout: float = 60.0):
    start = time.monotonic()
    result = run_conformance(base_url, cases, model=model, timeout=TIMEOUT, case_timeout=case_timeout)
    assert time.monotonic() - start < 30, "a misbehaving server must not stall conform"
    return result


def reasons(result) -> str:
    return " | ".join(f.excerpt for case in result.cases for f in case.failures)


@pytest.mark.e2e
def test_connection_refused_is_an_error_verdict():
    with socket.socket() as s:  # a port that was free a moment ago, now closed: nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = judged(f"http://127.0.0.1:{port}/v1", ["tools.call", "tools.errors"], model=None)
    assert [c.status for c in result.cases] == ["error", "error"]
    assert "connection failed" in reasons(result) and "refused" in reasons(result).lower()
    assert result.verdict == "error" and result.exit_code == 3


@pytest.mark.e2e
def test_timeout_is_an_error_verdict(hostile):
    result = judged(url(hostile, "slow"), ["tools.call"])
    assert result.cases[0].status == "error"
    assert "timed out" in reasons(result)


@pytest.mark.e2e
def test_non_json_body_is_an_error_verdict(hostile):
    result = judged(url(hostile, "text"), ["tools.call"])
    assert result.cases[0].status == "error"
    assert "hello, this is not JSON" in reasons(result)


@pytest.mark.e2e
def test_malformed_sse_is_an_error_verdict(hostile):
    result = judged(url(hostile, "badsse"), ["tools.stream"])
    assert result.cases[0].status == "error"
    assert "after 1 chunk(s)" in reasons(result) and "not json" in reasons(result)


@pytest.mark.e2e
def test_flooding_stream_is_cut(hostile):
    result = judged(url(hostile, "flood"), ["tools.stream"])
    assert result.cases[0].status == "error"
    text = reasons(result)
    assert f"more than {MAX_STREAM_CHUNKS} chunks" in text or "still streaming" in text


@pytest.mark.e2e
def test_http_500_is_an_error_verdict_naming_the_status(hostile):
    result = judged(url(hostile, "html500"), ["tools.call"])
    assert result.cases[0].status == "error"
    assert "HTTP 500" in reasons(result)


@pytest.mark.e2e
def test_an_answer_without_choices_fails_the_case(hostile):
    result = judged(url(hostile, "other"), ["tools.call", "tools.errors", "response_format"])
    assert [c.status for c in result.cases] == ["failed"] * 3
    rules = [f.rule for c in result.cases for f in c.failures]
    assert "tools.call: the answer has a choice" in rules
    assert "tools.errors: a tool of unknown type is refused with status 400" in rules


@pytest.mark.e2e
def test_cli_reports_an_unreachable_server_with_exit_3(tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    report = tmp_path / "conform.json"
    code = main(["conform", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--cases", "tools.call",
                 "--timeout", "1", "--json", str(report)])
    assert code == 3
    data = json.loads(report.read_text())
    assert data["verdict"] == "error" and data["cases"][0]["status"] == "error"
    assert "Traceback" not in capsys.readouterr().out


# --- issue 25: bounded in time and bytes, streamed or not ----------------------------------


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.e2e
def test_a_stream_of_comments_that_never_ends_is_cut_at_the_deadline(hostile):
    start = time.monotonic()
    result = judged(url(hostile, "forever"), ["tools.stream"])
    assert time.monotonic() - start < TIMEOUT * 2 + 5  # the request's deadline, one network wait late at most
    assert result.cases[0].status == "error" and "deadline" in reasons(result), reasons(result)


@pytest.mark.e2e
def test_a_body_dripped_a_byte_at_a_time_is_cut_at_the_deadline(hostile):
    start = time.monotonic()
    result = judged(url(hostile, "drip"), ["tools.call"])
    assert time.monotonic() - start < TIMEOUT * 2 + 5
    assert result.cases[0].status == "error" and "deadline" in reasons(result), reasons(result)


@pytest.mark.e2e
@pytest.mark.parametrize("case", ["tools.call", "tools.stream"])
def test_a_200_mb_answer_is_cut_at_the_size_bound(hostile, case):
    before = peak_rss_mb()
    result = judged(url(hostile, "huge"), [case])
    assert result.cases[0].status == "error"
    assert f"MAX_RESPONSE_BYTES={MAX_RESPONSE_BYTES}" in reasons(result), reasons(result)
    assert peak_rss_mb() - before < 100, "the answer must not be read whole"


@pytest.mark.e2e
def test_the_case_deadline_bounds_a_case_of_many_slow_requests(hostile):
    start = time.monotonic()  # tools.choice sends 4 requests of 0.6 s each: the case has 1.5 s
    result = judged(url(hostile, "slowish"), ["tools.choice"], case_timeout=1.5)
    assert time.monotonic() - start < 1.5 + TIMEOUT + 5
    assert result.cases[0].status == "error" and "the case's deadline" in reasons(result), reasons(result)


@pytest.mark.parametrize("option, value", [("--timeout", "inf"), ("--timeout", "nan"), ("--timeout", "0"),
                                           ("--timeout", "-1"), ("--case-timeout", "inf"),
                                           ("--timeout", "1e300")])
def test_a_timeout_that_is_not_finite_and_positive_is_a_usage_error(capsys, option, value):
    code = main(["conform", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", option, value])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and option.lstrip("-").replace("-", "_") in \
        captured.err.replace("-", "_") and "finite" in captured.err


@pytest.mark.parametrize("base_url", ["not a url", "localhost:8000/v1", "ftp://127.0.0.1/v1", "http://",
                                      "http://127.0.0.1:99999/v1", "127.0.0.1:8000"])
def test_a_base_url_that_is_not_an_http_url_is_a_usage_error(capsys, base_url):
    code = main(["conform", "--base-url", base_url, "--model", "m", "--timeout", "1"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.count("\n") == 1
    assert "base URL" in captured.err


@pytest.mark.e2e
def test_conforms_own_bug_is_not_blamed_on_the_server(hostile, monkeypatch):
    from harness.server.conform import cases

    def broken_case(ex):
        raise KeyError("a bug of the case")

    monkeypatch.setitem(cases.CASES, "tools.call", broken_case)
    result = judged(url(hostile, "other"), ["tools.call"])
    (failure,) = result.cases[0].failures
    assert failure.rule == "tools.call: conform's own error, not the server's" and "KeyError" in failure.excerpt
