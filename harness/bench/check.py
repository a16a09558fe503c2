"""Benchmark: ``constrain-harness check`` end to end on the reference.

Subjects: the catalogue (16 tests) and, unless ``--quick``, the catalogue with
``--deep``. Each run is a fresh grader child (pytest, numpy, the golden file) and a
fresh candidate process behind the wall, and a twin of both for the catalogue's second
half (``harness.suite.twin``), exactly as a grader runs it. Targets: the
catalogue <= 2.5 s wall on 2 quiet cores (issue 23; issue 11 allowed 10 s), with
``--deep`` <= 5 minutes; the note gives the CPU seconds of all the run's processes (the
parent's own and its children's, a figure the load moves far less than the wall). A
per-test median table follows, so a slow test stands out,
and the load average before and after each subject (a loaded machine's figures are not
the target's: each round trip into the candidate waits for both processes to be
scheduled, so the catalogue's time grows with the load; its verdicts do not).

The wall's channel: ``TokenIndex.next_state`` of the reference per call, one call at a
time and batched with ``call_many``, against the same call in-process (the peer,
measured in the same run; the printed ratios are the wall's cost per call).

Where the time goes (``--quick`` too): the start-up (a Python with pytest and numpy
imported; a candidate process started and loaded), and each catalogue test run in this
process against one candidate process, with its seconds, the CPU seconds of this process
(the grader's oracles) and of the candidate's tree, and its round trips into the candidate.
The check's CPU note counts the candidate's tree too (``harness.sandbox.cpulog.CPU_LOG``: a confined tree is
not reaped into the grader's ``getrusage``).
"""

from __future__ import annotations

import statistics

from facts.hand import HAND_PATTERN
from harness.bench.timing import Row, Timing, format_seconds, measure
from harness.grading.check import CheckOptions, run_check
from harness.policy import POLICY
from harness.suite.catalogue import DEEP_NAMES

DEEP_LABEL = f"16 + {len(DEEP_NAMES)} deep tests (4 Hypothesis properties, {len(DEEP_NAMES) - 4} exact checks)"

CALLS = 2000  # calls per sample of the channel benchmark


def _load() -> str:
    import os

    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def _time(options: CheckOptions, repeat: int):
    """(timing, results, median CPU s of the grader's processes, median CPU s of the candidate's)."""
    import os
    import tempfile

    from harness.sandbox.cpulog import CPU_LOG, read_cpu_log

    results, cpu, candidate = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-check-") as folder:
        log = os.path.join(folder, "candidate-cpu.log")
        os.environ[CPU_LOG] = log
        try:
            for _ in range(repeat):
                before = _cpu_seconds()
                results.append(run_check(options))
                cpu.append(_cpu_seconds() - before)
                candidate.append(read_cpu_log(log))
        finally:
            os.environ.pop(CPU_LOG, None)
    durations = [r.duration for r in results]
    return (Timing(statistics.median(durations), min(durations), repeat), results, statistics.median(cpu),
            statistics.median(candidate))


def _cpu_seconds() -> float:
    """CPU seconds of this process and its waited-for children (a check's grader child and,
    through it, the candidate process): a figure the machine's load moves far less than
    the wall time of a check, whose every round trip waits for two processes to be scheduled."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _channel(report, quick: bool) -> None:
    import oracles.automaton as reference
    from harness.sandbox import Candidate, call_many

    vocab = [bytes([b]) for b in range(256)] + [None]
    here = reference.TokenIndex(reference.regex_to_dfa(HAND_PATTERN), vocab, 256)
    with Candidate(None) as candidate:
        impl = candidate.module
        there = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), vocab, 256)
        args = [(0, t % 257) for t in range(CALLS)]
        repeat = 3 if quick else 7
        rows = [("one call at a time", lambda: [there.next_state(*a) for a in args]),
                ("call_many (per call)", lambda: call_many(there.next_state, args)),
                ("in-process (peer)", lambda: [here.next_state(*a) for a in args])]
        for subject, fn in rows:
            timing = measure(fn, repeat=repeat)
            per_call = Timing(timing.median_s / CALLS, timing.min_s / CALLS, timing.repeat)
            report.add(Row("channel: next_state", subject, per_call,
                           note=f"{candidate.load['mode']}" if subject == "one call at a time" else ""))
        for subject in ("one call at a time", "call_many (per call)"):
            ratio = report.ratio("channel: next_state", subject, "in-process (peer)")
            print(f"    {subject} / in-process: {ratio:.0f}x" if ratio else "", file=report.out)


def _startup(report) -> None:
    import subprocess
    import sys

    from harness.sandbox import Candidate

    imports = measure(lambda: subprocess.run([sys.executable, "-c", "import pytest, numpy"], check=True), repeat=3)
    report.add(Row("start-up", "python + pytest + numpy", imports))

    def start_candidate():
        with Candidate(None, ref_deps=True):
            pass
    report.add(Row("start-up", "a candidate process", measure(start_candidate, repeat=3)))


def _where_the_time_goes(report) -> None:
    """Each catalogue test in this process against one candidate: seconds and round trips."""
    import collections
    import inspect
    import time

    from harness.sandbox import Candidate
    from harness.suite import (
        golden_masks,
        seeding,
        test_dfa,
        test_masks,
        test_sampling,
        test_schema,
        test_vocab,
        tiers,
    )
    from harness.suite.catalogue import NAMES

    functions = {name: getattr(module, name) for module in (test_dfa, test_masks, test_sampling, test_schema,
                                                            test_vocab) for name in NAMES if hasattr(module, name)}
    golden = golden_masks.read_golden(None)
    seeding.set_run_seed(0)
    print("    where the time goes (in-process grader, one candidate process; CPU: the grader's + the candidate's):",
          file=report.out)
    with Candidate(None, ref_deps=True) as candidate:
        trips: collections.Counter = collections.Counter()
        exchange = candidate.exchange

        def counted(frame, what="a request", describe=None):
            trips[what] += 1
            return exchange(frame, what, describe)
        candidate.exchange = counted
        for name in NAMES:
            trips.clear()
            function = functions[name]
            arguments = {"impl": candidate.module}
            if "golden" in inspect.signature(function).parameters:
                arguments["golden"] = golden
            start, grader, tree = time.perf_counter(), time.process_time(), candidate.cpu_seconds()
            candidate.limit_cpu(POLICY.test_cpu_seconds)
            function(**arguments)
            candidate.limit_cpu(None)
            seconds = time.perf_counter() - start
            grader, tree = time.process_time() - grader, candidate.cpu_seconds() - tree
            tiers.drain_notes()
            top = ", ".join(f"{what} x{n}" for what, n in trips.most_common(2))
            print(f"    {name:<54} {format_seconds(seconds):>10}  CPU {grader:5.2f} + {tree:5.2f} s "
                  f"{sum(trips.values()):>5} round trips ({top})", file=report.out)


def run(report, quick: bool) -> None:
    _channel(report, quick)
    _startup(report)
    _where_the_time_goes(report)
    before = _load()
    timing, results, cpu, candidate = _time(CheckOptions(), 1 if quick else 3)
    ok = all(r.exit_code == 0 for r in results)
    report.add(Row("check (reference)", "16 catalogue tests", timing,
                   note=("all passed" if ok else f"exit codes {[r.exit_code for r in results]}")
                   + f"; {cpu + candidate:.2f} CPU s (median: {cpu:.2f} the verb's and the grader's, "
                     f"{candidate:.2f} the candidate's)", target="<= 2.5 s"))
    print(f"    before: {before}; after: {_load()}", file=report.out)
    from harness.suite.twin import SPLIT_AT

    print(f"    (with a twin, a test from {SPLIT_AT} on reads as the main child's wait for the twin's "
          f"answer: the table above says where the time goes)", file=report.out)
    slowest = sorted(results[0].tests, key=lambda t: -t.duration)[:5]
    for test in slowest:
        per = [next(t.duration for t in r.tests if t.name == test.name) for r in results]
        print(f"    {test.name:<54} median {format_seconds(statistics.median(per)):>10}", file=report.out)
    if not quick:
        timing, results, _, _ = _time(CheckOptions(deep=True, timeout=300.0), 1)
        report.add(Row("check --deep (reference)", DEEP_LABEL, timing,
                       note="all passed" if results[0].exit_code == 0 else f"exit {results[0].exit_code}",
                       target="<= 300 s"))
