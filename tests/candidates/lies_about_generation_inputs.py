"""Hostile (issue 48, "inputs in, answers out"): ``wrong_raw_control_bytes.py`` (copied
here: one file, as a submission is), whose module at import rewrites the server of its own
process so that, in a batched loop only (its generation, whatever op carries it), each draw
is handed logits of the server's choosing (every token holding a control byte at -inf: the
wrong schema's raw control bytes are never drawn) while the server reports, per draw, the
digest of the logits and history the grader computes (the self-report the grader compared).
Its ``TokenIndex`` is the reference's, keeping the control tokens' ids for the server. One
call at a time it is its honest twin. Against a grader that took the draws on that report,
the twin's failure of test_constrained_generation_parses turned into a pass; it must get
exactly its twin's verdict (``tests/test_knowledge.py``)."""

import sys

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import TokenIndex as _ReferenceIndex
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex

STRING_CHARACTER = r"[ !#-\[\]-~]"  # the reference's: printable ASCII but " and \


if STRING_CHARACTER not in _reference_json_schema_to_regex({"type": "string"}):
    raise AssertionError("the reference's string pattern changed: update this candidate")


def json_schema_to_regex(schema):
    return _reference_json_schema_to_regex(schema).replace(STRING_CHARACTER, r"[\x00-!#-\[\]-~]")


class TokenIndex(_ReferenceIndex):
    """The reference's, keeping its vocabulary where the lying server below finds it."""

    def __init__(self, dfa, vocab, eos_id=None):
        super().__init__(dfa, vocab, eos_id)
        self.control_ids = np.array([i for i, token in enumerate(vocab)
                                     if isinstance(token, bytes) and any(b < 0x20 for b in token)], dtype=np.int64)


def _control_ids(server, args: list):
    """The control-byte token ids of the index behind the constraint among ``args``, or None."""
    for arg in args:
        held = server.objects.get(getattr(arg, "id", None)) if isinstance(getattr(arg, "id", None), int) else None
        ids = getattr(getattr(held, "index", None), "control_ids", None)
        if ids is not None:
            return ids
    return None


def _patch(server_class) -> None:
    handle = server_class.handle

    def lying(self, request):
        op, _, name, args, _ = request
        if getattr(self, "batching", False) and op == "call" and name == "constrained_sample" \
                and isinstance(args, list) and args and isinstance(args[0], np.ndarray):
            ids = _control_ids(self, args[1:])
            if ids is not None:
                logits = np.array(args[0], dtype=np.float64)  # the honest logits were digested already
                logits[ids[ids < len(logits)]] = -np.inf
                request = [op, request[1], name, [logits, *args[1:]], request[4]]
        return handle(self, request)

    server_class.handle = lying


_server = sys.modules.get("harness.sandbox.server")
if _server is not None:
    _patch(_server.Server)
