"""Stand-in hostile peers for the isolation tests, loaded by the peers' child process
(``harness.peers.isolation.EXTRA_PATHS`` points here).

``Hostile`` matches like Python ``re`` on bytes, except on inputs that trigger an attack:
a pattern starting ``segv`` (a NULL pointer read through ctypes), ``abort`` (``os.abort``),
``hog`` (allocates without bound), ``raise`` (a RuntimeError) at compile time; and the
documents ``b"spin"`` (a busy loop), ``b"sleep"`` (sleeps without using CPU) and
``b"boom"`` (segfaults) at accepts time; a schema whose title names an attack.
"""

from __future__ import annotations

import ctypes
import os
import re
import time

from harness.peers.base import Compiled, Peer, PeerRefused, Source


def _attack(what: str) -> None:
    if what == "segv":
        ctypes.string_at(0)
    elif what == "abort":
        os.abort()
    elif what == "hog":
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
    elif what == "raise":
        raise RuntimeError("the engine's own bug")
    elif what == "spin":
        while True:
            pass
    elif what == "sleep":
        time.sleep(3600)


class HostileCompiled(Compiled):
    def __init__(self, pattern: str):
        self.source = Source.regex(pattern)
        self.rx = re.compile(pattern.encode("latin-1"))

    def accepts(self, doc: bytes) -> bool:
        if doc in (b"spin", b"sleep"):
            _attack(doc.decode())
        if doc == b"boom":
            _attack("segv")
        return self.rx.fullmatch(doc) is not None

    def viable(self, prefix: bytes) -> bool:
        return True


class Hostile(Peer):
    """Schemas: ``{"title": ATTACK}`` runs the attack, any other schema is refused."""

    name, version = "hostile", "6.6.6"
    can_schema = True
    notes = "a stand-in peer that crashes, hangs or hoards on purpose"
    api = "hostile_peer.Hostile (a test double)"

    def compile_regex(self, pattern: str) -> HostileCompiled:
        for what in ("segv", "abort", "hog", "raise"):
            if pattern.startswith(what):
                _attack(what)
        try:
            return HostileCompiled(pattern)
        except re.error as exc:
            raise PeerRefused(f"hostile refused {pattern!r}: {exc}") from exc

    def compile_schema(self, schema) -> HostileCompiled:
        _attack(schema.get("title", "") if isinstance(schema, dict) else "")
        raise PeerRefused("hostile compiles no schema")
