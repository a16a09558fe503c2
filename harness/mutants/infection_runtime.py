"""The run-time half of infection analysis (``harness.mutants.infection``): copied, as
``_ch_infection.py``, into an instrumented copy of the reference, where every instrumented site
calls it. Standalone: it imports nothing of the harness (it runs in the confined candidate).

A site is one expression of the reference (a ``BinOp``, a two-operand ``Compare``, a ``UnaryOp``)
whose operands the instrumented code evaluates once, in the original order, and passes here
(``binop(key, a, b)``, ``compare(key, a, b)``, ``unary(key, a)``). This computes the original
value (what the program continues with: ``operator.add(a, b)`` is ``a + b``) and, for every
mutant of the site not yet known to infect, the mutant's value from the same operands; a mutant
whose value ever differs from the original (``same``) is recorded in ``INFECTED``.

Conservative by design (a mutant wrongly called infected only costs a run; one wrongly called
clean would be a wrong "equivalent"): a mutant value that raises, warns, or would be too dear to
compute (``dear``: a huge ``**``, ``<<`` or sequence repeat), operands that are not plain data
(``plain``: a mutant operator on an object of another class could run code with side effects),
an original value that raises, and any value ``same`` cannot compare all count as infecting.

Example (``SITES[0]`` is ``x < 3`` with the mutants ``<=`` and ``3 -> 4``)::

    >>> SITES[0] = ("compare", "Lt", (("m.LtE", ("op", "LtE")), ("m.N", ("right", 4))))
    >>> compare(0, 5, 3), sorted(INFECTED)
    (False, [])
    >>> compare(0, 3, 3), sorted(INFECTED)
    (False, ['m.LtE', 'm.N'])
"""

from __future__ import annotations

import operator
import struct
import warnings

SITES: dict[int, tuple] = {}
"""key -> (kind, the original operator's ast name, ((mutant id, spec), ...)); a spec is ``("op",
NAME)``, ``("left", VALUE)`` / ``("right", VALUE)`` (a number operand replaced) or ``("delete",)``
(a unary operator removed)."""
INFECTED: set[str] = set()   # the mutant ids whose value differed at least once
REACHED: set[int] = set()    # the site keys evaluated at least once
_DONE: set[int] = set()      # the sites all of whose mutants infected: nothing more to compute

BINARY = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
          "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow, "RShift": operator.rshift,
          "LShift": operator.lshift, "BitOr": operator.or_, "BitAnd": operator.and_, "BitXor": operator.xor}
COMPARE = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt,
           "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not}
UNARY = {"UAdd": operator.pos, "USub": operator.neg, "Invert": operator.invert, "Not": operator.not_}
TABLES = {"binop": BINARY, "compare": COMPARE, "unary": UNARY}
IDENTITY = frozenset({"Is", "IsNot"})   # run no code of the operands: always safe to compute
DEAR_BITS = 1_000_000      # a mutant int result past about this many bits is not computed
DEAR_ITEMS = 1_000_000     # nor a repeated sequence past this many items
PLAIN_ITEMS = 256          # a container operand is checked item by item up to this size
_SCALARS = (int, float, complex, bool, str, bytes, type(None))
_NUMBERS = (int, float)
"""Exact classes whose binary operators and comparisons on each other never warn (an error, an
overflow or a division by zero raises) and run no numpy, and which ``plain`` takes: a mutant value of
two of them is computed without asking ``plain`` and without ``_quietly``'s warnings filter and numpy
error state, which cost more than the operation (most of an instrumented fingerprint's sites compare
and add Python ints: docs/testing.md, 2026-12-08)."""


def binop(key: int, a, b):
    return _site(key, (a, b))


def compare(key: int, a, b):
    return _site(key, (a, b))


def unary(key: int, a):
    return _site(key, (a,))


def reset() -> None:
    """Forget what was recorded (between two evidence items)."""
    INFECTED.clear()
    REACHED.clear()
    _DONE.clear()


def report() -> dict:
    """What was recorded: ``{"infected": [id, ...], "reached": [id, ...]}`` (sorted)."""
    reached = sorted(mid for key in REACHED for mid, _ in SITES[key][2])
    return {"infected": sorted(INFECTED), "reached": reached}


def _site(key: int, operands: tuple):
    kind, name, mutants = SITES[key]
    REACHED.add(key)
    try:
        value = TABLES[kind][name](*operands)
    except BaseException:
        INFECTED.update(mid for mid, _ in mutants)   # the original raised: never compared
        _DONE.add(key)
        raise
    if key not in _DONE:
        _check(key, kind, name, mutants, operands, value)
    return value


def _check(key: int, kind: str, name: str, mutants: tuple, operands: tuple, value) -> None:
    left = 0
    for mid, spec in mutants:
        if mid in INFECTED:
            continue
        if not _clean(kind, name, spec, operands, value):
            INFECTED.add(mid)
        else:
            left += 1
    if not left:
        _DONE.add(key)


def _clean(kind: str, name: str, spec: tuple, operands: tuple, value) -> bool:
    """True if and only if the mutant's value at this evaluation is known to be the original's."""
    if spec[0] == "delete":
        return same(value, operands[0], operands)
    if spec[0] == "op":
        name, args = spec[1], operands
    elif spec[0] == "left":
        args = (spec[1], *operands[1:])
    else:
        args = (operands[0], spec[1])
    numbers = kind != "unary" and type(args[0]) in _NUMBERS and type(args[1]) in _NUMBERS   # plain, never warn
    if not numbers and name not in IDENTITY and not all(plain(x) for x in args):
        return False
    if kind == "binop" and dear(name, *args):
        return False
    try:
        mutant = TABLES[kind][name](*args) if numbers else _quietly(TABLES[kind][name], args)
    except Exception:   # noqa: BLE001 - a mutant value that raises differs from one that does not
        return False
    return same(value, mutant, operands)


def _quietly(function, args: tuple):
    """``function(*args)`` with every warning an error (a mutant that warns differs: its program
    prints or fails where the original does not) and numpy's floating-point errors raised."""
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            return function(*args)


def plain(x, depth: int = 0) -> bool:
    """True if and only if ``x`` is plain data whose operators run no code of the reference's and
    have no side effect: Python's numbers, strings, bytes and None, numpy's numeric arrays and
    scalars (exact classes), and small tuples, lists, sets and dicts of plain data."""
    import numpy as np

    if type(x) in _SCALARS:
        return True
    if type(x) is np.ndarray or isinstance(x, np.generic):
        return x.dtype.kind in "biufc"
    if type(x) in (tuple, list, set, frozenset) and depth < 3 and len(x) <= PLAIN_ITEMS:
        return all(plain(item, depth + 1) for item in x)
    if type(x) is dict and depth < 3 and len(x) <= PLAIN_ITEMS:
        return all(plain(k, depth + 1) and plain(v, depth + 1) for k, v in x.items())
    return False


def dear(name: str, a, b=None) -> bool:
    """True if the binary operator ``name`` on ``a, b`` may take more memory or time than a
    program's step: ``**`` or ``<<`` growing an int past ``DEAR_BITS``, a sequence repeated past
    ``DEAR_ITEMS`` items."""
    ints = type(a) is int and type(b) is int
    if name == "Pow" and ints:
        return abs(a) > 1 and b > 0 and a.bit_length() * b > DEAR_BITS
    if name == "LShift" and ints:
        return a != 0 and b > DEAR_BITS
    if name == "Mult":
        for seq, n in ((a, b), (b, a)):
            if type(seq) in (str, bytes, list, tuple) and type(n) in (int, bool):
                return len(seq) * max(n, 0) > DEAR_ITEMS
    return False


def same(x, y, operands: tuple = (), depth: int = 0) -> bool:
    """True if and only if ``y`` is known to behave as ``x`` in any program: the same class and
    value (floats by their bits: ``-0.0`` and NaN payloads differ; numpy arrays by dtype, shape,
    strides and bytes), and no new aliasing (a mutable value that is one of the ``operands`` is the
    same only as that very object). Anything else (another class, an object ``same`` does not
    know) is not the same."""
    import numpy as np

    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if any(x is o or y is o for o in operands) and type(x) not in _SCALARS:
        return False   # e.g. ``-a`` made ``a``: the mutant's value is the caller's own array
    t = type(x)
    if t is float:
        return struct.pack("<d", x) == struct.pack("<d", y)
    if t is complex:
        return struct.pack("<dd", x.real, x.imag) == struct.pack("<dd", y.real, y.imag)
    if t in (int, bool, str, bytes, type(None)):
        return x == y
    if t is np.ndarray:
        return (x.dtype == y.dtype and x.shape == y.shape and x.strides == y.strides and x.base is None
                and y.base is None and x.flags.writeable == y.flags.writeable and x.tobytes() == y.tobytes())
    if isinstance(x, np.generic):
        return x.dtype == y.dtype and x.tobytes() == y.tobytes()
    if depth >= 3:
        return False
    if t in (tuple, list):
        return len(x) == len(y) and all(same(a, b, (), depth + 1) for a, b in zip(x, y))
    if t in (set, frozenset):
        keys = _keyed(x)
        return keys is not None and len(x) == len(y) and keys == _keyed(y)
    if t is dict:
        keys = _keyed(x)
        return (keys is not None and list(x) == list(y) and keys == _keyed(y)
                and all(same(x[k], y[k], (), depth + 1) for k in x))
    return False


def _keyed(items) -> set | None:
    """The items as (class, repr) pairs (``{1}`` and ``{True}`` are equal sets of different items),
    or None (never equal to another) when an item is not a plain scalar."""
    if not all(type(item) in _SCALARS or type(item) is tuple for item in items):
        return None
    return {(type(item), repr(item)) for item in items}
