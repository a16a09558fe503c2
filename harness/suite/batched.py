"""The catalogue's batched loops, as plans the candidate's process carries out.

``check``'s speed comes from making a loop's calls in one round trip: the catalogue builds a
*plan* (``harness.sandbox.plans``: a flat list of the calls its loop will make, with their
inputs and the reading of each answer the loop needs to go on), the candidate's process
carries it out and sends back its answers, and the test takes them in its own order
(``Prefetched``, below), checking every one as if it had asked for it alone and
calling one at a time past them.

**Inputs in, answers out** (``harness.sandbox``'s docstring), read here in one place: what
each plan carries to the candidate's process is the inputs of the calls, never an expected
answer (what the masks, the states, the flags must be stays with the test).

===================  ==============================================  ================================
plan (its test)      the calls, with their inputs                    it stops (besides an exception)
===================  ==============================================  ================================
``walk_constraint``  per step ``mask()``, ``is_complete()``,          a mask that is no bool array,
(golden masks)       ``state``, then ``advance(token)``: the golden   a completeness no truth, a state
                     path's recorded tokens                           no int
``call_and_read``    ``name(*args)`` (e.g. ``regex_to_dfa(pattern)``)  an answer that is data, an
(``compile_ok``)     then the attributes read of what it returned    attribute that is a method, a
                                                                     read that fails
``calls_ahead``      ``name(*arguments)`` for each argument list     an answer with no truth value
(schema documents)   (the documents only; the oracle's verdicts stay
                     here)
``sweep``            per state ``mask(state)``, then ``next_state``   a mask that is not bool [V], a
(brute-force masks)  over every token: the counts of states and       reply not one per token
                     tokens (the brute-force answers stay here)
``explore``          a loop from state 0: ``mask(state)``, then      a mask that is not bool [V] or
(reachable states    ``next_state(state, t)`` for each id that mask  allows nothing, a reply not one
never have an empty  allows but EOS; the states those answers reach  per token or holding DEAD;
mask)                join the work list: the vocabulary's size and   ``EXPLORED_STATES`` states
                     EOS id only
``generation``       a loop of at most ``steps``: ``mask()``, then   a token outside its own mask, a
(constrained         ``constrained_sample(logits, c, params,         logprob above 0; after EOS or
generation parses)   history, rng)``: the grader's generator state,  another special token
                     the bias, scale and size of the logits (drawn
                     in the candidate's process, redrawn and
                     compared by the grader), the tokens taken so
                     far, the ids that end it (EOS, the specials)
===================  ==============================================  ================================

Every plan is carried out by the one generic operation of the candidate's process
(``harness.sandbox.plans``): ``explore`` and ``generation`` use its bounded loop, whose next
inputs are the candidate's own answers (the states its ``next_state`` reached, the tokens its
``constrained_sample`` took) and, for a generation, logits drawn from a generator state the
plan names, which the grader redraws (``_verified_draws``): a draw given other logits or
another history than the grader's is a protocol violation.
"""

from __future__ import annotations

import numpy as np

from harness.sandbox import CandidateProtocolError, Proxy
from harness.sandbox.channel import Described
from harness.sandbox.client import RemoteMethod
from harness.sandbox.plans import MAX_STEPS, inputs_digest, unflat_state


class Prefetched:
    """Answers the candidate gave ahead of the grader's own calls (a batched loop), served
    in the grader's order: ``take(name, live)`` returns the next answer when there is one
    (``name`` must be the call the loop made at that place: ``names(position)``), raises
    the exception that stopped the loop when the grader reaches the call that raised it,
    and otherwise calls ``live()``, one round trip as before. The loop on the candidate's
    side got the inputs of the grader's calls and nothing else (never an expected answer:
    ``harness.sandbox``'s docstring) and makes exactly the calls the grader makes while
    every answer is right, in the same order (``harness.sandbox.plans``); every answer is
    checked by the grader as if it had asked for it alone, and past the answers made ahead
    (a loop that stopped where its answers left it nothing to go on) the grader calls one
    at a time. ``taken(position)``, when given, runs as the answer (or the exception) made
    ahead at ``position`` is taken: what a live call's reply does besides its value (a
    generation's generator state, ``generation``)."""

    __slots__ = ("names", "answers", "error", "position", "taken")

    def __init__(self, names=None, answers: list | tuple = (), error: BaseException | None = None, taken=None):
        self.names, self.answers, self.error, self.position, self.taken = names, list(answers), error, 0, taken

    def ahead(self) -> bool:
        """Return True if and only if the next ``take`` is answered by the loop made ahead."""
        return self.position < len(self.answers) or self.error is not None

    def take(self, name: str, live, received=None):
        """The answer of the call ``name`` the loop makes now (``received(answer)`` for an
        answer made ahead: the check a live call makes of its reply, e.g. a ``many``'s count)."""
        position = self.position
        if self.ahead():
            if self.names(position) != name:
                raise RuntimeError(f"catalogue bug: a batched loop made {self.names(position)!r} where the grader "
                                   f"calls {name!r} (call {position})")
            self.position += 1
            if self.taken is not None:
                self.taken(position)
            if position < len(self.answers):
                answer = self.answers[position]
                return answer if received is None else received(answer)
            error, self.error = self.error, None
            raise error
        return live()


WALK_NAMES = ("mask", "is_complete", "state", "advance")
_WALK_METHODS = ("mask", "is_complete", "advance")  # methods of the constraint's class; ``state`` is no method


def _is_method(obj, name: str) -> bool:
    """Whether ``obj.name`` is a method of a proxy (called in one round trip, no attribute read first)."""
    return isinstance(obj, Proxy) and name in obj._handle.methods


def _run(obj, kind: str, steps: list, names, name=None, shown=()) -> Prefetched:
    answers, error = obj._link.run_plan(kind, steps, name, shown)
    return Prefetched(names, answers, error)


def walk_constraint(constraint, tokens: list, eos_id) -> Prefetched:
    """A recorded path's calls on ``constraint`` made ahead in one round trip, given the
    path's ``tokens`` only: per step ``mask``, ``is_complete``, ``state``, then ``advance``
    (none after the last step); take them in that order. Nothing ahead for an object in
    this process, or a constraint whose ``mask``/``is_complete``/``advance`` are no methods
    or whose ``state`` is one (the proxy reads those with other requests). ``eos_id`` is
    the path's (the walk makes no call with it)."""
    def names(position: int) -> str:
        return WALK_NAMES[position % 4]
    if not isinstance(constraint, Proxy) or not set(_WALK_METHODS) <= set(constraint._handle.methods) or \
            "state" in constraint._handle.methods:
        return Prefetched(names)
    target = constraint._handle.id
    steps: list = []
    for number in range(len(tokens) + 1):
        steps += [["call", target, "mask", "indices", None], ["call", target, "is_complete", "truth", None],
                  ["getattr", target, "state", "int", None]]
        if number < len(tokens):
            steps.append(["call", target, "advance", None, None, tokens[number]])
    return _run(constraint, "walk", steps, names)


def call_and_read(obj, name: str, args: list, reads: list) -> Prefetched:
    """``obj.name(*args)`` and the attributes ``reads`` (``[attribute, "array" | "int"]``) of
    what it returns, made ahead in one round trip; take ``"call"``, then each attribute by
    its name. Nothing ahead unless ``name`` is a method of a proxy."""
    names = ["call", *(attribute for attribute, _ in reads)]
    if not _is_method(obj, name):
        return Prefetched(names.__getitem__)
    steps = [["call", obj._handle.id, name, "object", None, *args]]
    steps += [["getattr", -1, attribute, reader, None] for attribute, reader in reads]  # -1: the call's answer
    return _run(obj, "reads", steps, names.__getitem__, name, args)


def calls_ahead(obj, name: str, calls: list) -> Prefetched:
    """``obj.name(*arguments)`` for each argument list of ``calls``, made ahead in one round
    trip (given the argument lists only); take each as ``"call"``. Nothing ahead unless
    ``name`` is a method of a proxy."""
    def names(position: int) -> str:
        return "call"
    if not _is_method(obj, name):
        return Prefetched(names)
    steps = [["call", obj._handle.id, name, "truth", None, *arguments] for arguments in calls]
    return _run(obj, "matches", steps, names, name)


def sweep(index, states: int, vocab_size: int) -> Prefetched:
    """Every state's ``mask`` and ``many next_state`` of the brute-force test made ahead in
    one round trip, given the counts of states and tokens only; take ``"mask"`` and
    ``"many"`` (its count checked by the taker: ``RemoteMethod.counted``) in turn."""
    def names(position: int) -> str:
        return ("mask", "many")[position % 2]
    if not isinstance(index, Proxy) or not {"mask", "next_state"} <= set(index._handle.methods):
        return Prefetched(names)
    target, size = index._handle.id, int(vocab_size)
    steps: list = []
    for state in range(int(states)):
        steps += [["call", target, "mask", "vector", size, state],
                  ["many_range", target, "next_state", "length", size, state, size]]
    return _run(index, "sweep", steps, names)


def explore(index, vocab_size: int, eos_id) -> Prefetched:
    """The breadth-first walk of ``harness.suite.test_masks._explore`` made ahead in one
    round trip, a loop whose next inputs are the candidate's own answers: from state 0,
    per state ``mask(state)``, then one ``many`` of ``next_state(state, token)`` over the
    ids that mask allows but ``eos_id``; the states those answers reach, not seen yet,
    queued in order. Take ``"mask"`` and ``"many"`` (its count checked by the taker:
    ``RemoteMethod.counted``) in turn. It stops where the grader's walk fails: a mask that
    is not bool [V] or allows nothing, a reply of another length or holding DEAD (-1);
    and at ``EXPLORED_STATES`` states."""
    def names(position: int) -> str:
        return ("mask", "many")[position % 2]
    if not isinstance(index, Proxy) or not {"mask", "next_state"} <= set(index._handle.methods):
        return Prefetched(names)
    target, size = index._handle.id, int(vocab_size)
    body = [["call", target, "mask", ["true_ids", size, eos_id], None, _ITEM],
            ["many_each", target, "next_state", ["as_long_as", 0, -1], None, 0, _ITEM]]
    loop = {"body": body, "bound": EXPLORED_STATES, "start": [0], "queue": 1}
    return _run(index, "explore", [["loop", 0, None, None, None, loop]], names)


EXPLORED_STATES = MAX_STEPS // 2  # states an ``explore`` loop visits at most (two answers each)


def generation(method, constraint, params, rng: np.random.Generator, bias: np.ndarray, scale: float, vocab: list,
               eos_id, steps: int) -> Prefetched:
    """One constrained generation's calls (``harness.suite.test_sampling``) made ahead in
    one round trip, a loop of at most ``steps`` iterations: ``constraint.mask()``, then
    ``method(logits, constraint, params, history, rng)`` with ``logits = rng.normal(size=
    len(vocab)) * scale + bias`` drawn where the call before left the generator and
    ``history`` the tokens taken so far; it stops at a token outside its own mask, a logprob
    above 0, and after EOS or another special token (the test's ``text += vocab[token]``
    fails there). Take ``"mask"`` and ``"draw"``. Taking a draw made ahead sets ``rng``
    where that call left the candidate's generator, as a live call's reply does: the
    grader's loop draws every step's logits itself, from ``rng``, made ahead or not.
    Nothing ahead for an object in this process or a ``mask`` that is no method.

    The logits and the history are inputs: the grader computes them here, as it would for
    a single call, from the state the candidate's call before left its generator in (that
    state is the candidate's answer) and from the tokens it received, and compares them
    with the digest the candidate's process says each call got (``_verified_draws``); a
    digest that differs is a protocol violation: the process is ended
    (``CandidateProtocolError``), since its calls changed the constraint past where the
    grader could go on one call at a time. That digest is the process's own word, which a
    server the candidate rewrote can give for inputs it never handed its calls: the
    grader's verdict rests on the answers it checks against the logits it drew itself
    (``harness.suite.test_sampling``: a draw's logprob is the spec's log-softmax of those
    logits over the allowed tokens, else the generation is made again one call at a time)."""
    def names(position: int) -> str:
        return ("mask", "draw")[position % 2]
    if not (isinstance(method, RemoteMethod) and isinstance(constraint, Proxy) and isinstance(params, Proxy)
            and "mask" in constraint._handle.methods and method.owner._link is constraint._link):
        return Prefetched(names)
    owner = method.owner
    bias, scale, start = np.asarray(bias, dtype=np.float64), float(scale), rng.bit_generator.state
    body = [["call", constraint._handle.id, "mask", ["array"], None],
            ["call", owner._handle.id, method.name, ["pick", 0, LOGPROB_MOST], None, _ref("logits"),
             constraint._handle, params._handle, _ref("kept"), _ref("rng")]]
    ends = [eos_id] + [token for token, text in enumerate(vocab) if text is None and token != eos_id]
    loop = {"body": body, "bound": int(steps), "keep": 1, "until": ends,  # the test stops at EOS, fails at a special
            "draw": [Described("rng", start), len(vocab), scale, bias]}
    answers, error, inputs = owner._link.run_plan("generate", [["loop", 0, None, None, None, loop]], method.name,
                                                  draws=True)
    made = len(answers) // 2 + (1 if error is not None and len(answers) % 2 == 1 else 0)  # draw calls
    rng.bit_generator.state = start  # the takes move it, draw by draw, where each call left it
    left = _verified_draws(answers, made, inputs, start, len(vocab), scale, bias)
    if len(left) < made:
        raise owner._link._gone(CandidateProtocolError, f"protocol violation during generate {method.name} (a "
                                                        f"batched loop): draw {len(left)} was not given the logits "
                                                        f"and history the grader computes from its inputs")

    def taken(position: int) -> None:  # a draw (odd position) leaves the generator where its call did
        if position % 2 == 1:
            rng.bit_generator.state = left[position // 2]
    return Prefetched(names, answers, error, taken)


LOGPROB_MOST = 1e-9  # a draw's logprob above this stops a generation (the test's own bound)


def _verified_draws(answers: list, made: int, inputs, state: dict, size: int, scale: float,
                    bias: np.ndarray) -> list[dict]:
    """The generator state each draw call left, for the draw calls, from the first, that got
    the inputs the grader gives them (fewer than ``made`` where one did not): for each of the
    ``made`` draw calls (``answers``' odd positions, and the one an exception stopped), the grader draws the
    logits from ``state`` (its own at first, then where the call before left the
    candidate's generator), takes the history from the tokens it received, and compares
    with what the candidate's process says that call got (``inputs``: ``[state left
    (``plans.flat_state``), plans.inputs_digest(logits, history)]``, ``plans._Drawing``)."""
    made = min(made, len(inputs)) if isinstance(inputs, list) else 0
    generator = np.random.Generator(getattr(np.random, state["bit_generator"])(0))  # its state is set next
    history, left = b"", []
    for number in range(made):
        given = inputs[number]
        generator.bit_generator.state = state
        logits = generator.normal(size=size) * scale + bias
        try:
            if not (isinstance(given, list) and len(given) == 2 and given[1] == inputs_digest(logits, history)):
                return left
            generator.bit_generator.state = unflat_state(given[0])  # where the call left it (raises unless a state)
            if 2 * number + 1 < len(answers):
                history += np.int64(answers[2 * number + 1][0]).tobytes()
        except Exception:  # noqa: BLE001 - any doubt: a draw whose inputs the grader cannot tell
            return left
        state = generator.bit_generator.state
        left.append(state)
    return left


def _ref(what: str) -> Described:
    """A loop body's reference to its iteration's input ``what`` (``plans.REFERENCES``)."""
    return Described("ref", [what])


_ITEM = _ref("item")
