"""conform against a hostile server (issue 50 item 5): what the server says is shown, never
obeyed, and a redirect to another origin is never followed.

Two servers on 127.0.0.1: the one under test, and a stand-in for an internal metadata
service (another port: another origin) that counts every request it gets and would answer
a secret token. The server under test names its model with an ANSI colour, an OSC 52
clipboard write and a carriage return, answers with escape sequences and Markdown/HTML, and
on some routes redirects (307) to the metadata service, or to itself (same origin).
"""

from __future__ import annotations

import threading
import unicodedata

import pytest

from tests.support.helpers import skip_module_without, tree_digest

skip_module_without("openai")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse, RedirectResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from harness.cli import main  # noqa: E402
from harness.report.escape import INVISIBLE_CATEGORIES  # noqa: E402
from harness.server.conform.exchange import RedirectRefused  # noqa: E402
from harness.server.reference.runner import ServerThread  # noqa: E402

pytestmark = pytest.mark.boundary
EVIL_MODEL = "\x1b[32mreference\x1b[0m\x1b]52;c;cm0gLXJmIH4=\x07\rverdict: passed (exit 0)\x9b2J"
SECRET = "TOKEN-do-not-print-4242"


class Metadata:
    """The internal service a redirect points at: it counts what reaches it."""

    def __init__(self) -> None:
        self.hits = 0
        self.lock = threading.Lock()

    async def answer(self, request):
        with self.lock:
            self.hits += 1
        return JSONResponse({"token": SECRET, "data": [{"id": SECRET}]})


@pytest.fixture(scope="module")
def servers():
    metadata = Metadata()
    inner = ServerThread(Starlette(routes=[Route("/{path:path}", metadata.answer, methods=["GET", "POST"])])).start()
    target = f"http://{inner.host}:{inner.port}/latest/meta-data/iam/security-credentials"

    async def models(request):
        mode = request.path_params["mode"]
        if mode == "away":
            return RedirectResponse(target, status_code=307)
        if mode == "same":
            return RedirectResponse("/plain/v1/models", status_code=307)
        return JSONResponse({"object": "list", "data": [{"id": EVIL_MODEL, "object": "model", "created": 0,
                                                         "owned_by": "t"}]})

    async def chat(request):
        if request.path_params["mode"] == "chataway":
            return RedirectResponse(target, status_code=308)
        return JSONResponse({"id": "x", "object": "chat.completion", "created": 0, "model": EVIL_MODEL,
                             "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                 "role": "assistant",
                                 "content": "\x1b[2J\x1b[H<img src=x onerror=alert(1)> [regrade](https://evil.example)"}}]})

    outer = ServerThread(Starlette(routes=[Route("/{mode}/v1/models", models),
                                           Route("/{mode}/v1/chat/completions", chat, methods=["POST"])])).start()
    yield outer, metadata
    outer.stop()
    inner.stop()


def conform(tmp_path, capsys, base_url: str, *extra: str) -> tuple[int, str, dict]:
    outputs = {fmt: tmp_path / f"report.{fmt}" for fmt in ("md", "html", "csv", "json", "junit-xml")}
    argv = ["conform", "--base-url", base_url, "--cases", "tools.call", "--timeout", "5", *extra]
    for fmt, path in outputs.items():
        argv += [f"--{fmt}", str(path)]
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out + captured.err, {fmt: p.read_text(encoding="utf-8") for fmt, p in outputs.items()}


def controls(text: str) -> list[str]:
    return [c for c in text if c != "\n" and unicodedata.category(c) in INVISIBLE_CATEGORIES]


@pytest.mark.e2e
def test_the_servers_model_name_and_answer_are_shown_never_obeyed(servers, tmp_path, capsys):
    outer, _ = servers
    before = tree_digest()
    code, printed, files = conform(tmp_path, capsys, f"http://{outer.host}:{outer.port}/plain/v1")
    assert code == 1   # the answer has no tool call: tools.call fails
    assert controls(printed) == [], printed
    assert "\\x1b]52;c;" in printed and "\\x1b[32mreference" in printed   # shown, as text
    for fmt in ("md", "html", "csv", "junit-xml"):
        assert controls(files[fmt]) == [], (fmt, files[fmt])
    assert "<img" not in files["md"] and "<img" not in files["html"]
    assert "](https://" not in files["md"]
    assert tree_digest() == before


@pytest.mark.e2e
def test_a_redirect_to_another_origin_is_not_followed_and_is_a_finding(servers, tmp_path, capsys):
    outer, metadata = servers
    before, hits = tree_digest(), metadata.hits
    code, printed, files = conform(tmp_path, capsys, f"http://{outer.host}:{outer.port}/away/v1")
    assert metadata.hits == hits, "conform asked the other origin"
    assert code == 1 and RedirectRefused.RULE in printed, printed
    assert "HTTP 307 to http://127.0.0.1:" in printed and "not followed" in printed
    assert SECRET not in printed and all(SECRET not in text for text in files.values())
    assert '"status": "failed"' in files["json"]
    assert tree_digest() == before


@pytest.mark.e2e
def test_a_chat_request_redirected_to_another_origin_fails_its_case(servers, tmp_path, capsys):
    outer, metadata = servers
    hits = metadata.hits
    code, printed, _ = conform(tmp_path, capsys, f"http://{outer.host}:{outer.port}/chataway/v1", "--model", "m")
    assert metadata.hits == hits
    assert code == 1 and RedirectRefused.RULE in printed and "HTTP 308" in printed, printed


@pytest.mark.e2e
def test_a_redirect_to_the_same_origin_is_followed(servers, tmp_path, capsys):
    outer, metadata = servers
    hits = metadata.hits
    code, printed, files = conform(tmp_path, capsys, f"http://{outer.host}:{outer.port}/same/v1")
    assert metadata.hits == hits
    assert RedirectRefused.RULE not in printed
    assert "\\x1b[32mreference" in printed   # the model list was reached through the redirect
