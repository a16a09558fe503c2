"""Benchmark: the generated-mutant run, per mutant and extrapolated to every site (issue 27).

Subject: a seeded sample (seed 1) of ``SAMPLE`` generated mutants (``QUICK_SAMPLE`` with
``--quick``), default tier then the deep pass, as ``mutants --generated --sample N --seed 1``
runs them. Rows (wall seconds of the whole sample; one run each, the figure is a rate, not
a ratio of medians, and the load average is printed beside each):

- ``coverage map``: recording the coverage per catalogue test (``harness.mutants.coverage``),
  which a run does once per reference version (kept in the user's cache folder; 0 s when it
  is there already);
- ``local --jobs 1`` and ``local --jobs 2``: coverage filter, stop at the first kill, warm
  graders, the fingerprint's keys filtered (today's run); each note gives the CPU seconds
  the run took (this process and its children: on a shared machine the comparable
  figure) and the ratio a list schedule of the tasks' own CPU seconds gives for 2 workers
  (``schedule_ratio``: what 2 quiet cores would give); the ``--jobs 2`` note extrapolates to
  every site: ``--jobs 1``'s wall seconds per mutant (one worker: its graders and candidates
  in turn, so every CPU second they take; the CPU ``getrusage`` sees misses the confined
  candidates and the pool's unreaped children) x the mutants all sites give
  (``enumerate_sites``, less the share ``pick`` drops in this sample), over 2 cores;
- ``local --jobs 2, every test, cold`` (the peer: the run before issue 27), unless ``--quick``;
- ``dask 1 worker`` and ``dask 2 workers``: the same sample on a local Dask cluster
  (``harness.fanout.dask_local``: a scheduler and 1 or 2 single-thread workers as processes on
  127.0.0.1); target: 2 workers >= 1.8x faster than 1. Skipped without the dask extra.

Targets (2 quiet cores): every site <= 60 min; 2 workers / 1 worker >= 1.8.
"""

from __future__ import annotations

import os
import time

from harness.bench.timing import Row, Timing

SAMPLE, QUICK_SAMPLE, SEED = 100, 12, 1
TIMEOUT = 30.0


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _timed(fn) -> tuple[float, object]:
    start = time.monotonic()
    value = fn()
    return time.monotonic() - start, value


def run(report, quick: bool) -> None:
    from harness.mutants import coverage, generation, runner

    n = QUICK_SAMPLE if quick else SAMPLE
    sites = generation.enumerate_sites()
    mutants, dropped = generation.pick(sites, n, SEED)
    kept_share = len(mutants) / (len(mutants) + sum(dropped.values()))
    total = round(len(sites) * kept_share)
    seconds, cmap = _timed(lambda: coverage.load_or_record(coverage.default_path(None), TIMEOUT))
    report.add(Row("mutants --generated", "coverage map (once)", Timing(seconds, seconds, 1),
                   note=f"{len(cmap.lines)} tests; {_load()}"))
    options = runner.GeneratedOptions(deep=True, first_kill=True, coverage=cmap)
    serial = 0.0
    for jobs in (1, 2):
        records: list[dict] = []
        seconds, cpu, results = _timed_cpu(lambda: runner.run_all(mutants, jobs=jobs, timeout=TIMEOUT,
                                                                  generated=options, state=_Records(records)))
        note = f"{_outcomes(results)}; CPU {cpu:.0f} s; {_load()}"
        serial = serial or seconds
        if jobs == 2:
            note += (f"; tasks' CPU list-scheduled on 2 workers: {schedule_ratio(records):.2f}x; all {len(sites)} "
                     f"sites ({total} mutants): ~{serial / n * total / 2 / 60:.0f} min on 2 quiet cores "
                     "(--jobs 1's wall a mutant, halved)")
        report.add(Row("mutants --generated", f"sample {n}, local --jobs {jobs}", Timing(seconds, seconds, 1),
                       note=note, peer_of=f"sample {n}, local --jobs 2" if jobs == 1 else None,
                       target="ratio (2 jobs / 1) <= 0.556: 1.8x; all sites <= 60 min" if jobs == 1 else ""))
    if not quick:
        seconds, results = _timed(lambda: _cold_every_test(runner, mutants))
        report.add(Row("mutants --generated", f"sample {n}, every test, cold", Timing(seconds, seconds, 1),
                       note=f"{_outcomes(results)}; all sites: ~{seconds / n * total / 60:.0f} min; {_load()}",
                       peer_of=f"sample {n}, local --jobs 2"))
    _dask_rows(report, mutants, options, n)


class _Records:
    """A stand-in for a ``MutantState`` that keeps the records (their ``cpu_seconds``) in memory."""

    def __init__(self, records: list[dict]):
        self.records, self.saved = {}, records
        self.results = {}

    def save(self, record: dict) -> None:
        self.saved.append(record)


def schedule_ratio(records: list[dict]) -> float:
    """1-worker / 2-worker makespan of the records' own CPU seconds, list-scheduled in order:
    the speed-up 2 quiet cores would give, whatever else the machine runs."""
    import heapq

    costs = [float(r.get("cpu_seconds", 0.0)) for r in records]
    workers = [0.0, 0.0]
    for cost in costs:
        heapq.heappush(workers, heapq.heappop(workers) + cost)
    return sum(costs) / max(workers) if max(workers) else 1.0


def _timed_cpu(fn) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process and its children, value)."""
    import resource

    def cpu() -> float:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    before = cpu()
    seconds, value = _timed(fn)
    return seconds, cpu() - before, value


def _cold_every_test(runner, mutants):
    from harness.mutants import warm

    saved, warm.WARM = warm.WARM, False
    try:
        return runner.run_all(mutants, jobs=2, timeout=TIMEOUT, generated=runner.GeneratedOptions(deep=True))
    finally:
        warm.WARM = saved


def _dask_rows(report, mutants, options, n: int) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("  (dask rows skipped: pip install 'constrain-harness[dask]')", file=report.out)
        return
    from harness.fanout.dask_local import LocalCluster
    from harness.mutants import runner

    for workers in (1, 2):
        records: list[dict] = []
        with LocalCluster(workers=workers) as cluster:
            seconds, results = _timed(lambda: runner.run_all(mutants, jobs=1, timeout=TIMEOUT, generated=options,
                                                             scheduler=cluster.address, state=_Records(records)))
        cpu = sum(float(r.get("cpu_seconds", 0.0)) for r in records)
        report.add(Row("mutants --generated", f"sample {n}, dask {workers} worker(s)", Timing(seconds, seconds, 1),
                       note=f"{_outcomes(results)}; tasks' CPU {cpu:.0f} s; {_load()}",
                       peer_of=f"sample {n}, dask 2 worker(s)" if workers == 1 else None,
                       target="ratio (2 workers / 1) <= 0.556: 1.8x" if workers == 1 else ""))


def _outcomes(results) -> str:
    counts: dict[str, int] = {}
    for result in results:
        counts[result.outcome.value] = counts.get(result.outcome.value, 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
