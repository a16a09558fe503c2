"""The student's side of ``grade-tests``: the module under test, served from elsewhere.

This package runs in the student's confined process (a private copy of it: the student's
process cannot import ``harness``; ``channel`` and ``proxying`` are copies of the wall's
own modules, ``harness/sandbox/channel.py`` and ``proxying.py``, and ``shapes`` of
``harness/sandbox/shapes.py``, made at run time). A suite hands ``vocab_bytes`` the spec's
tokenizer as ``_gradewall.shapes.SpecTokenizer(tokens, special_ids)`` (the spec fixes no
tokenizer interface; this object answers every reasonable one, as the catalogue's does).
``boot.main`` installs ``--module`` (default ``tinyllm.infer.constrain``) in
``sys.modules`` as a ``ServedModule``: every attribute the tests read is asked of the
grader over a data-only channel (``channel``: msgpack frames, no pickle), and the grader
relays the request, after its gate (``harness.grading.gradetests.relay``), to the process that
holds the implementation under test.
Every answer comes through the grader's normalisation (``harness.grading.gradetests.normalise``):
objects as ``Proxy`` objects named by the contract (a DFA proxy whose ``.trans`` is a numpy
array), numbered by the grader; exceptions as ``RemoteError`` subclassing the builtin class
the implementation's exception derives from (a ``ValueError`` is caught by ``except
ValueError``), with a message that names the contract call and that class only.

What a test can see of the implementation is its behaviour: ``__file__`` is the
constant ``SERVED_FILE``, ``repr`` of a proxy is ``<DFA proxy #3>`` (no round trip),
and the implementation process is in another PID namespace.

Example (inside the student's process)::

    >>> from tinyllm.infer import constrain
    >>> dfa = constrain.regex_to_dfa("ab")
    >>> dfa.n_states, dfa.trans.shape
    (3, (3, 256))
"""

from __future__ import annotations

import sys
import types

import numpy as np

from . import channel, proxying, shapes

SERVED_FILE = "<served by constrain-harness grade-tests>"


class ImplementationGone(BaseException):
    """The implementation process ended (a crash or a timeout there): the test fails."""


class RemoteError(Exception):
    """An exception raised by the implementation (subclassed per builtin kind)."""


class Link:
    """The student's end of the channel to the grader. Requests get one reply; reports
    (``@start``, ``@result`` ...) are one-way."""

    def __init__(self, sock):
        self.sock = sock

    def request(self, op: str, target: int, name=None, args=(), kwargs=None):
        rngs: list = []
        channel.send(self.sock, [op, target, name, list(args), dict(kwargs or {})], _describer(self, rngs))
        status, value, extras = channel.receive(self.sock, None)
        for rng, state in zip(rngs, (extras or {}).get("rng", []) if isinstance(extras, dict) else []):
            rng.bit_generator.state = state
        if status == "gone":
            raise ImplementationGone(str(value))
        if status == "err":
            raise _remote_exception(value)
        return self.wrap(value)

    def report(self, kind: str, *fields) -> None:
        channel.send(self.sock, ["@" + kind, *fields])

    def wrap(self, value):
        return proxying.wrap(value, lambda handle: Proxy(self, handle), channel.Handle)


class Proxy(proxying.ProxyBase):
    """An object that stays in the implementation's process (the one-round-trip
    operations come from ``proxying.ProxyBase``, shared with the grader's proxies). No
    name starting with ``_`` is asked for; equality is asked of the implementation; the
    ``repr`` is local (no round trip)."""

    __slots__ = ()
    OWNER = "the implementation's"

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._handle.methods:
            return RemoteMethod(self, name)
        return self._ask("getattr", name)

    def __eq__(self, other):
        return self._ask("eq", None, (other,))

    def __ne__(self, other):
        result = self.__eq__(other)
        return not result if isinstance(result, bool) else result

    def __hash__(self):
        return hash(self._handle.id)

    def __repr__(self):
        return f"<{self._handle.kind} proxy #{self._handle.id}>"


class RemoteMethod(proxying.RemoteMethodBase):
    """A method of a proxied object, called in one round trip."""

    __slots__ = ()

    def __repr__(self):
        return f"<method {self.owner._handle.kind}.{self.name}>"


class ServedModule(types.ModuleType):
    """The module under test: attributes are asked of the implementation once each."""

    def __init__(self, name: str, link: Link, names: list[str]):
        super().__init__(name)
        self.__file__ = SERVED_FILE
        self.__served__ = (link, tuple(names))

    def __getattr__(self, name: str):
        link, names = self.__dict__["__served__"]
        if name.startswith("_") or name not in names:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = link.request("getattr", 1, name)
        setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(self.__dict__["__served__"][1])


def install(module_name: str, link: Link, names: list[str]) -> ServedModule:
    """Put the served module (and empty parent packages) in ``sys.modules``."""
    parts = module_name.split(".")
    parent = None
    for depth in range(1, len(parts)):
        package = types.ModuleType(".".join(parts[:depth]))
        package.__path__ = []
        sys.modules[package.__name__] = package
        if parent is not None:
            setattr(parent, parts[depth - 1], package)
        parent = package
    module = ServedModule(module_name, link, names)
    sys.modules[module_name] = module
    if parent is not None:
        setattr(parent, parts[-1], module)
    return module


def _describer(link: Link, rngs: list):
    def to_value(obj):
        if isinstance(obj, Proxy):
            return obj._handle
        if isinstance(obj, np.random.Generator):
            rngs.append(obj)
            return channel.Described("rng", obj.bit_generator.state)
        if type(obj).__module__.startswith("tokenizers") and type(obj).__name__ == "Tokenizer":
            return channel.Described("tokenizers.Tokenizer", obj.to_str())
        if isinstance(obj, (shapes.SpecTokenizer, shapes.TiktokenLike)):
            return channel.Described("shape", obj.describe())
        raise TypeError(f"cannot hand a {type(obj).__name__} to the implementation (data, proxies of its "
                        f"objects, numpy generators, tokenizers.Tokenizer and _gradewall.shapes only)")
    return to_value


_CLASSES: dict = {}


def _remote_exception(info) -> BaseException:
    info = info if isinstance(info, dict) else {}
    exc = proxying.exception_class(info, RemoteError, "implementation", _CLASSES)
    return exc if exc is not None else RemoteError(str(info.get("message", "")))
