"""The data-only channel between the grader and a candidate process: frames and values.

A frame is a 4-byte big-endian length followed by that many bytes of MessagePack
(``msgpack``: a C-accelerated, widely used format whose decoder builds only data, never
calls constructors, never evaluates; chosen over pickle and ``multiprocessing.connection``,
which unpickle, and over rpyc, whose brine carries object references both ways). Values:

- ``None``, ``bool``, ``int``, ``float``, ``str``, ``bytes``, ``list``, ``tuple``,
  ``dict``, ``set``, ``frozenset``: themselves; an ``int`` past 64 bits as its two's-complement
  bytes (``int.to_bytes``, big-endian, signed, in ``bit_length() // 8 + 1`` bytes: no decimal
  text, so no limit of digits), and a ``str`` that is not UTF-8 (one holding a lone surrogate,
  ``"\\ud800"``) as ``s.encode("utf-8", "surrogatepass")``, decoded back the same way: each an
  extension value of its own, in both directions, under the bounds below (an int as long as
  its bytes fit the frame);
- numpy arrays and numpy scalars: raw bytes + dtype + shape; only the dtypes in
  ``DTYPES`` (no object dtype), loaded with ``numpy.frombuffer`` (never ``allow_pickle``),
  and copied, so the receiver owns an ordinary writable array;
- ``Handle(id, kind, methods, snapshot)``: an object that stays in the candidate process
  (a DFA, a TokenIndex, ...), held by number; ``methods`` are the names of its callable
  attributes, so the grader's proxy can call them in one round trip; ``snapshot`` (the
  tools contract only, else absent) its plain public attributes as they were when it was
  sent, which the proxy answers from until anything else is asked (``client.Proxy``);
- ``Described(kind, data)``: an object the grader hands the candidate that is not data
  (a tokenizer, a ``numpy.random.Generator``), rebuilt on the other side from ``data``.

Bounds (a flood is a protocol error, never a hang, a crash or an out-of-memory receiver),
checked when sending and again when receiving, where they matter (the peer may be hostile):

- ``MAX_FRAME`` bytes per frame (one call's request or reply): 256 MiB, refused from the
  header before the body is read;
- ``MAX_DEPTH`` containers around any value (list, tuple, set, dict, ``Described``): 64;
  a numpy array, scalar or handle adds its own payload's two levels on the wire;
- ``MAX_ELEMENTS`` values in one frame, every container and every item counted (the
  declared lengths, so a header announcing more is refused before anything is built):
  4 Mi;
- ``MAX_DECODED_BYTES`` of Python objects the decoded frame may need, estimated from above
  as ``ELEMENT_BYTES`` (96) per value, 4 bytes per byte of text (a str may be stored
  4 bytes a character), 1 per byte of binary, 2 per byte of every extension payload
  (the copy the decoder hands the extension hook, and a numpy array's own copy), the
  payload of a not-UTF-8 str counted as text too and that of an int as binary too (the
  str or int built from it), and 1 per byte of the frame (a copy the decoder may make):
  1 GiB.

The receiver enforces them without recursion proportional to the input (``decode``):

- a frame over ``SMALL_FRAME`` (1 MiB) is checked by ``scan`` before ``msgpack`` builds
  anything: an iterative walk over its headers (an explicit stack of the open containers,
  nothing allocated per value) that refuses a header announcing too much at once;
  ``msgpack.unpackb``'s own ``max_*_len`` limits are a second fence;
- a smaller frame cannot break the count or size bounds whatever it holds (a value takes
  at least one byte of it and at most ``ELEMENT_BYTES`` + 20 bytes a byte once decoded:
  some 116 MiB for 1 MiB), so it is decoded at once (``msgpack``'s decoder is iterative
  and refuses nesting past 1024 levels) and its depth checked afterwards, one level at a
  time in C iterators (``_check_depth``), unless it holds too few bytes that could open a
  container to nest past ``MAX_DEPTH``;
- extension values nested in extension values (a tuple in a tuple) are decoded through
  the hook's recursion up to ``FAST_EXT_NESTING`` (8) levels, each some 45 KB of C stack;
  deeper ones level by level with an explicit stack (``_decode_nested``), which refuses
  depth past ``MAX_DEPTH`` as it goes.

Anything else wrong with a frame (truncated, bytes after the value, an unused type byte,
an unknown extension, a msgpack timestamp, a malformed array or handle, an int's payload
of another length than its value's ``bit_length() // 8 + 1``, a str's payload that
``surrogatepass`` cannot decode) is a ``ProtocolError`` too. The sender checks the same
bounds (``pack``), so the grader never sends what its candidate would refuse; what it
cannot send at all (an object of no type above) is refused there, before anything is sent
(``pack``: a TypeError, or the ``ProtocolError`` of a bound). The biggest legitimate frames
measured (the catalogue, ``golden replay --file both`` and ``grade-tests`` of the strong example suite)
are far inside every bound: 133 KB, 8.8 K values, depth 7, some 0.9 MB decoded;
``tests/sandbox/test_channel_bounds.py`` checks that a batch over a 100 K-token vocabulary and
256 masks over it as raw bytes still cross.

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
import threading
import time
from dataclasses import dataclass, field
from itertools import chain, compress, groupby

import msgpack
import numpy as np

MAX_FRAME = 256 << 20
"""Bytes in one frame: a reply larger than this is a protocol error (the flood bound)."""
MAX_DEPTH = 64
"""Containers around any value (lists in lists ...): a value at depth 65 is refused."""
MAX_ELEMENTS = 4 << 20
"""Values in one frame, containers and items alike (an empty list is one, ``[1, 2]`` three)."""
ELEMENT_BYTES = 96
"""The most one value costs once decoded, besides its text and bytes (an empty dict and the
slot holding it, a one-character str stored 4 bytes wide, a uint64 as a Python int)."""
MAX_DECODED_BYTES = 1 << 30
"""The decoded frame's estimated size (module docstring): a frame that would need more is refused."""
FAST_EXT_NESTING = 8
"""Extension values nested deeper than this are decoded without recursion (``_decode_nested``)."""
SMALL_FRAME = 1 << 20
"""A frame this small cannot break the count or size bounds: ``scan`` is skipped (``decode``)."""
DTYPES = frozenset(np.dtype(t).str for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128))
"""The array dtypes that may cross (native and byte-swapped spellings are both accepted)."""
DTYPES = DTYPES | frozenset(np.dtype(d).newbyteorder().str for d in DTYPES)

_HEADER = struct.Struct(">I")
_ARRAY, _HANDLE, _BIGINT, _TUPLE, _SET, _FROZENSET, _DESCRIBED, _SCALAR, _TEXT = range(1, 10)
_CONTAINERS = frozenset({_TUPLE, _SET, _FROZENSET, _DESCRIBED})
"""Extension values whose payload holds channel values (other extensions among them)."""
_LIMITS = dict(max_str_len=MAX_FRAME, max_bin_len=MAX_FRAME, max_ext_len=MAX_FRAME,
               max_array_len=MAX_ELEMENTS, max_map_len=MAX_ELEMENTS // 2)
"""``msgpack.unpackb``'s own bounds: the second fence behind ``scan``."""


class ProtocolError(Exception):
    """The peer broke the channel's rules (an oversized frame, a malformed value)."""


class ChannelClosed(Exception):
    """The peer closed the channel (it exited or died)."""


class ChannelTimeout(Exception):
    """No complete frame arrived before the deadline."""


@dataclass(frozen=True)
class Handle:
    """An object living in the candidate process: ``id`` (its number there), ``kind``
    (its type's name, for messages), ``methods`` (names of its callable attributes) and
    ``snapshot``: None, or ``[values, live, type_name]``, its public attributes as they
    were when the handle was sent (``harness.sandbox.server._snapshot``: a dict of plain
    scalars, the names still to be read live, the name for an AttributeError's message)."""

    id: int
    kind: str
    methods: tuple[str, ...] = ()
    snapshot: list | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Described:
    """An object sent as the data that rebuilds it (``kind`` says how)."""

    kind: str
    data: object


# --------------------------------------------------------------------------- values


def encode(value, to_handle=None, depth: int = 0, texts: bool = False):
    """``value`` as msgpack-native data with ext types; ``to_handle(obj)`` turns an object
    that is not data into a ``Handle`` (the candidate side), else such an object is a
    TypeError (the grader sends only data, handles and descriptions). ``texts``: every str
    is checked, and one that is not UTF-8 becomes a text extension (``pack`` asks for it
    when msgpack could not write a str; else a str is handed to msgpack as it is)."""
    if depth > MAX_DEPTH:
        raise ProtocolError(f"value nested deeper than {MAX_DEPTH}")
    if isinstance(value, str):
        return _text(value) if texts else value
    if value is None or isinstance(value, (bool, float, bytes)):
        return value
    if isinstance(value, int):
        return value if -(1 << 63) <= value < (1 << 64) else msgpack.ExtType(_BIGINT, _int_bytes(value))
    if isinstance(value, np.ndarray) and value.dtype.str in DTYPES:
        return _ext(_ARRAY, [value.dtype.str, list(value.shape), np.ascontiguousarray(value).tobytes()])
    if isinstance(value, np.generic) and value.dtype.str in DTYPES:
        return _ext(_SCALAR, [value.dtype.str, value.tobytes()])
    if isinstance(value, Handle):
        return _ext(_HANDLE, _handle_payload(value, texts))
    if isinstance(value, Described):
        return _ext(_DESCRIBED, [value.kind, encode(value.data, to_handle, depth + 1, texts)])
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, list):
        if depth < MAX_DEPTH and _plain(value, texts):
            return value
        if depth + 1 < MAX_DEPTH and _plain_rows(value, texts):
            return value
        return [encode(v, to_handle, depth + 1, texts) for v in value]
    if isinstance(value, tuple):
        if depth < MAX_DEPTH and _plain(value, texts):
            return _ext(_TUPLE, list(value))
        return _ext(_TUPLE, [encode(v, to_handle, depth + 1, texts) for v in value])
    if isinstance(value, (set, frozenset)):
        code = _FROZENSET if isinstance(value, frozenset) else _SET
        return _ext(code, [encode(v, to_handle, depth + 1, texts) for v in value])
    if isinstance(value, dict):
        return {encode(k, to_handle, depth + 1, texts): encode(v, to_handle, depth + 1, texts)
                for k, v in value.items()}
    if to_handle is not None:
        return encode(to_handle(value), None, depth, texts)
    raise TypeError(f"cannot send a {type(value).__name__} over the channel (data only)")


def _int_bytes(value: int) -> bytes:
    """An int's two's-complement bytes, big-endian, ``bit_length() // 8 + 1`` of them (room for the sign)."""
    return value.to_bytes((value.bit_length() + 8) // 8, "big", signed=True)


def _utf8(text: str) -> bool:
    """Whether msgpack can write ``text`` as a str (it is UTF-8: no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text(text: str):
    """A str as itself, or, when it is not UTF-8, as a text extension (``surrogatepass``)."""
    return text if _utf8(text) else msgpack.ExtType(_TEXT, text.encode("utf-8", "surrogatepass"))


def _escaped(text: str) -> str:
    return text if _utf8(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _handle_payload(handle: Handle, texts: bool) -> list:
    """A handle's fields (``Handle``); with ``texts``, none holds a str that is not UTF-8
    (its payload carries no extension): a kind so written is escaped, such a method name
    left out (the proxy reads it as an attribute, then calls it), and a snapshot holding
    such a str is not sent (the proxy reads every attribute live)."""
    kind, methods, snapshot = handle.kind, list(handle.methods), handle.snapshot
    if texts:
        kind, methods = _escaped(kind), [m for m in methods if _utf8(m)]
        if snapshot is not None:
            values, live, type_name = snapshot
            names = [*values, *live, type_name, *(v for v in values.values() if isinstance(v, str))]
            snapshot = snapshot if all(map(_utf8, names)) else None
    return [handle.id, kind, methods] + ([] if snapshot is None else [snapshot])


_PLAIN_TYPES = frozenset({type(None), bool, float, str, bytes, int})
"""Values ``encode`` returns as they are (an int only within 64 bits, a str only when it is UTF-8)."""


def _plain(items, texts: bool = False) -> bool:
    """Whether every item is a value msgpack writes as itself (``_PLAIN_TYPES``, an int
    within 64 bits; with ``texts``, no str at all): a list of them is encoded at once (the
    arguments of a batch, a history), as ``encode`` would one by one."""
    kinds = set(map(type, items))
    if not kinds <= _PLAIN_TYPES or texts and str in kinds:
        return False
    if int not in kinds or not items:
        return True
    ints = items if len(kinds) == 1 else [v for v in items if type(v) is int]
    return -(1 << 63) <= min(ints) and max(ints) < (1 << 64)


def _plain_rows(items, texts: bool = False) -> bool:
    """Whether ``items`` holds lists only, each of plain values (``_plain``): a batch's
    argument lists, checked in one pass over all their values."""
    return bool(items) and set(map(type, items)) == {list} and _plain(list(chain.from_iterable(items)), texts)


_PACKERS = threading.local()


def _packb(value) -> bytes:
    """``msgpack.packb(value, use_bin_type=True)``, by this thread's one ``Packer`` (a new
    ``Packer`` for each of a frame's thousands of extension values cost ~2 us each; the bytes
    are the same, and a value that cannot be written leaves the packer empty for the next)."""
    packer = getattr(_PACKERS, "packer", None)
    if packer is None:
        packer = _PACKERS.packer = msgpack.Packer(use_bin_type=True)
    return packer.pack(value)


def _ext(code: int, payload) -> msgpack.ExtType:
    return msgpack.ExtType(code, _packb(payload))


def _leaf(code: int, data: bytes):
    """An extension value that holds no channel value: an integer, array, scalar or handle."""
    if code == _BIGINT:
        value = int.from_bytes(data, "big", signed=True)
        if not data or len(data) != (value.bit_length() + 8) // 8:
            raise ProtocolError("malformed integer (not its value's bit_length() // 8 + 1 bytes)")
        return value
    if code == _TEXT:
        try:
            return data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise ProtocolError("malformed text (not UTF-8 even with lone surrogates)") from None
    if not _ARRAY <= code <= _SCALAR or code in _CONTAINERS:
        raise ProtocolError(f"unknown value type {code}")
    payload = msgpack.unpackb(data, ext_hook=_no_extension, **_UNPACK)
    if code == _ARRAY:
        if not (isinstance(payload, list) and len(payload) == 3):
            raise ProtocolError("malformed array")
        return _array(*payload)
    if code == _SCALAR:
        if not (isinstance(payload, list) and len(payload) == 2):
            raise ProtocolError("malformed scalar")
        dtype, raw = payload
        return _array(dtype, [], raw)[()]
    if not (isinstance(payload, list) and len(payload) in (3, 4)):
        raise ProtocolError("malformed handle")
    ident, kind, methods = payload[:3]
    if not isinstance(ident, int) or not isinstance(kind, str) or not isinstance(methods, list) or \
            not all(isinstance(m, str) for m in methods):
        raise ProtocolError("malformed handle")
    snapshot = payload[3] if len(payload) == 4 else None
    if snapshot is not None and not _well_formed_snapshot(snapshot):
        raise ProtocolError("malformed handle snapshot")
    return Handle(ident, _printable(kind[:200]), tuple(methods), snapshot)


_SNAPSHOT_VALUES = (type(None), bool, int, float, str, bytes)


def _well_formed_snapshot(snapshot) -> bool:
    """``[values, live, type_name]``: a dict of str names to plain scalars, a list of str
    names, a str (``Handle.snapshot``)."""
    if not (isinstance(snapshot, list) and len(snapshot) == 3):
        return False
    values, live, type_name = snapshot
    return isinstance(values, dict) and all(type(k) is str and type(v) in _SNAPSHOT_VALUES for k, v in values.items()) \
        and isinstance(live, list) and all(type(n) is str for n in live) and isinstance(type_name, str)


def _container(code: int, payload):
    """A tuple, set, frozenset or ``Described`` from its decoded payload (a list)."""
    if not isinstance(payload, list):
        raise ProtocolError(f"malformed value of type {code}")
    if code == _TUPLE:
        return tuple(payload)
    if code in (_SET, _FROZENSET):
        return (set if code == _SET else frozenset)(_hashable(v) for v in payload)
    if len(payload) != 2:
        raise ProtocolError("malformed description")
    kind, value = payload
    return Described(str(kind), value)


def _no_extension(code: int, data: bytes):
    raise ProtocolError("an extension value inside an array, scalar or handle")


def _printable(text: str) -> str:
    """``text`` with its unprintable characters (controls, escapes) written as escapes: a
    handle's kind is the candidate's class name, shown in messages."""
    return text if text.isprintable() else repr(text)[1:-1]


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


# --------------------------------------------------------------------------- receiving

_UNPACK = dict(raw=False, strict_map_key=False, **_LIMITS)
_CONTAINER_TYPES = frozenset({list, tuple, set, frozenset, dict, Described})
_MAPPING_TYPES = frozenset({dict, Described})
_SEQUENCE_TYPES = frozenset({list, tuple, set, frozenset})
_WIDTH = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xc7: 1, 0xc8: 2, 0xc9: 4, 0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4,
          0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, 0xd9: 1, 0xda: 2, 0xdb: 4, 0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4}
"""Bytes after the type byte that hold a length (bin, ext, str, array, map) or the value itself."""
_FIXEXT = {0xd4: 1, 0xd5: 2, 0xd6: 4, 0xd7: 8, 0xd8: 16}
_ARRAY_HEADERS = frozenset([*range(0x90, 0xa0), 0xdc, 0xdd])
_SIMPLE = bytes(1 if k < 0x80 or k >= 0xe0 or k in (0xc0, 0xc2, 0xc3) else 1 + _WIDTH[k] if 0xca <= k <= 0xd3 else 0
                for k in range(256))
"""The size of each value that is a number, nil, true or false, by its first byte (0: another kind)."""
_OPENERS = bytes([*range(0x80, 0xa0), 0xc7, 0xc8, 0xc9, *_FIXEXT, 0xdc, 0xdd, 0xde, 0xdf])
_NOT_OPENERS = bytes(k for k in range(256) if k not in _OPENERS)
_TIMESTAMPS = (b"\xd6\xff", b"\xd7\xff", b"\xc7\x0c\xff")


def decode(body: bytes):
    """One frame's value from its bytes (``body``: the frame without its length header),
    within the bounds of the module docstring (which says how); a ``ProtocolError`` says
    what is wrong."""
    try:
        if len(body) > SMALL_FRAME or b"\xff" in body and _has_timestamp(body):
            scan(body)
            return _unpack(body, True)
        value = _unpack(body, False)
        if len(body) > MAX_DEPTH and len(body.translate(None, _NOT_OPENERS)) > MAX_DEPTH:
            _check_depth(value)
        return value
    except ProtocolError:
        raise
    except msgpack.StackError:
        raise ProtocolError(f"a value nested deeper than {MAX_DEPTH}") from None
    except Exception as exc:  # noqa: BLE001 - any decoding problem is the peer's fault
        raise ProtocolError(f"malformed frame: {type(exc).__name__}: {_printable(str(exc)[:200])}") from None


def _has_timestamp(body: bytes) -> bool:
    """Whether ``body`` may hold a msgpack timestamp (an extension of type -1, which
    ``msgpack`` decodes itself, never through the hook): ``scan`` then refuses it."""
    return any(signature in body for signature in _TIMESTAMPS)


def _unpack(body: bytes, big: bool):
    """``msgpack.unpackb`` (with its ``max_*_len`` bounds for a ``big`` frame), extension
    values decoded by the hooks' recursion up to ``FAST_EXT_NESTING`` levels (each costs
    some 45 KB of C stack); deeper, the frame is decoded again without recursion
    (``_decode_nested``)."""
    try:
        if big:
            return msgpack.unpackb(body, ext_hook=_HOOKS[0], raw=False, strict_map_key=False, **_LIMITS)
        return msgpack.unpackb(body, ext_hook=_HOOKS[0], raw=False, strict_map_key=False)
    except _TooNested:
        return _decode_nested(body)


def _hook_at(level: int):
    """The extension hook for values nested ``level`` extension values deep."""
    def hook(code: int, data: bytes):
        if code not in _CONTAINERS:
            return _leaf(code, data)
        if level >= FAST_EXT_NESTING:
            raise _TooNested
        return _container(code, msgpack.unpackb(data, ext_hook=_HOOKS[level + 1], raw=False, strict_map_key=False))
    return hook


class _TooNested(Exception):
    """Extension values nested deeper than ``FAST_EXT_NESTING`` (``_unpack``)."""


_HOOKS = tuple(_hook_at(level) for level in range(FAST_EXT_NESTING + 1))


def _check_depth(value) -> None:
    """Refuse a decoded ``value`` holding anything at a depth over ``MAX_DEPTH``: one level
    at a time, the containers found by C iterators (no recursion, no Python loop per item;
    one per dict or ``Described``)."""
    items = [value]
    for depth in range(1, MAX_DEPTH + 2):
        kinds = set(map(type, items))
        if kinds.isdisjoint(_CONTAINER_TYPES):
            return
        if not kinds <= _SEQUENCE_TYPES:
            items = _containers_children(items)
        else:
            items = list(chain.from_iterable(items))
        if items and depth > MAX_DEPTH:
            raise ProtocolError(f"a value nested deeper than {MAX_DEPTH}")


def _containers_children(items: list) -> list:
    """The values held by the containers among ``items`` (a dict's keys and values, a
    ``Described``'s data)."""
    containers = compress(items, map(_CONTAINER_TYPES.__contains__, map(type, items)))
    children, mappings = [], []
    for kind, group in groupby(containers, lambda c: type(c) in _MAPPING_TYPES):
        if kind:
            mappings.extend(group)
        else:
            children.extend(chain.from_iterable(group))
    for mapping in mappings:
        children.extend(_children(mapping))
    return children


def _children(container):
    if isinstance(container, dict):
        return chain(container, container.values())
    if isinstance(container, Described):
        return (container.data,)
    return container


def scan(body: bytes) -> int:
    """Check ``body`` against the bounds before anything is decoded (module docstring); the
    estimate of its decoded size, in bytes. Walks the headers with an explicit stack of the
    open containers (no recursion, nothing allocated per value); raises ``ProtocolError``
    for a frame out of bounds or malformed."""
    try:
        return _scan(body)
    except IndexError:
        raise ProtocolError("truncated frame") from None


def _scan(body: bytes) -> int:
    size, pos, simple = len(body), 0, _SIMPLE
    elements, text, binary, payloads = 1, 0, 0, 0
    todo, end, limit, depth, leaf = 1, size, MAX_DEPTH, 0, False  # the innermost open container
    stack = []  # the enclosing ones
    while True:
        if not todo:
            if end >= 0:  # an extension's payload, or the frame: its one value ends where it does
                if pos != end:
                    raise ProtocolError("truncated frame" if pos > end else "bytes after a value")
                if not stack:
                    break
            todo, end, limit, depth, leaf = stack.pop()
            continue
        todo -= 1
        kind = body[pos]
        step = simple[kind]
        if step:  # a number, nil, true, false: nothing to count but the value
            pos += step
            continue
        if kind < 0xa0:  # fixmap, fixarray
            count = (kind & 0x0f) * (2 if kind < 0x90 else 1)
            pos += 1
            if kind >= 0x90:  # an array of numbers (the arguments of one call) is checked here, at once
                end_of_simple = pos
                for _ in range(count):
                    step = simple[body[end_of_simple]]
                    if not step:
                        break
                    end_of_simple += step
                else:
                    elements += count
                    if count and depth >= limit:
                        raise ProtocolError(f"a value nested deeper than {MAX_DEPTH}")
                    pos = end_of_simple
                    continue
        elif kind < 0xc0:  # fixstr
            pos += 1 + (kind & 0x1f)
            text += kind & 0x1f
            continue
        elif kind in _FIXEXT or 0xc7 <= kind <= 0xc9:
            pos, length = _ext_length(body, pos, kind)
            code = body[pos - 1]
            if leaf:
                raise ProtocolError("an extension value inside an array, scalar or handle")
            if not _ARRAY <= code <= _TEXT:
                raise ProtocolError(f"unknown value type {code - 256 if code > 127 else code}")
            payloads += length
            if code == _BIGINT or code == _TEXT:  # a leaf: the int or str built from the payload
                if code == _TEXT:
                    text += length
                else:
                    binary += length
                pos += length
                continue
            if body[pos] not in _ARRAY_HEADERS:
                raise ProtocolError(f"malformed value of type {code}")
            stack.append((todo, end, limit, depth, leaf))
            todo, end = 1, pos + length
            if code not in _CONTAINERS:  # an array, scalar or handle: a list of at most two levels
                limit, leaf = depth + 2, True
            continue
        elif kind in _WIDTH:  # bin, str, array, map (the fixed-width numbers are simple)
            width = _WIDTH[kind]
            value = int.from_bytes(body[pos + 1:pos + 1 + width], "big")
            pos += 1 + width
            if kind < 0xdc:
                pos += value
                if kind >= 0xd9:
                    text += value
                else:
                    binary += value
                continue
            count = value * (2 if kind >= 0xde else 1)
        else:
            raise ProtocolError(f"unused type byte 0x{kind:02x}")
        if count:
            elements += count
            if elements > MAX_ELEMENTS:
                raise ProtocolError(f"more than {MAX_ELEMENTS} values in one frame")
            if count > size - pos:
                raise ProtocolError("truncated frame")
            if depth >= limit:
                raise ProtocolError(f"a value nested deeper than {MAX_DEPTH}")
            if count >= 8:  # many siblings (a batch's arguments or answers): skipped in C when they are simple
                pos, skipped, arrays, items = _skip_siblings(body, pos, count)
                elements += items
                if arrays and depth + 1 >= limit:
                    raise ProtocolError(f"a value nested deeper than {MAX_DEPTH}")
                if skipped == count:
                    continue
                count -= skipped
            stack.append((todo, end, limit, depth, leaf))
            todo, end, depth = count, -1, depth + 1
    if elements > MAX_ELEMENTS:
        raise ProtocolError(f"more than {MAX_ELEMENTS} values in one frame")
    estimate = ELEMENT_BYTES * elements + 4 * text + binary + 2 * payloads + size
    if estimate > MAX_DECODED_BYTES:
        raise ProtocolError(f"a frame that would take {estimate} bytes decoded (bound {MAX_DECODED_BYTES})")
    return estimate


def _skip_siblings(body: bytes, pos: int, count: int) -> tuple[int, int, int, int]:
    """Skip the longest run (at most ``count``) of values at ``pos`` that are simple or arrays
    of simple values (a batch's arguments or answers) in one tight loop: where the run ends,
    how many siblings it held, how many of those were arrays and how many values those held."""
    simple, skipped, arrays, items = _SIMPLE, 0, 0, 0
    try:
        while skipped < count:
            kind = body[pos]
            step = simple[kind]
            if step:
                pos += step
            elif 0x90 < kind < 0xa0:
                end, left = pos + 1, kind - 0x90
                while left:
                    step = simple[body[end]]
                    if not step:
                        return pos, skipped, arrays, items
                    end += step
                    left -= 1
                pos, arrays, items = end, arrays + 1, items + kind - 0x90
            else:
                break
            skipped += 1
    except IndexError:
        pass  # the frame ends here: the caller says it is truncated
    return pos, skipped, arrays, items


def _ext_length(body: bytes, pos: int, kind: int) -> tuple[int, int]:
    """Where an extension value's payload starts (after its type byte) and its length."""
    if kind in _FIXEXT:
        return pos + 2, _FIXEXT[kind]
    width = _WIDTH[kind]
    return pos + 2 + width, int.from_bytes(body[pos + 1:pos + 1 + width], "big")


class _Pending:
    """An extension value holding channel values, decoded later (``_decode_nested``)."""

    __slots__ = ("code", "data", "items", "value")

    def __init__(self, code: int, data: bytes):
        self.code, self.data, self.items, self.value = code, data, None, None


def _pending(code: int, data: bytes):
    return _Pending(code, data) if code in _CONTAINERS else _leaf(code, data)


def _decode_nested(body: bytes):
    """``decode`` without recursion, for extension values nested deeper than
    ``FAST_EXT_NESTING``: each is decoded one level at a time (its payload kept as a
    ``_Pending``), then, children before parents, every container gets its final values."""
    root = msgpack.unpackb(body, ext_hook=_pending, **_UNPACK)
    order, todo = [], [(root, 0)]  # containers, parents before children; values to look at, with their depth
    while todo:
        value, depth = todo.pop()
        if isinstance(value, _Pending):
            value.items = msgpack.unpackb(value.data, ext_hook=_pending, **_UNPACK)
            value.data = None
            if not isinstance(value.items, list):
                raise ProtocolError(f"malformed value of type {value.code}")
            children = value.items
        elif isinstance(value, list):
            children = value
        elif isinstance(value, dict):
            children = [*value, *value.values()]
        else:
            continue
        if children and depth >= MAX_DEPTH:
            raise ProtocolError(f"a value nested deeper than {MAX_DEPTH}")
        order.append(value)
        todo.extend((child, depth + 1) for child in children)
    for node in reversed(order):
        if isinstance(node, _Pending):
            node.value = _container(node.code, [_final(v) for v in node.items])
            node.items = None
        elif isinstance(node, list):
            node[:] = [_final(v) for v in node]
        else:
            pairs = [(_final(k), _final(v)) for k, v in node.items()]
            node.clear()
            node.update(pairs)
    return _final(root)


def _final(value):
    return value.value if isinstance(value, _Pending) else value


# --------------------------------------------------------------------------- frames


def pack(value, to_handle=None, checked: bool = True) -> bytes:
    """One frame's body (without its length header): ``value`` encoded (``encode``). A str
    that is not UTF-8 is found where msgpack refuses to write it; the value is then encoded
    again with every str checked (``texts``), ``to_handle``'s answers of the first pass given
    again in the same order (it is asked once an object: the candidate numbers its handles,
    the grader counts the generators it hands over). ``checked``: a value out of the bounds
    (module docstring) is a ``ProtocolError``. What cannot be sent raises here, before
    anything is sent."""
    asked: list = []
    recorder = None if to_handle is None else _recorded(to_handle, asked, None)
    try:
        body = _packb(encode(value, recorder))
    except UnicodeEncodeError:  # a lone surrogate (the only str msgpack cannot write)
        again = None if to_handle is None else _recorded(to_handle, asked, iter(list(asked)))
        body = _packb(encode(value, again, texts=True))
    if checked and len(body) > MAX_FRAME:
        raise ProtocolError(f"a frame of {len(body)} bytes is over the {MAX_FRAME}-byte bound")
    if checked and len(body) > SMALL_FRAME:  # the receiver's bounds (a smaller frame keeps them: ``decode``)
        scan(body)
    return body


def _recorded(to_handle, asked: list, replay):
    """``to_handle`` whose answers are kept in ``asked`` as ``(object, answer)``; ``replay``
    (an iterator over an earlier pass's) answers the same objects, met in the same order
    (``encode`` meets them so whether it checks each str or not), from there."""
    def ask(obj):
        for seen, answer in replay or ():
            if seen is obj:
                return answer
            break
        answer = to_handle(obj)
        asked.append((obj, answer))
        return answer
    return ask


def send(sock: socket.socket, value, to_handle=None) -> None:
    """Encode and send one frame (blocking); what cannot be sent, a value out of the bounds
    among it (a ``ProtocolError``), raises before anything is sent (``pack``)."""
    send_body(sock, pack(value, to_handle))


def send_body(sock: socket.socket, body: bytes) -> None:
    """Send one frame's body (``pack``'s) with its length header (blocking)."""
    sock.sendall(_HEADER.pack(len(body)) + body)


def receive(sock: socket.socket, deadline: float | None):
    """One frame's value; ``deadline`` is a ``time.monotonic()`` instant or None (wait).
    Every frame is checked against the bounds before it is decoded (``decode``)."""
    return decode(receive_body(sock, deadline))


def receive_body(sock: socket.socket, deadline: float | None) -> bytes:
    """One frame's body as it came (``receive`` without the decoding; a frame announced over
    ``MAX_FRAME`` is refused from its header): the wire form a recording keeps."""
    (size,) = _HEADER.unpack(_read(sock, _HEADER.size, deadline))
    if size > MAX_FRAME:
        raise ProtocolError(f"the peer announced a frame of {size} bytes (bound {MAX_FRAME})")
    return _read(sock, size, deadline)


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
