"""Generated mutants of the tool surface (``oracles/tools``), killed by the tools golden replay.

The Rust port's tool surface is held to ``golden/tools_golden.json``; this measures how much
of that file's power is real, the way the catalogue's is measured: every site of the
generator's operators (``generation``) in ``oracles/tools``' modules, each mutant a private
copy of ``oracles/tools`` replayed behind the wall (``runner.run_replay(tools=True)``, the
replay child that kills the ``l10_9`` catalogue mutants), up to its first failing check.

- ids are the generator's with a ``tools.`` prefix (``tools.parser.NumberReplacer.3``), stable
  for a given text of ``oracles/tools`` as the reference's are;
- ``sample(n, seed)`` is a seeded shuffle of the sites built until ``n`` distinct valid mutants
  are kept (``generation.pick``'s rule, built in this process);
- outcomes: killed (tier ``replay``: the first failing check named), timeout, error, survived
  (every check passed: a gap in the file, or an equivalent mutant; there is no exhaustive
  domain for the tool surface, so none is called equivalent);
- the report is the generated run's (``report.rates_table``, ``course.to_markdown``/``to_html``,
  ``report.to_stryker``).

What to run is one frozen, validated ``ToolsOptions`` (a bad field: a ValueError naming its
option); ``run(options)`` returns the results and their lookup. The command line is
``constrain-harness mutants --tools`` (``harness.commands.mutants_modes``), whose reports are the
generated run's (``--json``, ``--md``, ``--html``)::

    constrain-harness mutants --tools --sample 40 --seed 1 --jobs 2 --md tools.md --json tools.json
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import time
from pathlib import Path

from harness.argtypes import check_jobs
from harness.mutants import generation
from harness.mutants.apply import TOOLS_REFERENCE_DIR
from harness.mutants.mutant import TOOLS_REPLAY
from harness.mutants.runner import MutantResult, Outcome, run_replay
from harness.seconds import check_seconds

TOOLS_MODULES = ("grammar", "parser", "render", "request", "wire")
"""The modules of ``oracles/tools`` with code to mutate (``__init__`` only re-exports)."""
TOOLS_TIMEOUT = 60.0
"""CPU seconds for one replay of a mutant (the whole replay takes 8-13 on a catalogue mutant)."""


@dataclasses.dataclass(frozen=True)
class ToolsMutant(generation.GeneratedMutant):
    """A generated mutant of ``oracles/tools``: its id prefixed ``tools.``, replayed, not graded."""

    id = property(lambda self: f"tools.{self.site.id}")
    kind = TOOLS_REPLAY


def sites(modules: tuple[str, ...] = TOOLS_MODULES) -> list[generation.Site]:
    return generation.enumerate_sites(modules=list(modules), reference=TOOLS_REFERENCE_DIR)


def sample(n: int | None, seed: int, modules: tuple[str, ...] = TOOLS_MODULES) -> list[ToolsMutant]:
    """``n`` distinct valid mutants (all when None) from a seeded shuffle of the sites, in site order."""
    chosen = sites(modules)
    order = list(range(len(chosen)))
    random.Random(seed).shuffle(order)
    kept: dict[int, ToolsMutant] = {}
    seen: set[tuple[str, str]] = set()
    for i in order:
        if n is not None and len(kept) >= n:
            break
        built, _ = generation.build(chosen[i], TOOLS_REFERENCE_DIR)
        if built is None or (built.file, built.source) in seen:
            continue
        seen.add((built.file, built.source))
        kept[i] = ToolsMutant(built.site, built.source, built.before, built.after)
    return [kept[i] for i in sorted(kept)]


def materialize(mutant: ToolsMutant, root: Path) -> Path:
    """A copy of ``oracles/tools`` at ``root/<mutant.package>`` with the mutated file written."""
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(TOOLS_REFERENCE_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / mutant.file).write_text(mutant.source, encoding="utf-8")
    return target


def run_tools_mutant(mutant: ToolsMutant, root: Path, timeout: float = TOOLS_TIMEOUT) -> MutantResult:
    """The tools replay against the mutant, up to its first failing check."""
    start = time.monotonic()
    package = materialize(mutant, root)
    try:
        checks, problem = run_replay(package, timeout, tools=True, first_kill=())
    finally:
        shutil.rmtree(package, ignore_errors=True)
    seconds = time.monotonic() - start
    failed = [c for c, outcome in checks.items() if outcome == "failed"]
    if problem == "timeout":
        return MutantResult(mutant.id, Outcome.TIMEOUT, (), failed, checks, seconds, "timeout", "replay")
    if problem is not None:
        return MutantResult(mutant.id, Outcome.ERROR, (), failed, checks, seconds, problem)
    if failed:
        return MutantResult(mutant.id, Outcome.KILLED, (), failed, checks, seconds, "", "replay")
    return MutantResult(mutant.id, Outcome.SURVIVED, (), [], checks, seconds, "every check of the tools replay passed")


@dataclasses.dataclass(frozen=True)
class ToolsOptions:
    """One run of the tools mutants: ``sample`` distinct mutants (None: every site) of a shuffle
    seeded with ``seed`` (an int >= 0), over ``modules`` (a non-empty subset of
    ``TOOLS_MODULES``), ``jobs`` at a time (1 .. ``MAX_JOBS``), each replay ``timeout`` CPU
    seconds. Frozen and validated when made: a bad field is a ``ValueError`` (``TypeError`` for
    a wrong type) naming its command-line option."""

    sample: int | None = None
    seed: int = 0
    jobs: int = 2
    modules: tuple[str, ...] = TOOLS_MODULES
    timeout: float = TOOLS_TIMEOUT

    def __post_init__(self):
        if self.sample is not None and (isinstance(self.sample, bool) or not isinstance(self.sample, int)
                                        or self.sample < 1):
            raise ValueError(f"--sample must be an integer >= 1, not {self.sample!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"--seed must be an integer >= 0, not {self.seed!r}")
        check_jobs(self.jobs)
        if isinstance(self.modules, str) or not all(isinstance(m, str) for m in self.modules):
            raise TypeError(f"--module takes a sequence of module names, not {self.modules!r}")
        unknown = [m for m in self.modules if m not in TOOLS_MODULES]
        if unknown or not self.modules:
            raise ValueError(f"--module must name modules of oracles/tools ({', '.join(TOOLS_MODULES)}), "
                             f"not {', '.join(unknown) or 'none'}")
        object.__setattr__(self, "modules", tuple(dict.fromkeys(self.modules)))
        check_seconds("--timeout", self.timeout)


def run(options: ToolsOptions, progress=None) -> tuple[list[MutantResult], dict[str, ToolsMutant]]:
    """The tools replay against ``options``' mutants: (the results, id -> mutant)."""
    from harness.mutants.runner import run_all

    mutants = sample(options.sample, options.seed, options.modules)
    lookup = {m.id: m for m in mutants}
    results = run_all(mutants, jobs=options.jobs, progress=progress,
                      run=lambda m, root, timeout: run_tools_mutant(m, root, options.timeout))
    return results, lookup
