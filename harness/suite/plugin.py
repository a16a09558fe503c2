"""The pytest plugin the catalogue runs under: options, the candidate, the result file.

Use::

    python3 -m pytest harness/suite -p harness.suite.plugin [--impl X] [--ref-deps] [--deep]
        [--results-file F] [--golden-file G]

Options:

- ``--impl X``: the implementation under test (a module name, a ``.py`` file or a package
  directory; see ``harness.candidate``). Default: the reference ``oracles.automaton``.
- ``--ref-deps``: supply the reference sampling and GPT-2 byte map where X lacks them.
- ``--deep``: also run the Hypothesis differential properties (``test_deep.py``).
- ``--results-file F``: append one JSON object per line to F, flushed as it is written,
  so that a crash loses nothing already recorded (the parent, ``harness.check``, reads it).
- ``--golden-file G``: the masks golden file to replay (default ``golden/masks_golden.json``).
- ``--only A,B`` / ``--skip A,B``: run only / not these tests, by exact name.

Result records (``"event"`` first):

- ``{"event": "load", "status": "ok"|"error"|"contract"|"usage", "reason": str, "problems": [str],
  "ref_deps": [str]}``: the candidate was imported (or not) and contract-checked;
- ``{"event": "start", "test": name}``: a test began (a crash after this blames it);
- ``{"event": "result", "test": name, "outcome": "passed"|"failed"|"error"|"skipped"|"crashed",
  "reason": one line, "details": text, "duration": seconds}``;
- ``{"event": "tamper", "test": name|null, "changes": [str]}``: protected modules changed
  (null: while importing the candidate); the plugin restored them and went on;
- ``{"event": "finish", "exitstatus": int}``: the session ended normally.

Order of work: the plugin snapshots the protected modules (``guard``), loads the golden file
into memory, and only then imports the candidate, so neither a patched oracle nor a
rewritten golden file can fool a test.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import traceback

import pytest

from harness.suite.guard import Snapshot

_STATE: dict = {}  # the loaded candidate and what the plugin needs, set in configure
sys.dont_write_bytecode = True  # leave no __pycache__ next to a candidate (the check child also sets it)


def pytest_addoption(parser) -> None:
    group = parser.getgroup("constrain-harness", "the conformance catalogue")
    group.addoption("--impl", default=None, help="implementation under test (module, .py file, package dir)")
    group.addoption("--ref-deps", action="store_true", default=False,
                    help="supply the reference sampling and byte map where the candidate lacks them")
    group.addoption("--deep", action="store_true", default=False, help="also run the Hypothesis differential properties")
    group.addoption("--results-file", default=None, help="append JSON-lines results here")
    group.addoption("--golden-file", default=None, help="the masks golden file to replay")
    group.addoption("--only", default="", help="comma-separated test names to run (exact names)")
    group.addoption("--skip", default="", help="comma-separated test names not to run (exact names)")


def pytest_configure(config) -> None:
    for marker, text in (("unit", "a hand-checked example"), ("smoke", "the quickest sign of life"),
                         ("golden", "replays a recorded file or oracle"), ("property", "a generated, seeded property"),
                         ("boundary", "bad input and limits"), ("deep", "Hypothesis differential property (--deep)")):
        config.addinivalue_line("markers", f"{marker}: {text}")
    path = config.getoption("--results-file")
    _STATE["out"] = open(path, "a", encoding="utf-8", buffering=1) if path else None
    _STATE["write"] = _writer(_STATE["out"])


def _writer(out):
    dumps = json.dumps

    def write(record: dict) -> None:
        if out is not None:
            out.write(dumps(record, default=str) + "\n")
            out.flush()
            os.fsync(out.fileno())
    return write


def pytest_ignore_collect(collection_path, config):
    if collection_path.name == "test_deep.py" and not config.getoption("--deep"):
        return True
    return None


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the catalogue in the seed's order (deep properties after it)."""
    from harness.suite.catalogue import NAMES

    rank = {name: i for i, name in enumerate(NAMES)}
    items.sort(key=lambda item: rank.get(item.name, len(rank)))
    only = {n for n in config.getoption("--only").split(",") if n}
    skip = {n for n in config.getoption("--skip").split(",") if n}
    if only or skip:  # exact names (pytest's -k matches substrings: test_hand_example_masks)
        keep = [i for i in items if (not only or i.name in only) and i.name not in skip]
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


def pytest_collection_finish(session) -> None:
    """Snapshot, read the golden file, then load and contract-check the candidate."""
    config = session.config
    write = _STATE["write"]
    _STATE["golden"] = _read_golden(config.getoption("--golden-file"))
    _import_trusted(config.getoption("--deep"))
    snapshot = Snapshot.take()
    _STATE["snapshot"] = snapshot
    write({"event": "start", "test": "<load>"})
    record = _load(config.getoption("--impl"), config.getoption("--ref-deps"))
    changes = snapshot.diff()
    if changes:
        snapshot.restore()
        write({"event": "tamper", "test": None, "changes": changes})
        # restored: the tests still run (and the verdict records the tampering)
    write(record)
    if record["status"] != "ok":
        _STATE["load_failure"] = record
        pytest.exit(record["reason"], returncode=2 if record["status"] in ("contract", "usage") else 3)


# Imported before the snapshot so that the guard protects them even where the tests
# import them lazily (an optional package that is absent is simply not protected).
TRUSTED_MODULES = ("re", "json", "regex", "jsonschema", "numpy", "oracles.derivatives", "oracles.stdlib",
                   "golden.fileformat", "harness.candidate", "harness.suite.golden_replay", "tokenizers")
DEEP_MODULES = ("hypothesis", "strategies")  # only --deep uses them (hypothesis costs a second to import)


def _import_trusted(deep: bool) -> None:
    import importlib

    for name in TRUSTED_MODULES + (DEEP_MODULES if deep else ()):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _read_golden(path) -> dict:
    from harness.suite import golden_replay

    return golden_replay.read_golden(path)


def _load(spec, ref_deps) -> dict:
    from harness.candidate import check_contract, load_candidate

    from harness.candidate import CandidateError

    try:
        module = load_candidate(spec, ref_deps=ref_deps)
    except CandidateError as exc:
        return {"event": "load", "status": "usage", "reason": str(exc), "problems": []}
    except BaseException as exc:  # noqa: BLE001 - anything the candidate's import raises is a verdict
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-6))
        return {"event": "load", "status": "error", "reason": f"importing the candidate failed: {_one_line(exc)}",
                "details": text, "problems": []}
    problems = check_contract(module)
    _STATE["impl"] = module
    record = {"event": "load", "status": "contract" if problems else "ok", "problems": problems,
              "ref_deps": list(getattr(module, "__constrain_ref_deps__", ())),
              "module": getattr(module, "__name__", "?"), "file": getattr(module, "__file__", None)}
    if problems:
        record["reason"] = f"contract: {len(problems)} problem(s), first: {problems[0]}"
    return record


@pytest.fixture(scope="session")
def impl():
    """The implementation under test (a module with the contract's names)."""
    failure = _STATE.get("load_failure")
    if failure is not None:
        pytest.fail(failure.get("reason", "the candidate did not load"), pytrace=False)
    return _STATE["impl"]


@pytest.fixture(scope="session")
def golden():
    """The masks golden file, read before the candidate was imported."""
    return _STATE["golden"]


def pytest_runtest_logstart(nodeid, location) -> None:
    _STATE["write"]({"event": "start", "test": _name(nodeid)})
    _STATE[("t0", nodeid)] = time.monotonic()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None:
        exc = call.excinfo.value
        report.ch_reason = _reason_of(exc)
        report.ch_details = getattr(exc, "details", None)
        if isinstance(exc, MemoryError):
            report.ch_status = "crashed"
    changes = _check_tamper(item) if call.when in ("call", "teardown") else []
    if changes:
        report.outcome = "failed"
        report.ch_reason = (f"the candidate changed the harness during the test: {', '.join(changes[:3])}"
                            f"{' ...' if len(changes) > 3 else ''}")
        report.ch_details = "\n".join(changes)


def _check_tamper(item) -> list[str]:
    snapshot = _STATE.get("snapshot")
    if snapshot is None:
        return []
    changes = snapshot.diff()
    re.purge()
    if changes:
        snapshot.restore()
        _STATE["write"]({"event": "tamper", "test": _name(item.nodeid), "changes": changes})
    return changes


def pytest_runtest_logreport(report) -> None:
    _STATE.setdefault(("reports", report.nodeid), []).append(report)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logfinish(nodeid, location) -> None:
    reports = _STATE.pop(("reports", nodeid), [])
    outcome, reason, details = _summarize(reports)
    started = _STATE.pop(("t0", nodeid), time.monotonic())
    _STATE["write"]({"event": "result", "test": _name(nodeid), "outcome": outcome, "reason": reason,
                     "details": details, "duration": round(time.monotonic() - started, 3)})


def _summarize(reports) -> tuple[str, str, str]:
    for report in reports:
        if report.failed:
            outcome = getattr(report, "ch_status", None) or ("failed" if report.when == "call" else "error")
            reason = getattr(report, "ch_reason", None) or _first_line(report.longreprtext)
            if report.when != "call":
                reason = f"in {report.when}: {reason}"
            details = getattr(report, "ch_details", None) or report.longreprtext
            return outcome, reason, _clip(details)
    for report in reports:
        if report.skipped:
            # The catalogue never skips (optional packages only shorten a test), so a
            # skip or xfail came from the candidate (pytest.skip inside its code): a
            # test it avoided is a test it failed.
            longrepr = report.longrepr
            text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            return "failed", f"the test was skipped from inside the candidate: {text.removeprefix('Skipped: ')}", ""
    return "passed", "", ""


def pytest_sessionfinish(session, exitstatus) -> None:
    _STATE["write"]({"event": "finish", "exitstatus": int(exitstatus)})
    if _STATE.get("out") is not None:
        _STATE["out"].close()


# --------------------------------------------------------------------------- reasons


def _reason_of(exc: BaseException) -> tuple[str, str] | str:
    """A one-line reason for a test's exception: the catalogue's own failure message,
    or the exception type and message with the candidate's line that raised it."""
    reason = getattr(exc, "reason", None)
    if reason:
        return reason
    if isinstance(exc, MemoryError):
        return "MemoryError: the candidate ran out of memory (the --memory limit)"
    if isinstance(exc, AssertionError):
        return _first_line(str(exc)) or "assertion failed"
    where = _candidate_frame(exc)
    return f"{type(exc).__name__}: {_one_line(exc)}" + (f" (at {where})" if where else "")


def _candidate_frame(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if "/harness/" not in frame.filename and "/site-packages/" not in frame.filename \
                and "/lib/python" not in frame.filename:
            return f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"
    return ""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return _clip(text[0] if text else repr(exc), 300)


def _first_line(text: str) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("E "):
            return _clip(line[1:].strip(), 300)
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return _clip(lines[-1] if lines else "", 300)


def _clip(text: str, limit: int = 8000) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit} more characters)"


def _name(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[-1]


__all__ = ["impl", "golden"]
