"""The developer measures of the ``mutants`` verb, each a typed options value made here
(argparse stops at the commands):

    constrain-harness mutants --stability --jobs 1 --json stability.json            # s01-s27 x 20 seeds
    constrain-harness mutants --stability --only s12,s21 --seeds 3                  # a few, quickly
    constrain-harness mutants --stability --generated --sample 16 --seed 48         # generated mutants
    constrain-harness mutants --stability --generated --only compile.NumberReplacer.4 --tests test_every_state_is_live
    constrain-harness mutants --tools --module parser --sample 40 --seed 1 --md tools.md --json tools.json

``--stability``: ``harness.mutants.stability.StabilityOptions`` (does each mutant die under
every run seed?); ``--tools``: ``harness.mutants.tools_generated.ToolsOptions`` (generated
mutants of ``oracles/tools`` against the tools golden replay). Each mode takes only the
options it names (``STABILITY_TAKES``, ``TOOLS_TAKES``); any other option given is a usage
error, as is a field its options value refuses.
"""

from __future__ import annotations

from harness.commands.args import write_requested
from harness.exitcodes import ExitCode

STABILITY_TAKES = frozenset({"only", "generated", "sample", "seed", "seeds", "tests", "jobs", "timeout", "json"})
"""The ``mutants`` options (argparse dests) ``--stability`` reads."""
TOOLS_TAKES = frozenset({"module", "sample", "seed", "jobs", "timeout", "json", "md", "html"})
"""The ``mutants`` options (argparse dests) ``--tools`` reads: its reports are the generated run's."""
_NOT_OPTIONS = frozenset({"verb", "_module", "stability", "tools"})


def strays(args, takes: frozenset[str]) -> list[str]:
    """The options given (not None, not False) that the mode does not read, as ``--option``."""
    return [f"--{name.replace('_', '-')}" for name, value in vars(args).items()
            if name not in _NOT_OPTIONS and name not in takes and value is not None and value is not False]


def stability_options(args):
    """The ``StabilityOptions`` of a ``mutants --stability`` command line (a ValueError names a bad field)."""
    from harness.mutants.stability import STABILITY_SEEDS, StabilityOptions

    return StabilityOptions(only=tuple(args.only or ()), generated=bool(args.generated), sample=args.sample,
                            sample_seed=1 if args.seed is None else args.seed,
                            seeds=len(STABILITY_SEEDS) if args.seeds is None else args.seeds,
                            tests=None if args.tests is None else tuple(args.tests), jobs=args.jobs,
                            timeout=args.timeout, json=args.json)


def tools_options(args):
    """The ``ToolsOptions`` of a ``mutants --tools`` command line (a ValueError names a bad field)."""
    from harness.mutants.tools_generated import TOOLS_MODULES, TOOLS_TIMEOUT, ToolsOptions

    return ToolsOptions(sample=args.sample, seed=0 if args.seed is None else args.seed, jobs=args.jobs,
                        modules=tuple(args.module or TOOLS_MODULES), timeout=args.timeout or TOOLS_TIMEOUT)


def run(args, stdout, stderr) -> int:
    """``mutants --stability`` or ``mutants --tools``: usage errors first, then the measure."""
    if args.stability and args.tools:
        print("constrain-harness mutants: error: --stability and --tools are two measures: one at a time",
              file=stderr)
        return int(ExitCode.USAGE)
    takes, make = (STABILITY_TAKES, stability_options) if args.stability else (TOOLS_TAKES, tools_options)
    mode = "--stability" if args.stability else "--tools"
    stray = strays(args, takes)
    if stray:
        print(f"constrain-harness mutants: error: {', '.join(stray)} cannot be combined with {mode}", file=stderr)
        return int(ExitCode.USAGE)
    try:
        options = make(args)
        if args.stability:
            from harness.mutants import stability

            mutants = options.mutants()   # an unknown generated id: a usage error before anything runs
    except (TypeError, ValueError) as exc:
        print(f"constrain-harness mutants: error: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    if args.stability:
        return stability.run(options, stdout, mutants)
    return _tools(options, args, stdout, stderr)


def _tools(options, args, stdout, stderr) -> int:
    from harness.mutants import course, report, tools_generated
    from harness.mutants.runner import Outcome

    results, lookup = tools_generated.run(options)
    killed = course.with_course_pages(results, lookup)
    print(killed.terminal, file=stdout)
    print("\n" + report.rates_table(results, lookup), file=stdout)
    if not write_requested(args, killed, stderr, prefix="mutants: "):
        return int(ExitCode.USAGE)
    ok = all(r.outcome in (Outcome.KILLED, Outcome.TIMEOUT) for r in results)
    return int(ExitCode.OK if ok else ExitCode.FAILED)
