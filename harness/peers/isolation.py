"""Every peer in a child process of its own, with limits: the one mechanism of every verb.

Main access point: ``isolated_peer(name)`` -> ``IsolatedPeer``, a ``Peer`` (``base``) whose
every question (compile, accepts, viable, masks; ``call`` for a whole task function) is
asked of a child process that holds the real adapter. ``compare``, ``sweep --peers`` and
``corpus --peers`` all reach the peers this way; nothing of a peer is imported by the
process that decides a verdict.

The child (``harness.sandbox.isolated.command``: no current folder, no user site, no
``PYTHON*`` variables; ``python`` another interpreter, e.g. a venv holding an older release
of the engine) reads one JSON request a line on its
stdin and writes one JSON answer a line on a private copy of its stdout (the peer's own
prints go to its stderr, kept in a file whose tail a finding quotes). Data only: bytes
travel as latin-1 text (``{"$b": ...}``), masks as hex of their bits; never a pickle.

Limits (``Limits``), per request: **CPU seconds** (the child lowers its own soft
``RLIMIT_CPU`` to its CPU time so far plus the budget before each request, so the kernel
ends it with SIGXCPU; CPU time, so a verdict does not depend on the machine's load),
**memory** (``RLIMIT_AS`` for the child's whole life) and a generous **wall** backstop
(the parent stops waiting, ends the child's process group: a peer that sleeps or waits
on a lock). Guarantee: a crash (a signal such as SIGSEGV or SIGABRT), a hang, a limit or an
exception that is not the peer's refusal ends in ``PeerFailed`` naming the peer, its
version, what was asked and on which input; the child is gone (its process group ended
and reaped) and the next question starts a fresh one, so the run goes on. A refusal
(``PeerRefused``, a ``ValueError``) stays a refusal. ``PeerUnavailable`` from the child's
load is raised as such.

Example::

    peer = isolated_peer("outlines-core")
    peer.compile_regex("(cat|car)s?").accepts(b"cats")   # True, answered by the child
    # a segfault in the child: PeerFailed("outlines-core 0.2.14 crashed (SIGSEGV) ...")
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib
import itertools
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.peers.base import Compiled, Masker, Peer, PeerRefused, PeerUnavailable, Source

__all__ = ["EXTRA_PATHS", "Limits", "PeerFailed", "IsolatedPeer", "isolated_peer", "close_all", "DEFAULT_LIMITS"]

EXTRA_PATHS: list[str] = []
"""Folders the child puts at the front of ``sys.path`` (tests register stand-in peers so)."""
MAX_LINE_BYTES = 256 << 20
"""The longest answer the parent reads from a child (a line over it is a failure)."""
STDERR_TAIL = 600


@dataclasses.dataclass(frozen=True)
class Limits:
    """Per request: ``cpu_seconds`` of CPU (whole seconds, at least 1: ``RLIMIT_CPU``),
    ``wall_seconds`` before the parent gives up waiting; per child: ``memory_bytes`` of
    address space (0: no bound)."""

    cpu_seconds: int = 60
    memory_bytes: int = 8 << 30
    wall_seconds: float = 300.0

    def __post_init__(self):
        if self.cpu_seconds < 1 or self.wall_seconds <= 0 or self.memory_bytes < 0:
            raise ValueError(f"limits must be positive: {self}")


DEFAULT_LIMITS = Limits()


class PeerFailed(RuntimeError):
    """A peer crashed, hung, ran past a limit or raised: a finding about the peer.

    ``kind`` is one of "crash", "hang", "cpu limit", "memory limit", "raised";
    ``detail`` the signal or exception and the tail of the child's stderr; ``op`` what was
    asked (compile, accepts, ...), ``source`` the pattern or schema (a ``Source``) and
    ``data`` the document, prefix or arguments it was asked on."""

    def __init__(self, peer: str, version: str, kind: str, detail: str, op: str,
                 source: Source | None = None, data: Any = None):
        self.peer, self.version, self.kind, self.detail = peer, version, kind, detail
        self.op, self.source, self.data = op, source, data
        on = f" on {source.kind} {source.text[:120]!r}" if source is not None else ""
        super().__init__(f"{peer} {version} {kind} during {op}{on}: {detail}")


# -- the wire format ------------------------------------------------------------------

def encode(value):
    """JSON-ready ``value``: bytes as ``{"$b": latin-1 text}``, tuples as lists."""
    if isinstance(value, (bytes, bytearray)):
        return {"$b": bytes(value).decode("latin-1")}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def decode(value):
    """The inverse of ``encode`` (tuples come back as lists)."""
    if isinstance(value, dict):
        if set(value) == {"$b"}:
            return value["$b"].encode("latin-1")
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def _mask_to_hex(mask) -> str:
    return np.packbits(np.asarray(mask, dtype=bool), bitorder="little").tobytes().hex()


def _hex_to_mask(text: str, size: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(bytes.fromhex(text), dtype=np.uint8), bitorder="little")
    return bits[:size].astype(bool)


# -- the parent's side ----------------------------------------------------------------

class _Child:
    """One running child process and its pipes (a child serves one peer)."""

    def __init__(self, limits: Limits, python: str | None):
        from harness.sandbox.isolated import BOOT, PACKAGE_ROOT, command, environment

        args = ("harness.peers.isolation", str(limits.cpu_seconds), str(limits.memory_bytes))
        if python is None:
            argv = command(*args)
        else:  # another interpreter (a venv holding another release of the engine): this harness, by path
            argv = [python, "-s", "-B", "-X", "faulthandler", "-c", BOOT, str(PACKAGE_ROOT), *args]
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=environment(),
            start_new_session=True)
        self.buffer = b""

    @property
    def pid(self) -> int:
        return self.process.pid

    def ask(self, request: dict, wall: float) -> dict | str:
        """The answer, or a string saying how the child failed ("eof", "hang", "too long")."""
        try:
            self.process.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return "eof"
        deadline = time.monotonic() + wall
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return "hang"
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return "eof"
            self.buffer += chunk
            if len(self.buffer) > MAX_LINE_BYTES:
                return "too long"
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def end(self) -> int | None:
        """End the child's process group, reap it; its exit status (negative: a signal)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
            code = None
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        return code

    def stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - STDERR_TAIL))
            text = self.stderr.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""
        return " ".join(text.split())[-STDERR_TAIL:]


def _signal_name(code: int | None) -> str:
    if code is None or code >= 0:
        return f"exit status {code}"
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


class IsolatedPeer(Peer):
    """A peer whose adapter runs in a child process (module docstring)."""

    def __init__(self, name: str, limits: Limits = DEFAULT_LIMITS, python: str | None = None):
        from harness.peers import PEERS

        if name not in PEERS:
            raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")
        self.name = name
        self.limits = limits
        self.python = python
        self.module, self.class_name = PEERS[name]
        self.generation = 0  # a new child after each failure: handles of older ones are gone
        self._child: _Child | None = None
        self._handles = itertools.count(1)
        info = self._start()
        self.version = info["version"]
        self.can_schema = bool(info["can_schema"])
        self.can_mask = bool(info["can_mask"])
        self.notes = info["notes"]
        self.api = info.get("api", "")

    @property
    def pid(self) -> int | None:
        return None if self._child is None else self._child.pid

    def _start(self) -> dict:
        """A fresh child with the adapter loaded; what the adapter says of itself."""
        self._child = _Child(self.limits, self.python)
        self.generation += 1
        answer = self._child.ask({"op": "load", "name": self.name, "module": self.module, "class": self.class_name,
                                  "path": list(EXTRA_PATHS)}, self.limits.wall_seconds)
        if isinstance(answer, dict) and "unavailable" in answer:
            self.close()
            raise PeerUnavailable(self.name, answer["unavailable"])
        if not isinstance(answer, dict) or "ok" not in answer:
            self._fail(answer, "load", None, None)
        return answer["ok"]

    def _request(self, request: dict, op: str, source: Source | None = None, data: Any = None):
        if self._child is None:
            self._start()
        answer = self._child.ask(request, self.limits.wall_seconds)
        if isinstance(answer, dict):
            if "ok" in answer:
                return decode(answer["ok"])
            if "refused" in answer:
                raise PeerRefused(answer["refused"])
        self._fail(answer, op, source, data)

    def _fail(self, answer, op: str, source, data):
        child, self._child = self._child, None
        early = child.process.poll() if child is not None else None  # died by itself (e.g. SIGXCPU)
        code = child.end() if child is not None else None
        if early is not None:
            code, answer = early, "eof" if answer == "hang" else answer
        tail = child.stderr_tail() if child is not None else ""
        version = getattr(self, "version", "?")
        if isinstance(answer, dict) and "raised" in answer:
            kind, what = ("memory limit" if answer.get("type") == "MemoryError" else "raised"), answer["raised"]
        elif answer == "hang":
            kind, what = "hang", f"no answer within {self.limits.wall_seconds:g} s (wall)"
        elif code == -signal.SIGXCPU:
            kind, what = "cpu limit", f"more than {self.limits.cpu_seconds} CPU s (SIGXCPU)"
        elif "memory allocation" in tail or "MemoryError" in tail:
            kind, what = "memory limit", f"the process died ({_signal_name(code)}) allocating memory"
        else:
            kind, what = "crash", f"the process died ({_signal_name(code)})"
        detail = what + (f"; stderr: {tail}" if tail else "")
        raise PeerFailed(self.name, version, kind, detail, op, source, data)

    def compile(self, source: Source) -> IsolatedCompiled:
        return IsolatedCompiled(self, source)

    def compile_regex(self, pattern: str) -> IsolatedCompiled:
        return self.compile(Source.regex(pattern))

    def compile_schema(self, schema: dict[str, Any]) -> IsolatedCompiled:
        return self.compile(Source.schema(schema))

    def call(self, function: str, *args):
        """``function(*args)`` (``"module:name"``) in the peer's child: a whole task under the
        limits; arguments and result data only (``encode``)."""
        return self._request({"op": "call", "function": function, "args": encode(list(args))}, "call", None,
                             args)

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.end()


class IsolatedCompiled(Compiled):
    """A grammar compiled in the peer's child (compiled again there after a failure)."""

    def __init__(self, peer: IsolatedPeer, source: Source):
        self.peer = peer
        self.source = source
        self.handle = next(peer._handles)
        self.generation = -1
        self._ensure()

    def _ensure(self) -> None:
        if self.generation == self.peer.generation and self.peer._child is not None:
            return
        if self.peer._child is None:
            self.peer._start()
        self.generation = self.peer.generation
        self.peer._request({"op": "compile", "handle": self.handle, "kind": self.source.kind,
                            "text": self.source.text}, "compile", self.source)

    def _ask(self, op: str, data: Any, **fields):
        self._ensure()
        return self.peer._request({"op": op, "handle": self.handle, **encode(fields)}, op, self.source, data)

    def accepts(self, doc: bytes) -> bool:
        return bool(self._ask("accepts", doc, doc=doc))

    def viable(self, prefix: bytes) -> bool:
        return bool(self._ask("viable", prefix, doc=prefix))

    def accepts_all(self, docs: Sequence[bytes]) -> list[bool]:
        """``accepts`` of each document, in one request (one CPU budget for all)."""
        return [bool(x) for x in self._ask("accepts_all", list(docs), docs=list(docs))]

    def masker(self, vocab, eos_id) -> IsolatedMasker:
        return IsolatedMasker(self, list(vocab), eos_id)


class IsolatedMasker(Masker):
    def __init__(self, compiled: IsolatedCompiled, vocab: list, eos_id):
        self.compiled = compiled
        self.vocab, self.eos_id = vocab, eos_id
        self.vocab_size = len(vocab)
        self.handle = next(compiled.peer._handles)
        self.generation = -1
        self._ensure()

    def _ensure(self) -> None:
        self.compiled._ensure()
        if self.generation == self.compiled.peer.generation:
            return
        self.generation = self.compiled.peer.generation
        self.compiled.peer._request(
            {"op": "masker", "handle": self.handle, "compiled": self.compiled.handle,
             "vocab": encode(self.vocab), "eos": self.eos_id}, "masker", self.compiled.source,
            {"vocab_size": len(self.vocab), "eos_id": self.eos_id})

    def allowed(self, prefix_ids: Sequence[int]) -> np.ndarray:
        self._ensure()
        ids = [int(t) for t in prefix_ids]
        text = self.compiled.peer._request({"op": "allowed", "handle": self.handle, "prefix": ids}, "mask",
                                           self.compiled.source, {"prefix": ids})
        return _hex_to_mask(text, self.vocab_size)


_PEERS: dict[tuple[str, Limits, str | None], IsolatedPeer] = {}


def isolated_peer(name: str, limits: Limits = DEFAULT_LIMITS, python: str | None = None) -> IsolatedPeer:
    """The isolated peer ``name`` (one per name, limits and interpreter in this process,
    started once); ``PeerUnavailable`` when its package is missing, ``ValueError`` for an
    unknown name."""
    key = (name, limits, python)
    if key not in _PEERS:
        _PEERS[key] = IsolatedPeer(name, limits, python)
    return _PEERS[key]


@atexit.register
def close_all() -> None:
    """End every child this process started."""
    for peer in list(_PEERS.values()):
        peer.close()
    _PEERS.clear()


# -- the child's side -----------------------------------------------------------------

class _Server:
    """The child: the real adapter, its compiled grammars and maskers by handle."""

    def __init__(self, cpu_seconds: int):
        self.cpu_seconds = cpu_seconds
        self.peer: Peer | None = None
        self.compiled: dict[int, Compiled] = {}
        self.maskers: dict[int, Masker] = {}

    def handle(self, request: dict):
        op = request["op"]
        if op == "load":
            return self.load(request)
        if op == "compile":
            self.compiled[request["handle"]] = self.peer.compile(Source(request["kind"], request["text"]))
            return True
        if op in ("accepts", "viable"):
            return bool(getattr(self.compiled[request["handle"]], op)(decode(request["doc"])))
        if op == "accepts_all":
            compiled = self.compiled[request["handle"]]
            return [bool(compiled.accepts(d)) for d in decode(request["docs"])]
        if op == "masker":
            vocab = decode(request["vocab"])
            self.maskers[request["handle"]] = self.compiled[request["compiled"]].masker(vocab, request["eos"])
            return True
        if op == "allowed":
            return _mask_to_hex(self.maskers[request["handle"]].allowed(request["prefix"]))
        if op == "call":
            module, name = request["function"].split(":")
            return encode(getattr(importlib.import_module(module), name)(*decode(request["args"])))
        raise ValueError(f"unknown request {op!r}")

    def load(self, request: dict):
        from harness.peers import PEERS

        sys.path[:0] = [p for p in request.get("path", []) if p not in sys.path]
        PEERS[request["name"]] = (request["module"], request["class"])  # for task functions' load_peer
        module = importlib.import_module(request["module"])
        p = self.peer = getattr(module, request["class"])()
        return {"version": p.version, "can_schema": p.can_schema, "can_mask": p.can_mask, "notes": p.notes,
                "api": getattr(p, "api", "")}

    def serve(self, stdin, out) -> None:
        for line in stdin:
            request = json.loads(line)
            _cpu_budget(self.cpu_seconds)
            try:
                answer = {"ok": self.handle(request)}
            except PeerUnavailable as exc:
                answer = {"unavailable": exc.reason}
            except ValueError as exc:  # PeerRefused and the adapters' own ValueErrors: a refusal
                answer = {"refused": " ".join(str(exc).split())[:2000]}
            except BaseException as exc:  # noqa: BLE001 - the peer's failure, reported, never hidden
                answer = {"raised": f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}",
                          "type": type(exc).__name__}
            out.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
            out.flush()


def _cpu_budget(seconds: int) -> None:
    """Lower the soft CPU limit to the CPU time used so far plus ``seconds``."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = used + seconds
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def main(argv: list[str]) -> None:
    cpu_seconds, memory_bytes = int(argv[0]), int(argv[1])
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    out = os.fdopen(os.dup(1), "wb")  # the answers' channel; the peer's own prints go to stderr
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _Server(cpu_seconds).serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main(sys.argv[1:])
