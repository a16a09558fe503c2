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

Example (about 1-2 CPU s a run: 27 mutants x 20 seeds is ~10 CPU minutes)::

    python -m harness.mutants.stability --jobs 1 --json stability.json          # the catalogue
    python -m harness.mutants.stability --only s12,s21 --seeds 3                # a few, quickly
    python -m harness.mutants.stability --generated-sample 30 --json gen.json   # generated mutants
    python -m harness.mutants.stability --generated compile.NumberReplacer.4    # named ones
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import shutil
import sys
from pathlib import Path

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
from harness.suite.seeding import check_seed

__all__ = ["STABILITY_SEEDS", "SeedKills", "seeds", "kills_under_seeds", "measure", "table"]


def seeds(count: int) -> tuple[int, ...]:
    """``count`` run seeds spread over 0 .. MAX_SEED: the first 4 bytes of sha256("stability:i"),
    i = 1 .. count (what a submission's hash looks like; never seed 0, the catalogue's own)."""
    found = tuple(int.from_bytes(hashlib.sha256(f"stability:{i}".encode()).digest()[:4], "big")
                  for i in range(1, count + 1))
    return tuple(check_seed(s) for s in found)


STABILITY_SEEDS = seeds(20)
"""The 20 run seeds the seed-stability table (``harness/mutants/README.md``) is measured on."""


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


def _generated(size: int | None, seed: int, ids: list[str] | None = None) -> list:
    """A seeded sample of ``size`` generated mutants, or the ones named by ``ids``."""
    from harness.mutants import generation

    sites = generation.enumerate_sites()
    if ids:
        sites = generation.only(sites, ids)
    mutants, _dropped = generation.pick(sites, size, seed, jobs=1)
    return mutants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.mutants.stability", description=__doc__.split("\n")[0])
    parser.add_argument("--only", metavar="IDS", help="comma-separated catalogue mutant ids (default s01-s27)")
    parser.add_argument("--seeds", type=int, default=len(STABILITY_SEEDS), help="how many run seeds (default 20)")
    parser.add_argument("--generated-sample", type=int, default=None, metavar="N",
                        help="a seeded sample of N generated mutants instead of the catalogue (whole default tier)")
    parser.add_argument("--sample-seed", type=int, default=1, help="--generated-sample: its seed (default 1)")
    parser.add_argument("--generated", metavar="IDS", help="these generated mutants (comma-separated ids)")
    parser.add_argument("--tests", metavar="NAMES", help="count kills by these catalogue tests (comma-separated) "
                        "instead of the expected killers (a generated mutant: the whole default tier)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="write the kills per seed as JSON")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.generated_sample is not None or args.generated:
        ids = args.generated.split(",") if args.generated else None
        mutants, timeout = _generated(args.generated_sample, args.sample_seed, ids), GENERATED_TIMEOUT
    else:
        wanted = args.only.split(",") if args.only else [m.id for m in MUTANTS if m.kind == CATALOGUE]
        unknown = [x for x in wanted if x not in BY_ID or BY_ID[x].kind != CATALOGUE]
        if unknown:
            parser.error(f"not a catalogue mutant: {', '.join(unknown)}")
        mutants, timeout = [BY_ID[x] for x in wanted], DEFAULT_TIMEOUT

    def progress(result, done, total):
        print(f"{done}/{total} {result.id}: killed under {len(result.killed_by)}/{len(result.tests)} seeds",
              flush=True)
    tests = tuple(args.tests.split(",")) if args.tests else None
    kills = measure(mutants, seeds(args.seeds), jobs=args.jobs, timeout=timeout, progress=progress, tests=tests)
    print(table(kills))
    if args.json:
        Path(args.json).write_text(json.dumps(_to_json(kills), indent=1) + "\n", encoding="utf-8")
    return 0 if all(not k.survived and not k.other for k in kills) else 1


if __name__ == "__main__":
    sys.exit(main())
