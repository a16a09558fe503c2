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

import socket
import threading
import time

import uvicorn

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
GRACEFUL_SHUTDOWN = 2
"""Seconds open requests get to finish when the server stops (then they are cut)."""
LOOPBACK = "127.0.0.1"


class ServerThread:
    """uvicorn on a background thread, on a free loopback port (see the module docstring)."""

    def __init__(self, app, host: str = LOOPBACK) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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
