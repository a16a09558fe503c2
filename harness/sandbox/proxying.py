"""The proxy part both ends of a wall share: an object that stays in another process.

Two processes hold proxies: the grader (``harness.sandbox.client``: objects of the
candidate's process) and, in ``grade-tests``, the student's process
(``harness.grading.gradetests.shim``: objects of the implementation under test, relayed by the
grader). Both speak the same requests (``[op, target, name, args, kwargs]``, ``op`` one of
getattr, call, many, len, iter, getitem, contains, bool, int, float, index, eq, repr) over
``channel``; what they share is here: ``ProxyBase`` (the operations that are one round
trip each, read-only), ``RemoteMethodBase`` (a method called in one round trip),
``wrap`` (handles in a reply become proxies) and ``exception_class`` (an exception from
the other side as a subclass of the builtin class it derives from). Each side subclasses
them with its own rules for attribute names, equality and ``repr``.

Like ``channel.py`` this module imports nothing from ``harness``: ``grade-tests`` copies
it into the student's private copy of the shim (``harness.grading.gradetests.suite_run``), where
``harness`` cannot be imported.

Example::

    >>> class Proxy(ProxyBase):
    ...     OWNER = "the candidate's"
    >>> wrap([Handle(3, "DFA", ("step",))], lambda handle: Proxy(link, handle), Handle)
    [<...Proxy object>]
"""

from __future__ import annotations

import builtins

__all__ = ["ProxyBase", "RemoteMethodBase", "wrap", "exception_class"]


class ProxyBase:
    """An object in another process, reached by ``link.request(op, target, name, args,
    kwargs)``; ``_handle`` is its ``channel.Handle``. Read-only."""

    __slots__ = ("_link", "_handle")
    OWNER = "the other process's"

    def __init__(self, link, handle):
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_handle", handle)

    def _ask(self, op: str, name=None, args=(), kwargs=None):
        return self._link.request(op, self._handle.id, name, args, kwargs or {})

    def __setattr__(self, name, value):
        raise AttributeError(f"a proxy of {self.OWNER} {self._handle.kind} is read-only")

    def __call__(self, *args, **kwargs):
        return self._ask("call", None, args, kwargs)

    def __len__(self):
        return self._ask("len")

    def __iter__(self):
        return iter(self._ask("iter"))

    def __getitem__(self, key):
        return self._ask("getitem", None, (key,))

    def __contains__(self, item):
        return bool(self._ask("contains", None, (item,)))

    def __bool__(self):
        return bool(self._ask("bool"))

    def __int__(self):
        return int(self._ask("int"))

    def __float__(self):
        return float(self._ask("float"))

    def __index__(self):
        return int(self._ask("index"))


class RemoteMethodBase:
    """A method of a proxied object, called in one round trip."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: ProxyBase, name: str):
        self.owner, self.name = owner, name

    def __call__(self, *args, **kwargs):
        return self.owner._ask("call", self.name, args, kwargs)


_NOT_DATA = frozenset({list, tuple, dict})
"""Containers ``wrap`` must look into (a list or tuple holding none of them, nor a handle, is kept)."""


def wrap(value, make_proxy, handle_type):
    """``value`` with every ``handle_type`` in it (in lists, tuples, dict values) replaced
    by ``make_proxy(handle)``."""
    if isinstance(value, handle_type):
        return make_proxy(value)
    if isinstance(value, list):
        kinds = set(map(type, value))  # exact types: what the channel decodes
        if handle_type not in kinds and kinds.isdisjoint(_NOT_DATA):
            return value  # nothing to wrap in it (a batch's answers): as it is
        return [wrap(v, make_proxy, handle_type) for v in value]
    if isinstance(value, tuple):
        kinds = set(map(type, value))
        if handle_type not in kinds and kinds.isdisjoint(_NOT_DATA):
            return value  # nothing to wrap in it (a draw's (token, logprob)): as it is, immutable
        return tuple(wrap(v, make_proxy, handle_type) for v in value)
    if isinstance(value, dict):
        return {k: wrap(v, make_proxy, handle_type) for k, v in value.items()}
    return value


MAX_EXCEPTION_CLASSES = 1024
"""At most this many classes kept in an ``exception_class`` cache: a candidate that raises a new
class name on every call no longer adds a class to the grader per call; past the bound a new
kind's class is made for that exception alone (its name and bases the same, so every
``isinstance`` test answers as before; only ``type(a) is type(b)`` fails between two of them)."""


def exception_class(info: dict, root: type, module: str, cache: dict):
    """The exception the other side described in ``info`` (``type``, ``kinds``: its
    builtin bases, ``message``): an instance of a class named as it was, deriving from
    ``root`` and the first builtin exception class of ``kinds`` that accepts the message
    (else ``Exception``); None when none does. Classes are kept in ``cache`` (up to
    ``MAX_EXCEPTION_CLASSES``), so the same kind is the same class every time."""
    name = "".join(ch for ch in str(info.get("type", "?")) if ch.isalnum() or ch == "_")[:80] or "Error"
    message = str(info.get("message", ""))
    for kind in [*map(str, info.get("kinds", [])), "Exception"]:
        base = getattr(builtins, kind, None)
        if not (isinstance(base, type) and issubclass(base, Exception)):
            continue
        try:
            cls = cache.get((name, base)) or type(name, (root, base), {"__module__": module})
            exc = cls(message)
        except TypeError:
            continue
        if (name, base) in cache or len(cache) < MAX_EXCEPTION_CLASSES:
            cache[(name, base)] = cls
        return exc
    return None
