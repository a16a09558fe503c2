"""Hostile: the reference, but at import it rewrites its own process's server (the
candidate owns that process) so that every ``repeat`` reply drops its last answer, with
no exception to explain it. ``test_greedy_takes_the_best_allowed_token`` draws its
samples with ``repeat_call``: a short reply must not pass as fewer draws. Expected: that
test ``crashed`` with a protocol violation ("answers to ... calls"); ``test_hand_example``
(no repeat) passes; exit 3."""

import sys

from oracles.automaton import *  # noqa: F401,F403

_server = sys.modules.get("harness.sandbox.server")
if _server is not None:
    _repeat = _server.Server.repeat

    def _drop_the_last_answer(self, obj, name, request_args, request_kwargs):
        answers, error = _repeat(self, obj, name, request_args, request_kwargs)
        return [answers[:-1], error]

    _server.Server.repeat = _drop_the_last_answer
