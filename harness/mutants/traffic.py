"""A generated mutant's pass decided by replaying a recorded pass of the same selection (issue 52 item 4).

A pass of a generated mutant (``runner._catalogue_pass``: the default tier, or the deep pass
under ``--strict``) is one grader, pytest over the catalogue, talking to its candidate processes
through the channel (``harness.sandbox.client``: every round trip is ``Candidate._exchange``).
When a mutant answers every request exactly as the candidate of an earlier pass of the same
selection did, and that pass passed every test, the grader's course is that pass's and so is its
verdict. So before a pass runs for real, its recording is looked up:

- **the recording** (``kept``, ``keep``): the first real pass of the selection (the same tests, the
  same tier and strictness, the same run seed, under the same budgets) whose every test passed, made
  by whichever mutant ran it first: the pass of a selection with no recording yet runs for real with
  ``traffic_plugin``, which keeps every round trip's request and reply as they crossed the channel
  (frame bodies), each with its candidate process and its test, and writes them only when the pass
  passed; each test's result record (outcome, notes) is kept with them. No pass of the reference is
  run for a recording (until 2026-12-08 one was, the first time a mutant asked: one whole pass for
  each selection, which paid back only from the selection's second passing mutant on, and most
  selections are asked for once; ``docs/mutants-runs.md``). Replayable only if every test passed, no
  round trip fell outside a test or a load, at most two candidate processes served it (the split,
  ``twin.SPLIT_AT``; a third is a restart after a crash) and its frames total at most
  ``MAX_RECORDING_BYTES``; otherwise it is kept as not replayable, with why, and such a pass runs as
  before. Kept beside the coverage map in a folder of the map's digest (``folder_for``: the
  reference, the catalogue and its inputs, the Python, ``coverage.reference_digest``), one file a
  selection (``selection_key``);
- **the replay** (``main``, a fork of the warm grader like a catalogue run, its candidates forks of
  the zygote): no pytest, no Hypothesis, no oracle. For each candidate process of the recording, in
  order, a candidate of the mutant is started exactly as the pass would start it (the run value the
  pass would use, ``runner.catalogue_run``: its ``RLIMIT_CPU`` sized for the same count of tests,
  the load's CPU budget, each test's CPU budget set before its first request and cleared after its
  last, as ``harness.suite.plugin``'s ``impl`` fixture does), and sent the recorded requests one by
  one. Each reply is compared with the recorded one here, outside the wall, byte for byte (the wire
  form: values with their types and dtypes, an exception's class, message and place, a handle's
  number, kind and methods, the generators' states and the arrays written back), but for the
  candidates' own labels (``labels``: the module's name, which the harness makes from the folder's
  path, and the folder), in the load's reply and in any message naming them, compared as labels:
  the pass writes them in its load record only, no test reads them. Only recorded *requests* enter
  the candidate's process, which are the inputs the grader would send; a recorded reply never
  leaves this process (the wall's "inputs in, answers out", /work/shared/DESIGN.md);
- **the decision** (``runner._replayed``): every reply equal, the pass is the recorded one: each test
  passed with its recorded notes, and no grader ran. The first difference, a crash, a budget run out,
  a refusal, anything unexpected: the pass runs for real, whole, exactly as before (so a kill is
  always found by the real test, with its real message).

Why one recording per selection, replayed in one run, and not one per test alone: a pass shares
its candidate process among its tests (all of them up to the split, then a fresh one), so a test's
answers may depend on what ran before it in that process (the handles' numbers always do: the
server numbers objects in the order it first sends them), and the grader's own state carries from
test to test (the constraint shape it learns, the hangs it remembers). With the recording made of
the very pass the mutant would run, the argument is an induction over the round trips: the grader's
first request is a function of the run seed; if the mutant's first k replies equal the recorded
ones, the grader, being in the same state as in the recording, sends the same request k+1, which is
the recorded one the replay sent; so with every reply equal the real pass would meet exactly the
recorded replies, and every assertion and note of a test is a function of those (the catalogue
reads its candidate only through its answers: no clock, no CPU reading, no printed output; the
Hypothesis properties are derandomized with no database and no deadline), so its verdict is the
recorded one. Nothing in the argument asks whose candidate gave the recorded replies (the
reference's or another mutant's): only that it is the same selection's pass and that it passed.
What a pass reads that is not an answer makes the argument fail, and is excluded: a crash or
timeout (the hang memory, ``known_hangs``, and a fresh candidate follow from them) is a difference,
so it falls back; a pass whose tests did not all pass is never kept.

``CONSTRAIN_HARNESS_NO_REPLAY=1`` turns it off (every pass runs for real, none records, as before).

Example::

    >>> kept(folder, ("test_hand_example",), False, 30.0, None) is None   # no pass of it yet
    True
    >>> recording = keep(folder, ("test_hand_example",), False, 30.0, None, found, records, out)   # after one passed
    >>> recording.replayable, sorted(recording.records)
    (True, ['test_hand_example'])
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

FORMAT = "constrain-harness-mutant-traffic"
FORMAT_VERSION = 1
OFF_VARIABLE = "CONSTRAIN_HARNESS_NO_REPLAY"
"""Set to 1: every pass of a generated mutant runs its grader, none is decided by a replay."""
OUT_VARIABLE = "CONSTRAIN_HARNESS_TRAFFIC_OUT"
"""Set by the runner for a pass with no recording yet: where ``traffic_plugin`` writes the pass's traffic."""
LOG_VARIABLE = "CONSTRAIN_HARNESS_REPLAY_LOG"
"""A file: each replay's decision is appended to it as a JSON line (a measure; nothing reads it)."""
MAX_RECORDING_BYTES = 32 << 20
"""The most bytes of frames (requests and replies) one recording keeps; a pass over it is not
replayable (the reference's deep pass on every test: some MB)."""
MAX_FOLDER_BYTES = 1 << 30
"""The most bytes one digest's folder of recordings holds: past it no new recording is made (the
pass is kept for it; the mutant's pass runs as before), those kept still replay. A
whole run's selections need some hundreds of MB (~1.7 MB a recording, 2026-12-07)."""
MAX_CANDIDATES = 2   # the pass's candidate processes: one, or two at the split (a third is a restart)


def on() -> bool:
    """Whether passes are decided by replays (``OFF_VARIABLE`` unset or not 1), read at each plan."""
    return os.environ.get(OFF_VARIABLE) != "1"


def folder_for(map_path, digest: str) -> str:
    """Where the recordings of the coverage map at ``map_path`` are kept: a folder beside it, and in it
    one per the map's digest (``coverage.reference_digest``: the reference, the catalogue and its
    inputs, the Python), so a recording never outlives what it was made of."""
    path = Path(map_path)
    return str(path.with_name(path.name + ".traffic") / digest[:24])


@dataclass(frozen=True)
class Recording:
    """One selection's recording: ``replayable`` (else ``why`` not), the tests' result records,
    the file holding its traffic."""

    replayable: bool
    why: str
    records: dict
    path: str


_INDEX: dict[str, Recording] = {}   # file -> its recording's summary, in this process
_INDEX_LOCK = threading.Lock()
PLUGIN = "harness.mutants.traffic_plugin"


def selection_key(tests: tuple[str, ...] | None, deep: bool, timeout: float, budgets: dict | None) -> str:
    """The name of a selection's recording in its digest's folder: the tier, the tests, the run's limits."""
    what = json.dumps([deep, None if tests is None else list(tests), timeout, budgets], sort_keys=True)
    return hashlib.sha256(what.encode()).hexdigest()[:32]


def path_for(folder: str, tests: tuple[str, ...] | None, deep: bool, timeout: float, budgets: dict | None) -> Path:
    """The file of a selection's recording in its digest's ``folder`` (``selection_key``)."""
    return Path(folder) / f"{selection_key(tests, deep, timeout, budgets)}.json"


def kept(folder: str, tests: tuple[str, ...] | None, deep: bool, timeout: float,
         budgets: dict | None) -> Recording | None:
    """The selection's recording kept in ``folder`` (replayable or not), or None: none yet (the pass then
    runs for real and records its traffic, ``keep``)."""
    path = str(path_for(folder, tests, deep, timeout, budgets))
    with _INDEX_LOCK:
        found = _INDEX.get(path)
    if found is None:
        found = _read(path)
        if found is not None:
            with _INDEX_LOCK:
                _INDEX[path] = found
    return found


def keep(folder: str, tests: tuple[str, ...] | None, deep: bool, timeout: float, budgets: dict | None,
         found: dict[str, str], records: dict[str, dict], out: Path) -> Recording | None:
    """Keep the traffic ``traffic_plugin`` wrote to ``out`` during a real pass of the selection whose every
    test passed (``found``, ``records``: its outcomes and result records) as the selection's recording,
    unless one is kept already or the folder is at ``MAX_FOLDER_BYTES``; a pass that is not replayable
    (``_not_replayable``) is kept as such, with why. The recording kept, or None (nothing written)."""
    path = path_for(folder, tests, deep, timeout, budgets)
    if kept(folder, tests, deep, timeout, budgets) is not None or _folder_full(Path(folder)) is not None:
        return None
    try:
        traffic = json.loads(Path(out).read_text(encoding="utf-8"))
    except (OSError, ValueError):   # the plugin writes only after a pass whose every test passed
        return None
    why = _not_replayable(found, traffic, tests, deep)
    if why.startswith(NOT_PASSED):   # a pass that did not pass whole records nothing, not even why
        return None
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "digest": path.parent.name, "deep": deep,
           "tests": None if tests is None else list(tests), "replayable": not why, "why": why or "",
           "records": {t: {"outcome": r.get("outcome"), "notes": r.get("notes", [])} for t, r in records.items()}}
    if not why:
        doc.update(order=traffic["tests"], candidates=traffic["candidates"], exchanges=traffic["exchanges"])
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + f".{os.getpid()}.{threading.get_ident()}.partial")
    partial.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(partial, path)   # whole or not at all (two passes of one selection at once: either, both valid)
    recording = Recording(not why, why or "", doc["records"], str(path))
    with _INDEX_LOCK:
        _INDEX[str(path)] = recording
    return recording


def _folder_full(folder: Path) -> str | None:
    """Why no new recording goes into ``folder`` (its files at ``MAX_FOLDER_BYTES``), or None."""
    try:
        size = sum(entry.stat().st_size for entry in folder.iterdir() if entry.is_file())
    except OSError:   # no folder yet: nothing kept
        return None
    if size >= MAX_FOLDER_BYTES:
        return f"the recordings' folder holds {size} bytes, at its {MAX_FOLDER_BYTES}-byte bound"
    return None


def _read(path: str) -> Recording | None:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or (doc.get("format"), doc.get("format_version")) != (FORMAT, FORMAT_VERSION):
        return None
    return Recording(bool(doc["replayable"]), str(doc["why"]), dict(doc["records"]), path)


NOT_PASSED = "not passed whole: "   # ``_not_replayable``'s words for a pass some test of which did not pass


def _not_replayable(found: dict[str, str], traffic: dict, tests: tuple[str, ...] | None, deep: bool) -> str:
    """Why a recorded pass cannot decide another mutant's ("" when it can)."""
    from harness.suite.catalogue import DEEP_NAMES, NAMES

    wanted = tuple(tests) if tests is not None else ((*NAMES, *DEEP_NAMES) if deep else NAMES)
    if sorted(found) != sorted(wanted):
        return f"{NOT_PASSED}the pass reported {len(found)} of {len(wanted)} tests"
    failed = sorted(t for t, outcome in found.items() if outcome != "passed")
    if failed:
        return f"{NOT_PASSED}{failed[0]} did not pass ({found[failed[0]]})"
    if traffic["outside"]:
        return f"{traffic['outside']} round trip(s) outside a test"
    if not 1 <= traffic["candidates"] <= MAX_CANDIDATES:
        return f"{traffic['candidates']} candidate processes (a restart)"
    size = sum(len(e["request"]) + len(e["reply"]) for e in traffic["exchanges"]) * 3 // 4
    if size > MAX_RECORDING_BYTES:
        return f"{size} bytes of frames, over the {MAX_RECORDING_BYTES}-byte bound"
    return ""


# --- the decision's log (``runner._replayed`` decides) ---------------------------------------------------


def log(package: Path, deep: bool, tests, decided: bool, why: str, cpu: float) -> None:
    """``LOG_VARIABLE``'s line: the pass, whether the replay decided it or why not, its CPU s (warm runs)."""
    path = os.environ.get(LOG_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"package": Path(package).name, "deep": deep,
                                "tests": None if tests is None else len(tests), "decided": decided,
                                "why": why[:300], "cpu": round(cpu, 3)}) + "\n")


# --- the replay (a fork of the warm grader: ``python -m harness.mutants.traffic``) ---------------------


def groups(recording: dict) -> list[list[dict]]:
    """The recording's round trips per candidate process, in order; each group starts with its load."""
    found: list[list[dict]] = [[] for _ in range(recording["candidates"])]
    for exchange in recording["exchanges"]:
        found[exchange["candidate"]].append(exchange)
    return found


def replay(recording: dict, start: Callable[[int], object], budget_of: Callable[[str], float]) -> str:
    """Send the recorded requests to the candidates ``start(tests)`` gives (a candidate process
    loaded, its ``RLIMIT_CPU`` sized for ``tests`` tests) and compare every reply with the recorded
    one: "" when all are equal, else the first difference (or what stopped it). ``budget_of(name)``:
    a test's CPU budget (``CatalogueRun.budget_of``)."""
    from harness.suite.twin import in_second_half

    names = dict(recording["order"])   # a record's name -> the name its budget is kept under
    order = [name for name, _ in recording["order"]]
    counts = [len(order), sum(1 for _, original in recording["order"] if in_second_half(original))]
    for index, group in enumerate(groups(recording)):
        if not group or not group[0]["load"] or any(e["load"] for e in group[1:]):
            return f"candidate {index}: not one load first"
        try:
            candidate = start(counts[min(index, 1)])
        except BaseException as exc:   # noqa: BLE001 - a load that failed: the real pass says how
            return f"candidate {index}: the load failed: {type(exc).__name__}: {str(exc)[:200]}"
        try:
            recorded, got = labels(base64.b64decode(group[0]["reply"])), labels(candidate.last_reply)
            if recorded is None or got is None or \
                    _plain(base64.b64decode(group[0]["reply"]), recorded) != _plain(candidate.last_reply, got):
                return f"candidate {index}: the load's reply differs from the reference's"
            why = _replay_group(candidate, group[1:], names, budget_of, (recorded, got))
            if why:
                return f"candidate {index}: {why}"
        finally:
            candidate.close()
    return ""


def _replay_group(candidate, exchanges: list[dict], names: dict, budget_of, both: tuple) -> str:
    test = None
    for number, exchange in enumerate(exchanges):
        if exchange["test"] != test:
            test = exchange["test"]
            if not candidate.alive:   # the pass would start a fresh one here (``plugin.impl``): another history
                return f"{test}: the candidate process ended before it"
            candidate.limit_cpu(budget_of(names.get(test, test)))
        try:
            reply = candidate.exchange_body(base64.b64decode(exchange["request"]), f"{test}'s round trip {number}")
        except BaseException as exc:   # noqa: BLE001 - a crash, a budget, a refusal: the real pass decides
            return f"{test}: round trip {number}: {type(exc).__name__}: {str(exc)[:200]}"
        expected = base64.b64decode(exchange["reply"])
        if reply != expected and _plain(reply, both[1]) != _plain(expected, both[0]):
            return f"{test}: round trip {number}: the reply differs from the reference's"
        following = exchanges[number + 1]["test"] if number + 1 < len(exchanges) else None
        if following != test:
            candidate.limit_cpu(None)
    return ""


LABELS = ("<the candidate's module>", "<the candidate's folder>")


def labels(load_reply: bytes) -> tuple[str, str] | None:
    """The candidate's labels a load's reply names: its module's name (``cand_FOLDER_DIGEST``, made by
    ``harness.sandbox.candidate`` from its folder's path) and its folder; None: not a loaded module's."""
    from harness.sandbox import channel

    reply = channel.decode(load_reply)
    value = reply[1] if isinstance(reply, list) and len(reply) == 3 and reply[0] == "ok" else None
    if not (isinstance(value, dict) and isinstance(value.get("name"), str) and isinstance(value.get("file"), str)):
        return None
    return value["name"], os.path.dirname(value["file"])


def _plain(body: bytes, names: tuple[str, str]) -> bytes:
    """A reply's wire form with the candidate's own labels (``labels``: its module's name and its folder,
    which the harness gives it from the folder's path, not from anything asked) written as ``LABELS``
    wherever a text holds them (the load's ``name`` and ``file``, a message naming the module)."""
    from harness.sandbox import channel

    def plain(value):
        kind = type(value)
        if kind is str:
            for name, label in zip(names, LABELS):
                if name:
                    value = value.replace(name, label)
            return value
        if kind in (list, tuple, set, frozenset):
            return kind(plain(v) for v in value)
        if kind is dict:
            return {plain(k): plain(v) for k, v in value.items()}
        return value
    try:
        return channel.pack(plain(channel.decode(body)), checked=False)
    except (channel.ProtocolError, TypeError, ValueError):   # not a frame the channel carries: never equal
        return b"\xc1" + body   # (0xc1: the one byte msgpack never writes)


def main(argv: list[str]) -> int:
    """``python -m harness.mutants.traffic PACKAGE RECORDING RUN``: replay RECORDING's requests to
    PACKAGE's candidates under the run value in the file RUN; prints ``{"equal": bool, "why": str}``."""
    from harness.run import CatalogueRun
    from harness.sandbox import Candidate

    if len(argv) != 3:
        print("usage: python -m harness.mutants.traffic PACKAGE RECORDING.json RUN.json", file=sys.stderr)
        return 2
    package, recording_path, run_path = argv
    recording = json.loads(Path(recording_path).read_text(encoding="utf-8"))
    run = CatalogueRun.from_json(Path(run_path).read_text(encoding="utf-8"))
    hangs: set[str] = set()

    def start(tests: int):
        candidate = Candidate(package, ref_deps=run.policy.ref_deps, limits=run.limits(tests), marker=run.marker,
                              load_cpu_seconds=run.load_cpu_seconds, known_hangs=hangs)
        try:
            candidate.start()
        except BaseException:
            candidate.close()
            raise
        return candidate

    why = replay(recording, start, run.budget_of) if recording.get("replayable") else "not replayable"
    print(json.dumps({"equal": not why, "why": why}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
