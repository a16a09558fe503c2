"""Plans: the one generic batched operation of the candidate process (the ``plan`` request).

A plan is data the catalogue builds (``harness.suite.batched``): a flat list of steps, each
one request the grader would otherwise send alone, in the order the grader makes them. This
module carries a plan out in the candidate's process and knows nothing of the catalogue:
which calls, on which objects, with which inputs, and which reading of each answer the
grader's loop needs to go on, all come in the plan.

A step is ``[op, target, name, reading, size, *args]``, a flat list of plain values (a
plan of them crosses the channel in one piece, as a batch's argument lists do):

- ``op``: ``"call"`` (``target.name(*args)``, ``name`` None: the target itself),
  ``"getattr"`` (``target.name``), ``"many"`` (``target.name(*one)`` for each argument list
  ``one`` of ``args``, one answer per call) or ``"many_range"`` (``args`` is ``[*prefix,
  count]``: the ``many`` of the argument lists ``[*prefix, t]`` for ``t`` in
  ``range(count)``, written compactly);
- ``target``: a handle number (from 1), or ``-(k + 1)``: the object the plan's ``k``-th
  answer is;
- ``reading``: how the grader's loop reads the answer before its next call (a name of
  ``READINGS``), or None (it reads nothing of it); ``size``: the length the ``"vector"`` and
  ``"length"`` readings expect (None for the others);
- ``args``: the call's inputs, as a single request would carry them.

**Inputs in, answers out** (``harness.sandbox``'s docstring): a plan holds the inputs of the
calls and the names of generic readings, nothing else; never an expected answer. Every step
goes through ``Server.handle`` as that request would (so the candidate sees the same calls,
and a server it rewrote answers them as it would one by one), and each answer is kept as the
grader receives it (``Server._ahead``). The plan stops only where its own answers leave it
nothing to go on: at an exception (the reply is then ``[answers, error]``), after an answer
whose reading holds proxies or fails (``read_answer``), before a step whose target answer
is no object, or whose ``getattr`` names a method of that object (the grader's proxy would
ask nothing for it). Where the grader stops earlier (a wrong answer fails the test) the
answers past it are never read; past the plan's answers the grader calls one at a time
(``client.Prefetched``); every answer is checked by the grader as if it had asked for it
alone.

Bounds: ``MAX_STEPS`` steps in a plan, ``MAX_RANGE`` calls in one ``many_range``.
"""

from __future__ import annotations

MAX_STEPS = 100_000  # steps in one plan (the grader checks its count of answers, too)
MAX_RANGE = 10_000_000  # calls in one ``many_range`` step (``server.MAX_ITEMS``)
OPS = ("call", "getattr", "many", "many_range")


STOP = object()  # a reading the grader would not get past in the same way (``read_answer``)
NO_DATA = object()  # an answer holding objects the grader gets as proxies (``Server._ahead``)


def read_answer(read, kept):
    """``read(kept)``, as the grader reads that answer, or ``STOP`` when it holds proxies
    (``NO_DATA``) or the reading raises: the batched loops stop there and the grader goes
    on one call at a time from that answer."""
    if kept is NO_DATA:
        return STOP
    try:
        return read(kept)
    except Exception:  # noqa: BLE001 - any doubt: the grader reads this answer itself
        return STOP


def bool_vector(mask, size: int):
    """``numpy.asarray(mask)`` when it is bool [size] (what ``test_masks.mask_of`` accepts), else None."""
    import numpy as np

    mask = np.asarray(mask)
    return mask if mask.dtype == np.bool_ and mask.shape == (size,) else None


def inputs_digest(logits, history: bytes) -> bytes:
    """16 bytes that stand for a draw's inputs: the logits (float64) and the history (its
    tokens as int64 bytes), computed alike by the candidate's process (``Server.generate``,
    which says which inputs its calls got) and by the grader (``client.generation``, which
    draws the logits itself and compares)."""
    import hashlib

    import numpy as np

    return hashlib.blake2b(np.asarray(logits, dtype=np.float64).tobytes() + history, digest_size=16).digest()


_FLAT_KINDS = ("PCG64", "PCG64DXSM")  # bit generators whose state is {state: {state, inc}, has_uint32, uinteger}


def flat_state(state: dict):
    """A bit generator's ``state`` as ``[kind, state, inc, has_uint32, uinteger]`` for the
    PCG64 kinds (a generation sends one per draw: a flat list crosses the channel some 7
    times faster than the dict), else the dict itself; ``unflat_state`` undoes it."""
    if state.get("bit_generator") in _FLAT_KINDS:
        inner = state["state"]
        return [state["bit_generator"], inner["state"], inner["inc"], state["has_uint32"], state["uinteger"]]
    return state


def unflat_state(value) -> dict:
    """The ``state`` dict ``flat_state`` gave ``value`` for (a dict as it is)."""
    if isinstance(value, list) and len(value) == 5 and value[0] in _FLAT_KINDS:
        kind, state, inc, has_uint32, uinteger = value
        return {"bit_generator": kind, "state": {"state": state, "inc": inc}, "has_uint32": has_uint32,
                "uinteger": uinteger}
    return value


def _vector(answer, size: int) -> bool:
    return bool_vector(answer, size) is not None


def _indices(answer):
    import numpy as np

    return np.flatnonzero(np.asarray(answer, dtype=bool))


def _array(answer):
    import numpy as np

    return np.asarray(answer)


READINGS = {  # name -> the reading (True or a value to go on; False or an exception to stop), its size's use
    "truth": lambda answer, _: bool(answer) in (True, False),
    "int": lambda answer, _: int(answer) is not None,
    "array": lambda answer, _: _array(answer) is not None,
    "indices": lambda answer, _: _indices(answer) is not None,
    "vector": _vector,  # a bool numpy vector of ``size`` items
    "length": lambda answer, size: isinstance(answer, list) and len(answer) == size,  # a list of ``size`` items
    "object": None,  # the answer is an object (a handle): the next steps read it
}
SIZED = frozenset({"vector", "length"})  # the readings that take a size


def check_plan(steps) -> None:
    """Raise a ValueError (naming the step) unless ``steps`` is a well-formed plan."""
    if not isinstance(steps, list) or len(steps) > MAX_STEPS:
        raise ValueError(f"plan: the steps must be a list of at most {MAX_STEPS}")
    for number, step in enumerate(steps):
        if not (isinstance(step, list) and len(step) >= 5):
            raise ValueError(f"plan step {number}: not [op, target, name, reading, size, *args]")
        op, target, name, reading, size = step[:5]
        if op not in OPS or not (name is None or isinstance(name, str)):
            raise ValueError(f"plan step {number}: op must be one of {', '.join(OPS)}, name a str or None")
        if type(target) is not int or target == 0 or target < -number:
            raise ValueError(f"plan step {number}: the target must be a handle number or -(k + 1) for an earlier "
                             f"step k's answer")
        if op == "many_range" and not (len(step) >= 6 and type(step[-1]) is int and 0 <= step[-1] <= MAX_RANGE):
            raise ValueError(f"plan step {number}: many_range's args must be [*prefix, count] (a count from 0 to "
                             f"{MAX_RANGE})")
        if not (reading is None or reading in READINGS) or (type(size) is int) != (reading in SIZED):
            raise ValueError(f"plan step {number}: unknown reading {reading!r} with size {size!r} (one of "
                             f"{', '.join(READINGS)}; a size for {' and '.join(sorted(SIZED))} only)")


def run(server, steps) -> list:
    """``[answers, error]`` of the plan ``steps`` carried out by ``server`` (a
    ``harness.sandbox.server.Server``): see the module docstring."""
    from harness.sandbox.channel import Handle

    check_plan(steps)
    answers: list = []
    try:
        for step in steps:
            op, target, name, reading, size = step[:5]
            args = step[5:]
            if target < 0:
                made = answers[-target - 1] if -target - 1 < len(answers) else None
                if not isinstance(made, Handle) or (op == "getattr" and name in made.methods):
                    break
                target = made.id
            if op == "many_range":
                op, args = "many", [[*args[:-1], t] for t in range(args[-1])]
            kept = server._ahead(answers, op, target, name, args)
            if reading is None:
                continue
            if reading == "object":
                if not isinstance(answers[-1], Handle):
                    break
                continue
            read = READINGS[reading]
            went_on = read_answer(lambda answer: read(answer, size), kept)
            if went_on is STOP or went_on is False:
                break
    except BaseException as exc:  # noqa: BLE001 - the candidate's exception goes back as data
        return [answers, server.error(exc)]
    return [answers, None]
