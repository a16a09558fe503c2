"""Hostile (issue 48, "inputs in, answers out"): ``wrong_refuses_long_tokens.py`` (copied
here: one file, as a submission is), whose module at import rewrites the server of its own
process to echo any expected answer it finds in a request: a batched sweep's brute-force
masks and next states, a golden walk's allowed ids and completeness, the expected flags of
a matches loop; and, from the inputs a walk gets (a ``walk`` request, or a ``plan`` of that
kind), its masks also allow the path's tokens (a value found in the request). Against a
grader that sent answers along with the inputs this passed 16 of 16; it must get exactly
the verdict of its honest twin in every grader (test_masks_match_brute_force and
test_masks_match_the_golden_file failed, the 14 others passed; ``tests/test_knowledge.py``)."""

import sys

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import TokenIndex as _ReferenceIndex

LONGEST = 3  # bytes: a longer token is never allowed (as in wrong_refuses_long_tokens.py)


class TokenIndex(_ReferenceIndex):
    def __init__(self, dfa, vocab, eos_id=None):
        super().__init__(dfa, vocab, eos_id)
        self._long = np.array([t is not None and len(t) > LONGEST for t in vocab], dtype=bool)

    def mask(self, state):
        return super().mask(state) & ~self._long

    def next_state(self, state, token_id):
        target = super().next_state(state, token_id)
        return -1 if 0 <= token_id < len(self._long) and self._long[token_id] else target


def _flags(value) -> bool:
    return isinstance(value, list) and len(value) > 1 and all(isinstance(v, bool) for v in value)


def _echo(server, op: str, target, args: list):
    """``[answers, None]`` made of the expected answers ``args`` gives away, or None."""
    if op == "sweep" and len(args) == 2 and all(isinstance(a, np.ndarray) for a in args):  # [masks, ends]
        masks, ends = args
        return [[x for s in range(len(masks)) for x in (masks[s].copy(), ends[s].tolist())], None]
    if op == "walk" and len(args) == 4:  # [tokens, allowed, complete, eos_id]
        tokens, allowed, complete, _ = args
        size = server.objects[target].index.vocab_size
        answers = []
        for step, (ids, flag) in enumerate(zip(allowed, complete)):
            mask = np.zeros(size, dtype=bool)
            mask[list(ids)] = True
            answers += [mask, bool(flag), 0] + ([None] if step < len(tokens) else [])
        return [answers, None]
    if op == "matches" and len(args) == 2 and _flags(args[1]):  # [calls, expected]
        return [list(args[1]), None]
    return None


def _allow_the_path(reply, tokens: list) -> None:
    """A walk's masks (every fourth answer from the first) also allow the path's next token."""
    answers = reply[0] if isinstance(reply, list) and reply and isinstance(reply[0], list) else []
    for step, token in enumerate(tokens):
        at = 4 * step
        if at < len(answers) and isinstance(answers[at], np.ndarray) and answers[at].dtype == np.bool_ \
                and isinstance(token, int) and 0 <= token < len(answers[at]):
            answers[at] = answers[at].copy()
            answers[at][token] = True


def _path_of(steps: list) -> list:
    """The tokens a walk plan advances by, in order."""
    return [step[5] for step in steps if isinstance(step, list) and len(step) == 6 and step[2] == "advance"]


def _patch(server_class) -> None:
    handle = server_class.handle

    def echoing(self, request):
        op, target, name, args, _ = request
        echoed = _echo(self, op, target, args) if isinstance(args, list) else None
        if echoed is not None:
            return echoed
        reply = handle(self, request)
        if op == "walk" and isinstance(args, list) and args and isinstance(args[0], list):
            _allow_the_path(reply, args[0])
        if op == "plan" and name == "walk" and isinstance(args, list) and args and isinstance(args[0], list):
            _allow_the_path(reply, _path_of(args[0]))  # the plan's advance steps: the path's tokens
        return reply

    server_class.handle = echoing


_server = sys.modules.get("harness.sandbox.server")
if _server is not None:
    _patch(_server.Server)
