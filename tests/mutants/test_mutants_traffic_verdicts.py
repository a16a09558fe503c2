"""The same verdicts with every pass of a generated mutant run for real (``CONSTRAIN_HARNESS_NO_REPLAY=1``)
and with the passes decided by replaying the first pass of their selection that passed
(``harness.mutants.traffic``): a seeded sample of every module's mutants, each run the verb's way (first
kill, the deep pass, the coverage map with its figures, its recordings kept beside a copy of it), the same
outcome, tier, killers and evidence for every one, and some pass of each tier decided by a replay (else the
sample proves nothing; three survivors of one deep selection are added, so a later one replays an earlier
one's deep pass). Running the sample twice costs minutes: ``slow``."""

from __future__ import annotations

import dataclasses
import json

import pytest

from harness.mutants import coverage, generation, runner, traffic
from harness.mutants.runner import GeneratedOptions
from tests.mutants.test_mutants_stage_memo_verdicts import verdicts_off_and_on
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]


SURVIVORS = ["index.NumberReplacer.3", "index.NumberReplacer.4", "index.NumberReplacer.5"]
"""Three survivors of both tiers (unproven: a size bound, the whole run of 2026-12-08) whose statements run at
import, so all three ask for the same deep selection (every test less the settled ones): with two workers
the third starts after the first or second has ended, its deep pass recorded, so a deep pass is replayed.
The seeded sample of 12 holds no survivor (its run of 2026-12-07: every pass it decided was a default one)."""


def test_the_replayed_passes_change_no_verdict(monkeypatch, tmp_path):
    cmap = coverage.CoverageMap.load(coverage.default_path(None))
    if cmap is None:   # none kept for this reference
        cmap = coverage.load_or_record(tmp_path / "kept.json", runner.GENERATED_TIMEOUT)
    cmap = dataclasses.replace(cmap, path=str(tmp_path / "map.json"))   # its recordings go to tmp_path
    sites = generation.enumerate_sites()
    sample, _ = generation.pick(sites, 12, seed=8)
    survivors = [generation.build(site)[0] for site in generation.only(sites, SURVIVORS)]
    mutants = [*survivors, *(m for m in sample if m.id not in SURVIVORS)]
    options = GeneratedOptions(first_kill=True, coverage=cmap)
    log = tmp_path / "replay.jsonl"   # each replay's decision (the run with replays off writes none)
    monkeypatch.setenv(traffic.LOG_VARIABLE, str(log))
    folder = traffic.folder_for(cmap.path, cmap.digest)
    verdicts_off_and_on(mutants, monkeypatch, lambda plans: all(p.replay == folder for p in plans),
                        traffic.OFF_VARIABLE, options, unused=lambda plans: all(p.replay is None for p in plans))
    decided = {d["deep"] for d in map(json.loads, log.read_text(encoding="utf-8").splitlines()) if d["decided"]}
    assert decided == {False, True}   # a default pass and a deep pass decided by a replay
