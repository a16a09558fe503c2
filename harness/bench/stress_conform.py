"""Hostile servers for ``conform``, for the stress corpus (``kind: "conform"``).

``run_scenario(case)`` serves ``hostile_app()`` on a free 127.0.0.1 port in this
process and runs ``constrain-harness conform`` against it (its ``cases`` and ``argv``;
``base_url`` replaces the server's URL when given), then checks the exit code against
``expect_exit`` and, when ``expect`` is given, that the report's reasons hold it. The
time is wall seconds of the conform run (its promise is a wall-clock deadline); the
stress runner reads the peak RSS of the whole process.

Behaviours, one per URL prefix (issue 25's hostile servers):

============  ============================================================
``forever``   a stream of SSE comments that never ends
``drip``      a JSON body dripped a byte every 0.2 s, never ending
``huge``      a 200 MB answer (streamed: one 200 MB SSE line)
============  ============================================================

Every generator stops when the client leaves; the server is stopped at the end.
"""

from __future__ import annotations

import asyncio
import io
import json
import time

HUGE_BYTES = 200 << 20
MODELS = {"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "hostile"}]}


async def _forever():
    while True:
        yield ": still thinking\n\n"
        await asyncio.sleep(0.01)


async def _drip():
    for byte in b'{"id":"x","object":"chat.completion",':
        yield bytes([byte])
        await asyncio.sleep(0.2)
    while True:
        yield b" "
        await asyncio.sleep(0.2)


async def _huge(prefix: bytes):
    piece = b" " * (1 << 20)
    yield prefix
    for _ in range(HUGE_BYTES // len(piece)):
        yield piece
        await asyncio.sleep(0)


def hostile_app():
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    async def models(request):
        return JSONResponse(MODELS)

    async def chat(request):
        mode = request.path_params["mode"]
        stream = json.loads(await request.body()).get("stream")
        if mode == "forever":
            return StreamingResponse(_forever(), media_type="text/event-stream")
        if mode == "drip":
            return StreamingResponse(_drip(), media_type="application/json")
        prefix = b'data: {"id":"' if stream else b'{"id":"x","object":"chat.completion","a":"'
        return StreamingResponse(_huge(prefix), media_type="text/event-stream" if stream else "application/json")

    return Starlette(routes=[Route("/{mode}/v1/models", models),
                             Route("/{mode}/v1/chat/completions", chat, methods=["POST"])])


def warm(openai_too: bool) -> None:
    """Import what a conform case runs, before its clock (``run_scenario``; ``stress.fork_main``
    does it once for the cases it forks): the verb, and the openai client for a run against a
    server (seconds of import on a loaded machine; conform refuses its own bad arguments without it)."""
    if openai_too:
        import openai  # noqa: F401
    import harness.cli  # noqa: F401
    import harness.commands.conform  # noqa: F401
    import harness.server.conform.run  # noqa: F401


def run_scenario(case: dict) -> dict:
    """``{"outcome", "contract", "detail", "seconds"}`` of one conform case (see the module doc)."""
    warm("server" in case)
    from harness.cli import main
    from harness.server.reference.runner import ServerThread

    with ServerThread(hostile_app()) as server:
        url = case.get("base_url") or f"http://{server.host}:{server.port}/{case.get('server', 'forever')}/v1"
        argv = ["conform", "--base-url", url, "--model", "m", "--cases", case.get("cases", "tools.call"),
                *case.get("argv", [])]
        out, err = io.StringIO(), io.StringIO()
        start = time.perf_counter()
        code = main(argv, stdout=out, stderr=err)
        seconds = time.perf_counter() - start
    said = out.getvalue() + err.getvalue()
    contract = code == case["expect_exit"] and case.get("expect", "") in said and "Traceback" not in said
    detail = f"exit {code}: " + " ".join(said.split())[-160:]
    return {"outcome": "ok" if contract else "error", "contract": contract, "detail": detail, "seconds": seconds}
