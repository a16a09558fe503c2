"""The catalogue's second half, graded beside the first by a twin grader child.

A check's tests are a chain of round trips between the grader and its candidate process,
each waiting for the other: one core's worth of work on a 2-core machine. So
``harness.grading.check`` starts two grader children (``second_half``): the *main* one
runs the first half of the catalogue with its candidate process and the *twin* runs the
second half (from ``SPLIT_AT`` on) with its own, at the same time. The twin is an
ordinary catalogue session (``--skip`` of every other test; its records go to its own
result file, which ``check`` reads only to watch it) that also streams every finished
test to the main (``--twin-out-fd``): its reports (``pytest_report_to_serializable``),
the notes recorded after them and the warnings recorded during it, one JSON line a test.
The main (``--twin-in-fd``, ``--twin-tests``) runs its own tests, then, in the
catalogue's order, replays each of the twin's tests through its own hooks as if it had
just run it here (``replay``): the same records, terminal output and exit status as one
process running all the tests. Where the twin cannot give a test (it ended, was killed
by ``check``'s watch, or its candidate did not load: its stream ends first), the main
runs that test and every later one itself, as it does without a twin.

A test of the second half never meets a candidate process that served the first half:
the twin's candidate serves only the second half, and a main child that reaches the split
itself (no twin: ``--deep``, a batch, ``TWIN_ENV``; or a twin that failed) starts a fresh
candidate there, sized as the twin's (``harness.suite.plugin._at_the_split``). So every
test meets a candidate with the same history in every mode, and a verdict cannot depend
on whether a twin ran, even for a candidate whose answers depend on what ran before in
its process; the one exception is a twin killed part-way (a candidate past its limits),
where the main's fresh candidate has not served the tests the twin gave. The split is
fixed (not the machine's business): ``check`` uses a twin in every run of the catalogue
but ``--deep`` and a restarted child's, unless ``CONSTRAIN_HARNESS_TWIN=0`` (``TWIN_ENV``;
a batch sets it: its ``--jobs`` fill the cores).

Example::

    >>> second_half(["test_hand_example", "test_apply_mask", "test_vocab_bytes"])
    ('test_apply_mask', 'test_vocab_bytes')
"""

from __future__ import annotations

import json
import os
import queue
import threading
import warnings

from harness.suite.catalogue import NAMES

__all__ = ["SPLIT_AT", "TWIN_ENV", "second_half", "in_second_half", "TwinStream", "Sink", "replay"]

SPLIT_AT = "test_constraint_lifecycle"
"""The twin runs the catalogue's tests from this one on: the two halves' CPU seconds (the
grader's and the candidate's, each half one of each) about equal on the reference, ~2.1 and
~1.9 at load ~5 (``constrain-harness bench check``'s table; the split before
``test_reachable_states_never_have_an_empty_mask``, until 2026-12-06, gave ~1.5 and ~2.5)."""
TWIN_ENV = "CONSTRAIN_HARNESS_TWIN"  # "0": one grader child runs every test
MAX_STREAM_BYTES = 256 << 20  # a twin's stream, at most (the catalogue's reports are some KB a test)


def in_second_half(name: str) -> bool:
    """Whether catalogue test ``name`` is in the second half (``SPLIT_AT`` on); not a
    catalogue name: False."""
    return name in NAMES and NAMES.index(name) >= NAMES.index(SPLIT_AT)


def second_half(names) -> tuple[str, ...]:
    """The twin's tests among ``names`` (catalogue names, in the catalogue's order): those
    from ``SPLIT_AT`` on, or () when either half would be empty (no twin then) or the twin
    is switched off (``TWIN_ENV``)."""
    if os.environ.get(TWIN_ENV) == "0":
        return ()
    split = NAMES.index(SPLIT_AT)
    rank = {name: i for i, name in enumerate(NAMES)}
    second = tuple(n for n in names if rank.get(n, -1) >= split)
    first = [n for n in names if n not in second]
    return second if first and second else ()


# --------------------------------------------------------------------------- the twin's side


class Sink:
    """The twin's stream to the main: one JSON line per finished test, written once the
    test's protocol (and the warnings it recorded) is over, i.e. when the next test starts
    or the session ends (``flush``)."""

    def __init__(self, fd: int):
        self.out = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        self.pending: dict | None = None

    def finished(self, config, nodeid: str, reports: list, late_notes: list[str]) -> None:
        """Test ``nodeid`` ended with ``reports``; ``late_notes``: the notes drained at its end."""
        self.flush()
        serialized = [config.hook.pytest_report_to_serializable(config=config, report=r) for r in reports]
        self.pending = {"nodeid": nodeid, "reports": serialized, "late_notes": list(late_notes), "warnings": []}

    def warning(self, warning_message, nodeid: str) -> None:
        """A warning recorded during the pending test (``pytest_warning_recorded``, when "runtest")."""
        if self.pending is not None and nodeid == self.pending["nodeid"]:
            self.pending["warnings"].append(_warning_data(warning_message))

    def flush(self) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            try:
                self.out.write(json.dumps(pending, default=str) + "\n")
            except OSError:  # the main is gone (or gave up on this twin): nothing to tell
                pass

    def close(self) -> None:
        self.flush()
        try:
            self.out.close()
        except OSError:
            pass


# --------------------------------------------------------------------------- the main's side


class TwinStream:
    """The main's end of the twin's stream: a thread drains it into a queue as it comes
    (so the twin never blocks on a full pipe while the main runs its own half)."""

    def __init__(self, fd: int):
        self._queue: queue.Queue = queue.Queue()
        self._source = os.fdopen(fd, "rb")
        self._closed = False
        self._thread = threading.Thread(target=self._drain, name="twin-stream", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        total = 0
        try:
            for line in self._source:
                total += len(line)
                if total > MAX_STREAM_BYTES:
                    break
                try:
                    message = json.loads(line)
                except ValueError:
                    break
                if not isinstance(message, dict):
                    break
                self._queue.put(message)
        except (OSError, ValueError):
            pass
        self._queue.put(None)  # the end: whatever did not come will not

    def result_for(self, nodeid: str) -> dict | None:
        """The twin's message for test ``nodeid``, waited for; None when the stream ends
        first, or brings another test than the next expected (then the main runs the rest)."""
        if self._closed:
            return None
        message = self._queue.get()
        if message is None or message.get("nodeid") != nodeid or not isinstance(message.get("reports"), list):
            self.close()
            return None
        return message

    def close(self) -> None:
        """Stop reading (the main runs the remaining tests itself)."""
        self._closed = True
        try:
            self._source.close()
        except OSError:
            pass


def replay(item, message: dict, keep_notes) -> None:
    """Report ``item`` here as the twin ran it (``message``), through this session's hooks
    in the order ``pytest_runtest_protocol`` calls them after ``pytest_runtest_logstart``
    (which the caller called before it waited for ``message``): each report, logfinish
    (``keep_notes(late_notes)`` first: the notes the twin drained at the test's end), then
    the warnings the test recorded."""
    config = item.config
    reports = [_report(config, data) for data in message["reports"]]
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    keep_notes([str(n) for n in message.get("late_notes") or []])
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    for data in message.get("warnings") or []:
        config.hook.pytest_warning_recorded.call_historic(
            kwargs={"warning_message": _warning_message(data), "when": "runtest", "nodeid": item.nodeid,
                    "location": None})


def _report(config, data: dict):
    report = config.hook.pytest_report_from_serializable(config=config, data=data)
    # JSON made these tuples lists: put them back as pytest made them (a skip's longrepr is read as a tuple)
    if isinstance(report.longrepr, list):
        report.longrepr = tuple(report.longrepr)
    if isinstance(getattr(report, "location", None), list):
        report.location = tuple(report.location)
    report.sections = [tuple(s) for s in report.sections]
    report.user_properties = [tuple(p) if isinstance(p, list) else p for p in report.user_properties]
    return report


def _warning_data(warning_message) -> dict:
    category = warning_message.category
    return {"message": str(warning_message.message), "category": [category.__module__, category.__qualname__],
            "filename": warning_message.filename, "lineno": warning_message.lineno,
            "line": warning_message.line}


def _warning_message(data: dict) -> warnings.WarningMessage:
    import importlib

    module, name = (data.get("category") or ["builtins", "UserWarning"])[:2]
    try:
        category = getattr(importlib.import_module(module), name)
        if not (isinstance(category, type) and issubclass(category, Warning)):
            raise TypeError(name)
    except Exception:  # noqa: BLE001 - a category this process cannot name: the message still says it
        category = UserWarning
    try:
        message = category(data.get("message", ""))
    except Exception:  # noqa: BLE001 - a category with another constructor
        message = UserWarning(data.get("message", ""))
    return warnings.WarningMessage(message, category, data.get("filename", ""), data.get("lineno", 0),
                                   line=data.get("line"))
