"""The data-only channel between the grader and a candidate process: frames and values.

A frame is a 4-byte big-endian length followed by that many bytes of MessagePack
(``msgpack``: a C-accelerated, widely used format whose decoder builds only data, never
calls constructors, never evaluates; chosen over pickle and ``multiprocessing.connection``,
which unpickle, and over rpyc, whose brine carries object references both ways). Values:

- ``None``, ``bool``, ``int`` (any size), ``float``, ``str``, ``bytes``, ``list``,
  ``tuple``, ``dict``, ``set``, ``frozenset``: themselves;
- numpy arrays and numpy scalars: raw bytes + dtype + shape; only the dtypes in
  ``DTYPES`` (no object dtype), loaded with ``numpy.frombuffer`` (never ``allow_pickle``),
  and copied, so the receiver owns an ordinary writable array;
- ``Handle(id, kind, methods)``: an object that stays in the candidate process (a DFA,
  a TokenIndex, ...), held by number; ``methods`` are the names of its callable
  attributes, so the grader's proxy can call them in one round trip;
- ``Described(kind, data)``: an object the grader hands the candidate that is not data
  (a tokenizer, a ``numpy.random.Generator``), rebuilt on the other side from ``data``.

Bounds (a flood is a protocol error, never a hang or an out-of-memory grader):
``MAX_FRAME`` bytes per frame (one call's request or reply), ``MAX_DEPTH`` nesting.

Example::

    >>> a, b = socket.socketpair()
    >>> send(a, {"x": np.arange(3, dtype=np.int32), "t": (1, b"z")})
    >>> got = receive(b, deadline=None)
    >>> got["x"].dtype, got["t"]
    (dtype('int32'), (1, b'z'))
"""

from __future__ import annotations

import select
import socket
import struct
import time
from dataclasses import dataclass

import msgpack
import numpy as np

MAX_FRAME = 256 << 20
"""Bytes in one frame: a reply larger than this is a protocol error (the flood bound)."""
MAX_DEPTH = 64
"""Nesting depth of a value (lists in lists ...)."""
DTYPES = frozenset(np.dtype(t).str for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128))
"""The array dtypes that may cross (native and byte-swapped spellings are both accepted)."""
DTYPES = DTYPES | frozenset(np.dtype(d).newbyteorder().str for d in DTYPES)

_HEADER = struct.Struct(">I")
_ARRAY, _HANDLE, _BIGINT, _TUPLE, _SET, _FROZENSET, _DESCRIBED, _SCALAR = range(1, 9)


class ProtocolError(Exception):
    """The peer broke the channel's rules (an oversized frame, a malformed value)."""


class ChannelClosed(Exception):
    """The peer closed the channel (it exited or died)."""


class ChannelTimeout(Exception):
    """No complete frame arrived before the deadline."""


@dataclass(frozen=True)
class Handle:
    """An object living in the candidate process: ``id`` (its number there), ``kind``
    (its type's name, for messages) and ``methods`` (names of its callable attributes)."""

    id: int
    kind: str
    methods: tuple[str, ...] = ()


@dataclass(frozen=True)
class Described:
    """An object sent as the data that rebuilds it (``kind`` says how)."""

    kind: str
    data: object


# --------------------------------------------------------------------------- values


def encode(value, to_handle=None, depth: int = 0):
    """``value`` as msgpack-native data with ext types; ``to_handle(obj)`` turns an object
    that is not data into a ``Handle`` (the candidate side), else such an object is a
    TypeError (the grader sends only data, handles and descriptions)."""
    if depth > MAX_DEPTH:
        raise ProtocolError(f"value nested deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, (bool, float, str, bytes)):
        return value
    if isinstance(value, int):
        return value if -(1 << 63) <= value < (1 << 64) else msgpack.ExtType(_BIGINT, str(value).encode())
    if isinstance(value, np.ndarray) and value.dtype.str in DTYPES:
        return _ext(_ARRAY, [value.dtype.str, list(value.shape), np.ascontiguousarray(value).tobytes()])
    if isinstance(value, np.generic) and value.dtype.str in DTYPES:
        return _ext(_SCALAR, [value.dtype.str, value.tobytes()])
    if isinstance(value, Handle):
        return _ext(_HANDLE, [value.id, value.kind, list(value.methods)])
    if isinstance(value, Described):
        return _ext(_DESCRIBED, [value.kind, encode(value.data, to_handle, depth + 1)])
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, list):
        return [encode(v, to_handle, depth + 1) for v in value]
    if isinstance(value, tuple):
        return _ext(_TUPLE, [encode(v, to_handle, depth + 1) for v in value])
    if isinstance(value, (set, frozenset)):
        code = _FROZENSET if isinstance(value, frozenset) else _SET
        return _ext(code, [encode(v, to_handle, depth + 1) for v in value])
    if isinstance(value, dict):
        return {encode(k, to_handle, depth + 1): encode(v, to_handle, depth + 1) for k, v in value.items()}
    if to_handle is not None:
        return encode(to_handle(value), None, depth)
    raise TypeError(f"cannot send a {type(value).__name__} over the channel (data only)")


def _ext(code: int, payload) -> msgpack.ExtType:
    return msgpack.ExtType(code, msgpack.packb(payload, use_bin_type=True))


def _unext(code: int, data: bytes):
    if not _ARRAY <= code <= _SCALAR:
        raise ProtocolError(f"unknown value type {code}")
    if code == _BIGINT:
        if len(data) > 4000 or not data.lstrip(b"-").isdigit():
            raise ProtocolError("malformed integer")
        return int(data.decode("ascii"))
    payload = msgpack.unpackb(data, raw=False, ext_hook=_unext, strict_map_key=False, use_list=True)
    if code == _ARRAY:
        return _array(*payload)
    if code == _SCALAR:
        dtype, raw = payload
        return _array(dtype, [], raw)[()]
    if code == _HANDLE:
        ident, kind, methods = payload
        if not isinstance(ident, int) or not isinstance(kind, str) or \
                not all(isinstance(m, str) for m in methods):
            raise ProtocolError("malformed handle")
        return Handle(ident, kind, tuple(methods))
    if code == _TUPLE:
        return tuple(payload)
    if code in (_SET, _FROZENSET):
        return (set if code == _SET else frozenset)(_hashable(v) for v in payload)
    if code == _DESCRIBED:
        kind, value = payload
        return Described(str(kind), value)
    raise ProtocolError(f"unknown value type {code}")  # pragma: no cover - the range check above


def _hashable(value):
    if isinstance(value, (list, dict, set)):
        raise ProtocolError("a set holds an unhashable value")
    return value


def _array(dtype: str, shape: list, raw: bytes) -> np.ndarray:
    if dtype not in DTYPES:
        raise ProtocolError(f"array dtype {dtype!r} is not allowed")
    if not isinstance(raw, bytes) or not all(isinstance(n, int) and n >= 0 for n in shape) or len(shape) > 32:
        raise ProtocolError("malformed array")
    array = np.frombuffer(raw, dtype=np.dtype(dtype))
    if int(np.prod(shape, dtype=np.int64)) != array.size:
        raise ProtocolError(f"array of {array.size} items does not have shape {shape}")
    return array.reshape(shape).copy()


# --------------------------------------------------------------------------- frames


def send(sock: socket.socket, value, to_handle=None) -> None:
    """Encode and send one frame (blocking)."""
    body = msgpack.packb(encode(value, to_handle), use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ProtocolError(f"a frame of {len(body)} bytes is over the {MAX_FRAME}-byte bound")
    sock.sendall(_HEADER.pack(len(body)) + body)


def receive(sock: socket.socket, deadline: float | None):
    """One frame's value; ``deadline`` is a ``time.monotonic()`` instant or None (wait)."""
    (size,) = _HEADER.unpack(_read(sock, _HEADER.size, deadline))
    if size > MAX_FRAME:
        raise ProtocolError(f"the peer announced a frame of {size} bytes (bound {MAX_FRAME})")
    body = _read(sock, size, deadline)
    try:
        return msgpack.unpackb(body, raw=False, ext_hook=_unext, strict_map_key=False, use_list=True)
    except ProtocolError:
        raise
    except Exception as exc:  # noqa: BLE001 - any decoding problem is the peer's fault
        raise ProtocolError(f"malformed frame: {type(exc).__name__}: {exc}") from None


def _read(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    while left:
        try:  # what has arrived is read without waiting; select only when nothing has
            chunk = sock.recv(min(left, 1 << 20), socket.MSG_DONTWAIT)
        except BlockingIOError:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([sock], [], [], remaining)[0]:
                    raise ChannelTimeout("no reply before the deadline") from None
            else:
                select.select([sock], [], [])
            continue
        if not chunk:
            raise ChannelClosed("the peer closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
