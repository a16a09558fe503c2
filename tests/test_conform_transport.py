"""conform against servers that misbehave on the wire: every one gets a clear verdict, in bounded time.

A hostile Starlette app (one behaviour per URL prefix) runs on a loopback thread;
each test runs ``run_conformance`` against one behaviour with a short timeout and
checks the verdict and the reason it gives (issue 19, item 4): connection refused,
a timeout, a body that is not JSON, a malformed event stream, a flooding stream, an
HTML 500 and a 200 that is not a completion. No test may hang: the exchanges are
bounded by the timeout and ``MAX_STREAM_CHUNKS``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

pytest.importorskip("openai")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from harness.cli import main  # noqa: E402
from harness.conform.exchange import MAX_STREAM_CHUNKS  # noqa: E402
from harness.conform.run import run_conformance  # noqa: E402
from harness.serve.runner import ServerThread  # noqa: E402

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


async def chat(request):
    mode = request.path_params["mode"]
    body = json.loads(await request.body())
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


def judged(base_url: str, cases: list[str], model: str | None = "m"):
    start = time.monotonic()
    result = run_conformance(base_url, cases, model=model, timeout=TIMEOUT)
    assert time.monotonic() - start < 30, "a misbehaving server must not stall conform"
    return result


def reasons(result) -> str:
    return " | ".join(f.excerpt for case in result.cases for f in case.failures)


def test_connection_refused_is_an_error_verdict():
    with socket.socket() as s:  # a port that was free a moment ago, now closed: nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = judged(f"http://127.0.0.1:{port}/v1", ["tools.call", "tools.errors"], model=None)
    assert [c.status for c in result.cases] == ["error", "error"]
    assert "connection failed" in reasons(result) and "refused" in reasons(result).lower()
    assert result.verdict == "error" and result.exit_code == 3


def test_timeout_is_an_error_verdict(hostile):
    result = judged(url(hostile, "slow"), ["tools.call"])
    assert result.cases[0].status == "error"
    assert "timed out" in reasons(result)


def test_non_json_body_is_an_error_verdict(hostile):
    result = judged(url(hostile, "text"), ["tools.call"])
    assert result.cases[0].status == "error"
    assert "hello, this is not JSON" in reasons(result)


def test_malformed_sse_is_an_error_verdict(hostile):
    result = judged(url(hostile, "badsse"), ["tools.stream"])
    assert result.cases[0].status == "error"
    assert "after 1 chunk(s)" in reasons(result) and "not json" in reasons(result)


def test_flooding_stream_is_cut(hostile):
    result = judged(url(hostile, "flood"), ["tools.stream"])
    assert result.cases[0].status == "error"
    text = reasons(result)
    assert f"more than {MAX_STREAM_CHUNKS} chunks" in text or "still streaming" in text


def test_http_500_is_an_error_verdict_naming_the_status(hostile):
    result = judged(url(hostile, "html500"), ["tools.call"])
    assert result.cases[0].status == "error"
    assert "HTTP 500" in reasons(result)


def test_an_answer_without_choices_fails_the_case(hostile):
    result = judged(url(hostile, "other"), ["tools.call", "tools.errors", "response_format"])
    assert [c.status for c in result.cases] == ["failed"] * 3
    rules = [f.rule for c in result.cases for f in c.failures]
    assert "tools.call: the answer has a choice" in rules
    assert "tools.errors: a tool of unknown type is refused with status 400" in rules


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
