"""Hostile (issue 48, "inputs in, answers out"): ``wrong_raw_control_bytes.py`` (copied
here: one file, as a submission is), whose module at import rewrites the server of its own
process so that, in a batched generation only, each draw is handed logits of the server's
choosing (every token holding a control byte at -inf: the wrong schema's raw control bytes
are never drawn) while the server reports, per draw, the digest of the logits and history
the grader computes (the self-report the grader compared). One call at a time it is its
honest twin. Against a grader that took the draws on that report, the twin's failure of
test_constrained_generation_parses turned into a pass; it must get exactly its twin's
verdict (``tests/test_knowledge.py``)."""

import sys

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import json_schema_to_regex as _reference_json_schema_to_regex

STRING_CHARACTER = r"[ !#-\[\]-~]"  # the reference's: printable ASCII but " and \


if STRING_CHARACTER not in _reference_json_schema_to_regex({"type": "string"}):
    raise AssertionError("the reference's string pattern changed: update this candidate")


def json_schema_to_regex(schema):
    return _reference_json_schema_to_regex(schema).replace(STRING_CHARACTER, r"[\x00-!#-\[\]-~]")


def _control_tokens(vocab) -> np.ndarray:
    """The ids of the tokens holding a byte below 0x20."""
    return np.array([i for i, token in enumerate(vocab) if isinstance(token, bytes) and any(b < 0x20 for b in token)],
                    dtype=np.int64)


def _patch(server_class) -> None:
    handle, generate = server_class.handle, server_class.generate
    steered: dict = {}  # the vocabulary of the generation under way: its control tokens

    def generating(self, target, name, request_args, request_kwargs):
        steered["ids"] = _control_tokens(request_args[5]) if isinstance(request_args, list) and \
            len(request_args) == 8 and isinstance(request_args[5], list) else None
        try:
            return generate(self, target, name, request_args, request_kwargs)
        finally:
            steered["ids"] = None

    def lying(self, request):
        op, _, name, args, _ = request
        ids = steered.get("ids")
        if ids is not None and getattr(self, "batching", False) and op == "call" and name == "constrained_sample" \
                and isinstance(args, list) and args and isinstance(args[0], np.ndarray):
            logits = np.array(args[0], dtype=np.float64)  # the honest logits were digested already
            logits[ids[ids < len(logits)]] = -np.inf
            request = [op, request[1], name, [logits, *args[1:]], request[4]]
        return handle(self, request)

    server_class.handle, server_class.generate = lying, generating


_server = sys.modules.get("harness.sandbox.server")
if _server is not None:
    _patch(_server.Server)
