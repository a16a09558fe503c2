"""Generated mutants with the zygote (``harness.sandbox.zygote``): the same verdict for every
mutant of a seeded sample as with a fresh candidate process per catalogue run (outcome, tier,
killers, the evidence's kind), the zygote really used, and nothing of it left running after the
run. The sandbox-level guarantees (files, processes, memory, CPU) are tests/sandbox/test_zygote.py's.

Here, under ``slow``, the issue's sample of 12, warm graders both ways (with the zygote and without).
The default run's sample (4, seed 52) is ``tests/mutants/test_mutants_errors.py``'s
``test_a_seeded_sample_gets_the_same_verdicts_with_the_zygote``: it reads the fast path's run (the
zygote's candidates) against the slow path's (a fresh candidate per catalogue run), the two runs
that file's fast-against-slow test reads too, so no sample is run twice for the two claims."""

from __future__ import annotations

import os

import pytest

from harness.mutants import generation, runner, warm
from harness.mutants.runner import Outcome, run_generated
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined, without_oracle_memo

pytestmark = [confined, pytest.mark.e2e]


def _verdicts(monkeypatch, mutants, *, zygote: bool) -> tuple[dict[str, tuple], list[dict]]:
    """Each mutant's verdict (the default tier up to its first kill and the equivalence decision,
    warm graders either way: the verb's run of generated mutants), each result ``consistent``, and
    the warm graders' replies."""
    monkeypatch.setattr(warm, "WARM", True)
    monkeypatch.setattr(warm, "ZYGOTE", zygote)
    without_oracle_memo(monkeypatch)   # a grader's cache, no candidate's: the claim is the zygote's
    monkeypatch.setattr(runner, "_ZYGOTE_SAID", [])
    replies: list[dict] = []
    original = warm.WarmGrader.run

    def recorded(self, *args, **kwargs):
        replies.append(original(self, *args, **kwargs))
        return replies[-1]
    monkeypatch.setattr(warm.WarmGrader, "run", recorded)
    warm.close_all()

    def run(mutant, root, timeout):
        return run_generated(mutant, root, timeout, deep=False, first_kill=True)
    results = runner.run_all(mutants, jobs=2, run=run)
    consistent(results)
    return {r.id: (r.outcome, r.tier, tuple(r.killed_by), (r.evidence or {}).get("kind")) for r in results}, replies


def _descendants_running(word: bytes) -> list[int]:
    """This process's descendants whose command line holds ``word``."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    parents[int(name)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found = []
    for pid in parents:
        ancestor, hops = parents.get(pid), 0
        while ancestor and ancestor != os.getpid() and hops < 64:
            ancestor, hops = parents.get(ancestor), hops + 1
        if ancestor == os.getpid():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if word in f.read():
                        found.append(pid)
            except OSError:
                pass
    return found


def _same_verdicts(monkeypatch, n: int, seed: int) -> dict[str, tuple]:
    mutants, _ = generation.pick(generation.enumerate_sites(), n, seed)
    forked, replies = _verdicts(monkeypatch, mutants, zygote=True)
    assert not _descendants_running(b"zygote_server")   # run_all closed its warm graders, and so their zygotes
    fresh, fresh_replies = _verdicts(monkeypatch, mutants, zygote=False)
    assert forked == fresh
    assert not [m for m, v in forked.items() if v[0] is Outcome.ERROR], forked
    catalogue = [r for r in replies if "zygote_cpu" in r]
    assert catalogue and all(r["zygote_cpu"] > 0 for r in catalogue[:1]), replies   # its start counted
    assert runner._ZYGOTE_SAID == [] and not any("zygote_off" in r for r in replies), replies  # never fell back
    assert not any("zygote_cpu" in r for r in fresh_replies)
    return forked


@pytest.mark.slow
def test_the_issue_s_sample_gets_the_same_verdicts_with_the_zygote(monkeypatch):
    # --sample 12 --seed 3, as the issue names it
    _same_verdicts(monkeypatch, 12, seed=3)
