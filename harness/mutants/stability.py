"""Seed stability: does each catalogue mutant die under every run seed, not just under seed 0?

A test that exists to catch a mistake must catch it whatever the run seed (a batch or
Gradescope run draws its seed from a course secret, ``harness.suite.seeding``): a kill that
depends on the seed is a kill a student can buy back by changing a comment. This module runs
a mutant's expected killers (the tests the spec names for it; a generated mutant: the whole
default tier) once per run seed and counts the seeds under which one of them fails.

Input: catalogue mutants (``catalogue.MUTANTS``, kind ``catalogue``) or generated mutants,
and run seeds (``STABILITY_SEEDS`` by default: 20 seeds spread over the whole seed range, as a
hash of a submission would be). Output: per mutant, the seeds that killed it
(``SeedKills``), and a Markdown table (``table``). Each (mutant, seed) run is a catalogue run
behind the wall like any other (``runner.run_catalogue_against`` with ``run_seed``).

Guarantee checked by ``tests/mutants/test_seed_stability.py``: every catalogue mutant the catalogue
kills at seed 0 is killed by its expected killers under every seed listed here.

What to measure is one frozen, validated ``StabilityOptions`` (a bad field: a ValueError
naming its option); ``run(options)`` measures and prints. The command line is
``constrain-harness mutants --stability`` (``harness.commands.mutants_modes``; argparse stops at
the commands). Example (about 1-2 CPU s a run: 27 mutants x 20 seeds is ~10 CPU minutes)::

    constrain-harness mutants --stability --jobs 1 --json stability.json            # the catalogue
    constrain-harness mutants --stability --only s12,s21 --seeds 3                  # a few, quickly
    constrain-harness mutants --stability --generated --sample 30 --json gen.json   # generated mutants
    constrain-harness mutants --stability --generated --only compile.NumberReplacer.4   # named ones
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sys
from pathlib import Path

from harness.argtypes import check_jobs
from harness.mutants.catalogue import BY_ID, CATALOGUE, MUTANTS, Mutant
from harness.mutants.runner import (
    DEFAULT_TIMEOUT,
    GENERATED_TIMEOUT,
    MutantResult,
    Outcome,
    run_all,
    run_catalogue_against,
)
from harness.mutants.runner import _failed as failed_tests
from harness.seconds import check_seconds
from harness.suite.seeding import check_seed

__all__ = ["STABILITY_SEEDS", "MAX_STABILITY_SEEDS", "SeedKills", "StabilityOptions", "seeds", "kills_under_seeds",
           "measure", "table", "run"]

MAX_STABILITY_SEEDS = 1000
"""Most run seeds one measure takes (each is a catalogue run per mutant)."""


def seeds(count: int) -> tuple[int, ...]:
    """``count`` run seeds spread over 0 .. MAX_SEED: the first 4 bytes of sha256("stability:i"),
    i = 1 .. count (what a submission's hash looks like; never seed 0, the catalogue's own)."""
    found = tuple(int.from_bytes(hashlib.sha256(f"stability:{i}".encode()).digest()[:4], "big")
                  for i in range(1, count + 1))
    return tuple(check_seed(s) for s in found)


STABILITY_SEEDS = seeds(20)
"""The 20 run seeds the seed-stability table (``docs/mutants-seed-stability.md``) is measured on."""


@dataclasses.dataclass(frozen=True)
class SeedKills:
    """One mutant over several run seeds: ``killed`` / ``survived`` / ``other`` (a timeout or a
    runner error: neither a kill nor a survival, reported apart) each a tuple of seeds."""

    id: str
    killed: tuple[int, ...]
    survived: tuple[int, ...]
    other: tuple[tuple[int, str], ...] = ()

    @property
    def runs(self) -> int:
        return len(self.killed) + len(self.survived) + len(self.other)


def _expected_tests(mutant) -> tuple[str, ...] | None:
    """The tests whose failure counts as a kill: a catalogue mutant's expected killers (the
    spec's), a generated mutant's whole default tier (None)."""
    return mutant.killers if isinstance(mutant, Mutant) else None


def kills_under_seeds(mutant, root: Path, timeout: float, run_seeds: tuple[int, ...],
                      tests: tuple[str, ...] | None = None) -> MutantResult:
    """Run ``mutant``'s expected killers (``tests`` instead, when given) once under each seed of
    ``run_seeds``: a ``MutantResult``
    whose ``tests`` maps ``"seed N"`` to ``"failed"`` (killed), ``"passed"`` (survived) or the
    problem (a timeout, a runner error), so ``run_all`` can fan it out and record it. A generated
    mutant run on the whole default tier that survives the first seed is not run under the others
    (the sample is of the mutants the catalogue kills; a survivor costs the whole catalogue a seed)."""
    from harness.mutants.apply import materialize, materialize_generated

    package = materialize(mutant, root) if isinstance(mutant, Mutant) else materialize_generated(mutant, root)
    tests = tests or _expected_tests(mutant)
    outcomes: dict[str, str] = {}
    try:
        for seed in run_seeds:
            if tests is None and outcomes and "failed" not in outcomes.values():
                outcomes[f"seed {seed}"] = "not run: the first seed did not kill it"   # a survivor: no sample
                continue
            ran, problem = run_catalogue_against(package, tests, False, timeout, first_kill=True, run_seed=seed)
            wanted = [t for t in failed_tests(ran) if tests is None or t in tests]
            outcomes[f"seed {seed}"] = "failed" if wanted else (problem or "passed")
    finally:
        shutil.rmtree(package, ignore_errors=True)
    killed = [name for name, outcome in outcomes.items() if outcome == "failed"]
    outcome = Outcome.KILLED if len(killed) == len(outcomes) else Outcome.SURVIVED
    return MutantResult(mutant.id, outcome, tuple(tests or ()), killed, outcomes, 0.0)


def _seed_kills(result: MutantResult) -> SeedKills:
    by = {"failed": [], "passed": [], "other": []}
    for name, outcome in result.tests.items():
        seed = int(name.removeprefix("seed "))
        if outcome in ("failed", "passed"):
            by[outcome].append(seed)
        else:
            by["other"].append((seed, outcome))
    return SeedKills(result.id, tuple(by["failed"]), tuple(by["passed"]), tuple(by["other"]))


def measure(mutants, run_seeds: tuple[int, ...] = STABILITY_SEEDS, *, jobs: int = 1,
            timeout: float = DEFAULT_TIMEOUT, progress=None, tests: tuple[str, ...] | None = None) -> list[SeedKills]:
    """Each mutant's kills over ``run_seeds`` (``jobs`` mutants at a time, each its seeds in turn),
    by its expected killers or by ``tests`` when given."""
    run_seeds = tuple(check_seed(s) for s in run_seeds)

    def run(mutant, root, limit):
        return kills_under_seeds(mutant, root, limit, run_seeds, tests)
    results = run_all(list(mutants), jobs=jobs, timeout=timeout, run=run, progress=progress)
    return [_seed_kills(r) for r in results]


def table(before: list[SeedKills], after: list[SeedKills] | None = None) -> str:
    """The Markdown table: mutant, its expected killers' kills / seeds, before (and after)."""
    after_by = {k.id: k for k in after or ()}
    head = "| mutant | killed under (before) |" + (" killed under (after) |" if after else "")
    rule = "|---|---|" + ("---|" if after else "")
    rows = [head, rule]
    for kills in before:
        row = f"| {kills.id} | {_fraction(kills)} |"
        if after:
            row += f" {_fraction(after_by[kills.id]) if kills.id in after_by else '-'} |"
        rows.append(row)
    return "\n".join(rows)


def _fraction(kills: SeedKills) -> str:
    text = f"{len(kills.killed)}/{kills.runs}"
    if kills.other:
        text += f" ({len(kills.other)} {', '.join(sorted({why for _, why in kills.other}))})"
    return f"**{text}**" if kills.survived or kills.other else text


def _to_json(kills: list[SeedKills]) -> list[dict]:
    return [{"id": k.id, "killed": list(k.killed), "survived": list(k.survived),
             "other": [[s, why] for s, why in k.other]} for k in kills]


@dataclasses.dataclass(frozen=True)
class StabilityOptions:
    """One seed-stability measure. ``only``: the mutants' ids (catalogue ids; with ``generated``
    the generator's ids), empty for all (the catalogue: s01-s27; generated: a sample of
    ``sample`` mutants drawn with ``sample_seed``, every site when None); ``seeds``: how many
    run seeds (1 .. ``MAX_STABILITY_SEEDS``, the first of ``seeds(n)``); ``tests``: count kills by
    these catalogue tests instead of the expected killers (None: the expected killers, a
    generated mutant's whole default tier); ``jobs`` mutants at a time (1 .. ``MAX_JOBS``);
    ``timeout`` CPU seconds per run (None: the runner's default for the kind); ``json``: where
    the kills per seed are written, or None. Frozen and validated when made: a bad field is a
    ``ValueError`` (``TypeError`` for a wrong type) naming its command-line option."""

    only: tuple[str, ...] = ()
    generated: bool = False
    sample: int | None = None
    sample_seed: int = 1
    seeds: int = len(STABILITY_SEEDS)
    tests: tuple[str, ...] | None = None
    jobs: int = 1
    timeout: float | None = None
    json: Path | None = None

    def __post_init__(self):
        object.__setattr__(self, "only", _names("--only", self.only))
        if self.tests is not None:
            object.__setattr__(self, "tests", _names("--tests", self.tests) or None)
        _count("--seeds", self.seeds, 1, MAX_STABILITY_SEEDS)
        check_jobs(self.jobs)
        if self.sample is not None:
            _count("--sample", self.sample, 1, 1_000_000)
        try:
            check_seed(self.sample_seed)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"--seed: {exc}") from None
        if not isinstance(self.generated, bool):
            raise TypeError(f"StabilityOptions.generated must be a bool, not {self.generated!r}")
        if not self.generated and self.sample is not None:
            raise ValueError("--sample needs --generated (the catalogue is not sampled)")
        if self.timeout is not None:
            check_seconds("--timeout", self.timeout)
        if self.json is not None:
            object.__setattr__(self, "json", Path(self.json))
        if not self.generated:
            unknown = [x for x in self.only if x not in BY_ID or BY_ID[x].kind != CATALOGUE]
            if unknown:
                raise ValueError(f"--only: not a catalogue mutant: {', '.join(unknown)}")

    def mutants(self) -> list:
        """The mutants measured (generated ones are built here: a ValueError names an unknown id)."""
        if self.generated:
            return _generated(self.sample, self.sample_seed, list(self.only) or None)
        wanted = self.only or tuple(m.id for m in MUTANTS if m.kind == CATALOGUE)
        return [BY_ID[x] for x in wanted]

    @property
    def run_timeout(self) -> float:
        return self.timeout or (GENERATED_TIMEOUT if self.generated else DEFAULT_TIMEOUT)


def _names(option: str, value) -> tuple[str, ...]:
    if isinstance(value, str) or not all(isinstance(x, str) and x for x in value):
        raise TypeError(f"{option} takes a sequence of names, not {value!r}")
    return tuple(value)


def _count(option: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{option} must be an integer in {low} .. {high}, not {value!r}")


def _generated(size: int | None, seed: int, ids: list[str] | None = None) -> list:
    """A seeded sample of ``size`` generated mutants, or the ones named by ``ids``."""
    from harness.mutants import generation

    sites = generation.enumerate_sites()
    if ids:
        sites = generation.only(sites, ids)
    mutants, _dropped = generation.pick(sites, size, seed, jobs=1)
    return mutants


def run(options: StabilityOptions, out=None, mutants: list | None = None) -> int:
    """Measure ``options`` (on ``mutants``, when already built by ``options.mutants()``), print the
    progress and the table on ``out`` (stdout), write ``options.json``; 0 when every mutant died
    under every seed, else 1."""
    out = out or sys.stdout
    mutants = options.mutants() if mutants is None else mutants

    def progress(result, done, total):
        print(f"{done}/{total} {result.id}: killed under {len(result.killed_by)}/{len(result.tests)} seeds",
              file=out, flush=True)
    kills = measure(mutants, seeds(options.seeds), jobs=options.jobs, timeout=options.run_timeout,
                    progress=progress, tests=options.tests)
    print(table(kills), file=out)
    if options.json is not None:
        options.json.write_text(json.dumps(_to_json(kills), indent=1) + "\n", encoding="utf-8")
    return 0 if all(not k.survived and not k.other for k in kills) else 1
