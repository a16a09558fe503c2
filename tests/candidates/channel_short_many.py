"""Hostile: the reference, but at import it rewrites its own process's server (the
candidate owns that process) so that every batched ``many`` reply drops its last answer.
The grader pairs the calls and the answers of ``call_many``; with ``zip`` a short reply
went unnoticed (the tokens without an answer were never checked). Expected:
``test_reachable_states_never_have_an_empty_mask`` (which batches ``next_state``)
``crashed`` with a protocol violation ("answers to ... calls"); ``test_hand_example``
(no batch) passes; exit 3."""

import sys

from oracles.automaton import *  # noqa: F401,F403

_server = sys.modules.get("harness.sandbox.server")
if _server is not None:
    _handle = _server.Server.handle

    def _drop_the_last_answer(self, request):
        answer = _handle(self, request)
        if request[0] == "many" and isinstance(answer, list) and answer:
            return answer[:-1]
        return answer

    _server.Server.handle = _drop_the_last_answer
