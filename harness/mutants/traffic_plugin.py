"""pytest plugin of a traffic recording run (``harness.mutants.traffic``), loaded after
``harness.suite.plugin``: every round trip between this grader and its candidate processes
(``harness.sandbox.client.TRAFFIC``), in order, each with its candidate process (numbered in the
order they first answered), the test it belongs to (``"<load>"`` for a load) and the two frame
bodies as they crossed the channel, written as JSON to ``$CONSTRAIN_HARNESS_TRAFFIC_OUT`` when the
session ends with every test passed (pytest's exit 0: nothing else is ever kept, so nothing else is
written), with the tests in the order they ran (their record names and the names their CPU budgets
are kept under). Used only by a generated mutant's pass with no recording yet (``runner._catalogue_pass``),
never on a candidate graded.
"""

from __future__ import annotations

import base64
import json
import os

import pytest

from harness.mutants.traffic import OUT_VARIABLE  # where the runner wants the traffic

_STATE: dict = {}   # this session's recording (a warm grader's fork holds none: a fresh start)


def pytest_configure(config) -> None:
    from harness.sandbox import client

    _STATE.clear()
    _STATE.update(test=None, candidates=[], exchanges=[], tests=[], outside=0)
    client.TRAFFIC[0] = _record


def _record(candidate, request: bytes, reply: bytes, load: bool) -> None:
    seen = _STATE["candidates"]
    number = next((i for i, c in enumerate(seen) if c is candidate), None)
    if number is None:   # kept alive to the end, so no later candidate is mistaken for it
        seen.append(candidate)
        number = len(seen) - 1
    test = "<load>" if load else _STATE["test"]
    if test is None:
        _STATE["outside"] += 1   # a round trip outside any test and not a load: the recording is not replayable
        return
    _STATE["exchanges"].append((number, test, load, request, reply))   # encoded only if written


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    from harness.suite.plugin import _name

    name = _name(item.nodeid)
    _STATE["test"] = name
    _STATE["tests"].append([name, item.originalname])
    yield
    _STATE["test"] = None


def _b64(body: bytes) -> str:
    return base64.b64encode(body).decode("ascii")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    from harness.sandbox import client

    client.TRAFFIC[0] = None
    out = os.environ.get(OUT_VARIABLE)
    if not out or exitstatus != 0:   # a pass some test of which did not pass is never kept
        _STATE["candidates"] = []
        return
    exchanges = [{"candidate": number, "test": test, "load": load, "request": _b64(request), "reply": _b64(reply)}
                 for number, test, load, request, reply in _STATE["exchanges"]]
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tests": _STATE["tests"], "exchanges": exchanges, "outside": _STATE["outside"],
                   "candidates": len(_STATE["candidates"])}, f)
    _STATE["candidates"] = []
