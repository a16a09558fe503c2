"""Run the reference server: in this process on a background thread, or in the foreground.

``ServerThread(app)`` binds a free port on 127.0.0.1 (the operating system picks it),
serves ``app`` with uvicorn on a daemon thread and stops it on ``stop()`` (or on
leaving a ``with`` block); ``base_url`` is ``http://127.0.0.1:<port>/v1``. ``start()``
waits at most ``START_TIMEOUT`` seconds for the server to listen, ``stop()`` at most
``STOP_TIMEOUT`` for it to end (then it raises: a server that does not stop is a bug,
never silently left running).

Example::

    with ServerThread(create_app(engine)) as server:
        run_conformance(server.base_url)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import socket
import sys
import threading
import time

import uvicorn

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
GRACEFUL_SHUTDOWN = 2
"""Seconds open requests get to finish when the server stops (then they are cut)."""
LOOPBACK = "127.0.0.1"


M_ARENA_MAX, M_MMAP_THRESHOLD = -8, -3  # glibc's mallopt parameters
MALLOC_ARENAS = 2
MMAP_THRESHOLD = 128 << 10


def tune_malloc() -> bool:
    """Bound what glibc's allocator keeps for the server (Linux with glibc only; True
    when applied): at most ``MALLOC_ARENAS`` arenas for the request threads, and a
    fixed ``MMAP_THRESHOLD`` so the per-state rows (100 KB to 1 MB numpy arrays) are
    mapped and given back on release. Without it glibc raises the threshold after the
    first large release and keeps the rows in per-thread arenas: measured, the
    reference server's RSS grew ~30 MB per request with its grammar indexes already
    at their byte bound (issue 25's load test)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, MALLOC_ARENAS)) and bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):  # not glibc
        return False


class ServerThread:
    """uvicorn on a background thread, on a free loopback port (see the module docstring)."""

    def __init__(self, app, host: str = LOOPBACK) -> None:
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on a socket that says it is TCP; without it
        # a response's second write waited for the client's delayed ACK (~40 ms a kept-alive request)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, 0))
        self.host, self.port = host, self.socket.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name=f"serve-reference:{self.port}", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> "ServerThread":
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server on {self.base_url} did not start within {START_TIMEOUT:g} s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(STOP_TIMEOUT)
        self.socket.close()
        if self.thread.is_alive():
            raise RuntimeError(f"the server on {self.base_url} did not stop within {STOP_TIMEOUT:g} s")

    def __enter__(self) -> "ServerThread":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
